"""Small synthetic graphs of many shapes, and snapshots written from them, for the graph tests."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from pathlib import Path

import networkx as nx
import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from graphniah.formats.snapshot import EDGES_SCHEMA, PAPERS_SCHEMA, EarliestPublicDates, SnapshotManifest, write_snapshot_manifest


def _relabel(g: nx.Graph, rng: np.random.Generator) -> nx.Graph:
    """Shuffle vertex labels so that no shape arrives in a convenient order."""
    perm = rng.permutation(g.number_of_nodes())
    return nx.relabel_nodes(g, {v: int(perm[i]) for i, v in enumerate(g.nodes())})


def random_tree(rng: np.random.Generator) -> nx.Graph:
    n = int(rng.integers(1, 16))
    g = nx.empty_graph(n)
    for v in range(1, n):
        g.add_edge(v, int(rng.integers(v)))
    return g


def _add_tail(g: nx.Graph, at: int, rng: np.random.Generator) -> None:
    """Hang a path of 1-3 new vertices on ``at``."""
    for _ in range(int(rng.integers(1, 4))):
        new = g.number_of_nodes()
        g.add_edge(at, new)
        at = new


def cycle_with_tails(rng: np.random.Generator) -> nx.Graph:
    g = nx.cycle_graph(int(rng.integers(3, 10)))
    for _ in range(int(rng.integers(0, 3))):
        _add_tail(g, int(rng.choice(list(g.nodes()))), rng)
    return g


def cactus(rng: np.random.Generator) -> nx.Graph:
    """Cycles and bridges glued at single vertices: every block is a cycle or an edge."""
    g = nx.Graph()
    g.add_node(0)
    while g.number_of_nodes() < int(rng.integers(4, 14)):
        at = int(rng.choice(list(g.nodes())))
        k = int(rng.integers(1, 6))
        new = list(range(g.number_of_nodes(), g.number_of_nodes() + k))
        nx.add_path(g, [at, *new])
        if k >= 2 and rng.random() < 0.7:
            g.add_edge(new[-1], at)
    return g


def grid(rng: np.random.Generator) -> nx.Graph:
    r, c = int(rng.integers(1, 4)), int(rng.integers(2, 5))
    g = nx.convert_node_labels_to_integers(nx.grid_2d_graph(r, c))
    for _ in range(int(rng.integers(0, 3))):  # knock out a few vertices
        if g.number_of_nodes() > 2:
            g.remove_node(int(rng.choice(list(g.nodes()))))
    return nx.convert_node_labels_to_integers(g)


def dense_blob(rng: np.random.Generator) -> nx.Graph:
    n = int(rng.integers(3, 8))
    g = nx.gnp_random_graph(n, float(rng.uniform(0.5, 0.95)), seed=int(rng.integers(2**31)))
    if rng.random() < 0.5:  # a pendant tail makes the bound's arms matter
        _add_tail(g, int(rng.integers(n)), rng)
    return g


def block_chain(rng: np.random.Generator) -> nx.Graph:
    """Many articulation points: small blocks (edge, triangle, K4, C4, K_{2,3}) hung on each other."""
    g = nx.Graph()
    g.add_node(0)
    shapes = [nx.path_graph(2), nx.complete_graph(3), nx.complete_graph(4), nx.cycle_graph(4), nx.complete_bipartite_graph(2, 3)]
    for _ in range(int(rng.integers(1, 5))):
        block = shapes[int(rng.integers(len(shapes)))]
        at = int(rng.choice(list(g.nodes())))
        base = g.number_of_nodes()
        mapping = {v: (at if i == 0 else base + i - 1) for i, v in enumerate(block.nodes())}
        g.add_edges_from((mapping[a], mapping[b]) for a, b in block.edges())
        if g.number_of_nodes() > 15:
            break
    return g


def sparse_random(rng: np.random.Generator) -> nx.Graph:
    n = int(rng.integers(2, 13))
    return nx.gnp_random_graph(n, float(rng.uniform(0.1, 0.35)), seed=int(rng.integers(2**31)))


def union_of_two(rng: np.random.Generator) -> nx.Graph:
    """Disconnected: two shapes side by side (components of different sizes)."""
    a = SHAPES["tree"](rng)
    b = SHAPES["cactus"](rng)
    return nx.disjoint_union(a, b)


SHAPES: dict[str, Callable[[np.random.Generator], nx.Graph]] = {
    "tree": random_tree,
    "cycle": cycle_with_tails,
    "cactus": cactus,
    "grid": grid,
    "dense": dense_blob,
    "blocks": block_chain,
    "sparse": sparse_random,
    "union": union_of_two,
}


def random_shape(name: str, rng: np.random.Generator) -> nx.Graph:
    return _relabel(SHAPES[name](rng), rng)


def edge_arrays(g: nx.Graph) -> tuple[np.ndarray, np.ndarray]:
    """Edges as two int64 arrays, in a random-looking direction (the citation direction is arbitrary)."""
    e = np.array(sorted(g.edges()), dtype=np.int64).reshape(-1, 2)
    flip = (e[:, 0] * 7 + e[:, 1] * 3) % 2 == 1
    e[flip] = e[flip][:, ::-1]
    return e[:, 0].copy(), e[:, 1].copy()


def preferential_attachment(n: int, m: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """A citation-like graph: each new paper cites up to ``m`` earlier ones, preferring cited ones."""
    targets = [0]
    citing, cited = [], []
    for v in range(1, n):
        k = int(rng.integers(0, m + 1))
        chosen = {targets[int(i)] for i in rng.integers(0, len(targets), size=k)}
        for u in chosen:
            citing.append(v)
            cited.append(u)
            targets.append(u)
        targets.append(v)
    return np.array(citing, dtype=np.int64), np.array(cited, dtype=np.int64)


def write_snapshot(
    folder: Path,
    n: int,
    citing: np.ndarray,
    cited: np.ndarray,
    *,
    id_offset: int = 1000,
    unusable: set[int] | frozenset[int] = frozenset(),
    snapshot_hash: str = "test-snapshot",
) -> Path:
    """A snapshot folder for papers ``0..n-1`` (corpus id = ``id_offset + 7*i``, rows shuffled).

    Papers in ``unusable`` get no authors (so they have no usable metadata).
    """
    folder.mkdir(parents=True, exist_ok=True)
    ids = id_offset + 7 * np.arange(n, dtype=np.int64)
    order = np.random.default_rng(n).permutation(n)
    rows = []
    for i in order:
        i = int(i)
        authors = [] if i in unusable else [{"id": str(10 + i), "name": f"Author {i}"}]
        rows.append(
            {
                "corpusid": int(ids[i]),
                "title": f"Paper number {i}",
                "authors": authors,
                "venue": "",
                "journal": None,
                "publication_date": dt.date(2026, 4, 1) + dt.timedelta(days=i % 30),
                "year": 2026,
                "arxiv_id": None,
                "doi": None,
                "earliest_public_date": dt.date(2026, 4, 1) + dt.timedelta(days=i % 30),
            }
        )
    pq.write_table(pa.Table.from_pylist(rows, schema=PAPERS_SCHEMA), folder / "papers.parquet")
    edges = pa.table({"citing": ids[citing], "cited": ids[cited]}, schema=EDGES_SCHEMA)
    pq.write_table(edges, folder / "edges.parquet")
    write_snapshot_manifest(folder / "manifest.json", SnapshotManifest(
        release_id="synthetic-test", cutoff=dt.date(2026, 4, 1), synthetic=True, source={"type": "test"}, inputs=[],
        rows={"papers": {"kept": n}, "edges": {"kept": len(citing)}}, eligibility={}, files={},
        earliest_public_date=EarliestPublicDates(min=dt.date(2026, 4, 1), max=dt.date(2026, 4, 1) + dt.timedelta(days=min(n - 1, 29))) if n else None,
        snapshot_hash=snapshot_hash, package_version="test", duckdb_version="none", created_at="2026-04-02T00:00:00"))
    return folder
