"""Benchmark of the default demo release: does it behave like S2AG where the method looks?

On the default demo snapshot (what ``make refresh``/``make demo`` build: ``refresh.DEMO_PAPERS``
papers, ``refresh.DEMO_RELEASES`` releases, the demo seed), built under ``--root``:

1. **generation time** of the default release set, and of a 100,000-paper set in the same run
   (a third of the default; the ratio is what the bigger default costs);
2. **calibration statistics** against their targets (``demo_release.calibration``), reference
   lists from the generated world, the graph from the snapshot;
3. **pruning**: papers removed per depth 4/8/16/32 by whole small components and, beyond them,
   by the biconnected bound;
4. **disjoint-component budget**: at depths 16 and 32, the prompt tokens one example reaches when
   drawing 250-paper disjoint components until none fits (L = the largest allowed); at every depth, whether a
   prompt at L = 200,000 stops because it is full (``near_limit``/``next_block_too_long``)
   rather than because components ran out (``exhausted``);
5. **select-alpha** (``--examples-per-task`` per task per α, 10 α values, 500 bootstrap
   replicates): the selected α, its mean KL divergence S(α*), and the time; the report is
   written to ``<root>/select-alpha``.

    .venv/bin/python bench/demo_release.py [--root snapshots/bench-demo] [--examples-per-task 200]
        [--workers 2] [--skip-alpha] [--skip-generation-ratio]
"""

from __future__ import annotations

import argparse
import datetime as dt
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from graphniah.graph.citation_graph import CitationGraph
from graphniah.graph.measures import graph_statistics
from graphniah.ingest.demo_release import world as Mo
from graphniah.ingest.demo_release import write_demo_releases
from graphniah.ingest.demo_release.calibration import TARGETS, check, reference_statistics
from graphniah.ingest.demo_release.records import make_timeline
from graphniah.refresh import DEMO_PAPERS, DEMO_RELEASES, refresh
from graphniah.seeds import DEMO_RELEASE_SEED, Stream, generator

CUTOFF = dt.date(2026, 4, 1)
PAPER_S = 0.0089  # S(0.1) on S2AG, paper appendix B.4
DEPTHS = (4, 8, 16, 32)


def generation(papers_default: int) -> None:
    tmp = Path(tempfile.mkdtemp(prefix="bench-demo-gen-"))
    try:
        times = {}
        for papers in (100_000, papers_default):
            t0 = time.perf_counter()
            write_demo_releases(tmp / str(papers), papers=papers, seed=1, releases=DEMO_RELEASES)
            times[papers] = time.perf_counter() - t0
            shutil.rmtree(tmp / str(papers))
        print(
            f"generation ({DEMO_RELEASES} releases): 100,000 papers {times[100_000]:.1f}s, "
            f"{papers_default:,} papers {times[papers_default]:.1f}s (ratio {times[papers_default] / times[100_000]:.2f})"
        )
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def budget(snap) -> None:
    from graphniah.sampling.examples.sample import SampleStats, build_example
    from graphniah.sampling.examples.spec import MAX_CONTEXT_LENGTH, ExampleSpec, SamplingContext

    ctx = SamplingContext(snap)
    # the largest budget only where it binds (depths 16 and 32): at depths 4 and 8 it lies far above
    # 200,000 tokens and packing a million tokens under three tokenizers takes minutes
    for depth in DEPTHS:
        for L in (MAX_CONTEXT_LENGTH, 200_000) if depth >= 16 else (200_000,):
            st = SampleStats()
            t0 = time.perf_counter()
            ex = build_example(ctx, ExampleSpec("yesno", depth, 250, "YES", distractor="disjoint-component", context_length=L), 0, depth, st)
            tok = ex.token_counts or {}
            print(
                f"  depth {depth:2d}, size 250, L {L:>9,}: o200k {tok.get('o200k_base', 0):>7,} tokens, "
                f"{ex.stats.nodes:,} papers, stop {', '.join(st.stops)} ({time.perf_counter() - t0:.0f}s)",
                flush=True,
            )


def alpha(snap, examples_per_task: int, workers: int, out: Path) -> None:
    from graphniah.report.alpha import AlphaConfig, generate_in_degrees, select_alpha, snapshot_in_degree_histogram, write_alpha_report

    config = AlphaConfig(examples_per_task=examples_per_task, workers=workers)
    t0 = time.perf_counter()
    gen = generate_in_degrees(snap, config)
    sel = select_alpha(gen, snapshot_in_degree_histogram(snap), config)
    sel.source.update({"snapshot": str(snap.path), "snapshot_hash": snap.content_hash})
    secs = time.perf_counter() - t0
    print(sel.markdown(), flush=True)
    # with the figure: it draws the bootstrap intervals as bars of their own, so intervals that lie
    # above S(alpha) (the bootstrap KL is biased upwards, as on this snapshot) do not break it
    write_alpha_report(sel, out)
    s_star = float(sel.mean_kl[config.alphas.index(sel.selected)])
    print(
        f"select-alpha: alpha* = {sel.selected:g}, S(alpha*) = {s_star:.4f} ({s_star / PAPER_S:.2f}x the paper's "
        f"S(0.1) = {PAPER_S}); {int(sel.examples.sum()):,} forests in {gen.seconds:.0f}s, total {secs:.0f}s with "
        f"{workers} process(es); report in {out}/"
    )


def calibration(snap) -> None:
    # the world of the default demo release itself (same generator stream and seed as refresh uses)
    world = Mo.build_world(generator(Stream.DEMO_RELEASE, DEMO_RELEASE_SEED), DEMO_PAPERS, make_timeline(dt.date(2026, 10, 6), DEMO_RELEASES))
    stats = reference_statistics(world) | graph_statistics(CitationGraph.load(snap), depths=DEPTHS)
    print("calibration statistics:")
    for t in TARGETS:
        if t.name in stats:
            print(f"  {t.name:28s} {stats[t.name]:10.4f}   target [{t.low:g}, {t.high:g}]  {'ok' if t.holds(stats[t.name]) else 'MISSED'}")
    print(f"  max in-degree {stats['max_in_degree']:.0f}; misses: {len(check(stats))}")
    print("pruning (papers removed): depth | whole small components | biconnected bound beyond them")
    for k in DEPTHS:
        print(f"  {k:2d} | {stats[f'small_removed_depth_{k}']:9,.0f} | {stats[f'bound_removed_depth_{k}']:7,.0f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--root", type=Path, default=Path("snapshots/bench-demo"))
    ap.add_argument("--examples-per-task", type=int, default=200)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--skip-alpha", action="store_true")
    ap.add_argument("--skip-budget", action="store_true")
    ap.add_argument("--skip-generation-ratio", action="store_true")
    ap.add_argument("--skip-calibration", action="store_true")
    args = ap.parse_args()

    if not args.skip_generation_ratio:
        generation(DEMO_PAPERS)
    t0 = time.perf_counter()
    snap = refresh(CUTOFF, args.root, demo=True).snapshot
    print(f"default demo snapshot ({DEMO_PAPERS:,} papers, {DEMO_RELEASES} releases): refresh {time.perf_counter() - t0:.0f}s -> {snap.path}")

    if not args.skip_calibration:
        calibration(snap)
    if not args.skip_budget:
        print("disjoint-component budget:")
        budget(snap)
    if not args.skip_alpha:
        alpha(snap, args.examples_per_task, args.workers, args.root / "select-alpha")


if __name__ == "__main__":
    main()
