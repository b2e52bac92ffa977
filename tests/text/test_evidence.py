"""The evidence an answer needs: hops by networkx on the example's own edges, blocks read by hand."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest

from graphniah.text.evidence import distances, evidence

# 0 -> 1 <- 2 -> 3 <- 4, and a second component 10 -> 11 -> 12 (edges are (citing, cited))
EDGES = [(0, 1), (2, 1), (2, 3), (4, 3), (10, 11), (11, 12)]
BLOCKS = {0: "a" * 3, 2: "b" * 5, 4: "c" * 7, 10: "d" * 11, 11: "e" * 13}  # the papers that cite one
COUNT = len


@pytest.mark.parametrize("seed", range(20))
def test_distances_are_networkx_shortest_paths_over_undirected_citations(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 60))
    edges = [((v, int(rng.integers(v))) if rng.random() < 0.5 else (int(rng.integers(v)), v)) for v in range(1, n)]
    source = int(rng.integers(n))
    assert distances(edges, source) == nx.single_source_shortest_path_length(nx.Graph(edges), source)


def test_yes_reads_the_blocks_stating_the_citations_up_to_the_target() -> None:
    # target 1 is one hop away: the search expands the source only, reading the block that states 0 -> 1
    ev = evidence("yesno", "YES", 0, [1], EDGES, BLOCKS, COUNT)
    assert (ev.hops, ev.tokens) == (1, 3)
    # target 3 at three hops: 0 -> 1, 2 -> 1, 2 -> 3 are read (blocks of 0 and 2), not 4's block
    ev = evidence("yesno", "YES", 0, [3], EDGES, BLOCKS, COUNT)
    assert (ev.hops, ev.tokens) == (3, 3 + 5)
    # from 4, target 1 is three hops (4 -> 3 <- 2 -> 1): the blocks of 4 and 2, not 0's (0 -> 1 is beyond)
    ev = evidence("yesno", "YES", 4, [1], EDGES, BLOCKS, COUNT)
    assert (ev.hops, ev.tokens) == (3, 7 + 5)


def test_no_count_and_list_exhaust_the_source_component_and_mc_adds_the_candidates() -> None:
    whole = 3 + 5 + 7  # every block of the source's component; none of the other one
    for task, answer, targets in (("yesno", "NO", [12]), ("count", "4", []), ("list", "t1\nt2\nt3\nt4", [1, 2, 3, 4])):
        ev = evidence(task, answer, 0, targets, EDGES, BLOCKS, COUNT)
        assert (ev.hops, ev.tokens) == (4, whole), task
    assert evidence("count", "4", 2, [], EDGES, BLOCKS, COUNT).hops == 2  # the eccentricity of the source
    ev = evidence("mc", "A", 0, [3, 11, 12], EDGES, BLOCKS, COUNT)  # 11 has a block, 12 has none
    assert (ev.hops, ev.tokens) == (4, whole + 13)
