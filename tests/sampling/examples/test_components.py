"""Component matching: cohesion and affinity of backbones, the partner caliper, the draws, and on the
demo snapshot matched examples of every task that keep their invariants and replay from their recipe."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

import numpy as np
import pyarrow as pa
import pytest
from scipy import stats as sps

from graphniah.errors import GraphNIAHError
from graphniah.formats.examples import parse_example
from graphniah.sampling.examples.components import ComponentIndex
from graphniah.sampling.examples.sample import batch_specs, build_example, regenerate
from graphniah.sampling.examples.similarity import TitleSpace, title_words
from graphniah.sampling.examples.spec import ExampleSpec, SamplingContext
from graphniah.text import verify
from tests.sampling.examples.test_similarity import _hand_made_pool, reference_vector

WORDS = ["graph", "citation", "protein", "folding", "galaxy", "survey", "neural", "kinase", "quasar", "tensor"]


def _dot(a: dict[str, float], b: dict[str, float]) -> float:
    return sum(x * b.get(w, 0.0) for w, x in a.items())


def test_cohesion_and_affinity_are_mean_title_cosines_written_out_by_hand() -> None:
    rng = np.random.default_rng(0)
    n_paths, length = 7, 10  # depth 4: 3k - 2 = 10 papers, halves of 5
    titles = [" ".join(rng.choice(WORDS, size=int(rng.integers(1, 4)))) for _ in range(n_paths * length)]
    titles[3] = "??"  # a title without a word: similar to nothing, still one title of its half
    paths = rng.permutation(n_paths * length).reshape(n_paths, length).astype(np.int64)
    index = ComponentIndex.build(paths, TitleSpace.fit(pa.array(titles)), pa.array(titles))
    vec = [reference_vector(titles, t) for t in titles]
    for i, p in enumerate(paths.tolist()):
        pairs = [_dot(vec[a], vec[b]) for a in p[:5] for b in p[5:]]
        assert index.cohesion[i] == pytest.approx(sum(pairs) / 25, abs=1e-12)
        for j, q in enumerate(paths.tolist()):
            cross = [_dot(vec[a], vec[b]) for a in p for b in q]
            assert index.affinity[i, j] == pytest.approx(sum(cross) / 100, abs=1e-12)


def test_partners_lie_within_one_hundredth_of_the_cohesion() -> None:
    # 0.01 itself is in (|0.01 - 0.0| is exactly 0.01); the next values out are not
    index = ComponentIndex(np.array([0.0, 0.05, 0.05, 0.05, 0.05]),
                           np.array([[1.0, 0.01, 0.0100001, -0.01, -0.0100001],
                                     [0.045, 1.0, 0.0625, 0.0375, 0.05],
                                     [0.0, 0.0, 1.0, 0.0, 0.0],
                                     [0.0, 0.0, 0.0, 1.0, 0.0],
                                     [0.0, 0.0, 0.0, 0.0, 1.0]]))
    assert index.partners(0).tolist() == [False, True, False, True, False]
    assert index.partners(1).tolist() == [True, False, False, False, True]  # never itself, 0.0125 out, 0.005 in


def test_draws_are_compatible_partners_uniformly() -> None:
    # path 0's partners: 1, 2, 3 (4 and 5 too far in subject, 0.02 and 0.3 from its cohesion); 2 and 3 conflict
    aff = np.full((6, 6), 0.9)
    aff[0] = [1.0, 0.5, 0.505, 0.495, 0.52, 0.2]
    index = ComponentIndex(np.array([0.5, 0.9, 0.9, 0.9, 0.9, 0.9]), aff)
    conflict = np.eye(6, dtype=bool)
    conflict[2, 3] = conflict[3, 2] = True
    rng = np.random.default_rng(2)
    seconds: Counter[int] = Counter()
    directions: Counter[bool] = Counter()
    for _ in range(6000):
        drawn = index.draw(conflict, 2, rng)
        assert drawn is not None  # every path has a compatible partner here
        (first, _), (second, rev) = drawn
        assert index.partners(first)[second] and not conflict[first, second]
        if first == 0:
            seconds[second] += 1
            directions[rev] += 1
    assert set(seconds) == {1, 2, 3}
    assert sps.chisquare(list(seconds.values())).pvalue > 0.001  # uniform among the partners
    assert sps.binomtest(directions[True], sum(directions.values())).pvalue > 0.001
    # three components: 2 and 3 cannot both join 0, so the third is always 1
    for _ in range(200):
        drawn = index.draw(conflict, 3, rng)
        if drawn is not None and drawn[0][0] == 0:
            assert sorted(p for p, _ in drawn[1:]) in ([1, 2], [1, 3])
    # no partner left: the tuple is drawn again
    lonely = ComponentIndex(np.array([0.5, 0.5]), np.array([[1.0, 0.0], [0.0, 1.0]]))
    assert lonely.draw(np.eye(2, dtype=bool), 2, rng) is None


@pytest.mark.parametrize("k", [2, 4])
def test_matched_targets_with_partners_and_equal_title_lengths(k: int) -> None:
    index, conflict = _hand_made_pool()
    n = index.n
    parity = np.arange(n) % 2

    def partners(path: int) -> np.ndarray:
        return parity != parity[path]  # a rule of our own: paths of the other parity

    rng = np.random.default_rng(3)
    kept = above = longer = 0.0
    for _ in range(20_000):  # bounded
        if kept == 600:
            break
        drawn = index.draw(conflict, k, rng, partners=partners)
        if drawn is None:
            continue
        kept += 1
        (first, rev), wrong = drawn[0], drawn[1:]
        src, tgt = first + n * rev, first + n * (not rev)
        rows = [p + n * (not r) for p, r in wrong]
        assert all(parity[p] != parity[first] for p, _ in wrong)
        assert [int(index.words[x]) for x in rows] == [int(index.words[tgt])] * (k - 1)
        cos = index.cosines_from(src)
        above += np.mean([(cos[tgt] > cos[x]) + 0.5 * (cos[tgt] == cos[x]) for x in rows])
        chars = index.chars
        longer += np.mean([(chars[tgt] > chars[x]) + 0.5 * (chars[tgt] == chars[x]) for x in rows])
    assert kept == 600
    assert abs(above / kept - 0.5) < 0.04  # the true target's rank by similarity stays uniform
    assert abs(longer / kept - 0.5) < 0.04  # and so does its rank by length in characters


def test_title_words_count_word_runs() -> None:
    got = title_words(pa.array(["Graph neural networks: a survey", "COVID-19 in 2020", "", None, "  x  "]))
    assert got.tolist() == [5, 4, 0, 0, 1]


def test_component_matching_only_with_matched_sampling() -> None:
    ExampleSpec("count", 4, 105, match_similarity=True, match_components=True)
    with pytest.raises(GraphNIAHError, match="match_similarity"):
        ExampleSpec("count", 4, 105, match_components=True)
    specs = batch_specs("list", 4, 2, np.random.default_rng(0), match_similarity=True)
    assert all(s.match_components and s.params()["match_components"] is True for s in specs)
    assert not any(s.match_components for s in batch_specs("yesno", 4, 2, np.random.default_rng(0)))


@pytest.fixture(scope="module")
def ctx(demo_snapshot, demo_graph) -> SamplingContext:
    return SamplingContext(demo_snapshot, demo_graph)


def test_draws_on_the_demo_pool_are_compatible_partners(ctx) -> None:
    pool = ctx.pool_index(8)
    comps = ctx.component_index(8)
    rng = np.random.default_rng(6)
    kept = 0
    for _ in range(5000):
        drawn = comps.draw(pool.conflict, 2, rng)
        if drawn is None:
            continue
        kept += 1
        (a, _), (b, _) = drawn
        assert not pool.conflict[a, b] and abs(comps.affinity[a, b] - comps.cohesion[a]) <= 0.01
    assert kept > 1000  # most sources of the demo pool have a partner


@pytest.mark.parametrize("task", ["yesno", "mc", "count", "list"])
def test_matched_examples_record_component_matching_and_replay(ctx, task) -> None:
    rng = np.random.default_rng(7)
    for i, spec in enumerate(batch_specs(task, 8, 2, rng, match_similarity=True)):  # type: ignore[arg-type]
        ex = build_example(ctx, spec, 41, i)
        line = ex.model_dump_json()
        assert ex.recipe.params.match_components and '"match_components":true' in line
        assert verify(ex).ok
        assert regenerate(ctx, parse_example(line, f"example {i}")).model_dump_json() == line
        # a recipe written before the rule (no key; nor the learned score or its weighted draw, which build on it) replays the draw without it
        old = build_example(ctx, replace(spec, match_components=False, match_learned=False, match_weighted=False, source_slot=None), 41, i)
        old_line = old.model_dump_json()
        assert "match_components" not in old_line and old.id != ex.id
        assert regenerate(ctx, parse_example(old_line, f"old example {i}")).model_dump_json() == old_line


def test_a_path_is_never_its_own_partner_even_when_its_affinity_to_itself_is_in_the_caliper() -> None:
    # path 0's affinity with itself (0.5) is its cohesion: the caliper alone would take it
    index = ComponentIndex(np.array([0.5, 0.5, 0.5]), np.array([[0.5, 0.505, 0.9], [0.505, 0.5, 0.9], [0.9, 0.9, 0.5]]))
    assert index.partners(0).tolist() == [False, True, False]
    assert index.partners(1).tolist() == [True, False, False]
    assert index.partners(2).tolist() == [False, False, False]
    rng = np.random.default_rng(1)
    for _ in range(300):  # no draw puts a path beside itself, whatever the conflicts say
        drawn = index.draw(np.zeros((3, 3), dtype=bool), 2, rng)
        assert drawn is None or drawn[0][0] != drawn[1][0]


def test_the_source_path_and_its_direction_are_uniform() -> None:
    # every path a partner of every other, nothing in conflict: each draw keeps its source
    n = 5
    index = ComponentIndex(np.full(n, 0.2), np.full((n, n), 0.2))
    conflict = np.eye(n, dtype=bool)
    rng = np.random.default_rng(8)
    firsts: Counter[int] = Counter()
    reversed_first = reversed_second = 0
    draws = 4000
    for _ in range(draws):
        drawn = index.draw(conflict, 2, rng)
        assert drawn is not None
        (first, rev), (_, rev2) = drawn
        firsts[first] += 1
        reversed_first += rev
        reversed_second += rev2
    assert set(firsts) == set(range(n)) and sps.chisquare([firsts[i] for i in range(n)]).pvalue > 0.001
    assert sps.binomtest(reversed_first, draws).pvalue > 0.001  # the source component's direction
    assert sps.binomtest(reversed_second, draws).pvalue > 0.001
    # with four components every path but the source's is drawn once (all are partners, none conflict)
    for _ in range(50):
        drawn = index.draw(conflict, 4, rng)
        assert drawn is not None and len({p for p, _ in drawn}) == 4


def test_a_component_index_is_immutable() -> None:
    import dataclasses

    index = ComponentIndex(np.array([0.5, 0.5]), np.array([[0.5, 0.5], [0.5, 0.5]]))
    with pytest.raises(dataclasses.FrozenInstanceError):
        index.cohesion = np.array([0.0, 0.0])  # type: ignore[misc]


def test_an_odd_backbone_splits_into_a_shorter_first_half() -> None:
    """Depth 3: 3k − 2 = 7 papers, halves of 3 and 4; cohesion is the mean over the 3 × 4 cross pairs, written out."""
    rng = np.random.default_rng(5)
    n_paths, length = 5, 7
    titles = [" ".join(rng.choice(WORDS, size=int(rng.integers(1, 4)))) for _ in range(n_paths * length)]
    paths = rng.permutation(n_paths * length).reshape(n_paths, length).astype(np.int64)
    index = ComponentIndex.build(paths, TitleSpace.fit(pa.array(titles)), pa.array(titles))
    assert index.n == n_paths and index.affinity.shape == (n_paths, n_paths)
    vec = [reference_vector(titles, t) for t in titles]
    for i, p in enumerate(paths.tolist()):
        pairs = [_dot(vec[a], vec[b]) for a in p[:3] for b in p[3:]]
        assert index.cohesion[i] == pytest.approx(sum(pairs) / 12, abs=1e-12)
        for j, q in enumerate(paths.tolist()):
            assert index.affinity[i, j] == pytest.approx(sum(_dot(vec[a], vec[b]) for a in p for b in q) / 49, abs=1e-12)


def test_a_single_component_draw_is_the_source_alone_and_k_components_are_k() -> None:
    index = ComponentIndex(np.full(6, 0.2), np.full((6, 6), 0.2))
    conflict = np.eye(6, dtype=bool)
    rng = np.random.default_rng(3)
    for k in (1, 2, 3, 6):
        drawn = index.draw(conflict, k, rng)
        assert drawn is not None and len(drawn) == k and len({p for p, _ in drawn}) == k
    assert index.draw(conflict, 7, rng) is None  # six paths cannot make seven components
