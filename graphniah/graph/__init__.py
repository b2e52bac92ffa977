"""Graph stage: the citation graph in memory, pruning for a depth, and path pools.

    g = CitationGraph.load(snapshot)
    result = prune(g, depth)                          # PruneResult (kept mask, bounds, removal counts)
    pool = sample_path_pool(g, depth, 1000, rng)      # PathPool (paths as corpus ids)
    write_pruned(snapshot, g, result); write_pool(snapshot, pool, seed=seed)
    load_pool(snapshot, depth)

``prune_snapshot`` and ``build_path_pools`` do this for several depths and are what the CLI and
``refresh`` call.
"""

from graphniah.graph.citation_graph import CitationGraph, usable_metadata_mask
from graphniah.graph.paths import PathPool, PoolParams, PoolStats, Rejects, explain_short, sample_path_pool
from graphniah.graph.prune import PruneResult, block_cut_bounds, path_length, prune
from graphniah.graph.store import (
    PoolOutcome,
    build_path_pools,
    load_pool,
    load_pruned,
    pool_file,
    prune_snapshot,
    pruned_file,
    rng_for,
    write_pool,
    write_pruned,
)

__all__ = [
    "CitationGraph",
    "PathPool",
    "PoolOutcome",
    "PoolParams",
    "PoolStats",
    "PruneResult",
    "Rejects",
    "block_cut_bounds",
    "build_path_pools",
    "explain_short",
    "load_pool",
    "load_pruned",
    "path_length",
    "pool_file",
    "prune",
    "prune_snapshot",
    "pruned_file",
    "rng_for",
    "sample_path_pool",
    "usable_metadata_mask",
    "write_pool",
    "write_pruned",
]
