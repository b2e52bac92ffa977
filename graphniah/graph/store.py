"""Pruned sets and path pools on disk, and the per-snapshot drivers the CLI and ``refresh`` call.

The files (their schemas and manifests are in :mod:`graphniah.formats.pools`, their paths in
:mod:`graphniah.layout`) are written atomically, the manifest last, so a manifest that exists
describes a complete Parquet file, which it also names by sha256.

A pool is sampled with ``numpy.random.default_rng(SeedSequence([seed, K]))``, so the pool of a
depth depends only on (snapshot, seed, K, parameters), not on which other depths were requested.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.parquet as pq

from graphniah import __version__, layout
from graphniah.atomic import atomic_path, sha256_file
from graphniah.errors import GraphNIAHError
from graphniah.formats.pools import (
    POOL_SCHEMA,
    PRUNED_SCHEMA,
    PoolManifest,
    PrunedManifest,
    read_checked_manifest,
    read_graph_manifest,
    read_pool,
    read_pruned,
    write_graph_manifest,
)
from graphniah.formats.snapshot import Snapshot
from graphniah.graph.citation_graph import CitationGraph
from graphniah.graph.paths import (
    DEFAULT_CAP,
    DEFAULT_STEP_BUDGET,
    PathPool,
    PoolParams,
    PoolStats,
    default_max_attempts,
    explain_short,
    sample_path_pool,
)
from graphniah.graph.prune import PruneResult, path_length, prune
from graphniah.progress import NO_PROGRESS, Progress, step
from graphniah.seeds import Stream, generator

# What a pooled path is; a pool written under another definition is rebuilt, never reused.
PATH_KIND = "induced"
#: How a pool's generator is made from (seed, depth), recorded in its manifest (see ``rng_for``).
POOL_RNG = "numpy.random.default_rng(numpy.random.SeedSequence([seed, depth]))"


def pruned_file(snapshot: Snapshot, depth: int) -> Path:
    return layout.pruned_file(snapshot.path, depth)


def pool_file(snapshot: Snapshot, depth: int) -> Path:
    return layout.pool_file(snapshot.path, depth)


def _write_parquet(table: pa.Table, target: Path) -> dict[str, Any]:
    """Write ``table`` to ``target`` atomically; its ``sha256`` and ``bytes`` for the manifest."""
    with atomic_path(target) as tmp:
        pq.write_table(table, tmp)
    return {"sha256": sha256_file(target), "bytes": target.stat().st_size}


def _base_manifest(snapshot: Snapshot) -> dict[str, Any]:
    m = snapshot.manifest
    return {
        "snapshot": str(snapshot.path),
        "snapshot_hash": m.snapshot_hash,
        "synthetic": m.synthetic,
        "package_version": __version__,
        "created_at": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
    }


def read_pool_manifest(snapshot: Snapshot, depth: int, *, checked: bool = True) -> PoolManifest:
    """The manifest of the pool of ``depth``; ``checked`` also checks it against the snapshot and
    the pool file's sha256 (``load_pool`` does; a caller that just loaded the pool need not)."""
    if checked:
        return read_checked_manifest(snapshot, pool_file(snapshot, depth), "paths", PoolManifest)
    return read_graph_manifest(PoolManifest, layout.graph_manifest(pool_file(snapshot, depth)))


# ---- pruned sets --------------------------------------------------------------------------------


def write_pruned(snapshot: Snapshot, g: CitationGraph, result: PruneResult, *, seconds: float | None = None) -> Path:
    """Write ``pruned/depth=K.parquet`` (kept corpus ids, ascending) and its manifest."""
    target = pruned_file(snapshot, result.depth)
    table = pa.table({"corpusid": pa.array(g.corpusids[result.kept], pa.int64())}, schema=PRUNED_SCHEMA)
    written = _write_parquet(table, target)
    manifest = PrunedManifest.model_validate(
        {**_base_manifest(snapshot), **result.summary(), **written, "seconds": None if seconds is None else round(seconds, 3)}
    )
    write_graph_manifest(layout.graph_manifest(target), manifest)
    return target


def load_pruned(snapshot: Snapshot, depth: int) -> npt.NDArray[np.int64]:
    """Corpus ids kept for ``depth`` (checked against the snapshot hash and the file's sha256)."""
    return read_pruned(snapshot, depth)


# ---- path pools ---------------------------------------------------------------------------------


def write_pool(snapshot: Snapshot, pool: PathPool, *, seed: int, pruned: PruneResult | None = None) -> Path:
    """Write ``paths/depth=K.parquet`` (column ``path``) and its manifest ``paths/depth=K.json``."""
    target = pool_file(snapshot, pool.depth)
    flat = pa.array(pool.paths.reshape(-1), pa.int64())
    offsets = pa.array(np.arange(pool.size + 1, dtype=np.int32) * pool.length, pa.int32())
    table = pa.table({"path": pa.ListArray.from_arrays(offsets, flat)}, schema=POOL_SCHEMA)
    written = _write_parquet(table, target)
    manifest = PoolManifest(
        **_base_manifest(snapshot),
        depth=pool.depth,
        path_length=pool.length,
        path_kind=PATH_KIND,
        seed=seed,
        rng=POOL_RNG,
        requested=pool.requested,
        found=pool.size,
        complete=pool.complete,
        parameters=pool.params.as_dict(),
        stats=pool.stats.as_dict(),
        sha256=written["sha256"],
        bytes=written["bytes"],
        pruning=None if pruned is None else pruned.summary(),
    )
    write_graph_manifest(layout.graph_manifest(target), manifest)
    return target


def load_pool(snapshot: Snapshot, depth: int) -> PathPool:
    """Read a pool written by ``write_pool`` (checked against the snapshot hash and its sha256)."""
    m, paths = read_pool(snapshot, depth)
    return PathPool(depth, m.path_length, m.requested, paths, PoolParams(**m.parameters), PoolStats.from_dict(m.stats))


def rng_for(seed: int, depth: int) -> np.random.Generator:
    """The generator a pool of ``depth`` is sampled with (the ``pool`` stream of :mod:`graphniah.seeds`)."""
    return generator(Stream.POOL, seed, depth)


# ---- drivers (CLI, refresh) ---------------------------------------------------------------------


def _prune_resuming(snapshot: Snapshot, g: CitationGraph, depth: int, *, reuse: bool = True) -> tuple[PruneResult, bool]:
    """``prune(g, depth)``, started from the stored fixed point ``pruned/depth=K`` when there is a
    valid one (``reuse``); and whether that stored pruning stands (pruning it removed nothing).

    A stored fixed point that stands is what pruning the whole snapshot gives, and its manifest
    holds that pruning's removal counts: the result carries those counts rather than the trivial
    ones of re-pruning the fixed point. So the result, and every manifest that records its
    summary (the pool's ``pruning``), is the same whether or not an earlier run stopped after
    writing the pruned set.
    """
    stored = _stored_pruning(snapshot, g, depth) if reuse else None
    result = prune(g, depth, allowed=None if stored is None else stored[0])
    if stored is None or result.n_kept != int(np.count_nonzero(stored[0])):
        return result, False
    m = stored[1]
    return dataclasses.replace(result, papers_allowed=m.papers_in, removed_small_components=m.removed_small_components,
                               removed_by_bound=m.removed_by_bound), True


def _stored_pruning(snapshot: Snapshot, g: CitationGraph, depth: int) -> tuple[npt.NDArray[np.bool_], PrunedManifest] | None:
    """The papers a valid stored ``pruned/depth=K`` keeps (those with usable metadata), and its manifest."""
    try:
        kept = load_pruned(snapshot, depth)
    except GraphNIAHError:
        return None
    allowed = np.zeros(g.n, dtype=bool)
    allowed[g.vertex_of(kept, source=str(pruned_file(snapshot, depth)))] = True
    return allowed & g.has_usable_metadata, read_graph_manifest(PrunedManifest, layout.graph_manifest(pruned_file(snapshot, depth)))


def prune_snapshot(
    snapshot: Snapshot, depths: Sequence[int], *, graph: CitationGraph | None = None, reuse: bool = True, progress: Progress = NO_PROGRESS
) -> dict[int, PruneResult]:
    """Prune for each depth and write ``pruned/depth=K`` (kept as is when already valid and ``reuse``)."""
    g = graph if graph is not None else CitationGraph.load(snapshot)
    for depth in depths:
        path_length(depth)
    with step(progress, len(depths), "pruning"):
        return {depth: _prune_one(snapshot, g, depth, reuse, progress) for depth in depths}


def _prune_one(snapshot: Snapshot, g: CitationGraph, depth: int, reuse: bool, progress: Progress) -> PruneResult:
    """One depth of :func:`prune_snapshot`."""
    t0 = time.perf_counter()
    result, stands = _prune_resuming(snapshot, g, depth, reuse=reuse)
    secs = time.perf_counter() - t0
    if not stands:
        write_pruned(snapshot, g, result, seconds=secs)
    progress.note(
        f"depth {depth}: kept {result.n_kept:,} of {result.papers_allowed:,} papers (removed {result.removed_small_components:,} "
        f"in small components, {result.removed_by_bound:,} by the bound) in {secs:.1f}s"
    )
    progress.advance()
    return result


@dataclass(frozen=True, eq=False)
class PoolOutcome:
    depth: int
    pool: PathPool
    pruned: PruneResult | None
    """``None`` when an existing pool was reused"""
    written: Path | None
    """``None`` when the pool was short and not written"""
    reused: bool
    seconds: float


def _reusable_pool(snapshot: Snapshot, depth: int, pool_size: int, seed: int, params: PoolParams) -> PathPool | None:
    try:
        pool = load_pool(snapshot, depth)
    except (GraphNIAHError, KeyError, ValueError, OSError):
        return None
    m = read_graph_manifest(PoolManifest, layout.graph_manifest(pool_file(snapshot, depth)))
    if m.path_kind != PATH_KIND or m.seed != seed or pool.requested != pool_size or pool.params != params or not pool.complete:
        return None
    return pool


def build_path_pools(
    snapshot: Snapshot,
    depths: Sequence[int],
    pool_size: int,
    seed: int,
    *,
    allow_short: bool = False,
    graph: CitationGraph | None = None,
    cap: int = DEFAULT_CAP,
    step_budget: int = DEFAULT_STEP_BUDGET,
    max_attempts: int | None = None,
    reuse: bool = True,
    pruned: Mapping[int, PruneResult] | None = None,
    progress: Progress = NO_PROGRESS,
) -> list[PoolOutcome]:
    """Sample and write the pool of every depth (reusing an identical complete pool when ``reuse``).

    ``pruned`` may hold the pruning results of ``prune_snapshot`` on the same graph, so a depth is
    not pruned twice.
    A short pool is written only with ``allow_short``; otherwise the other depths are still
    built and then a ``GraphNIAHError`` says, per short depth, how many paths were found and why.
    """
    for depth in depths:
        path_length(depth)
    attempts_for = max_attempts if max_attempts is not None else default_max_attempts(pool_size)
    params = PoolParams(cap=cap, step_budget=step_budget, max_attempts=attempts_for)
    g = graph
    outcomes: list[PoolOutcome] = []
    short: list[str] = []
    with step(progress, len(depths), "path pools"):
        for depth in depths:
            t0 = time.perf_counter()
            old = _reusable_pool(snapshot, depth, pool_size, seed, params) if reuse else None
            if old is not None:
                outcomes.append(PoolOutcome(depth, old, None, pool_file(snapshot, depth), True, time.perf_counter() - t0))
                progress.note(f"depth {depth}: pool of {old.size} paths already built for this snapshot and seed")
                progress.advance()
                continue
            if g is None:
                g = CitationGraph.load(snapshot)
            kept = pruned[depth] if pruned is not None and depth in pruned else _prune_resuming(snapshot, g, depth)[0]
            pool = sample_path_pool(g, depth, pool_size, rng_for(seed, depth), pruned=kept, cap=cap, step_budget=step_budget, max_attempts=attempts_for)
            written = None
            if pool.complete or allow_short:
                written = write_pool(snapshot, pool, seed=seed, pruned=kept)
            if not pool.complete:
                short.append(explain_short(pool, kept))
            secs = time.perf_counter() - t0
            outcomes.append(PoolOutcome(depth, pool, kept, written, False, secs))
            progress.note(f"depth {depth}: {pool.size} of {pool_size} paths of {pool.length} papers from {kept.n_kept:,} pruned papers in {secs:.1f}s")
            progress.advance()
    if short and not allow_short:
        raise GraphNIAHError("; ".join(short) + f" (snapshot {snapshot.path}; pass --allow-short to keep short pools)")
    return outcomes
