"""Benchmark of example sampling (run by `make bench`; prints figures, asserts nothing about time).

On the ≥1M-paper demo snapshot that ``bench/graph.py`` caches under ``snapshots/bench/``: the time
to load the sampling context (citation graph + paper metadata), then the median time to sample,
check the forest invariant, render and verify from the text one multiple-choice example with four
components of 250 papers, at each depth. Target (issue 4): under 1 s per example. Then the median time
of each task (yesno, mc, count, list) at depth 16, side by side, and of the three question tasks
rendered as an edge list beside their APA twins (ratio in the same run).

    python bench/sample.py [--papers 1650000] [--per-depth 5]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from graph import demo_snapshot

from graphniah.graph.store import build_path_pools
from graphniah.sampling.examples.sample import SampleStats, build_example
from graphniah.sampling.examples.spec import ExampleSpec, SamplingContext

DEPTHS = (4, 8, 16, 32)
TASK_DEPTH = 16  # the depth at which the tasks are timed side by side


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--papers", type=int, default=1_650_000)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--per-depth", type=int, default=5)
    ap.add_argument("--cache", type=Path, default=Path("snapshots/bench"))
    args = ap.parse_args()

    snap = demo_snapshot(args.cache, args.papers, args.seed)
    build_path_pools(snap, DEPTHS, 1000, 0)  # reused when already built
    t0 = time.perf_counter()
    ctx = SamplingContext(snap)
    load = time.perf_counter() - t0
    print(f"snapshot {snap.path}: {ctx.graph.n:,} papers; context load {load:.2f}s")
    for depth in DEPTHS:
        t0 = time.perf_counter()
        ctx.pool_index(depth)
        index_time = time.perf_counter() - t0
        times = []
        stats = SampleStats()
        for i in range(args.per_depth):
            t0 = time.perf_counter()
            build_example(ctx, ExampleSpec("mc", depth, 250, "ABCD"[i % 4]), seed=1, index=i, stats=stats)
            times.append(time.perf_counter() - t0)
        print(
            f"depth {depth:2d}: median {statistics.median(times):.2f}s per example (4 x 250 papers; min {min(times):.2f}, "
            f"max {max(times):.2f}); pool index {index_time:.2f}s once; attempts {stats.attempts}, rejects {dict(stats.rejects)}"
        )
    task_times(ctx, TASK_DEPTH, args.per_depth)
    edge_times(ctx, TASK_DEPTH, args.per_depth)


def task_times(ctx: SamplingContext, depth: int, n: int) -> None:
    """Median time per example of each task side by side at one depth (250 papers per component): the
    list task samples like counting and adds its answer titles and the evidence count of every task."""
    labels = {"yesno": "YES", "mc": "A", "count": None, "list": None}
    for task, label in labels.items():
        times = []
        for i in range(n):
            t0 = time.perf_counter()
            build_example(ctx, ExampleSpec(task, depth, 250, label), seed=2, index=i)
            times.append(time.perf_counter() - t0)
        print(f"task {task:5s} (depth {depth}): median {statistics.median(times):.2f}s per example (min {min(times):.2f}, max {max(times):.2f})")


def edge_times(ctx: SamplingContext, depth: int, n: int) -> None:
    """Each question task as an edge list beside its APA twin (same spec, seed and index, built one
    after the other): the edge-list build also renders and checks the APA needles, so that both
    keep the same attempts (graphniah.sampling.examples.sample._as_edges)."""
    for task, label in (("yesno", "YES"), ("mc", "A"), ("count", None)):
        apa, edges = [], []
        for i in range(n):
            spec = ExampleSpec(task, depth, 250, label)
            t0 = time.perf_counter()
            build_example(ctx, spec, seed=3, index=i)
            t1 = time.perf_counter()
            build_example(ctx, replace(spec, render="edges"), seed=3, index=i)
            apa.append(t1 - t0)
            edges.append(time.perf_counter() - t1)
        a, e = statistics.median(apa), statistics.median(edges)
        print(f"task {task:5s} edge list (depth {depth}): median {e:.2f}s per example (min {min(edges):.2f}, max {max(edges):.2f}); "
              f"APA twins {a:.2f}s; ratio {e / a:.2f}")


if __name__ == "__main__":
    main()
