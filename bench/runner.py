"""Benchmark of the runner's overhead (run by `make bench`; prints figures, asserts nothing about time).

2,000 requests with ~50,000-token prompts at concurrency 32 against the oracle endpoint (its own
process on 127.0.0.1), sent twice in the same run:

- a bare loop: ``httpx.AsyncClient`` posting the same chat payloads under a semaphore of 32 and
  parsing the JSON replies, nothing else;
- the runner: ``graphniah.run.run_suite`` with the ``local-oracle`` registry entry (LiteLLM, retry
  classification, scoring, one fsynced journal line per call).

Printed: each pass's throughput and the ratio runner / bare (target >= 0.8). The bare loop runs
before and after the runner and the ratio uses their mean, so drift in machine load during the run
affects both sides alike. The server answers each request with the text-only solver, as in real use.

Prompts: the demo examples' contexts padded to ~50,000 tokens (the server's chars/4 count) with
filler paragraphs of random words between the paper blocks (a stand-in for the distractor packer,
which does not exist yet); a dozen distinct prompts are reused under 2,000 example ids. Usage:

    python bench/runner.py [--requests 2000] [--tokens 50000] [--concurrency 32]
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
import numpy as np

from graphniah.formats.examples import Example, Message
from graphniah.layout import journal_file
from graphniah.run import RunOptions, read_journal, run_suite
from graphniah.run.client import litellm_module
from graphniah.run.models import load_registry
from graphniah.run.runner import RunSummary
from graphniah.run.serve.server import approx_prompt_tokens, wait_until_healthy
from graphniah.scoring import score_records

CUTOFF = dt.date(2026, 4, 1)
CACHE = Path(__file__).resolve().parent / ".data" / "runner"
_CONTEXT, _FORMAT = "=== CONTEXT ===\n\n", "\n\n=== ANSWER FORMAT ==="
_WORDS = np.array(["the", "of", "a", "model", "graph", "paper", "network", "learning", "data", "method", "results", "we", "propose", "analysis", "system", "towards", "robust", "efficient", "neural", "evaluation", "benchmark", "large", "language", "scaling", "survey"])


def base_examples(cache: Path) -> list[Example]:
    """Twelve demo examples (4 per task) from a cached small demo snapshot."""
    from graphniah.formats.examples import read_examples, write_examples
    from graphniah.formats.snapshot import Snapshot
    from graphniah.graph.store import build_path_pools
    from graphniah.ingest.build import ingest_release
    from graphniah.ingest.demo_release import write_demo_releases
    from graphniah.sampling.examples.sample import batch_specs, sample_examples
    from graphniah.sampling.examples.spec import SamplingContext

    out = cache / "examples.jsonl"
    if out.is_file():
        return read_examples(out)
    shutil.rmtree(cache, ignore_errors=True)
    rs = write_demo_releases(cache / "release", papers=5000, seed=1, releases=1)
    rid = rs.release_ids[-1]
    snapdir = cache / "snapshots" / rid / f"cutoff={CUTOFF.isoformat()}"
    ingest_release(rs.release_dir(rid), CUTOFF, snapdir)
    snap = Snapshot.open(snapdir)
    build_path_pools(snap, [4], 50, 0)
    ctx = SamplingContext(snap)
    rng = np.random.default_rng(0)
    exs = [ex for i, task in enumerate(("yesno", "mc", "count"))
           for ex in sample_examples(ctx, batch_specs(task, 4, 4, rng, component_size=40), seed=i)]
    write_examples(out, exs)
    return exs


def padded(ex: Example, tokens: int, rng: np.random.Generator) -> Example:
    """``ex`` with filler paragraphs shuffled among its context blocks until the prompt has ~``tokens`` tokens."""
    system, user = ex.messages
    head, rest = user.content.split(_CONTEXT, 1)
    context, tail = rest.split(_FORMAT, 1)
    blocks = context.split("\n\n")
    chars_needed = 4 * (tokens - approx_prompt_tokens([m.model_dump() for m in ex.messages]))
    while chars_needed > 0:
        para = " ".join(rng.choice(_WORDS, 120)).capitalize() + "."
        blocks.append(para)
        chars_needed -= len(para) + 2
    order = rng.permutation(len(blocks))
    content = head + _CONTEXT + "\n\n".join(blocks[i] for i in order) + _FORMAT + tail
    msgs = (system, Message(role="user", content=content))
    count = approx_prompt_tokens([m.model_dump() for m in msgs])
    return ex.model_copy(update={"messages": msgs, "token_counts": {"o200k_base": count}})


def start_server() -> tuple[subprocess.Popen, str]:
    proc = subprocess.Popen([sys.executable, "-c", "from graphniah.cli import main; main()", "serve", "--policy", "oracle",
                             "--port", "0"], stdout=subprocess.PIPE, text=True)
    line = proc.stdout.readline()
    if not line.startswith("listening on "):
        proc.kill()
        raise SystemExit(f"oracle server did not start: {line!r}")
    url = line.split()[-1]
    wait_until_healthy(url, 60)
    return proc, url


async def bare_loop(url: str, payloads: list[list[dict]], concurrency: int) -> tuple[float, int]:
    """Seconds for all requests and how many replies carried an answer block."""
    sem = asyncio.Semaphore(concurrency)
    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
    async with httpx.AsyncClient(timeout=600, limits=limits) as client:
        async def one(messages: list[dict]) -> bool:
            async with sem:
                r = await client.post(f"{url}/chat/completions", json={"model": "local-oracle", "messages": messages},
                                      headers={"Authorization": "Bearer graphniah-local-no-key"})
                r.raise_for_status()
                return "\\answer{" in r.json()["choices"][0]["message"]["content"]

        t0 = time.perf_counter()
        answered = await asyncio.gather(*(one(m) for m in payloads))
        return time.perf_counter() - t0, sum(answered)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--requests", type=int, default=2000)
    ap.add_argument("--tokens", type=int, default=50_000)
    ap.add_argument("--concurrency", type=int, default=32)
    ap.add_argument("--cache", type=Path, default=CACHE)
    a = ap.parse_args()

    rng = np.random.default_rng(7)
    bases = [padded(ex, a.tokens, rng) for ex in base_examples(a.cache)]
    examples = [bases[i % len(bases)].model_copy(update={"id": f"bench-{i:05d}"}) for i in range(a.requests)]
    payloads = [[m.model_dump() for m in ex.messages] for ex in examples]
    sizes = [ex.token_counts["o200k_base"] for ex in bases]
    print(f"runner benchmark: {a.requests} requests, prompts of {min(sizes):,}-{max(sizes):,} tokens "
          f"(chars/4; {len(bases)} distinct), concurrency {a.concurrency}")
    litellm_module()  # import cost is not part of the throughput
    entry = load_registry()["local-oracle"]
    proc, url = start_server()
    runs = Path(tempfile.mkdtemp(prefix="graphniah-bench-runs-"))
    try:
        warm = payloads[: 2 * a.concurrency]
        asyncio.run(bare_loop(url, warm, a.concurrency))
        run_suite(entry.with_overrides(api_base=url), examples[: 2 * a.concurrency], suite="warmup", runs_root=runs,
                  options=RunOptions(concurrency=a.concurrency))

        bare1, ok1 = asyncio.run(bare_loop(url, payloads, a.concurrency))
        print(f"  bare httpx loop     {bare1:7.1f} s  {a.requests / bare1:6.1f} req/s  ({ok1} answered)")
        t0 = time.perf_counter()
        s = run_suite(entry.with_overrides(api_base=url), examples, suite="bench", runs_root=runs,
                      options=RunOptions(concurrency=a.concurrency))
        runner_s = time.perf_counter() - t0
        assert isinstance(s, RunSummary)
        recs = read_journal(journal_file(runs, "bench", entry.name))
        score = score_records(recs)  # the project's one scoring path (re-scored from the responses)
        correct = score.overall.k if score.overall is not None else 0
        print(f"  graphniah runner    {runner_s:7.1f} s  {a.requests / runner_s:6.1f} req/s  "
              f"({s.ok} ok, {s.failed} failed, {correct} correct, {len(recs)} journal lines)")
        bare2, ok2 = asyncio.run(bare_loop(url, payloads, a.concurrency))
        print(f"  bare httpx loop     {bare2:7.1f} s  {a.requests / bare2:6.1f} req/s  ({ok2} answered)")
    finally:
        proc.terminate()
        proc.wait(30)
        shutil.rmtree(runs, ignore_errors=True)
    bare = (bare1 + bare2) / 2
    ratio = bare / runner_s
    print(f"throughput ratio runner / bare = {ratio:.2f} (target >= 0.8; bare passes {bare1:.1f} s and {bare2:.1f} s)")


if __name__ == "__main__":
    main()
