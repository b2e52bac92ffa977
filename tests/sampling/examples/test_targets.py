"""Target choice on hand-made components: the question each task poses, checked with networkx
reachability on the components' own edges; the batch's answer balance, checked by counting."""

from __future__ import annotations

import itertools
from collections import Counter

import networkx as nx
import numpy as np
import pytest
from scipy import stats as sps

from graphniah.sampling.examples.grow import Component
from graphniah.sampling.examples.spec import ExampleSpec
from graphniah.sampling.examples.targets import balanced_labels, choose_targets


def _component(first: int) -> Component:
    """A depth-2 component of five papers ``first .. first + 4``: the backbone path p1-p2-p3-p4 (source p2,
    target p3, as s = p_k and t = p_(2k-1) with k = 2), and one leaf citing p4."""
    p = [first + i for i in range(5)]
    return Component(order=tuple(p), edges=((p[1], p[0]), (p[2], p[1]), (p[3], p[2]), (p[4], p[3])), source=p[1], target=p[2])


COMPS = [_component(10 * c) for c in range(4)]  # papers 0-4, 10-14, 20-24, 30-34


def _forest(comps: list[Component]) -> nx.Graph:
    g = nx.Graph()
    for c in comps:
        g.add_nodes_from(c.order)
        g.add_edges_from(c.edges)
    return g


@pytest.mark.parametrize("label", ["YES", "NO"])
def test_yes_no_asks_about_a_target_reachable_exactly_when_yes(label: str) -> None:
    comps = COMPS[:2]
    source, targets, answer = choose_targets(ExampleSpec("yesno", 2, 5, label), comps)
    g = _forest(comps)
    assert source == 1 and answer == label and len(targets) == 1
    assert nx.has_path(g, source, targets[0]) == (label == "YES")
    # the asked paper is the target of its component (one hop from its source here, depth - 1 = 1)
    assert targets[0] == (2 if label == "YES" else 12)
    if label == "YES":
        assert nx.shortest_path_length(g, source, targets[0]) == 1


@pytest.mark.parametrize("letter", list("ABCD"))
def test_multiple_choice_puts_the_reachable_option_at_the_answer_letter(letter: str) -> None:
    source, targets, answer = choose_targets(ExampleSpec("mc", 2, 5, letter), COMPS)
    g = _forest(COMPS)
    assert source == 1 and answer == letter
    reachable = [i for i, t in enumerate(targets) if nx.has_path(g, source, t)]
    assert reachable == ["ABCD".index(letter)]
    # the wrong options are the other components' targets, in component order around the true one
    assert [t for t in targets if t != 2] == [12, 22, 32]


def test_listing_names_every_other_paper_of_the_source_s_component_and_counting_none() -> None:
    comps = COMPS[:2]
    source, targets, answer = choose_targets(ExampleSpec("list", 2, 5), comps)
    g = _forest(comps)
    assert source == 1 and answer == ""
    assert set(targets) == nx.node_connected_component(g, source) - {source} == {0, 2, 3, 4}
    assert targets == [0, 2, 3, 4]  # the component's order, the source left out
    source, targets, answer = choose_targets(ExampleSpec("count", 2, 5), comps)
    assert source == 1 and targets == []
    assert answer == str(len(nx.node_connected_component(g, source)) - 1) == "4"


def test_labels_come_in_yes_no_pairs_and_letter_groups_of_four_per_task() -> None:
    tasks = ["yesno", "mc", "count", "yesno", "mc", "mc", "list", "mc", "yesno", "mc", "yesno", "yesno"]
    labels = balanced_labels(tasks, np.random.default_rng(4))
    per_task: dict[str, list[str | None]] = {"yesno": [], "mc": [], "count": [], "list": []}
    for t, lab in zip(tasks, labels, strict=True):
        per_task[t].append(lab)
    assert per_task["count"] == per_task["list"] == [None]
    yn, mc = per_task["yesno"], per_task["mc"]
    assert sorted(yn[0:2]) == sorted(yn[2:4]) == ["NO", "YES"] and yn[4] in ("YES", "NO")  # pairs among the YES/NO ones
    assert sorted(mc[0:4]) == list("ABCD") and mc[4] in list("ABCD")  # a group of four among the MC ones, then one more


def test_each_order_of_a_pair_and_of_a_group_is_equally_likely() -> None:
    rng = np.random.default_rng(0)
    pairs: Counter[tuple[str | None, ...]] = Counter()
    groups: Counter[tuple[str | None, ...]] = Counter()
    for _ in range(2400):
        pairs[tuple(balanced_labels(["yesno", "yesno"], rng))] += 1
        groups[tuple(balanced_labels(["mc"] * 4, rng))] += 1
    assert set(pairs) == {("YES", "NO"), ("NO", "YES")}
    assert sps.binomtest(pairs["YES", "NO"], 2400).pvalue > 0.001
    assert set(groups) == set(itertools.permutations("ABCD"))  # all 24 orders occur
    assert sps.chisquare(list(groups.values())).pvalue > 0.001  # and equally often
    # a lone last label is uniform too
    lone = Counter(balanced_labels(["mc"], rng)[0] for _ in range(2000))
    assert set(lone) == set("ABCD") and sps.chisquare(list(lone.values())).pvalue > 0.001
