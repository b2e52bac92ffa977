"""Benchmark of context packing (prints figures, asserts nothing about time).

For each target length L (200,000 and 922,000 by default) and each distractor kind, one counting
example of depth 16 with two 250-paper components is built on the demo snapshot (the one `make
refresh` builds; created here if missing). Packing — creating the distractor source (for
wikipedia: BM25 retrieval against the example's titles), drawing and counting distractors, the
running totals (exact: under the three pinned tokenizers the prompt is not counted again, see
``graphniah.sampling.packing``) — is timed inside ``build_example``; then the final prompt is
counted under the three tokenizers (``chat_count``), checked against the example's
``token_counts``, and the ratio

    packing time / time of one exact count of the final prompt

is printed (target: <= 1.5 for the text kinds, issue 19). The machine is shared, so each example
is built ``--repeat`` times (the result is identical every time) and the smallest packing time is
divided by the smallest of as many exact counts. One-time costs (loading tokenizers, reading corpora, building the BM25 index)
are paid by a warm-up example before timing. The process's peak resident memory (VmHWM) is printed
at the end (target at 922k: <= 3 GB).

    python bench/packing.py [--lengths 200000 922000] [--kinds code essays books wikipedia disjoint-component] [--repeat 2]
"""

from __future__ import annotations

import argparse
import datetime as dt
import time
from pathlib import Path

import numpy as np

from graphniah.formats import DistractorKind
from graphniah.refresh import refresh
from graphniah.sampling.examples import sample
from graphniah.sampling.examples.sample import SampleStats, build_example
from graphniah.sampling.examples.spec import ExampleSpec, SamplingContext
from graphniah.sampling.packing import Packed

CUTOFF = dt.date(2026, 4, 1)
DEPTH, SIZE = 16, 250


def peak_rss_gb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024**2
    return float("nan")


class PackTimer:
    """Wraps the sampler's packing step to time it (the real function runs unchanged)."""

    def __init__(self) -> None:
        self.inner = sample._pack
        self.seconds: list[float] = []
        self.results: list[Packed] = []

    def __call__(self, *args, **kwargs) -> Packed:
        t0 = time.perf_counter()
        out = self.inner(*args, **kwargs)
        self.seconds.append(time.perf_counter() - t0)
        self.results.append(out)
        return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lengths", type=int, nargs="+", default=[200_000, 922_000])
    ap.add_argument("--kinds", nargs="+", default=[k.value for k in DistractorKind])
    ap.add_argument("--root", type=Path, default=Path("snapshots"))
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--repeat", type=int, default=2)
    args = ap.parse_args()

    snap = refresh(CUTOFF, args.root, demo=True, depths=(DEPTH,)).snapshot
    ctx = SamplingContext(snap)
    timer = PackTimer()
    sample._pack = timer  # type: ignore[assignment]
    t0 = time.perf_counter()
    for kind in args.kinds:  # warm-up: tokenizers, corpora, BM25 index, pool index
        build_example(ctx, ExampleSpec("count", DEPTH, SIZE, distractor=kind, context_length=60_000), args.seed, 999)
    print(f"snapshot {snap.path}; warm-up (loading tokenizers, corpora, indexes) {time.perf_counter() - t0:.1f}s")
    print(f"{'L':>9} {'kind':<19} {'pack s':>7} {'count s':>7} {'ratio':>6} {'blocks':>7} {'counted':>7} {'max tokens':>10}  stop")
    ratios: dict[int, list[float]] = {}
    for length in args.lengths:
        for i, kind in enumerate(args.kinds):
            spec = ExampleSpec("count", DEPTH, SIZE, distractor=kind, context_length=length)
            pack_s = count_s = float("inf")
            for _ in range(args.repeat):
                n_before = len(timer.seconds)
                ex = build_example(ctx, spec, args.seed, i, SampleStats())
                pack_s = min(pack_s, sum(timer.seconds[n_before:]))  # attempts whose needles did not fit count too
                messages = [(m.role, m.content) for m in ex.messages]
                t1 = time.perf_counter()
                exact = {name: tok.chat_count(messages) for name, tok in ctx.tokenizers.items()}
                count_s = min(count_s, time.perf_counter() - t1)
            packed = timer.results[-1]
            assert exact == ex.token_counts and max(exact.values()) <= length
            ratio = pack_s / count_s
            if kind != "disjoint-component":
                ratios.setdefault(length, []).append(ratio)
            print(
                f"{length:>9,} {kind:<19} {pack_s:>7.2f} {count_s:>7.2f} {ratio:>6.2f} {len(packed.context):>7,} "
                f"{packed.counted_blocks:>7,} {max(exact.values()):>10,}  {packed.stop}"
            )
    for length, r in ratios.items():
        print(f"L = {length:,}: text kinds, packing / exact count: max {max(r):.2f}, mean {np.mean(r):.2f} (target <= 1.5)")
    print("(disjoint-component packing also samples the extra components; its ratio is shown for reference)")
    print(f"peak resident memory of this process: {peak_rss_gb():.2f} GB (target at 922k: <= 3 GB)")


if __name__ == "__main__":
    main()
