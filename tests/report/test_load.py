"""report/load.py: a suite's journals and examples as one table of scored answers.

Every expected value here is written out by hand from journals and examples built in the test (which
record counts, what its response says, the order of the rows, how a value is labelled), not read back
from the loader's own helpers.
"""

from __future__ import annotations

import math
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from graphniah.errors import GraphNIAHError
from graphniah.formats.examples import Example, write_examples
from graphniah.formats.journal import Journal, RunRecord, RunSettingsEntry, Usage, record_run_settings
from graphniah.report.load import ExampleInfo, infer_variable, level_label, load_suite, read_example_infos

from .synthetic import make_example

FINISHED = "2026-11-01T00:00:00+00:00"


def _record(ex: Example, model: str, status: str = "ok", response: str | None = None, *, settings: str = "h1",
            extracted: str | None = None, effort: str | None = None, cost: float = 0.01, attempts: int = 1) -> RunRecord:
    ok = status == "ok"
    return RunRecord(example_id=ex.id, model=model, settings_hash=settings, status=status, task=ex.task, answer=ex.answer,
                     response=response if ok else None, usage=Usage(prompt_tokens=100, completion_tokens=7, reasoning_tokens=2) if ok else None,
                     cost_usd=cost if ok else None, response_time_s=1.5 if ok else None, attempts=attempts,
                     reasoning_effort=effort, extracted=extracted, finished_at=FINISHED)


def _write(root: Path, suite: str, examples: list[Example], journals: dict[str, list[RunRecord]]) -> None:
    write_examples(root / "examples" / f"{suite}.jsonl", examples)
    for name, records in journals.items():
        with Journal(root / "runs" / suite / f"{name}.jsonl") as j:
            j.append(records)


def _load(root: Path, suite: str, by: str | None = None):  # type: ignore[no-untyped-def]
    return load_suite(suite, runs_root=root / "runs", examples_root=root / "examples", by=by)


def test_which_record_counts_and_how_it_is_scored(tmp_path) -> None:
    """Per (example, model, settings): the last ok record counts, re-scored from its response text (the
    record's own ``extracted``/``correct`` are ignored); only failed records: a failure, not an answer."""
    yes = make_example("yesno", 4, 120, "YES", seed=0, index=0)
    no = make_example("yesno", 4, 120, "NO", seed=0, index=1)
    mc = make_example("mc", 8, 120, "C", seed=0, index=2)
    count = make_example("count", 8, 120, "119", seed=0, index=3)
    records = [
        _record(yes, "m", "failed"), _record(yes, "m", response="\\answer{NO}"), _record(yes, "m", response="\\answer{YES}"),  # last ok: YES
        _record(no, "m", response="\\answer{NO}", extracted="YES"), _record(no, "m", "failed"),  # a later failure hides nothing
        _record(mc, "m", "failed"), _record(mc, "m", "failed"),  # never answered
        _record(count, "m", response="I count \\answer{117}"),
    ]
    _write(tmp_path, "s", [yes, no, mc, count], {"m": records})
    data = _load(tmp_path, "s")
    (run,) = data.runs
    assert (run.model, run.settings_hash, run.answered, run.failed) == ("m", "h1", 3, (mc.id,))
    o = data.outcomes
    assert len(o) == 3
    got = {eid: (ext, bool(c)) for eid, ext, c in zip(o.example_id.tolist(), o.extracted.tolist(), o.correct.tolist(), strict=True)}
    assert got == {yes.id: ("YES", True), no.id: ("NO", True), count.id: ("117", False)}
    predicted = dict(zip(o.example_id.tolist(), o.predicted.tolist(), strict=True))
    assert predicted[count.id] == 117.0 and math.isnan(predicted[yes.id])
    assert data.notes == ("m: 1 example(s) failed for good and are not counted",)


def test_rows_are_ordered_by_run_then_example_id_and_carry_the_design(tmp_path) -> None:
    exs = [make_example("mc", 4, 110, "ABCD"[i], seed=0, index=i, none_option=i == 3, distractor="code", context_length=9000)
           for i in range(4)]
    journals = {"b-model": [_record(e, "b-model", response="\\answer{A}") for e in reversed(exs)],
                "a-model": [_record(e, "a-model", response=f"\\answer{{{e.answer}}}", attempts=2) for e in exs[:2]]}
    _write(tmp_path, "o", exs, journals)
    data = _load(tmp_path, "o", by="depth")
    labels = [r.label for r in data.runs]
    assert sorted(labels) == ["a-model", "b-model"]
    o = data.outcomes
    expected = [(labels.index(m), eid) for m, ids in (("a-model", [e.id for e in exs[:2]]), ("b-model", [e.id for e in exs]))
                for eid in ids]
    assert list(zip(o.run.tolist(), o.example_id.tolist(), strict=True)) == sorted(expected)
    b = o.run == labels.index("b-model")
    # the none option adds a fifth choice; A is right on the first example only
    assert dict(zip(o.example_id[b].tolist(), o.n_choices[b].tolist(), strict=True)) == {e.id: 5 if i == 3 else 4 for i, e in enumerate(exs)}
    assert dict(zip(o.example_id[b].tolist(), o.correct[b].tolist(), strict=True)) == {e.id: i == 0 for i, e in enumerate(exs)}
    assert set(o.distractor.tolist()) == {"code"} and set(o.context_length.tolist()) == {9000.0}
    assert set(o.component_size.tolist()) == {110} and set(o.depth.tolist()) == {4}
    assert o.attempts[~b].tolist() == [2, 2] and o.cost_usd.tolist() == [0.01] * 6
    assert o.prompt_tokens.tolist() == [100.0] * 6 and o.reasoning_tokens.tolist() == [2.0] * 6
    assert not o.batched.any()


def test_a_record_of_other_examples_is_refused_and_unknown_ids_are_counted(tmp_path) -> None:
    ex = make_example("yesno", 4, 120, "YES", seed=0, index=0)
    other = make_example("yesno", 4, 120, "NO", seed=0, index=9)  # not in the examples file
    _write(tmp_path, "u", [ex], {"m": [_record(ex, "m", response="\\answer{YES}"), _record(other, "m", response="\\answer{NO}")]})
    data = _load(tmp_path, "u")
    assert data.unknown_examples == 1 and len(data.outcomes) == 1
    assert data.notes[0].startswith("1 journal record(s) name examples that are not in ")
    # the same id with another truth: the journal belongs to other examples
    bad = RunRecord(**{**_record(ex, "m", response="\\answer{NO}").model_dump(), "answer": "NO"})
    _write(tmp_path / "bad", "u", [ex], {"m": [bad]})
    with pytest.raises(GraphNIAHError, match=r"m\.jsonl: the record of example .* has task yesno and answer 'NO', but .* says yesno and 'YES'"):
        _load(tmp_path / "bad", "u")


def test_no_journal_duplicate_ids_and_an_empty_examples_file_are_errors(tmp_path) -> None:
    ex = make_example("yesno", 4, 120, "YES", seed=0, index=0)
    write_examples(tmp_path / "examples" / "e.jsonl", [ex])
    with pytest.raises(GraphNIAHError, match="no journals in"):
        _load(tmp_path, "e")
    path = tmp_path / "twice.jsonl"
    line = (tmp_path / "examples" / "e.jsonl").read_text()
    path.write_text(line + line)
    with pytest.raises(GraphNIAHError, match=f"{path}:2: example id {ex.id} appears twice"):
        read_example_infos(path)
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    with pytest.raises(GraphNIAHError, match="holds no examples"):
        read_example_infos(empty)


def test_pair_key_ignores_only_the_none_option(tmp_path) -> None:
    a = make_example("mc", 4, 120, "A", seed=0, index=5, none_option=False)
    b = make_example("mc", 4, 120, "A", seed=0, index=5, none_option=True)
    c = make_example("mc", 4, 120, "A", seed=0, index=6, none_option=True)
    path = tmp_path / "p.jsonl"
    write_examples(path, [a, b, c])
    infos = read_example_infos(path)
    assert a.id != b.id and infos[a.id].pair_key == infos[b.id].pair_key != infos[c.id].pair_key
    assert (infos[a.id].n_options, infos[b.id].none_option) == (4, True)


def _info(**kw) -> ExampleInfo:  # type: ignore[no-untyped-def]
    base = ExampleInfo(id="x", task="yesno", depth=4, component_size=120, answer="YES", none_option=False, n_options=0,
                       distractor="none", context_length=None, alpha=0.1, pair_key="k")
    return replace(base, **kw)


def test_infer_variable_follows_its_rules_in_order() -> None:
    depths = [_info(id=f"d{i}", depth=(4, 8)[i % 2], pair_key=f"p{i}", component_size=100 + i) for i in range(6)]
    # equal counts: depth (3 and 3), though component size takes six values of one each
    assert infer_variable(depths, {})[0] == "depth"
    # a model run at two efforts wins over everything
    assert infer_variable(depths, {"m": {"low", "high"}}) == ("reasoning_effort", "inferred: a model was run at several reasoning efforts")
    # examples in pairs differing only in the none option
    paired = [*depths, replace(depths[0], id="twin", none_option=True)]
    assert infer_variable(paired, {})[0] == "none_option"
    # no variable with equal counts: the first with between 2 and 25 values (depth 4, 4, 8: unequal)
    uneven = [_info(id=f"u{i}", depth=(4, 4, 8)[i], pair_key=f"q{i}", distractor=("code", "books", "code")[i]) for i in range(3)]
    var, why = infer_variable(uneven, {})
    assert var == "depth" and why.startswith("inferred: the first variable that takes several values (2)")
    # equal counts on distractor only (two each), depth unequal: distractor is chosen over the uneven depth
    four = [_info(id=f"f{i}", depth=(4, 4, 4, 8)[i], pair_key=f"r{i}", distractor=("code", "books")[i % 2]) for i in range(4)]
    assert infer_variable(four, {})[0] == "distractor"
    # nothing varies
    assert infer_variable([_info(id="a", pair_key="a"), _info(id="b", pair_key="b")], {}) == ("task", "inferred: no variable takes several values")


@pytest.mark.parametrize(("variable", "raw", "label"), [
    ("context_length", 200_000, "200k"), ("context_length", 7000, "7k"), ("context_length", 9500, "9,500"),
    ("context_length", None, "none"), ("context_length", float("nan"), "none"),
    ("none_option", True, "with 'none'"), ("none_option", False, "without"),
    ("task", "mc", "Multiple choice"), ("task", "yesno", "YES/NO"),
    ("reasoning_effort", "", "default"), ("reasoning_effort", "high", "high"), ("depth", 16, "16"),
])
def test_level_labels(variable: str, raw: object, label: str) -> None:
    assert level_label(variable, raw) == label


def test_levels_are_in_the_papers_order(tmp_path) -> None:
    """Context lengths by number with "none" last, tasks in the task order, depths numerically (not as text)."""
    exs = [make_example("yesno", d, 120, "YES", seed=0, index=i, context_length=c)
           for i, (d, c) in enumerate([(16, None), (4, 20000), (32, 8000), (8, 128000)])]
    exs += [make_example("count", 4, 120, "119", seed=0, index=10), make_example("mc", 4, 120, "A", seed=0, index=11)]
    _write(tmp_path, "l", exs, {"m": [_record(e, "m", response="\\answer{YES}") for e in exs]})
    assert _load(tmp_path, "l", by="context_length").levels == ("8k", "20k", "128k", "none")
    assert _load(tmp_path, "l", by="depth").levels == ("4", "8", "16", "32")
    data = _load(tmp_path, "l", by="task")
    assert data.levels == ("YES/NO", "Multiple choice", "Counting")
    by_id = dict(zip(data.outcomes.example_id.tolist(), data.value.tolist(), strict=True))
    assert [by_id[e.id] for e in exs] == [0, 0, 0, 0, 2, 1]
    with pytest.raises(GraphNIAHError, match="unknown varied variable 'colour' \\(chosen with --by\\)"):
        _load(tmp_path, "l", by="colour")


def test_reasoning_effort_makes_rows_of_models_and_columns_of_efforts(tmp_path) -> None:
    """Two settings of one model at two efforts (one known from its records, one from the settings file
    only) and a second model: rows are the models, values the efforts; the run labels name the effort."""
    exs = [make_example("yesno", 4, 120, ("YES", "NO")[i % 2], seed=0, index=i) for i in range(4)]
    journals = {"m": [_record(e, "m", response="\\answer{YES}", settings="lo", effort="low") for e in exs]
                + [_record(e, "m", response="\\answer{NO}", settings="hi") for e in exs],
                "n": [_record(e, "n", response="\\answer{YES}", settings="n1") for e in exs[:2]]}
    _write(tmp_path, "r", exs, journals)
    record_run_settings(tmp_path / "runs" / "r" / "m.jsonl", "hi",
                        RunSettingsEntry(model="m", settings={"reasoning_effort": "high"}, first_run=FINISHED))
    data = _load(tmp_path, "r")
    assert data.variable == "reasoning_effort" and data.variable_source.startswith("inferred")
    assert {(r.label, r.reasoning_effort) for r in data.runs} == {("m (low)", "low"), ("m (high)", "high"), ("n", None)}
    assert data.row_labels == ("m", "n")
    assert data.levels == ("low", "high", "default")  # the efforts in their order (formats.EFFORTS), a run without one last
    o = data.outcomes
    got = {(data.row_labels[row], data.levels[v], eff) for row, v, eff in
           zip(data.row.tolist(), data.value.tolist(), o.reasoning_effort.tolist(), strict=True)}
    assert got == {("m", "low", "low"), ("m", "high", "high"), ("n", "default", "")}
    assert int((o.correct & (o.reasoning_effort == "high")).sum()) == 2  # NO is right on the two NO examples


def test_the_list_task_gets_f1_and_hits_per_answer_line(tmp_path) -> None:
    """A list answer naming two of the three reachable titles and one other: precision 2/3, recall 2/3."""
    from tests.report.test_listing import _title, list_example

    ex = list_example(np.random.default_rng(1), 0, 4, 4)
    assert len(ex.targets) == 3
    named = [_title(ex.targets[0]), _title(ex.targets[2]), _title(ex.source)]
    _write(tmp_path, "f", [ex], {"m": [_record(ex, "m", response="\\answer{" + "\n".join(named) + "}")]})
    o = _load(tmp_path, "f").outcomes
    assert o.f1.tolist() == [pytest.approx(2 / 3)]
    assert o.hits[0] == (True, False, True) and not o.correct[0]
