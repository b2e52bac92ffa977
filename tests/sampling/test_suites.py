"""Experiment suites: the paper's design (one varied variable, balanced answers), resumable builds."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from graphniah.errors import GraphNIAHError
from graphniah.sampling.examples.records import read_examples
from graphniah.sampling.examples.textcheck import verify
from graphniah.sampling.suites import SUITES_DIR, build_suite, load_suite, plan_suite, suite_paths

PAPER_SUITES = ("depth", "component-size", "task", "distractor", "context-length", "reasoning-effort", "none-option")


@pytest.mark.parametrize("name", PAPER_SUITES)
def test_paper_suites_follow_the_design(name: str) -> None:
    suite = load_suite(name)
    items = plan_suite(suite, seed=1)
    assert items == plan_suite(suite, seed=1) and items != plan_suite(suite, seed=2)
    by_value = Counter(it.value for it in items)
    if suite.same_examples:
        assert by_value == {None: suite.per_value}
    else:
        assert set(by_value) == set(suite.values) and set(by_value.values()) == {suite.per_value}
    for value in by_value:
        group = [it.spec for it in items if it.value == value]
        if suite.vary in ("depth", "component_size", "task", "distractor", "context_length"):
            assert {getattr(s, suite.vary) for s in group} == {value}
        # the other variables are drawn as in the paper's §4.1
        assert all(4 <= s.depth <= 32 and 100 <= s.component_size <= 250 for s in group)
        if suite.vary != "context_length":
            assert {s.context_length for s in group} == {200_000}
        # answer balance: YES/NO in consecutive pairs, letters in consecutive groups of four
        yn = [s.label for s in group if s.task == "yesno"]
        assert all(sorted(yn[i : i + 2]) == ["NO", "YES"] for i in range(0, len(yn) - 1, 2))
        mc = [s.label for s in group if s.task == "mc"]
        assert all(sorted(mc[i : i + 4]) == list("ABCD") for i in range(0, len(mc) - 3, 4))


def test_other_variables_are_drawn_uniformly() -> None:
    items = plan_suite(load_suite("distractor"), seed=0)
    depths = Counter(it.spec.depth for it in items)
    tasks = Counter(it.spec.task for it in items)
    assert set(depths) == {4, 8, 16, 32} and min(depths.values()) > 90
    assert set(tasks) == {"yesno", "mc", "count"} and min(tasks.values()) > 130
    assert len({it.spec.component_size for it in items}) > 100


def test_none_option_pairs_share_everything_but_the_option() -> None:
    items = plan_suite(load_suite("none-option"), seed=0)
    without = {it.index: it.spec for it in items if it.value is False}
    with_ = {it.index: it.spec for it in items if it.value is True}
    assert without.keys() == with_.keys() and len(without) == 100
    for i, spec in without.items():
        assert spec.task == "mc" and not spec.none_option and with_[i].none_option
        assert {**spec.params(), "none_option": True} == with_[i].params()
        assert spec.reserve_none_option and with_[i].reserve_none_option


@pytest.mark.slow
def test_none_option_twins_have_the_same_context(demo_snapshot) -> None:
    from graphniah.sampling.examples.sample import ExampleSpec, SamplingContext, build_example
    from graphniah.sampling.examples.textcheck import split_messages

    ctx = SamplingContext(demo_snapshot)
    base = ExampleSpec("mc", 4, 100, "B", distractor="essays", context_length=45_000, reserve_none_option=True)
    a = build_example(ctx, base, seed=9, index=2)
    b = build_example(ctx, ExampleSpec(**{**base.__dict__, "none_option": True}), seed=9, index=2)
    qa, ca = split_messages(a.messages)[1:]
    qb, cb = split_messages(b.messages)[1:]
    assert ca == cb  # the very same context
    extra = [line for line in qb.splitlines() if line not in qa.splitlines()]
    assert len(extra) == 1 and extra[0].strip().startswith("E.")  # only the fifth option differs
    assert a.answer == b.answer == "B" and b.none_option and not a.none_option
    assert max(a.token_counts.values()) <= max(b.token_counts.values()) <= 45_000
    assert verify(a).ok and verify(b).ok


def test_bad_suite_files_are_clear(tmp_path) -> None:
    with pytest.raises(GraphNIAHError, match="no suite 'nope'"):
        load_suite("nope")
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: bad\nvary: colour\nvalues: [1]\nper_value: 1\n")
    with pytest.raises(GraphNIAHError, match="not a valid suite file"):
        load_suite(bad)
    assert (SUITES_DIR / "demo.yaml").is_file()


@pytest.mark.slow
def test_build_is_resumable_and_the_manifest_lists_every_recipe(demo_snapshot, tmp_path) -> None:
    suite = load_suite("demo")
    out = tmp_path / "examples"
    examples_path, manifest_path, partial = suite_paths(out, suite.name)
    # An interrupted build: two finished examples and a line torn by a crash in the partial file.
    built_once = build_suite(suite, demo_snapshot, 3, out_root=tmp_path / "first", per_value=1, workers=1)
    lines = built_once.examples_path.read_text().splitlines()
    first = read_examples(built_once.examples_path)
    from graphniah.sampling.suites import _item_key

    from graphniah.sampling.examples.prompts import load_prompts

    keys = [_item_key(it, 3, demo_snapshot.content_hash, load_prompts().hash) for it in plan_suite(suite, 3, 1)]
    out.mkdir()
    partial.write_text("".join(json.dumps({"key": k, "example": line}) + "\n" for k, line in zip(keys[:2], lines[:2])) + '{"key": "tor')
    built = build_suite(suite, demo_snapshot, 3, out_root=out, per_value=1, workers=2)
    assert built.reused == 2 and built.n_examples == 3 and not partial.exists()
    again = read_examples(examples_path)
    assert [e.model_dump_json() for e in again] == [e.model_dump_json() for e in first]  # same bytes, any route
    manifest = json.loads(manifest_path.read_text())
    assert [e["id"] for e in manifest["examples"]] == [e.id for e in again]
    assert manifest["snapshot_hash"] == demo_snapshot.content_hash and manifest["synthetic"] is True
    assert all(e["recipe"]["params"]["context_length"] == 60_000 for e in manifest["examples"])
    assert all(verify(e).ok for e in again)
    assert all(max(e.token_counts.values()) <= 60_000 for e in again)
