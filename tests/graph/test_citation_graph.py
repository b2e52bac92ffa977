"""Loading a snapshot into a CitationGraph: ids, directions, undirected simple graph, metadata."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from graphniah.errors import GraphNIAHError
from graphniah.formats.snapshot import EDGES_SCHEMA, Snapshot
from graphniah.graph import CitationGraph, usable_metadata_mask
from tests.graph.synthetic import preferential_attachment, write_snapshot


def test_load_keeps_directions_and_builds_the_undirected_simple_graph(tmp_path) -> None:
    rng = np.random.default_rng(3)
    citing, cited = preferential_attachment(400, 3, rng)
    # a mutual citation: 5 cites 1 (already 1 -> ... may exist) and 1 cites 5
    citing = np.append(citing, [1, 5])
    cited = np.append(cited, [5, 1])
    key = np.unique(citing * 1000 + cited)
    citing, cited = key // 1000, key % 1000
    snap = Snapshot.open(write_snapshot(tmp_path / "s", 400, citing, cited, snapshot_hash="h1"))
    g = CitationGraph.load(snap)
    assert g.snapshot_hash == "h1"
    assert g.n == 400
    assert np.all(np.diff(g.corpusids) > 0)
    assert np.array_equal(g.corpusids, 1000 + 7 * np.arange(400))

    di = nx.DiGraph()
    di.add_nodes_from(range(400))
    di.add_edges_from(zip(citing.tolist(), cited.tolist(), strict=True))
    for v in range(400):
        assert sorted(g.cites(v).tolist()) == sorted(di.successors(v))
        assert sorted(g.cited_by(v).tolist()) == sorted(di.predecessors(v))
        assert g.neighbors(v).tolist() == sorted(set(di.successors(v)) | set(di.predecessors(v)))
    und = di.to_undirected()
    assert g.graph.ecount() == und.number_of_edges() == di.number_of_edges() - 1  # the mutual pair merges
    assert g.graph.is_simple()
    assert sorted(tuple(sorted(e)) for e in g.graph.get_edgelist()) == sorted(tuple(sorted(e)) for e in und.edges())
    assert np.array_equal(g.degree, [und.degree(v) for v in range(400)])

    assert g.vertex_of([1000 + 7 * 9, 1000]).tolist() == [9, 0]
    with pytest.raises(GraphNIAHError, match="1001"):
        g.vertex_of([1001])


def test_usable_metadata() -> None:
    titles = pa.array(["A fine title", "", "   ", None, 'On <mml:math xmlns:mml="x"><mml:mi>k</mml:mi></mml:math>-graphs', "Another", "Third <math>x</math>", "Fourth"])
    a = [{"id": "1", "name": "Ada Lovelace"}]
    authors = pa.array([a, a, a, a, a, [], a, [{"id": "2", "name": " "}, {"id": None, "name": None}]], pa.list_(pa.struct([("id", pa.string()), ("name", pa.string())])))
    assert usable_metadata_mask(titles, authors).tolist() == [True, False, False, False, False, False, False, False]


def test_snapshot_contract_violations_are_reported_with_the_file(tmp_path) -> None:
    folder = write_snapshot(tmp_path / "s", 3, np.array([0, 1]), np.array([1, 2]))
    pq.write_table(pa.table({"citing": [1000, 1007], "cited": [1007, 9999]}, schema=EDGES_SCHEMA), folder / "edges.parquet")
    with pytest.raises(GraphNIAHError, match=r"edges\.parquet.*9999"):
        CitationGraph.load(Snapshot.open(folder))
    with pytest.raises(GraphNIAHError, match="cites itself"):
        CitationGraph.from_arrays(np.array([1, 2]), np.array([1]), np.array([1]))
    with pytest.raises(GraphNIAHError, match="more than once"):
        CitationGraph.from_arrays(np.array([1, 2, 2]), np.array([1]), np.array([2]))
