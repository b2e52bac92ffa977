"""Example specs: what is refused (bounds worked out by hand from the paper's backbone of 3k - 2 papers),
what the recipe records and reads back, and the other components' sizes of matched counting and listing."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from scipy import stats as sps

from graphniah.errors import GraphNIAHError
from graphniah.formats.examples import Recipe
from graphniah.sampling.examples.spec import ExampleSpec, other_sizes, spec_of
from tests.report.synthetic import make_example


@pytest.mark.parametrize(("depth", "smallest"), [(2, 4), (4, 10), (8, 22), (32, 94)])
def test_a_component_holds_at_least_its_backbone(depth: int, smallest: int) -> None:
    assert ExampleSpec("count", depth, smallest).component_size == smallest
    with pytest.raises(GraphNIAHError, match=f"component size {smallest - 1} is smaller than the backbone of depth {depth} "
                                             rf"\({smallest} papers\)"):
        ExampleSpec("count", depth, smallest - 1)


@pytest.mark.parametrize(("kwargs", "error"), [
    ({"task": "yesno", "label": None}, "needs label YES or NO"),
    ({"task": "yesno", "label": "A"}, "needs label YES or NO"),
    ({"task": "mc", "label": "E"}, "needs an answer letter A-D"),
    ({"task": "mc", "label": None}, "needs an answer letter A-D"),
    ({"task": "count", "label": "YES"}, "a count example has no label"),
    ({"task": "list", "label": "A"}, "a list example has no label"),
    ({"task": "yesno", "label": "YES", "none_option": True}, "only for multiple choice"),
    ({"task": "count", "reserve_none_option": True}, "only for multiple choice"),
    ({"task": "sort"}, "unknown task 'sort'"),
    ({"task": "count", "alpha": 0.0}, "alpha must be > 0"),
    ({"task": "count", "depth": 1, "component_size": 5}, "depth must be at least 2"),
    ({"task": "count", "distractor": "essays"}, "needs a context length"),
    ({"task": "count", "distractor": "essays", "context_length": 0}, "between 1 and 1,050,000, got 0"),
    ({"task": "count", "context_length": 1_050_001}, "between 1 and 1,050,000, got 1,050,001"),
    ({"task": "count", "render": "latex"}, "unknown rendering 'latex'"),
    ({"task": "count", "match_venue": True, "match_similarity": True}, "matched YES/NO and multiple choice only"),
    ({"task": "yesno", "label": "NO", "match_components": True}, "match_similarity"),
    ({"task": "count", "size_range": (100, 200)}, "matched counting and listing only"),
    ({"task": "yesno", "label": "NO", "size_range": (100, 200), "match_similarity": True}, "matched counting and listing only"),
    ({"task": "count", "component_size": 10, "size_range": (5, 10), "match_similarity": True}, "holds no size"),
])
def test_specs_that_cannot_be_sampled_are_refused_by_name(kwargs: dict, error: str) -> None:
    args = {"depth": 4, "component_size": 100} | kwargs
    with pytest.raises(GraphNIAHError, match=error):
        ExampleSpec(**args)


def test_the_edges_of_the_limits_are_accepted() -> None:
    assert ExampleSpec("count", 4, 100, distractor="essays", context_length=1).context_length == 1
    assert ExampleSpec("count", 4, 100, context_length=1_050_000).context_length == 1_050_000
    assert ExampleSpec("count", 2, 4, alpha=1e-9).alpha == 1e-9
    # a range whose only size besides the source's is the backbone's
    assert ExampleSpec("count", 4, 11, size_range=(1, 11), match_similarity=True).size_range == (1, 11)


def test_the_recipe_records_matching_only_when_it_is_on() -> None:
    plain = ExampleSpec("mc", 4, 100, "B").params()
    assert plain == {"task": "mc", "depth": 4, "component_size": 100, "label": "B", "none_option": False, "alpha": plain["alpha"],
                     "distractor": "none", "context_length": None}
    matched = ExampleSpec("count", 4, 100, match_similarity=True, match_components=True).params()
    assert matched["match_similarity"] is True and matched["match_components"] is True
    assert matched["size_range"] == [100, 250] and "match_venue" not in matched
    yn = ExampleSpec("yesno", 4, 100, "YES", match_similarity=True, match_venue=True).params()
    assert yn["match_venue"] is True and "size_range" not in yn and "match_components" not in yn
    twin = ExampleSpec("mc", 4, 100, "A", reserve_none_option=True, render="edges").params()
    assert twin["reserve_none_option"] is True and twin["render"] == "edges"


@pytest.mark.parametrize("spec", [
    ExampleSpec("mc", 4, 120, "C", none_option=True, alpha=0.3),
    ExampleSpec("yesno", 8, 100, "NO", distractor="essays", context_length=9000, reserve_none_option=False, render="edges"),
    ExampleSpec("list", 4, 100, match_similarity=True, size_range=(150, 180), match_components=True),
    ExampleSpec("yesno", 4, 100, "YES", match_similarity=True, match_venue=True, match_components=True),
    ExampleSpec("mc", 4, 100, "D", reserve_none_option=True),
], ids=["mc", "edges", "matched-list", "matched-yesno", "twin"])
def test_a_recipe_gives_back_its_spec_seed_and_index(spec: ExampleSpec) -> None:
    base = make_example("count", 4, 100, "3", seed=0, index=0)
    recipe = Recipe.model_validate(base.recipe.model_dump() | {"seed": 17, "params": spec.params() | {"index": 42}})
    assert spec_of(base.model_copy(update={"recipe": recipe})) == (spec, 17, 42)


def test_matched_counting_draws_the_other_sizes_uniformly_besides_the_source_s() -> None:
    spec = ExampleSpec("count", 4, 11, match_similarity=True, size_range=(8, 14))
    rng = np.random.default_rng(5)
    got = Counter(other_sizes(spec, 3, rng)[i] for _ in range(1500) for i in range(3))
    # the backbone of depth 4 has 10 papers: the range starts there, and 11 is the source's
    assert set(got) == {10, 12, 13, 14}
    assert sps.chisquare(list(got.values())).pvalue > 0.001
    assert spec.other_sizes(2, rng) != [11, 11]
    # without matching, or for tasks with targets, every component has the knob's size
    assert other_sizes(ExampleSpec("count", 4, 11), 3, rng) == [11, 11, 11]
    assert other_sizes(ExampleSpec("yesno", 4, 11, "NO", match_similarity=True), 1, rng) == [11]
    default = ExampleSpec("list", 4, 100, match_similarity=True)
    sizes = other_sizes(default, 2000, rng)
    assert min(sizes) == 101 and max(sizes) == 250 and 100 not in sizes  # [100, 250] by default, never 100
