"""Matched sampling does what its docstrings promise, on draws of the demo snapshot: the property a
benchmark's validity rests on, checked on the options themselves.

Through the sampler's public path draw (``draw_paths``, what ``build_example`` grows on), for specs as
``batch_specs`` makes them with matching on: every wrong option of YES/NO and multiple choice has the
true target's number of words; the true target's rank among the options by title similarity to the
source and by length in characters is uniform; the other components' backbones are partners of the
source's; the source's direction is uniform. Ranks are counted here from the titles themselves (ties
split at random), and the partner rule from the component index's mean cosines, not from the draw.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from scipy import stats as sps

from graphniah.sampling.examples.sample import SampleStats, batch_specs, draw_paths
from graphniah.sampling.examples.spec import SamplingContext

DEPTH = 8
DRAWS = 240
CALIPER = 0.01  # the partner rule of the components module's docstring, written out


@pytest.fixture(scope="module")
def ctx(demo_snapshot, demo_graph) -> SamplingContext:
    return SamplingContext(demo_snapshot, demo_graph)


def _words(title: str) -> int:
    return len(re.findall(r"\w+", title))


def _rank(true: float, wrong: list[float], rng: np.random.Generator) -> int:
    """How many options the true one beats, ties split uniformly at random."""
    below = sum(w < true for w in wrong)
    ties = sum(w == true for w in wrong)
    return below + int(rng.integers(ties + 1))


def _cosines(ctx: SamplingContext, source: str, others: list[str]) -> list[float]:
    """Cosine of the source's title with each other title: dot products of the unit TF-IDF rows."""
    import pyarrow as pa

    rows = ctx.title_space.vectors(pa.array([source, *others]))
    return (rows[1:] @ rows[0].T).toarray().ravel().tolist()


def _draws(ctx: SamplingContext, task: str, n: int, seed: int) -> list[list[np.ndarray]]:
    rng = np.random.default_rng(seed)
    specs = batch_specs(task, DEPTH, n, rng, component_size=100, match_similarity=True)  # type: ignore[arg-type]
    assert all(s.match_components and s.match_venue == (task in ("yesno", "mc")) for s in specs)
    return [draw_paths(ctx, spec, rng, SampleStats()) for spec in specs]


@pytest.fixture(scope="module")
def matched(ctx) -> dict[str, list[list[np.ndarray]]]:
    return {"mc": _draws(ctx, "mc", DRAWS, 1), "yesno": _draws(ctx, "yesno", DRAWS, 2)}


def _title(ctx: SamplingContext, vertex: int) -> str:
    """The title a paper block prints."""
    cid = int(ctx.graph.corpusids[vertex])
    return ctx.meta([vertex])[cid].title


@pytest.mark.parametrize(("task", "k"), [("mc", 4), ("yesno", 2)])
def test_matched_options_have_the_true_word_count_and_uniform_ranks(ctx, matched, task: str, k: int) -> None:
    """The true target is the first path's (s = p_depth, t = p_(2 depth - 1)); the wrong ones are the others' targets."""
    rng = np.random.default_rng(0)
    by_similarity, by_length = [], []
    for paths in matched[task]:
        assert len(paths) == k
        source = _title(ctx, int(paths[0][DEPTH - 1]))
        options = [_title(ctx, int(p[2 * DEPTH - 2])) for p in paths]
        assert len({_words(t) for t in options}) == 1, options  # picking the fewest or most words is a tie
        cos = _cosines(ctx, source, options)
        by_similarity.append(_rank(cos[0], cos[1:], rng))
        by_length.append(_rank(len(options[0]), [len(t) for t in options[1:]], rng))
    for ranks in (by_similarity, by_length):
        counts = np.bincount(ranks, minlength=k)
        assert sps.chisquare(counts).pvalue > 0.001, counts  # uniform: "pick the nearest (longest)" is right 1/k of the time


def test_matched_components_grow_on_partners_of_the_source_s_backbone(ctx, matched) -> None:
    pool = ctx.pool_index(DEPTH)
    comps = ctx.component_index(DEPTH)
    where = {tuple(p.tolist()): (i, False) for i, p in enumerate(pool.paths)}
    where |= {tuple(p[::-1].tolist()): (i, True) for i, p in enumerate(pool.paths)}
    reversed_sources = 0
    drawn = [*matched["mc"], *matched["yesno"]]
    for paths in drawn:
        (first, rev), *others = [where[tuple(p.tolist())] for p in paths]
        reversed_sources += rev
        for other, _ in others:
            assert other != first
            assert abs(comps.affinity[first, other] - comps.cohesion[first]) <= CALIPER + 1e-12
            assert not pool.conflict[first, other]
    assert sps.binomtest(reversed_sources, len(drawn)).pvalue > 0.001  # the source's direction: uniform


@pytest.mark.parametrize("task", ["count", "list"])
def test_matched_counting_and_listing_draw_partner_backbones_in_uniform_directions(ctx, task: str) -> None:
    pool = ctx.pool_index(DEPTH)
    comps = ctx.component_index(DEPTH)
    where = {tuple(p.tolist()): (i, False) for i, p in enumerate(pool.paths)}
    where |= {tuple(p[::-1].tolist()): (i, True) for i, p in enumerate(pool.paths)}
    flips = [0, 0]
    draws = _draws(ctx, task, 200, 3)
    for paths in draws:
        (first, rev), (other, other_rev) = [where[tuple(p.tolist())] for p in paths]
        assert other != first and abs(comps.affinity[first, other] - comps.cohesion[first]) <= CALIPER + 1e-12
        flips[0] += rev
        flips[1] += other_rev
    for n in flips:
        assert sps.binomtest(n, len(draws)).pvalue > 0.001
