"""Experiment suites: the paper's design (one varied variable, balanced answers), resumable builds."""

from __future__ import annotations

import json
from collections import Counter

import pytest

import graphniah.sampling.suites as suites_module
from graphniah.atomic import sha256_file
from graphniah.errors import GraphNIAHError
from graphniah.formats.examples import read_examples
from graphniah.formats.suites import SuiteSpec
from graphniah.layout import suite_files
from graphniah.sampling.suites import (
    ReusedExample,
    ReusedSuite,
    build_suite,
    default_suites_dir,
    load_suite_spec,
    plan_suite,
)
from graphniah.text import verify

PAPER_SUITES = ("depth", "component-size", "task", "distractor", "context-length", "reasoning-effort", "none-option",
                "depth-matched", "task-matched")


def planned_as_reused(suite: SuiteSpec, seed: int) -> ReusedSuite | None:
    """What ``load_reused`` would return for a suite that reuses another, from the other suite's plan
    (same seed; example ids stand in for the built ones)."""
    if suite.reuse is None:
        return None
    other = plan_suite(load_suite_spec(suite.reuse.suite), seed)
    picked = [it for it in other if suite.reuse.from_value is None or it.value == suite.reuse.from_value]
    examples = tuple(ReusedExample(f"{suite.reuse.suite}-{it.index}", it.value, it.spec, it.index, "") for it in picked)
    return ReusedSuite(suite.reuse.suite, seed, "snap", "ex", "man", examples)


@pytest.mark.parametrize("name", PAPER_SUITES)
def test_paper_suites_follow_the_design(name: str) -> None:
    suite = load_suite_spec(name)
    items = plan_suite(suite, seed=1, reused=planned_as_reused(suite, 1))
    assert items == plan_suite(suite, seed=1, reused=planned_as_reused(suite, 1))
    assert items != plan_suite(suite, seed=2, reused=planned_as_reused(suite, 2))
    by_value = Counter(it.value for it in items)
    if suite.same_examples:
        assert by_value == {None: suite.per_value}
    else:
        assert set(by_value) == set(suite.values)
        assert all(by_value[v] == suite.count(v) for v in suite.values)
    # indices (the examples' randomness) never repeat, except a none-option twin's
    per_index = Counter(it.index for it in items)
    assert set(per_index.values()) == ({2} if suite.vary == "none_option" else {1})
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
    items = plan_suite(load_suite_spec("distractor"), seed=0)
    depths = Counter(it.spec.depth for it in items)
    tasks = Counter(it.spec.task for it in items)
    assert set(depths) == {4, 8, 16, 32} and min(depths.values()) > 90
    assert set(tasks) == {"yesno", "mc", "count"} and min(tasks.values()) > 130
    assert len({it.spec.component_size for it in items}) > 100


def test_none_option_pairs_share_everything_but_the_option() -> None:
    suite = load_suite_spec("none-option")
    items = plan_suite(suite, seed=0, reused=planned_as_reused(suite, 0))
    without = {it.index: it for it in items if it.value is False}
    with_ = {it.index: it.spec for it in items if it.value is True}
    assert without.keys() == with_.keys() and len(without) == 100
    for i, it in without.items():
        spec = it.spec
        assert spec.task == "mc" and not spec.none_option and with_[i].none_option
        assert {**spec.params(), "none_option": True} == with_[i].params()
        assert spec.reserve_none_option and with_[i].reserve_none_option
        assert it.reused == f"task-{i}"  # the "before" examples are the task suite's, never built here
    # ...which are exactly the task suite's multiple-choice examples, packed with room for option E
    task = plan_suite(load_suite_spec("task"), seed=0)
    assert {it.index: it.spec for it in task if it.value == "mc"} == {i: it.spec for i, it in without.items()}
    assert all(it.spec.reserve_none_option == (it.spec.task == "mc") for it in task)


def test_context_length_reuses_the_reasoning_effort_examples_at_200k() -> None:
    suite = load_suite_spec("context-length")
    assert suite.reuse is not None and suite.reuse.suite == "reasoning-effort" and suite.reuse.for_value == 200_000
    assert [suite.count(v) for v in suite.values] == [100, 50, 50]
    items = plan_suite(suite, seed=4, reused=planned_as_reused(suite, 4))
    effort = plan_suite(load_suite_spec("reasoning-effort"), seed=4)
    at_200k = [it for it in items if it.value == 200_000]
    assert [(it.spec, it.index) for it in at_200k] == [(it.spec, it.index) for it in effort]
    assert all(it.reused is not None for it in at_200k)
    built_here = [it for it in items if it.reused is None]
    assert Counter(it.value for it in built_here) == {500_000: 50, 922_000: 50}
    assert {it.spec.context_length for it in built_here if it.value == 922_000} == {922_000}
    assert min(it.index for it in built_here) == 100  # after the reused group: no index shared with it
    # -n overrides every count (a small build of both suites stays consistent)
    small = plan_suite(suite, seed=4, per_value=3, reused=ReusedSuite(
        "reasoning-effort", 4, "snap", "ex", "man", tuple(ReusedExample(f"r{i}", None, effort[i].spec, i, "") for i in range(3))))
    assert Counter(it.value for it in small) == {200_000: 3, 500_000: 3, 922_000: 3}
    with pytest.raises(GraphNIAHError, match="reuses examples of suite reasoning-effort"):
        plan_suite(suite, seed=4)


@pytest.mark.parametrize(("extra", "message"), [
    ("per_value: 3\ncounts: {1: 2, 2: 2}\n", "either per_value .* or counts"),
    ("", "either per_value .* or counts"),
    ("counts: {1: 2}\n", "one count for each of the values .* missing \\[2\\]"),
    ("counts: {1: 2, 2: 2, 3: 1}\n", "not a value: \\[3\\]"),
    ("counts: {1: 2, 2: 0}\n", "positive integers"),
    ("per_value: 2\nreuse: {suite: other, for_value: 7}\n", "reuse.for_value 7 is not one of the values"),
    ("per_value: 2\nreuse: {suite: s, for_value: 1}\n", "cannot reuse its own examples"),
    ("per_value: 2\nreuse: {suite: other, for_value: 1, colour: red}\n", "colour"),
])
def test_counts_and_reuse_are_validated(tmp_path, extra: str, message: str) -> None:
    path = tmp_path / "s.yaml"
    path.write_text("name: s\nvary: depth\nvalues: [1, 2]\n" + extra)
    with pytest.raises(GraphNIAHError, match=f"{path}: not a valid suite file(.|\\n)*{message}"):
        load_suite_spec(path)


@pytest.mark.slow
def test_none_option_twins_have_the_same_context(demo_snapshot, demo_graph) -> None:
    from graphniah.sampling.examples.sample import build_example
    from graphniah.sampling.examples.spec import ExampleSpec, SamplingContext
    from graphniah.text import split_messages

    ctx = SamplingContext(demo_snapshot, demo_graph)
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
        load_suite_spec("nope")
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: bad\nvary: colour\nvalues: [1]\nper_value: 1\n")
    with pytest.raises(GraphNIAHError, match="not a valid suite file"):
        load_suite_spec(bad)
    assert (default_suites_dir() / "demo.yaml").is_file()


@pytest.mark.slow
def test_build_is_resumable_and_the_manifest_lists_every_recipe(demo_snapshot, tmp_path, monkeypatch) -> None:
    # the demo suite's shape (a value per task, its two extra groups) on small examples (SMALL)
    # The resumed build must go through the worker pool, which a build this small would not start
    # (workers_for): one worker per example to build, so that workers=2 starts two.
    monkeypatch.setattr(suites_module, "EXAMPLES_PER_WORKER", 1)
    suite = _suite_file(tmp_path, "demo", "vary: task\nvalues: [yesno, mc, count, list]\nper_value: 1\nextra:\n"
                                          "  - {value: mc, n: 1, fixed: {render: edges}}\n"
                                          "  - {value: mc, n: 2, fixed: {template: [default, tagged]}}\n")
    out = tmp_path / "examples"
    files = suite_files(out, suite.name)
    examples_path, manifest_path, partial = files.examples, files.manifest, files.partial
    # An interrupted build: two finished examples and a line torn by a crash in the partial file.
    built_once = build_suite(suite, demo_snapshot, 3, out_root=tmp_path / "first", per_value=1, workers=1)
    lines = built_once.examples_path.read_text().splitlines()
    first = read_examples(built_once.examples_path)
    from graphniah.sampling.suites import _item_key
    from graphniah.text import load_prompts

    keys = [_item_key(it, 3, demo_snapshot.content_hash, load_prompts().hash) for it in plan_suite(suite, 3, 1)]
    out.mkdir()
    partial.write_text("".join(json.dumps({"key": k, "example": line}) + "\n" for k, line in zip(keys[:2], lines[:2], strict=True)) + '{"key": "tor')
    built = build_suite(suite, demo_snapshot, 3, out_root=out, per_value=1, workers=2)
    # -n sets the examples per value; the extra groups keep their own counts: one edge-list
    # example, and two multiple-choice examples each asked in two template sets (default, tagged)
    assert built.reused == 2 and built.n_examples == len(keys) == len(suite.values) + 1 + 2 * 2 and not partial.exists()
    again = read_examples(examples_path)
    assert [e.model_dump_json() for e in again] == [e.model_dump_json() for e in first]  # same bytes, any route
    manifest = json.loads(manifest_path.read_text())
    assert [e["id"] for e in manifest["examples"]] == [e.id for e in again]
    assert manifest["snapshot_hash"] == demo_snapshot.content_hash and manifest["synthetic"] is True
    assert all(e["recipe"]["params"]["context_length"] == 20_000 for e in manifest["examples"])
    assert all(verify(e).ok for e in again)
    assert all(max(e.token_counts.values()) <= 20_000 for e in again)
    # the build records its verification (by line hash and checker version) of what it built itself and
    # of the two examples it found in the interrupted build's partial file, which it checks again: a
    # resumed build writes the manifest an uninterrupted one writes
    from graphniah.atomic import sha256_bytes
    from graphniah.text import checker_version

    assert manifest["checker"] == checker_version(load_prompts())
    hashes = [e.get("sha256") for e in manifest["examples"]]
    assert hashes == [sha256_bytes(line.encode()) for line in examples_path.read_text().splitlines()]
    # ... and the examples file's own hash and size, which every reader checks before trusting it
    assert manifest["examples_file"] == {"sha256": sha256_bytes(examples_path.read_bytes()), "bytes": examples_path.stat().st_size}
    # built again as it stands: every example taken from the finished build, none built (a worker would
    # fail: none may start, though one per example may), with the same files but the manifest's time
    from graphniah.sampling.suites import _finished

    before = examples_path.read_bytes()
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(suites_module, "_init_worker", None)
        rebuilt = build_suite(suite, demo_snapshot, 3, out_root=out, per_value=1, workers=2)
    assert rebuilt.reused == rebuilt.n_examples == len(keys) and examples_path.read_bytes() == before
    assert {k: v for k, v in json.loads(manifest_path.read_text()).items() if k not in ("created_at", "content_sha256")} == {
        k: v for k, v in manifest.items() if k not in ("created_at", "content_sha256")}
    # ... and only then: another seed or size, or an examples file that is not the one recorded, builds again
    from graphniah.text.prompts import load_template

    items = plan_suite(suite, 3, 1)
    hashes = [load_template(it.spec.template).hash for it in items]  # "tagged" for the worded examples' second set
    keys = [_item_key(it, 3, demo_snapshot.content_hash, h) for it, h in zip(items, hashes, strict=True)]
    assert len(_finished(files, suite, 3, 1, demo_snapshot, load_prompts(), items, keys, hashes)[0]) == len(keys)
    assert _finished(files, suite, 4, 1, demo_snapshot, load_prompts(), items, keys, hashes) == ({}, set())
    assert _finished(files, suite, 3, 2, demo_snapshot, load_prompts(), items, keys, hashes) == ({}, set())
    assert _finished(files, suite, 3, 1, demo_snapshot, load_prompts(), items[::-1], keys, hashes) == ({}, set())
    examples_path.write_bytes(before.replace(b'"answer":"', b'"answer":" ', 1))
    assert _finished(files, suite, 3, 1, demo_snapshot, load_prompts(), items, keys, hashes) == ({}, set())


SMALL = """draw:
  depth: [4]
  component_size: {min: 20, max: 24}
  distractor: [essays]
  context_length: [20000]
"""


def _suite_file(folder, name: str, body: str):
    path = folder / f"{name}.yaml"
    path.write_text(f"name: {name}\n{body}{SMALL}")
    return load_suite_spec(path)


@pytest.mark.slow
def test_reusing_suites_copy_examples_byte_for_byte(demo_snapshot, tmp_path, monkeypatch) -> None:
    """The shapes of context-length (reuse a run-setting suite's examples for one value, build the
    others with their own counts) and none-option (reuse a task suite's multiple-choice examples as
    "before", build "after" twins with the very same context), on small examples."""
    from graphniah.report.load import read_example_infos
    from graphniah.text import split_messages

    # The workers=2 builds below go through the worker pool, which builds this small would not start
    # (workers_for): one worker per example to build.
    monkeypatch.setattr(suites_module, "EXAMPLES_PER_WORKER", 1)
    out = tmp_path / "examples"
    effort = _suite_file(tmp_path, "effort", "vary: reasoning_effort\nvalues: [low, high]\nsame_examples: true\nper_value: 2\n")
    lengths = _suite_file(tmp_path, "lengths", "vary: context_length\nvalues: [20000, 25000]\ncounts: {20000: 2, 25000: 1}\n"
                                               "reuse: {suite: effort, for_value: 20000}\n")
    with pytest.raises(GraphNIAHError, match=r"reuses the examples of suite effort, which is not built .*'graphniah build --suite effort"):
        build_suite(lengths, demo_snapshot, 5, out_root=out, workers=1)
    first = build_suite(effort, demo_snapshot, 5, out_root=out, workers=1)
    with pytest.raises(GraphNIAHError, match="built with seed 5: build lengths with --seed 5"):
        build_suite(lengths, demo_snapshot, 6, out_root=out, workers=1)
    with pytest.raises(GraphNIAHError, match=r"takes 3 examples .* which has 2"):
        build_suite(lengths, demo_snapshot, 5, out_root=out, per_value=3, workers=1)
    built = build_suite(lengths, demo_snapshot, 5, out_root=out, workers=1)
    reused_lines = first.examples_path.read_text().splitlines()
    lines = built.examples_path.read_text().splitlines()
    assert lines[:2] == reused_lines and len(lines) == 3  # same ids, same bytes
    manifest = json.loads(built.manifest_path.read_text())
    assert manifest["reuse"]["examples_sha256"] == sha256_file(first.examples_path)
    assert manifest["reuse"]["manifest_sha256"] == sha256_file(first.manifest_path)
    assert [e.get("reused_from") for e in manifest["examples"]] == ["effort", "effort", None]
    assert [e["value"] for e in manifest["examples"]] == [20000, 20000, 25000]
    new = read_examples(built.examples_path)[2]
    assert new.recipe.params["context_length"] == 25000 and new.recipe.params["index"] == 2
    assert verify(new).ok and max(new.token_counts.values()) <= 25000

    tasks = _suite_file(tmp_path, "tasks", "vary: task\nvalues: [mc, count]\nper_value: 2\nreserve_none_option: true\n")
    plain = _suite_file(tmp_path, "plain", "vary: task\nvalues: [mc]\nper_value: 2\n")
    none = _suite_file(tmp_path, "none", "vary: none_option\nvalues: [false, true]\nper_value: 2\n"
                                         "reuse: {suite: tasks, from_value: mc, for_value: false}\n")
    build_suite(plain, demo_snapshot, 5, out_root=out, workers=1)
    none_on_plain = none.model_copy(update={"reuse": none.reuse.model_copy(update={"suite": "plain"})})
    with pytest.raises(GraphNIAHError, match="packed with room for it"):
        build_suite(none_on_plain, demo_snapshot, 5, out_root=out, workers=1)
    task_built = build_suite(tasks, demo_snapshot, 5, out_root=out, workers=2)
    pairs = build_suite(none, demo_snapshot, 5, out_root=out, workers=2)
    task_lines = task_built.examples_path.read_text().splitlines()
    task_manifest = json.loads(task_built.manifest_path.read_text())
    mc_lines = [line for line, e in zip(task_lines, task_manifest["examples"], strict=True) if e["value"] == "mc"]
    lines = pairs.examples_path.read_text().splitlines()
    assert lines[:2] == mc_lines  # "before": the task suite's mc examples, byte for byte
    before, after = read_examples(pairs.examples_path)[:2], read_examples(pairs.examples_path)[2:]
    for b, a in zip(before, after, strict=True):
        assert not b.none_option and a.none_option and a.answer == b.answer and a.options == b.options
        qb, cb = split_messages(b.messages)[1:]
        qa, ca = split_messages(a.messages)[1:]
        assert ca == cb  # the very same context
        assert next(line for line in qa.splitlines() if line not in qb.splitlines()).strip().startswith("E.")
        assert verify(a).ok and verify(b).ok and max(a.token_counts.values()) <= 20000
    # the report pairs each "before" with its own "after" (same key: the recipe without the option)
    infos = read_example_infos(pairs.examples_path)
    assert [infos[b.id].pair_key for b in before] == [infos[a.id].pair_key for a in after]
    assert len({infos[b.id].pair_key for b in before}) == 2


def test_the_rendering_suite_asks_each_example_as_apa_and_as_an_edge_list() -> None:
    suite = load_suite_spec("rendering")
    items = plan_suite(suite, seed=0)
    apa = {it.index: it.spec for it in items if it.value == "apa"}
    edges = {it.index: it.spec for it in items if it.value == "edges"}
    assert len(apa) == len(edges) == 100 and apa.keys() == edges.keys()
    for i, spec in apa.items():
        assert spec.render == "apa" and edges[i].render == "edges"
        assert {**spec.params(), "render": "edges"} == edges[i].params()  # the same draw, the same seed and index
        assert spec.depth == 8 and 100 <= spec.component_size <= 250 and spec.context_length == 200_000
    # suites that do not name the rendering draw exactly as before: every example APA
    assert all(it.spec.render == "apa" for name in ("depth", "task") for it in plan_suite(load_suite_spec(name), seed=0))


def test_the_demo_has_one_edge_list_example_after_its_value_groups() -> None:
    suite = load_suite_spec("demo")
    items = plan_suite(suite, seed=0)
    edge_items = [it for it in items if it.spec.render == "edges"]
    assert len(edge_items) == 1 and edge_items[0].value == "mc" and edge_items[0].spec.task == "mc"
    # planned after the value groups (the other examples keep their indices), before the worded extra group
    assert edge_items[0].index == sum(suite.count(v) for v in suite.values) == max(it.index for it in items) - 2


@pytest.mark.parametrize(("body", "message"), [
    ("vary: task\nvalues: [mc]\nper_value: 1\nextra: [{value: count, n: 1}]\n", "is not one of the values"),
    ("vary: task\nvalues: [mc]\nper_value: 1\nextra: [{value: mc, n: 1, fixed: {task: count}}]\n", "other than task"),
    ("vary: task\nvalues: [mc]\nper_value: 1\nextra: [{value: mc, n: 0}]\n", "greater than or equal to 1"),
])
def test_extra_groups_are_validated(tmp_path, body: str, message: str) -> None:
    with pytest.raises(GraphNIAHError, match=message):
        _suite_file(tmp_path, "bad", body)


def test_base_twins_are_planned_for_examples_with_distractors() -> None:
    spec = SuiteSpec(name="b", vary="context_length", values=(20000, 30000), per_value=3, base=True,
                     draw={"distractor": ("essays", "none"), "depth": (4,), "component_size": {"min": 20, "max": 24}})
    items = plan_suite(spec, seed=2)
    main = [it for it in items if not it.twin]
    twins = {it.index: it for it in items if it.twin}
    assert len(main) == 6 and set(twins) == {it.index for it in main if it.spec.distractor != "none"}
    for it in main:
        if it.spec.distractor == "none":
            continue  # its own twin: not planned twice
        twin = twins[it.index]
        assert twin.value == it.value and twin.spec.distractor == "none"
        assert {**it.spec.params(), "distractor": "none"} == twin.spec.params()  # L kept
    plain = plan_suite(spec.model_copy(update={"base": False}), seed=2)
    assert [(it.value, it.spec, it.index) for it in plain] == [(it.value, it.spec, it.index) for it in main]


@pytest.mark.slow
def test_base_twins_hold_the_same_forest_without_distractor_text(demo_snapshot, tmp_path) -> None:
    suite = _suite_file(tmp_path, "based", "vary: task\nvalues: [yesno, count]\nper_value: 2\nbase: true\n")
    built = build_suite(suite, demo_snapshot, 9, out_root=tmp_path / "examples", workers=1)
    examples = read_examples(built.examples_path)
    manifest = json.loads(built.manifest_path.read_text())
    entries = manifest["examples"]
    assert [e.get("is_base", False) for e in entries] == [False] * 4 + [True] * 4
    by_id = {ex.id: ex for ex in examples}
    for entry in entries[:4]:
        ex, twin = by_id[entry["id"]], by_id[entry["base_id"]]
        assert (twin.papers, twin.edges, twin.source, twin.targets, twin.answer) == (ex.papers, ex.edges, ex.source, ex.targets, ex.answer)
        assert twin.recipe.params.distractor == "none" and twin.recipe.params.context_length == ex.recipe.params.context_length
        assert twin.recipe.params.index == ex.recipe.params.index and twin.recipe.seed == ex.recipe.seed
        # no distractor text: the context is the needles alone, in the example's key order
        assert twin.stats.context_words == twin.stats.needle_words == ex.stats.needle_words
        assert ex.stats.context_words > ex.stats.needle_words
        assert verify(twin).ok and max(twin.token_counts.values()) <= 20000
    assert all(e["base_id"] == e["id"] for e in entries[4:])
    # A suite reusing these examples copies their twins too, byte for byte, and builds only its own.
    later = _suite_file(tmp_path, "later", "vary: context_length\nvalues: [20000, 25000]\ncounts: {20000: 4, 25000: 1}\n"
                                           "base: true\nreuse: {suite: based, for_value: 20000}\n")
    again = build_suite(later, demo_snapshot, 9, out_root=tmp_path / "examples", workers=1)
    lines = built.examples_path.read_text().splitlines()
    later_lines = again.examples_path.read_text().splitlines()
    later_entries = json.loads(again.manifest_path.read_text())["examples"]
    assert later_lines[:4] == lines[:4] and later_lines[5:9] == lines[4:8]  # the examples, then their twins
    assert [e.get("reused_from") for e in later_entries] == ["based"] * 4 + [None] + ["based"] * 4 + [None]
    assert later_entries[9]["is_base"] and later_entries[4]["base_id"] == later_entries[9]["id"]


@pytest.mark.parametrize("name", ["depth-matched", "task-matched", "demo"])
def test_matched_suites_turn_the_control_on_for_every_example(name: str) -> None:
    suite = load_suite_spec(name)
    assert suite.match_similarity
    items = plan_suite(suite, seed=3)
    assert all(it.spec.match_similarity for it in items)
    d = suite.draw.component_size
    for it in items:  # counting and listing draw the other sizes from the suite's own size range
        assert it.spec.size_range == ((d.min, d.max) if it.spec.task in ("count", "list") else None)
        assert "match_similarity" in it.spec.params()
        # a target in the question: the venue relation is matched too, and recorded
        assert it.spec.match_venue == ("match_venue" in it.spec.params()) == (it.spec.task in ("yesno", "mc"))
    # the twin plans the same design without the control
    twin = name.removesuffix("-matched")
    if twin != name:
        plain = load_suite_spec(twin)
        assert (plain.vary, plain.values, plain.per_value, plain.draw) == (suite.vary, suite.values, suite.per_value, suite.draw)
        assert not any(it.spec.match_similarity for it in plan_suite(plain, seed=3))


# The paper's experiments as it reports them, written out here (not read from the suite files):
# §4.1 names each varied variable and its values; appendix A.3, Table 2, the examples per value.
PAPER_TABLE_2 = {
    # name: (varied variable, its values, examples planned per value, target context lengths)
    "depth": ("depth", (4, 8, 16, 32), {4: 100, 8: 100, 16: 100, 32: 100}, {200_000}),
    "component-size": ("component_size", (100, 150, 200, 250), {100: 100, 150: 100, 200: 100, 250: 100}, {200_000}),
    "task": ("task", ("yesno", "mc", "count"), {"yesno": 100, "mc": 100, "count": 100}, {200_000}),
    "distractor": ("distractor", ("code", "essays", "books", "wikipedia", "disjoint-component"),
                   {"books": 100, "code": 100, "disjoint-component": 100, "essays": 100, "wikipedia": 100}, {200_000}),
    "context-length": ("context_length", (200_000, 500_000, 922_000), {200_000: 100, 500_000: 50, 922_000: 50},
                       {200_000, 500_000, 922_000}),
    # Table 2: "the reasoning effort experiment uses the same examples for all three efforts" (100 of them)
    "reasoning-effort": ("reasoning_effort", ("low", "medium", "high"), {None: 100}, {200_000}),
    # §4.3: the 100 multiple-choice examples of the task experiment, then the same with a fifth option
    "none-option": ("none_option", (False, True), {False: 100, True: 100}, {200_000}),
}


@pytest.mark.parametrize("name", sorted(PAPER_TABLE_2))
def test_each_shipped_paper_suite_has_the_values_and_counts_of_table_2(name: str) -> None:
    variable, values, counts, lengths = PAPER_TABLE_2[name]
    suite = load_suite_spec(name)
    items = plan_suite(suite, seed=0, reused=planned_as_reused(suite, 0))
    assert (suite.vary, suite.values) == (variable, values)
    assert dict(Counter(it.value for it in items)) == counts
    # an example of a value has that value (a run-setting variable is no attribute of the example)
    assert all(getattr(it.spec, variable, it.value) == it.value for it in items)
    specs = [it.spec for it in items]
    # §4.1: every other variable is drawn uniformly from the paper's sets, with alpha = 0.1
    assert {s.depth for s in specs} <= {4, 8, 16, 32}
    assert all(100 <= s.component_size <= 250 for s in specs)
    assert {s.task for s in specs} <= {"yesno", "mc", "count"}
    assert {s.alpha for s in specs} == {0.1}
    assert {s.context_length for s in specs} == lengths


def test_suites_share_examples_as_the_paper_does() -> None:
    # Table 2: the 200k examples of the context-length experiment are the reasoning-effort examples
    reuse = load_suite_spec("context-length").reuse
    assert reuse is not None and (reuse.suite, reuse.for_value, reuse.from_value) == ("reasoning-effort", 200_000, None)
    # §4.3: the none-option "before" examples are the task experiment's multiple-choice examples
    reuse = load_suite_spec("none-option").reuse
    assert reuse is not None and (reuse.suite, reuse.for_value, reuse.from_value) == ("task", False, "mc")
    assert load_suite_spec("reasoning-effort").same_examples is True


def test_base_twins_of_reused_examples_are_copied_when_the_other_suite_has_them() -> None:
    spec = SuiteSpec(name="b", vary="context_length", values=(20000, 30000), per_value=2, base=True,
                     reuse={"suite": "a", "for_value": 20000},
                     draw={"distractor": ("essays",), "depth": (4,), "component_size": {"min": 20, "max": 24}})
    other = SuiteSpec(name="a", vary="reasoning_effort", values=("low",), same_examples=True, per_value=2, base=True,
                      draw=spec.draw, fixed={"context_length": 20000})
    planned = plan_suite(other, seed=1)
    made = [ReusedExample(f"a-{'twin' if it.twin else 'ex'}-{it.index}", it.value, it.spec, it.index, "") for it in planned]
    reused = ReusedSuite("a", 1, "snap", "ex", "man", tuple(r for r in made if "-ex-" in r.id),
                         tuple(r for r in made if "-twin-" in r.id))
    items = plan_suite(spec, seed=1, reused=reused)
    twins = [it for it in items if it.twin]
    assert len(twins) == 4
    # the twins of the two reused examples are the other suite's twins; the two built here are built
    assert sorted(it.reused or "" for it in twins) == ["", "", "a-twin-0", "a-twin-1"]


def test_the_list_suite_asks_list_questions_at_each_depth() -> None:
    suite = load_suite_spec("list")
    items = plan_suite(suite, seed=1)
    assert Counter(it.value for it in items) == {4: 100, 8: 100, 16: 100, 32: 100}
    assert {it.spec.task for it in items} == {"list"} and {it.spec.label for it in items} == {None}
    assert all(it.spec.depth == it.value and 100 <= it.spec.component_size <= 250 for it in items)


def test_the_prompt_sensitivity_suite_asks_every_example_in_every_template_set() -> None:
    from graphniah.text.prompts import template_names

    suite = load_suite_spec("prompt-sensitivity")
    assert sorted(suite.templates) == sorted(template_names()) and suite.templates[0] == "default"  # every shipped set
    items = plan_suite(suite, seed=0, per_value=4)
    by_index: dict[int, list] = {}
    for it in items:
        by_index.setdefault(it.index, []).append(it)
    assert len(by_index) == 12 and all(len(group) == len(suite.templates) for group in by_index.values())
    for group in by_index.values():
        assert [it.spec.template for it in group] == list(suite.templates)
        assert {it.spec.templates for it in group} == {suite.templates}  # packed for every set
        unworded = {json.dumps({k: v for k, v in it.spec.params().items() if k != "template"}, sort_keys=True) for it in group}
        assert len(unworded) == 1 and len({it.value for it in group}) == 1  # the same draw, only the wording differs
    # a suite in one set words every example in it; the default set adds nothing to specs or files
    one = SuiteSpec.model_validate(suite.to_json() | {"template": "brief"})
    assert {it.spec.template for it in plan_suite(one, seed=0, per_value=2)} == {"brief"}
    assert all(not it.spec.templates for it in plan_suite(one, seed=0, per_value=2))
    plain = load_suite_spec("task")
    assert "template" not in plain.to_json() and all("template" not in it.spec.params() for it in plan_suite(plain, seed=0))


@pytest.mark.parametrize(("body", "message"), [
    ("vary: task\nvalues: [mc]\nper_value: 1\ntemplate: [default, default]\n", "distinct names"),
    ("vary: task\nvalues: [mc]\nper_value: 1\ntemplate: []\n", "distinct names"),
    ("vary: render\nvalues: [apa, edges]\nper_value: 1\ntemplate: [default, plain]\n", "vary the rendering"),
    ("vary: task\nvalues: [mc]\nper_value: 1\ntemplate: plain\nextra: [{value: mc, n: 1, fixed: {template: brief}}]\n",
     "only in a suite worded in the default set"),
])
def test_template_knobs_are_validated(tmp_path, body: str, message: str) -> None:
    with pytest.raises(GraphNIAHError, match=message):
        _suite_file(tmp_path, "bad", body)


def test_the_demo_asks_two_examples_in_two_template_sets() -> None:
    items = plan_suite(load_suite_spec("demo"), seed=0, per_value=2)
    worded = [it for it in items if it.spec.templates]
    assert [(it.spec.task, it.spec.template) for it in worded] == [("mc", "default"), ("mc", "tagged")] * 2
    assert worded[0].index == worded[1].index != worded[2].index == worded[3].index
    assert worded[0].spec.params() | {"template": "tagged"} == worded[1].spec.params()


def test_workers_train_each_matching_scorer_once_before_the_examples() -> None:
    """The demo matches YES/NO on the learned score and multiple choice on its weighted draw, at depths 16
    and 32 (pipelines/suites/demo.yaml, spec.LEARNED_MATCH_TASKS / WEIGHTED_MATCH_TASKS): four scorers,
    deepest first; counting and list questions are not matched and need none."""
    from graphniah.sampling.suites import _scorers

    items = plan_suite(load_suite_spec("demo"), seed=0)
    assert _scorers([("key", it) for it in items]) == [(32, True), (32, False), (16, True), (16, False)]
    only_counts = [("key", it) for it in items if it.spec.task in ("count", "list")]
    assert only_counts and _scorers(only_counts) == []


class _Context:
    """Stands in for a loaded SamplingContext in the worker-count test: no snapshot is read."""

    def learned_match(self, depth: int, weighted: bool) -> None:
        return None


class _Example:
    def __init__(self, seed: int, index: int, task: str) -> None:
        self.line = json.dumps({"seed": seed, "index": index, "task": task})

    def model_dump_json(self) -> str:
        return self.line


def _build(ctx: _Context, spec, seed: int, index: int) -> _Example:
    assert isinstance(ctx, _Context)
    return _Example(seed, index, spec.task)


def _start_worker(snapshot_dir: str, prompts_dir: str) -> None:
    """The pool's initializer in the worker-count test: each worker process leaves a file named by its
    pid (in the folder given as the snapshot's), then holds a stand-in context."""
    import os
    from pathlib import Path

    (Path(snapshot_dir) / f"worker-{os.getpid()}").touch()
    suites_module._WORKER_CTX = _Context()


@pytest.mark.parametrize(("n", "workers", "started"), [
    (9, 2, 0),    # under two workers' worth (5 each): built in this process
    (10, 2, 2),   # two workers' worth: a pool of two
    (14, 3, 2),   # a third worker is asked for, but 14 examples pay for two
    (15, 3, 3),
    (50, 2, 2),   # never more than asked for
    (50, 1, 0),   # one worker asked for: this process
])
def test_workers_start_only_when_the_examples_pay_for_their_start_up(tmp_path, monkeypatch, n: int, workers: int,
                                                                     started: int) -> None:
    """``_build_missing`` on the real process pool, with the sampler replaced (the examples' content is
    not the point; the processes are): a worker per EXAMPLES_PER_WORKER examples to build, at most
    ``workers``, and a pool of one is no pool. The threshold is set here (5) so that the expected counts
    are worked out by hand. Each example line names its index, and lands in ``done`` under its key by
    either route. The stand-ins reach the workers because the pool forks them (Linux's default)."""
    from types import SimpleNamespace

    from graphniah.progress import NO_PROGRESS
    from graphniah.sampling.suites import _build_missing

    monkeypatch.setattr(suites_module, "EXAMPLES_PER_WORKER", 5)
    monkeypatch.setattr(suites_module, "_init_worker", _start_worker)
    monkeypatch.setattr(suites_module, "SamplingContext", lambda snapshot, prompts: _Context())
    monkeypatch.setattr(suites_module, "build_example", _build)
    items = plan_suite(load_suite_spec("demo"), seed=0, per_value=12)[:n]  # learned-match items too: scorers first
    assert len(items) == n
    todo = [(f"key{i}", it) for i, it in enumerate(items)]
    done: dict[str, str] = {}
    snapshot, prompts = SimpleNamespace(path=tmp_path), SimpleNamespace(directory=tmp_path)
    _build_missing(todo, tmp_path / "x.partial", done, snapshot, 7, workers, prompts, NO_PROGRESS)
    assert len(list(tmp_path.glob("worker-*"))) == started
    assert done == {k: json.dumps({"seed": 7, "index": it.index, "task": it.spec.task}) for k, it in todo}
    assert len((tmp_path / "x.partial").read_text().splitlines()) == n


def test_the_small_demo_builds_in_this_process_and_the_shipped_demo_in_two_workers() -> None:
    """The rule on the demo suite's sizes: per_value 2 (tests/conftest.py's demo_run, 13 examples)
    starts no worker; the shipped per_value (36: 149 examples, ``make demo``) keeps its two."""
    from graphniah.sampling.suites import workers_for

    demo = load_suite_spec("demo")
    small, shipped = len(plan_suite(demo, seed=0, per_value=2)), len(plan_suite(demo, seed=0))
    assert (small, shipped) == (13, 149)
    assert workers_for(small, 2) == 0 and workers_for(shipped, 2) == 2
