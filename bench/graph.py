"""Benchmark of the graph stage (run by `make bench`; prints figures, asserts nothing about time).

1. On a demo snapshot with at least 1,000,000 eligible papers: load, prune and pool 1,000 paths for
   each of the depths 4, 8, 16, 32 — total time and peak memory (measured in a fresh child process,
   so the demo generation does not count towards the peak), and the depth-32 / depth-16 pool time
   ratio (issue 19, target <= 2). Each pool is sampled five times (the same pool) and the median
   time printed. The compiled path search is loaded before the first pool and its load time printed
   apart (a process pays it once).
2. On a ~100,000-paper demo snapshot: the same pruning written plainly on networkx (biconnected
   components from networkx, the block-cut-tree DP in plain Python dictionaries) against
   ``graphniah.graph.prune`` in the same run; both must keep exactly the same papers. Prints the
   speed-up ratio (target >= 10x).

Demo snapshots are generated once (demo release generator + ingest) and cached under
``snapshots/bench/`` (ignored by git). Usage:

    python bench/graph.py [--papers 1650000] [--small-papers 165000] [--cache snapshots/bench]
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import resource
import shutil
import subprocess
import sys
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

import networkx as nx
import numpy as np

from graphniah.formats.snapshot import MANIFEST_FILE, Snapshot
from graphniah.graph import CitationGraph, path_length, prune, rng_for, sample_path_pool

DEPTHS = (4, 8, 16, 32)
REPEAT = 5  # pools sampled per depth; pool times are their median
CUTOFF = dt.date(2026, 4, 1)


def demo_snapshot(cache: Path, papers: int, seed: int) -> Snapshot:
    """A cached demo snapshot of a ``papers``-paper demo release (generated and ingested once)."""
    from graphniah.ingest.build import ingest_release
    from graphniah.ingest.demo_release import write_demo_releases

    folder = cache / f"demo-{papers}-seed{seed}"
    snap_dir = folder / f"cutoff={CUTOFF.isoformat()}"
    if not (snap_dir / MANIFEST_FILE).is_file():
        t0 = time.perf_counter()
        release_root = folder / "release"
        rs = write_demo_releases(release_root, papers=papers, seed=seed, releases=1, replace=True)
        ingest_release(rs.release_dir(rs.release_ids[-1]), CUTOFF, snap_dir, replace=True)
        shutil.rmtree(release_root)  # only the snapshot is needed afterwards
        print(f"  generated and ingested a {papers:,}-paper demo release in {time.perf_counter() - t0:.0f}s")
    return Snapshot.open(snap_dir)


# ---- part 1: the full stage on >= 1M papers, in a child process ----------------------------------


def _peak_rss_mb() -> float:
    """Peak resident memory of this process. VmHWM starts afresh at exec; ru_maxrss would not (on
    Linux it carries over the parent's peak, here the demo generator's)."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def first_use_seconds() -> float:
    """Seconds the first pool of a process spends loading the compiled search (numba's cache, or
    compiling it when there is none): timed on a 12-paper cycle, so the depths below time searching."""
    t0 = time.perf_counter()
    ring = np.arange(12, dtype=np.int64)
    sample_path_pool(CitationGraph.from_arrays(ring, ring, np.roll(ring, 1)), 2, 1, np.random.default_rng(0))
    return time.perf_counter() - t0


def measure_full(snapshot_dir: str, pool: int, seed: int) -> dict:
    first_use = first_use_seconds()
    t0 = time.perf_counter()
    g = CitationGraph.load(Snapshot.open(snapshot_dir))
    t_load = time.perf_counter() - t0
    per_depth = {}
    for depth in DEPTHS:
        t1 = time.perf_counter()
        pr = prune(g, depth)
        t_pruned = time.perf_counter()
        times = []
        for _ in range(REPEAT):  # the same pool each time (same seed): the median of the times is printed
            t2 = time.perf_counter()
            pp = sample_path_pool(g, depth, pool, rng_for(seed, depth), pruned=pr)
            times.append(time.perf_counter() - t2)
        per_depth[depth] = {
            "kept": pr.n_kept,
            "removed": [pr.removed_small_components, pr.removed_by_bound],
            "prune_s": round(t_pruned - t1, 2),
            "pool_s": round(float(np.median(times)), 3),
            "paths": pp.size,
            "steps": pp.stats.steps,
            "attempts": pp.stats.attempts,
            "rejects": pp.stats.rejects.as_dict(),
        }
    return {
        "papers": g.n,
        "usable": int(g.has_usable_metadata.sum()),
        "edges": int(g.citing.size),
        "load_s": round(t_load, 2),
        "first_use_s": round(first_use, 2),
        "total_s": round(time.perf_counter() - t0, 2),
        "depths": per_depth,
        "peak_rss_mb": round(_peak_rss_mb(), 1),
    }


# ---- part 2: plain networkx pruning ---------------------------------------------------------------


_Node = tuple[str, int]  # ("B", block index) or ("C", cut vertex)


def networkx_bounds(G: nx.Graph) -> dict[int, int]:
    """The block-cut-tree ``through`` bound (see ``block_cut_bounds``) in plain Python."""
    blocks = [list(b) for b in nx.biconnected_components(G)]
    adj = _block_cut_adjacency(blocks)

    def weight(x: _Node) -> int:
        return len(blocks[x[1]]) - 1 if x[0] == "B" else 0

    arms: dict[_Node, list[int]] = defaultdict(list)  # F(x -> y) for every neighbour y of x
    seen: set[_Node] = set()
    for i in range(len(blocks)):
        root = ("B", i)
        if root not in seen:
            _tree_arms(root, adj, weight, seen, arms)
    through = {}
    for i, b in enumerate(blocks):
        top = sorted(arms[("B", i)], reverse=True)[:2] + [0, 0]
        t = len(b) + top[0] + top[1]
        for v in b:
            through[v] = max(through.get(v, 0), t)
    return through


def _block_cut_adjacency(blocks: list[list[int]]) -> dict[_Node, list[_Node]]:
    """The block-cut tree's edges: block i -- cut vertex v for every cut vertex v of block i."""
    member: dict[int, list[int]] = defaultdict(list)
    for i, b in enumerate(blocks):
        for v in b:
            member[v].append(i)
    adj: dict[_Node, list[_Node]] = defaultdict(list)
    for v, bs in member.items():
        if len(bs) > 1:
            for i in bs:
                adj[("B", i)].append(("C", v))
                adj[("C", v)].append(("B", i))
    return adj


def _tree_arms(
    root: _Node, adj: dict[_Node, list[_Node]], weight: Callable[[_Node], int], seen: set[_Node], arms: dict[_Node, list[int]]
) -> None:
    """Add to ``arms`` the arm weights F(x -> y) of every edge of ``root``'s tree (marked in ``seen``)."""
    parent: dict[_Node, _Node | None] = {root: None}
    order = [root]
    seen.add(root)
    k = 0
    while k < len(order):
        x = order[k]
        k += 1
        for y in adj[x]:
            if y not in seen:
                seen.add(y)
                parent[y] = x
                order.append(y)
    down: dict[_Node, int] = {}
    for x in reversed(order):
        best = max((down[y] for y in adj[x] if parent.get(y) == x), default=0)
        down[x] = weight(x) + best
    up: dict[_Node, int] = {}
    for x in order:
        children = [y for y in adj[x] if parent.get(y) == x]
        vals = sorted((down[y] for y in children), reverse=True)
        above = up.get(x, 0) if parent[x] is not None else 0
        for y in children:
            if len(vals) == 1:
                sib = 0
            elif down[y] == vals[0]:
                sib = vals[1]
            else:
                sib = vals[0]
            up[y] = weight(x) + max(0, above, sib)
        for y in children:
            arms[x].append(down[y])
            arms[y].append(up[y])


def networkx_prune(G: nx.Graph, length: int) -> set[int]:
    G = G.copy()
    while True:
        small = [v for comp in nx.connected_components(G) if len(comp) < length for v in comp]
        G.remove_nodes_from(small)
        through = networkx_bounds(G)
        low = [v for v in G if through.get(v, 1) < length]
        G.remove_nodes_from(low)
        if not small and not low:
            return set(G)


def _timed(fn, *args):
    """(result, wall seconds, CPU seconds of this process): CPU time is what the ratio uses, since
    other jobs on a shared machine stretch wall time of both sides unevenly."""
    w0, c0 = time.perf_counter(), time.process_time()
    out = fn(*args)
    return out, time.perf_counter() - w0, time.process_time() - c0


def compare_with_networkx(snap: Snapshot) -> None:
    g, _w_load, c_load = _timed(CitationGraph.load, snap)

    def build_nx() -> nx.Graph:
        a, b = g.undirected_edges
        usable = g.has_usable_metadata
        keep = usable[a] & usable[b]
        G = nx.Graph()
        G.add_nodes_from(np.flatnonzero(usable).tolist())
        G.add_edges_from(zip(a[keep].tolist(), b[keep].tolist(), strict=True))
        return G

    G, _w_build, c_build = _timed(build_nx)
    print(f"  {g.n:,} papers, {G.number_of_edges():,} undirected edges; load: graphniah {c_load:.2f}s CPU, networkx graph build {c_build:.2f}s CPU")
    tot = np.zeros(4)  # ours wall, ours cpu, nx wall, nx cpu
    for depth in DEPTHS:
        ours, w_ours, c_ours = _timed(prune, g, depth)
        ref, w_nx, c_nx = _timed(networkx_prune, G, path_length(depth))
        assert set(ours.kept_vertices.tolist()) == ref, f"depth {depth}: networkx and graphniah pruning disagree"
        tot += (w_ours, c_ours, w_nx, c_nx)
        print(
            f"  depth {depth:>2}: kept {ours.n_kept:,} of {ours.papers_allowed:,} (same set both ways); "
            f"CPU graphniah {c_ours:.2f}s, networkx {c_nx:.2f}s, speed-up {c_nx / c_ours:.1f}x (wall {w_nx / w_ours:.1f}x)"
        )
    print(f"  all depths: CPU graphniah {tot[1]:.2f}s, networkx {tot[3]:.2f}s -> speed-up {tot[3] / tot[1]:.1f}x (target >= 10x; wall {tot[2] / tot[0]:.1f}x)")
    print(f"  including loading / building the graph: {(tot[3] + c_build) / (tot[1] + c_load):.1f}x")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--papers", type=int, default=1_650_000, help="demo release size for part 1 (>= 1M eligible papers)")
    ap.add_argument("--small-papers", type=int, default=165_000, help="demo release size for part 2 (~100k eligible)")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--pool", type=int, default=1000)
    ap.add_argument("--cache", type=Path, default=Path("snapshots/bench"))
    ap.add_argument("--skip-full", action="store_true", help="only run part 2")
    ap.add_argument("--measure", help=argparse.SUPPRESS)  # child mode: measure part 1 on this snapshot
    args = ap.parse_args()
    if args.measure:
        print(json.dumps(measure_full(args.measure, args.pool, args.seed)))
        return

    print("graph bench, part 2: pruning, graphniah vs plain networkx")
    compare_with_networkx(demo_snapshot(args.cache, args.small_papers, args.seed))

    if args.skip_full:
        return
    print("graph bench, part 1: load + prune + 1,000-path pools for depths 4, 8, 16, 32")
    snap = demo_snapshot(args.cache, args.papers, args.seed)
    child = subprocess.run(
        [sys.executable, __file__, "--measure", str(snap.path), "--pool", str(args.pool), "--seed", str(args.seed)],
        capture_output=True, text=True, check=True,
    )
    r = json.loads(child.stdout.strip().splitlines()[-1])
    print(f"  {r['papers']:,} eligible papers ({r['usable']:,} with usable metadata), {r['edges']:,} citations; load {r['load_s']}s")
    print(f"  the compiled path search, loaded once per process before the first pool: {r['first_use_s']}s (not in the pool times)")
    if r["papers"] < 1_000_000:
        print(f"  WARNING: fewer than 1,000,000 eligible papers; raise --papers (now {args.papers:,})")
    for depth, d in r["depths"].items():
        print(
            f"  depth {depth:>2}: kept {d['kept']:,} (removed [components, bound]: {d['removed']}); "
            f"prune {d['prune_s']}s; {d['paths']} paths in {d['pool_s']}s (median of {REPEAT}) ({d['attempts']} searches, {d['steps']:,} steps, rejects {d['rejects']})"
        )
    d16, d32 = r["depths"].get("16"), r["depths"].get("32")
    if d16 and d32 and d16["pool_s"] > 0:
        print(
            f"  path pools: depth 32 took {d32['pool_s'] / d16['pool_s']:.2f}x depth 16 "
            f"({d32['pool_s']}s vs {d16['pool_s']}s; target <= 2x; steps {d32['steps']:,} vs {d16['steps']:,})"
        )
    print(f"  total {r['total_s']}s, peak memory {r['peak_rss_mb']:,} MB")


if __name__ == "__main__":
    main()
