"""Benchmark of the example viewer (run by `make bench`; prints figures, asserts nothing about time).

Issue 11: build the viewer (``graphniah view``) for 2,000 examples at L = 200,000 tokens with three
models' journals, and compare its time with the report's own time (``graphniah report``: load,
tables, figures, HTML) on the same records, measured in one run; also the size of the site.
Targets (issue 19): a cold build at most 3 times the report's time, a site at most the size of the
examples file. Examples of format version 4 carry their needle positions, so the viewer loads no
tokenizer for them; the real examples are cached per format version (``real-v<version>-...``), so an
older cache is not mistaken for current examples.

Sampling 2,000 real 200k-token examples takes hours, so a smaller set of *real* examples is built
(``--real``, default 12: every task, text and component distractors, packed to L under all three
tokenizers) and replicated to ``--n`` examples with distinct ids (``<id>-r0001``...). Each replica
is a full example: the viewer counts, lays out and writes every one of them again (nothing is cached
across examples), so the timing is that of ``--n`` distinct examples of this size. The journals
hold one record per example and model (a few failures, a retried call, responses of a few hundred
characters, reasoning for one model), drawn with a seeded generator. Inputs are cached under
``bench/.data/view/`` (the demo snapshot there is built by the real refresh pipeline); the viewer's
own page cache is removed first, so the timed build is a cold one, then a rebuild with nothing
changed is timed as well.

    python bench/view.py [--n 2000] [--real 12] [--length 200000]

Issue 32: ``--list 250`` builds list examples instead (``--real`` of them, every other paper of a
250-paper component to name, depths 8 and 16) answered by five runs (``LIST_MODELS``: the whole
answer, a random half with lines naming no paper, the papers up to 3 hops only, the first half of
the answer's lines with repeats, and always NO), so each page carries five per-paper overlays; the
same targets apply, and the bytes of each run's overlay in the largest page are printed.

    python bench/view.py --list 250 --n 500 --real 5   # the fifth has a component distractor
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import shutil
import time
from pathlib import Path
from typing import Any

import numpy as np

from graphniah.formats import PAPER_TASKS, DistractorKind, Task
from graphniah.formats.examples import EXAMPLES_FORMAT, Example, iter_examples, write_examples
from graphniah.formats.journal import CallError, Journal, RunRecord, Usage
from graphniah.layout import viewer_page_cache
from graphniah.refresh import refresh
from graphniah.report import build_report, load_suite, write_report
from graphniah.sampling.examples.sample import build_example
from graphniah.sampling.examples.spec import ExampleSpec, SamplingContext
from graphniah.scoring import target_distances
from graphniah.view import build_viewer

SUITE = "view-bench"
MODELS = ("model-alpha", "model-beta", "model-gamma")
KINDS = tuple(k.value for k in DistractorKind)
#: The runs of a list bench (issue 32), each answering every list example its own way (see _list_answer).
LIST_MODELS = ("list-all", "list-random", "list-near", "list-first-half", "list-always-no")


def _specs(n: int, length: int, list_size: int = 0) -> list[ExampleSpec]:
    if list_size:
        return [ExampleSpec("list", (8, 16)[i % 2], list_size, None, distractor=KINDS[i % len(KINDS)], context_length=length)
                for i in range(n)]
    out = []
    for i in range(n):
        task: Task = PAPER_TASKS[i % 3]
        label = {"yesno": ("YES", "NO")[(i // 3) % 2], "mc": "ABCD"[(i // 3) % 4], "count": None}[task]
        out.append(ExampleSpec(task, (8, 16)[i % 2], 120 + 10 * (i % 5), label, distractor=KINDS[i % len(KINDS)], context_length=length))
    return out


def real_examples(root: Path, n: int, length: int, list_size: int = 0) -> Path:
    """``n`` real examples at ``length`` tokens (built once, then read from the cache); list examples of
    ``list_size`` papers when it is not 0."""
    kind = f"list{list_size}-" if list_size else ""
    path = root / f"real-v{EXAMPLES_FORMAT.current}-{kind}{n}-{length}.jsonl"
    if path.is_file():
        return path
    snap = refresh(dt.date(2026, 4, 1), root / "snapshots", demo=True).snapshot
    ctx = SamplingContext(snap)
    examples = []
    for i, spec in enumerate(_specs(n, length, list_size)):
        t0 = time.perf_counter()
        examples.append(build_example(ctx, spec, seed=11, index=i))
        print(f"  built real example {i + 1}/{n} ({spec.task}, {spec.distractor}) in {time.perf_counter() - t0:.1f}s", flush=True)
    write_examples(path, examples)
    return path


def replicated_suite(root: Path, real: Path, n: int, seed: int) -> tuple[Path, Path]:
    """``examples/<suite>.jsonl`` with ``n`` replicas of the real examples and ``runs/<suite>/<model>.jsonl``."""
    examples_path = root / "examples" / f"{SUITE}-{n}-{real.stem}.jsonl"
    runs_dir = root / "runs" / examples_path.stem
    if examples_path.is_file() and runs_dir.is_dir():
        return examples_path, runs_dir
    base = list(iter_examples(real))
    replicas = [base[i % len(base)].model_copy(update={"id": f"{base[i % len(base)].id}-r{i:04d}"}) for i in range(n)]
    write_examples(examples_path, replicas)
    shutil.rmtree(runs_dir, ignore_errors=True)
    rng = np.random.default_rng(seed)
    lists = all(ex.task == "list" for ex in replicas)
    for m, model in enumerate(LIST_MODELS if lists else MODELS):
        records = []
        for ex in replicas:
            if lists:
                records.append(_record(ex, model, _list_answer(ex, model, rng), rng))
                continue
            p_right = (0.9, 0.6, 0.35)[m]
            if rng.random() < 0.02:  # failed for good
                records.append(_record(ex, model, None, rng, failed=True))
                continue
            if rng.random() < 0.02:  # a failed attempt, then a retry that answered
                records.append(_record(ex, model, None, rng, failed=True))
            answer = ex.answer if rng.random() < p_right else _wrong(ex, rng)
            text = " ".join(["The citation chain goes through several papers."] * int(rng.integers(2, 12)))
            records.append(_record(ex, model, f"{text}\n\\answer{{{answer}}}", rng, reasoning=m == 0))
        with Journal(runs_dir / f"{model}.jsonl") as j:
            j.append(records)
    return examples_path, runs_dir


def _list_answer(ex: Example, model: str, rng: np.random.Generator) -> str:
    r"""A list run's response: the titles (or NO) the run ``model`` of :data:`LIST_MODELS` gives, in ``\answer{}``."""
    titles = ex.answer.split("\n")
    if model == "list-all":
        lines = titles
    elif model == "list-random":
        lines = [t for t in titles if rng.random() < 0.5] + [f"A paper the context does not name {i}" for i in range(3)]
    elif model == "list-near":
        hops = target_distances(ex.edges, ex.source, ex.targets)
        lines = [t for t, h in zip(titles, hops, strict=True) if h <= 3]
    elif model == "list-first-half":
        lines = titles[: len(titles) // 2] + titles[:5]
    else:
        lines = ["NO"]
    return "I followed the references from the source.\n\\answer{\n" + "\n".join(lines) + "\n}"


def _wrong(ex: Example, rng: np.random.Generator) -> str:
    if ex.task == "yesno":
        return "NO" if ex.answer == "YES" else "YES"
    if ex.task == "mc":
        return str(rng.choice([c for c in "ABCD" if c != ex.answer]))
    return str(int(ex.answer) + int(rng.integers(1, 20)))


def _record(ex: Example, model: str, response: str | None, rng: np.random.Generator, *, failed: bool = False, reasoning: bool = False) -> RunRecord:
    tokens = (ex.token_counts or {}).get("o200k_base", 0)
    return RunRecord(
        example_id=ex.id, model=model, settings_hash=f"bench-{model}", status="failed" if failed else "ok", task=ex.task, answer=ex.answer,
        response=response, reasoning="I traced the references block by block." * 20 if reasoning else None,
        usage=None if failed else Usage(prompt_tokens=tokens, completion_tokens=int(rng.integers(5, 400)), reasoning_tokens=0),
        cost_usd=None if failed else round(tokens * 1.25e-6, 6), response_time_s=None if failed else float(rng.uniform(2, 40)),
        attempts=1, errors=(CallError(attempt=1, kind="timeout", tier="standard", message="request timed out"),) if failed else (),
        finished_at="2026-11-01T00:00:00+00:00",
    )


def _page_payload(page: Path) -> dict[str, Any]:
    """The object an example page hands to ``GraphNIAHView.example(...)`` (its second line)."""
    line = page.read_text(encoding="utf-8").split("\n")[1]
    out: dict[str, Any] = json.loads(line[line.index("(") + 1 : line.rindex(")")])
    return out


def folder_size(path: Path) -> tuple[int, int]:
    files = [p for p in path.rglob("*") if p.is_file()]
    return sum(p.stat().st_size for p in files), len(files)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=2000, help="examples in the viewer")
    ap.add_argument("--real", type=int, default=12, help="real examples built and replicated")
    ap.add_argument("--length", type=int, default=200_000, help="context length L")
    ap.add_argument("--seed", type=int, default=5)
    ap.add_argument("--cache", type=Path, default=Path(__file__).resolve().parent / ".data" / "view")
    ap.add_argument("--list", type=int, default=0, metavar="SIZE",
                    help="list examples of SIZE papers answered by five runs (issue 32) instead of the mixed suite")
    args = ap.parse_args()

    root = args.cache
    root.mkdir(parents=True, exist_ok=True)
    real = real_examples(root, args.real, args.length, args.list)
    examples_path, runs_dir = replicated_suite(root, real, args.n, args.seed)
    mb = examples_path.stat().st_size / 1e6
    what = f"list examples of {args.list} papers" if args.list else "examples"
    print(f"{args.n} {what} ({args.real} real ones at L = {args.length:,}, replicated with distinct ids; {mb:,.0f} MB), "
          f"{len(LIST_MODELS if args.list else MODELS)} runs' journals in {runs_dir}")

    t0, c0 = time.perf_counter(), time.process_time()
    data = load_suite(runs_dir.name, runs_root=runs_dir.parent, examples_path=examples_path, by="task")
    report = build_report(data)
    files = write_report(report, root / "out" / "report", figures=True, html=True)
    report_s, report_cpu = time.perf_counter() - t0, time.process_time() - c0

    out = root / "out" / "viewer"
    shutil.rmtree(viewer_page_cache(out), ignore_errors=True)  # a cold build: no page from an earlier run is reused
    t0, c0 = time.perf_counter(), time.process_time()
    site = build_viewer(examples_path, out, runs=runs_dir, snapshots=root / "snapshots")
    view_s, view_cpu = time.perf_counter() - t0, time.process_time() - c0
    t0, c0 = time.perf_counter(), time.process_time()
    build_viewer(examples_path, out, runs=runs_dir, snapshots=root / "snapshots")  # every page reused from the cache
    warm_s, warm_cpu = time.perf_counter() - t0, time.process_time() - c0

    size, count = folder_size(site.out)
    largest = max((site.out / "examples").glob("*.js"), key=lambda p: p.stat().st_size)
    # Wall time and this process's CPU time: on a shared machine the CPU time is the steadier figure.
    print(f"report (graphniah report: load, {len(report.tables)} tables, figures, HTML): {report_s:.1f}s wall, {report_cpu:.1f}s CPU -> {files.out}")
    print(f"viewer (graphniah view), cold: {view_s:.1f}s wall, {view_cpu:.1f}s CPU ({1000 * view_cpu / site.examples:.0f} ms CPU per example) -> {site.index}")
    print(f"viewer time / report time = {view_s / report_s:.1f} (wall), {view_cpu / report_cpu:.1f} (CPU); target (issue 19): at most 3")
    print(f"viewer rebuilt with nothing changed (pages reused from {viewer_page_cache(out).name}): {warm_s:.1f}s wall, {warm_cpu:.1f}s CPU "
          f"= {warm_cpu / report_cpu:.1f} x report (CPU)")
    print(f"site: {size / 1e6:,.0f} MB in {count:,} files; index data.js {(site.out / 'data.js').stat().st_size / 1e6:.2f} MB; "
          f"largest example file {largest.stat().st_size / 1e6:.2f} MB; examples file {mb:,.0f} MB")
    print(f"site size / examples file size = {size / examples_path.stat().st_size:.2f}; target (issue 19): at most 1")
    if args.list:
        page = _page_payload(largest)
        sizes = ", ".join(f"{r['run']} {len(json.dumps(r.get('overlay'), separators=(',', ':')))}" for r in page["runs"])
        print(f"largest page {largest.name}: {len(page['answer'].splitlines())} titles; bytes of each run's overlay: {sizes}")
    print(f"(machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f})")


if __name__ == "__main__":
    main()
