"""Benchmark of the analysis stage: a report over 20,000 journal records, and select-alpha.

1. **Report.** A synthetic question-depth suite (real ``Example`` records, journals written by the
   runner's ``Journal``; 8 models × 2,500 examples = 20,000 answered records, plus failed attempts)
   goes through ``load_suite`` → ``build_report`` → ``write_report`` (tables, figures, HTML). The
   target is under 10 s in total; the run prints each stage's time and its share.
2. **select-alpha** with 200 examples per task per α (10 α × 3 tasks = 6,000 grown examples) on a
   snapshot (default: the newest under ``snapshots/``, e.g. the demo one ``make demo`` builds),
   reporting growth time, examples per second, and the selection/bootstrap time.

    .venv/bin/python bench/report.py [--records-only] [--examples-per-task 200] [--workers 2]
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from graphniah.report import build_report, load_suite, write_report
from tests.report.synthetic import make_example, write_suite

TARGET_S = 10.0


def bench_report(models: int, examples: int) -> bool:
    tmp = Path(tempfile.mkdtemp(prefix="bench-report-"))
    try:
        rng = np.random.default_rng(0)
        exs = []
        depths = (4, 8, 16, 32)
        for i in range(examples):
            task = ("yesno", "mc", "count")[int(rng.integers(3))]
            size = int(rng.integers(100, 251))
            label = {"yesno": ("YES", "NO")[i % 2], "mc": "ABCD"[i % 4], "count": str(size - 1)}[task]
            exs.append(make_example(task, depths[i % 4], size, label, seed=0, index=i,
                                    distractor=str(rng.choice(["code", "essays", "books", "wikipedia"]))))
        specs = {f"model-{m}": {"p": lambda ex, m=m: max(0.05, 0.9 - 0.1 * m - 0.01 * ex.depth)} for m in range(models)}
        t0 = time.perf_counter()
        write_suite(tmp, "depth", exs, specs, rng, fail_rate=0.05)
        t_setup = time.perf_counter() - t0
        records = sum(p.read_bytes().count(b"\n") for p in (tmp / "runs" / "depth").glob("*.jsonl"))

        t0 = time.perf_counter()
        data = load_suite("depth", runs_root=tmp / "runs", examples_root=tmp / "examples")
        t_load = time.perf_counter() - t0
        t0 = time.perf_counter()
        report = build_report(data)
        t_build = time.perf_counter() - t0
        t0 = time.perf_counter()
        files = write_report(report, tmp / "report")
        t_write = time.perf_counter() - t0
        total = t_load + t_build + t_write
        print(f"report: {records:,} journal lines ({len(data.outcomes):,} answered records, {models} models, "
              f"{examples:,} examples; synthetic setup {t_setup:.1f}s, not counted)")
        for name, t in (("load journals + examples", t_load), ("tables + effective depth", t_build),
                        ("write tables, figures, HTML", t_write)):
            print(f"  {name:30s} {t:6.2f}s  ({100 * t / total:4.1f}%)")
        html_mb = files.html.stat().st_size / 1e6 if files.html else 0
        ok = total < TARGET_S
        print(f"  total {total:.2f}s for {len(data.outcomes):,} records = {1e3 * total / len(data.outcomes):.3f} ms/record; "
              f"{len(report.tables)} tables, HTML {html_mb:.1f} MB; target < {TARGET_S:.0f}s: {'PASS' if ok else 'FAIL'}")
        return ok
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def bench_alpha(snapshot_path: str | None, per_task: int, workers: int) -> None:
    from graphniah.errors import GraphNIAHError
    from graphniah.formats.snapshot import Snapshot, newest_snapshot
    from graphniah.report.alpha import AlphaConfig, generate_in_degrees, select_alpha, snapshot_in_degree_histogram

    try:
        snap = Snapshot.open(snapshot_path) if snapshot_path else newest_snapshot("snapshots")
    except GraphNIAHError as err:
        print(f"select-alpha: skipped ({err}); run `make demo` first or pass --snapshot")
        return
    config = AlphaConfig(examples_per_task=per_task, workers=workers)
    t0 = time.perf_counter()
    reference = snapshot_in_degree_histogram(snap)
    t_ref = time.perf_counter() - t0
    generated = generate_in_degrees(snap, config)
    t0 = time.perf_counter()
    sel = select_alpha(generated, reference, config)
    t_sel = time.perf_counter() - t0
    n = int(sel.examples.sum())
    print(f"select-alpha on {snap.path} ({int(reference[1:].sum()):,} cited papers): {len(config.alphas)} α × "
          f"{len(config.tasks)} tasks × {per_task} examples = {n:,} grown examples, {workers} process(es)")
    print(f"  growth {generated.seconds:.1f}s ({n / generated.seconds:.1f} examples/s), snapshot in-degrees {t_ref:.2f}s, "
          f"selection + {config.bootstrap} bootstrap replicates {t_sel:.2f}s "
          f"({100 * t_sel / (generated.seconds + t_sel):.1f}% of the total)")
    print(f"  selected α* = {sel.selected:g}, S = {sel.mean_kl.min():.4f}, selected in "
          f"{100 * sel.frequency.max():.1f}% of replicates")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--models", type=int, default=8)
    ap.add_argument("--examples", type=int, default=2500)
    ap.add_argument("--records-only", action="store_true", help="skip select-alpha")
    ap.add_argument("--snapshot", default=None)
    ap.add_argument("--examples-per-task", type=int, default=200)
    ap.add_argument("--workers", type=int, default=2)
    args = ap.parse_args()
    ok = bench_report(args.models, args.examples)
    if not args.records_only:
        bench_alpha(args.snapshot, args.examples_per_task, args.workers)
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
