"""Benchmark of ``graphniah run --batch``: SIGKILLs at random moments, and the runner's CPU per example.

The suite: the demo suite (``graphniah demo``'s, built once under ``bench/.data/batch``), its
examples repeated under new ids up to ``--examples`` (default 500). The service: the fake
OpenAI-compatible batch service (``graphniah.run.serve.batches``, oracle policy, each batch
finishing on its ``--polls``-th retrieval), in a process of its own, its state on disk.

1. **Kills.** A reference run (``graphniah run --batch`` as a subprocess, uninterrupted) gives the
   duration T and the scores. Then ``--kills`` times: a ``graphniah run --batch`` subprocess is
   started on the current state and killed with SIGKILL at a moment drawn uniformly from [0, T] (a
   seeded ``numpy.random.Generator``). A run that finishes before its moment ends an *epoch*: its
   counts are checked and the next trial starts on a fresh service and journal. Checked per epoch:
   *lost* (examples without an answer), *duplicated submissions* (the service counts each custom id
   in the batches created; more than one is a second payment), *duplicated answers* (``ok`` records
   of one example in the journal), and scores differing from the reference's. Printed: where the
   kills fell (the journal's last batch event before the kill) and the totals.
2. **CPU.** The same examples through ``run_suite`` in this process (LiteLLM already imported),
   once in batch mode against the batch service and once direct against ``graphniah serve
   --policy oracle`` (both servers in their own processes): the CPU seconds this process spends
   per example, and their ratio.

With ``--provider anthropic`` the runner sends an ``anthropic/...`` model (a registry of its own, a
bench-only key in ``ANTHROPIC_API_KEY`` that the service requires) through Anthropic's Message
Batches shape of the same service: no upload, and batches found again by size, age and custom ids.
With ``--provider gemini``, a ``gemini/...`` model (key in ``GEMINI_API_KEY``) through Gemini batch
mode's shape: requests inline, batches found again by their display name.

Usage: ``python bench/batch.py [--examples 500] [--kills 20] [--seed 0] [--batch-size 50] [--polls 3] [--provider openai|anthropic|gemini]``
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import shutil
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import yaml

from graphniah.formats.examples import read_examples, write_examples
from graphniah.formats.journal import read_batches
from graphniah.layout import journal_file
from graphniah.run import RunOptions, read_journal, run_suite
from graphniah.run.batch.options import BatchOptions
from graphniah.run.client import litellm_module
from graphniah.run.models import load_registry

CACHE = Path(__file__).resolve().parent / ".data" / "batch"
CUTOFF = "2026-04-01"
MODEL = "local-oracle"
#: What the runner sends to: the model, and for ``--provider anthropic`` its registry and the service's key.
TARGET: dict[str, Any] = {"model": MODEL, "registry": None, "key": None}
CLI = [sys.executable, "-c", "from graphniah.cli import main; main()"]


def demo_suite(cache: Path) -> tuple[Path, Path]:
    """The demo suite's examples file and snapshots root (``graphniah demo`` once, cached)."""
    examples, snapshots = cache / "examples" / "demo.jsonl", cache / "snapshots"
    if not examples.is_file():
        shutil.rmtree(cache, ignore_errors=True)
        subprocess.run([*CLI, "demo", "--cutoff", CUTOFF, "--root", str(snapshots), "--examples", str(cache / "examples"),
                        "--runs", str(cache / "demo-runs"), "--reports", str(cache / "demo-reports")], check=True,
                       stdout=subprocess.DEVNULL)
    return examples, snapshots


def suite_of(examples: Path, n: int, out: Path) -> list[str]:
    """``n`` examples: the demo suite's, repeated under new ids; their ids."""
    base = read_examples(examples)
    exs = [base[i % len(base)].model_copy(update={"id": f"{base[i % len(base)].id}-{i // len(base)}"}) for i in range(n)]
    write_examples(out, exs)
    return [e.id for e in exs]


#: The model each native provider's runs send (name, LiteLLM model, key variable). The Gemini one is a model
#: LiteLLM's map gives a system instruction: for a name it does not know, LiteLLM folds the system message
#: into the user's turn, where the oracle cannot read the question.
NATIVE = {"anthropic": ("claude-oracle", "anthropic/claude-oracle", "ANTHROPIC_API_KEY"),
          "gemini": ("gemini-oracle", "gemini/gemini-3.1-pro-preview", "GEMINI_API_KEY")}


def native_target(work: Path, provider: str) -> None:
    """Send an ``anthropic/...`` or ``gemini/...`` model: a registry holding it, and a bench-only key the service requires."""
    name, litellm_model, env = NATIVE[provider]
    entry = load_registry()[MODEL].model_dump(mode="json", exclude={"name"})
    entry.update(litellm_model=litellm_model, api_key_env=env)
    registry = work / "models.yaml"
    registry.write_text(yaml.safe_dump({"models": {name: entry}}))
    os.environ[env] = "bench-only-key-0000"
    TARGET.update(model=name, registry=registry, key="bench-only-key-0000")


def _serve(kind: str, state: str, polls: int, queue: Any) -> None:
    if kind == "batch":
        from graphniah.run.serve.batches import BatchFaults, BatchServer

        server: Any = BatchServer("oracle", state_dir=state, faults=BatchFaults(polls_to_complete=polls),
                                  api_key=TARGET["key"])
    else:
        from graphniah.run.serve.policies import PolicyServer

        server = PolicyServer("oracle")
    queue.put(server.url)
    server.serve_forever()


class Service:
    """A server in a child process (forked): the batch service on ``state``, or the direct oracle endpoint."""

    def __init__(self, kind: str, state: Path, polls: int):
        ctx = mp.get_context("fork")
        q = ctx.Queue()
        self.state = state
        self.proc = ctx.Process(target=_serve, args=(kind, str(state), polls, q), daemon=True)
        self.proc.start()
        self.url = str(q.get(timeout=120))

    def counts(self) -> tuple[Counter[str], Counter[str]]:
        """Submissions and answers per custom id, as the service last saved them."""
        doc = json.loads((self.state / "state.json").read_text()) if (self.state / "state.json").exists() else {}
        return Counter(doc.get("submitted", {})), Counter(doc.get("answered", {}))

    def close(self) -> None:
        self.proc.terminate()
        self.proc.join(10)


def runner(examples: Path, snapshots: Path, url: str, runs: Path, batch_size: int, poll_s: float) -> subprocess.Popen[bytes]:
    registry = ["--registry", str(TARGET["registry"])] if TARGET["registry"] else []
    return subprocess.Popen([*CLI, "run", "--model", TARGET["model"], "--batch", "--examples", str(examples), "--api-base",
                             url, "--runs", str(runs), "--snapshots", str(snapshots), "--batch-size", str(batch_size),
                             "--poll-interval", str(poll_s), "--no-progress", *registry],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def answers(runs: Path, suite: str) -> dict[str, tuple[str | None, bool | None]]:
    return {r.example_id: (r.extracted, r.correct) for r in read_journal(journal_file(runs, suite, TARGET["model"]))
            if r.status == "ok"}


def check(ids: list[str], svc: Service, runs: Path, suite: str, reference: dict[str, Any]) -> dict[str, int]:
    """Lost, duplicated submissions, duplicated answers and differing scores of a finished epoch."""
    submitted, _ = svc.counts()
    ok = Counter(r.example_id for r in read_journal(journal_file(runs, suite, TARGET["model"])) if r.status == "ok")
    got = answers(runs, suite)
    return {"lost": sum(1 for i in ids if ok[i] == 0), "dup_submissions": sum(max(0, submitted[i] - 1) for i in ids),
            "dup_answers": sum(max(0, ok[i] - 1) for i in ids), "differ": sum(1 for i in ids if got.get(i) != reference[i])}


def _last_event(runs: Path, suite: str) -> str:
    path = journal_file(runs, suite, TARGET["model"])
    events = [b.event for b in read_batches(path)] if path.exists() else []
    return events[-1] if events else "startup"


def kills(args: argparse.Namespace, examples: Path, snapshots: Path, ids: list[str], work: Path) -> dict[str, Any]:
    rng = np.random.default_rng(args.seed)
    suite = examples.stem
    svc = Service("batch", work / "reference-state", args.polls)
    t0 = time.monotonic()
    proc = runner(examples, snapshots, svc.url, work / "reference-runs", args.batch_size, args.poll_interval)
    if proc.wait() != 0:
        raise SystemExit(f"the reference run failed: {proc.stderr.read().decode()[-2000:] if proc.stderr else ''}")
    duration = time.monotonic() - t0
    reference = answers(work / "reference-runs", suite)
    svc.close()
    assert len(reference) == len(ids), "the reference run left examples unanswered"
    totals: Counter[str] = Counter()
    where: Counter[str] = Counter()
    epoch = done = 0
    svc = Service("batch", work / "state-0", args.polls)
    while done < args.kills:
        runs = work / f"runs-{epoch}"
        moment = float(rng.uniform(0, duration))
        proc = runner(examples, snapshots, svc.url, runs, args.batch_size, args.poll_interval)
        try:
            proc.wait(moment)
        except subprocess.TimeoutExpired:
            last = _last_event(runs, suite)
            where[last] += 1
            proc.send_signal(signal.SIGKILL)
            proc.wait()
            done += 1
            print(f"  kill {done} at {moment:.1f} s (epoch {epoch}; last journaled step: {last})", flush=True)
            continue
        if proc.returncode != 0:
            raise SystemExit(f"a resumed run failed: {proc.stderr.read().decode()[-2000:] if proc.stderr else ''}")
        found = check(ids, svc, runs, suite, reference)
        print(f"  epoch {epoch} finished: {found}", flush=True)
        totals.update(found)
        totals["epochs"] += 1
        svc.close()
        epoch += 1
        svc = Service("batch", work / f"state-{epoch}", args.polls)
    proc = runner(examples, snapshots, svc.url, work / f"runs-{epoch}", args.batch_size, args.poll_interval)
    if proc.wait() != 0:
        raise SystemExit(f"the last run failed: {proc.stderr.read().decode()[-2000:] if proc.stderr else ''}")
    totals.update(check(ids, svc, work / f"runs-{epoch}", suite, reference))
    totals["epochs"] += 1
    svc.close()
    return {"reference_s": duration, "kills": done, "where": dict(where), **totals}


def cpu(args: argparse.Namespace, examples: Path, snapshots: Path, work: Path) -> dict[str, float]:
    """CPU seconds of this process per example, batch mode and direct, on the same examples."""
    litellm_module()
    entry = load_registry(TARGET["registry"])[TARGET["model"]] if TARGET["registry"] else load_registry()[MODEL]
    out: dict[str, float] = {}
    for mode in ("direct", "batch"):
        svc = Service(mode, work / f"cpu-{mode}-state", args.polls)
        options = RunOptions(concurrency=8, batch=BatchOptions(poll_s=args.poll_interval, max_requests=args.batch_size)
                             if mode == "batch" else None)
        c0 = time.process_time()
        sent = entry if mode == "batch" else load_registry()[MODEL]  # direct: the OpenAI-compatible oracle endpoint
        s = run_suite(sent.with_overrides(api_base=svc.url), examples, runs_root=work / f"cpu-{mode}-runs",
                      snapshots_root=snapshots, options=options)
        out[mode] = (time.process_time() - c0) / max(1, getattr(s, "ok", 0))
        svc.close()
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--examples", type=int, default=500)
    ap.add_argument("--kills", type=int, default=20)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--batch-size", type=int, default=50)
    ap.add_argument("--polls", type=int, default=3, help="A batch finishes on its n-th retrieval.")
    ap.add_argument("--poll-interval", type=float, default=0.5)
    ap.add_argument("--provider", choices=["openai", "anthropic", "gemini"], default="openai",
                    help="The batch API the runner sends to (the same fake service speaks both).")
    args = ap.parse_args()
    src, snapshots = demo_suite(CACHE)
    work = CACHE / "work"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    if args.provider in NATIVE:
        native_target(work, args.provider)
    examples = work / "batchbench.jsonl"
    ids = suite_of(src, args.examples, examples)
    print(f"provider shape: {args.provider}; suite: {len(ids)} examples (the demo suite's {len(read_examples(src))}, repeated); batches of {args.batch_size}, "
          f"each finishing at poll {args.polls}, polled every {args.poll_interval} s", flush=True)
    k = kills(args, examples, snapshots, ids, work)
    print(f"reference run (uninterrupted): {k['reference_s']:.1f} s; {k['kills']} SIGKILLs at uniform moments in [0, {k['reference_s']:.1f}] s "
          f"over {k['epochs']} epoch(s); last journaled batch step before each kill: {k['where']}")
    print(f"lost {k.get('lost', 0)}, duplicated submissions {k.get('dup_submissions', 0)}, "
          f"duplicated answers {k.get('dup_answers', 0)}, answers differing from the reference {k.get('differ', 0)}")
    c = cpu(args, examples, snapshots, work)
    print(f"runner CPU per example: direct {1000 * c['direct']:.2f} ms, batch {1000 * c['batch']:.2f} ms "
          f"(batch / direct = {c['batch'] / c['direct']:.2f})")


if __name__ == "__main__":
    main()
