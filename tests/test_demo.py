"""`make demo`'s job end to end: refresh → demo suite → local baselines through LiteLLM → scores."""

from __future__ import annotations

import io

import pytest

from graphniah.demo import accuracy_tables, run_demo
from graphniah.formats.examples import read_examples
from graphniah.scoring import RunScore
from graphniah.stats import Interval, Mean, proportion


# refresh opens the session's demo store (DuckDB, one writer at a time): the tests that do run on one xdist worker
@pytest.mark.xdist_group("demo-store")
@pytest.mark.slow
def test_demo_pipeline_scores_the_baselines(demo_snapshot, demo_run) -> None:
    root = demo_snapshot.path.parent.parent  # the fixture's snapshots folder: refresh finds it up to date
    result, folder = demo_run.result, demo_run.folder  # run_demo(root, folder / "examples", ..., per_value=2)
    examples = read_examples(result.examples)
    # two per task, the one edge-list example of the demo suite (its extra group), and two multiple-choice
    # examples each asked in two template sets (the other extra group)
    assert len(examples) == 13 and {e.task for e in examples} == {"yesno", "mc", "count", "list"}
    assert [e.task for e in examples if e.recipe.params.render == "edges"] == ["mc"]
    worded = [e for e in examples if e.recipe.params.templates]
    assert sorted(e.recipe.params.template for e in worded) == ["default", "default", "tagged", "tagged"]
    assert all(e.task == "mc" for e in worded) and len({(e.recipe.params.index, e.answer) for e in worded}) == 2
    assert all("<answer>" in e.messages[0].content for e in worded if e.recipe.params.template == "tagged")
    oracle = result.scores["local-oracle"]
    assert oracle.answered == 13 and oracle.overall is not None and oracle.overall.k == 13
    # the oracle scores 1.00 in both sets; the random endpoint answers in each set's format (so every answer reads)
    wording = {line.split(": ")[0]: line for line in result.wording}
    assert wording.keys() == {"local-oracle", "local-random", "local-always-no"}  # the shortcut baselines left out
    assert wording["local-oracle"] == "local-oracle: default 1.00 (2/2), tagged 1.00 (2/2)"
    assert result.scores["local-random"].no_answer == 0
    assert oracle.f1 is not None and oracle.f1.estimate == 1.0 and oracle.f1.n == 2  # the list examples, exactly
    always_no = result.scores["local-always-no"]
    n_no = sum(e.answer == "NO" for e in examples)
    assert always_no.overall is not None and always_no.overall.k == n_no  # right exactly on the NO labels
    assert result.baselines["yesno"] == 0.5 and result.baselines["mc"] == 0.25
    assert result.baselines["count"] == pytest.approx(1 / 21)  # demo sizes 100..120
    # a second run reuses everything: the same examples, no call sent again
    before = result.examples.read_bytes()
    assert result.report is not None and result.report.html is not None and result.report.html.is_file()
    assert (result.report.out / "figures" / "accuracy.png").is_file()
    assert (result.report.out / "figures" / "recall_by_distance.png").is_file()
    cells = (result.report.out / "cells.csv").read_text()
    assert "\nf1,local-oracle,Overall,f1,,2,1.0," in cells and ",recall," in cells
    # the example viewer: a page per example, and the report links its cells and ids to it
    assert result.viewer is not None and result.viewer.examples == len(examples) and result.viewer.index.is_file()
    assert {p.stem for p in (result.viewer.out / "examples").glob("*.js")} == {e.id for e in examples}
    assert "../demo-viewer/index.html#" in result.report.html.read_text()
    # the stages graphniah demo --timings reports, in the order they ran
    assert [stage for stage, _ in result.timings] == [
        "imports", "refresh", "build suite", "export dataset", "run local-oracle", "run local-random", "run local-always-no",
        "shortcut baselines", "verdicts and wording", "viewer", "report"]
    assert all(seconds >= 0 for _, seconds in result.timings)
    shortcut_files = sorted((folder / "runs" / "demo").glob("baseline-*"))
    stamps = [(p.name, p.stat().st_mtime_ns) for p in shortcut_files]
    again = run_demo(root, folder / "examples", folder / "runs", None, per_value=2)
    assert again.scores["local-oracle"].answered == 13
    # the shortcut baselines' inputs did not change: their journals are reused, not written again, with the same scores
    assert len(stamps) == 3 * 5 and [(p.name, p.stat().st_mtime_ns) for p in shortcut_files] == stamps
    assert {m: s for m, s in again.scores.items() if m.startswith("baseline-")} == {
        m: s for m, s in result.scores.items() if m.startswith("baseline-")}
    assert again.examples.read_bytes() == before
    assert (folder / "runs" / "demo" / "local-oracle.jsonl").read_text().count("\n") == 13


def test_demo_scores_count_only_the_current_examples(tmp_path) -> None:
    """A journal keeps the answers to a suite's earlier examples after the suite is rebuilt; the demo's
    table scores only the records of the examples it names (as ``graphniah report`` does)."""
    from graphniah.demo import journal_score
    from graphniah.formats.journal import Journal, RunRecord
    from graphniah.layout import journal_file

    def rec(example_id: str, answer: str) -> RunRecord:
        return RunRecord(example_id=example_id, model="m", settings_hash="1" * 64, status="ok", task="yesno", answer="YES",
                         response=f"\\answer{{{answer}}}", attempts=1, finished_at="2026-11-01T00:00:00+00:00")

    Journal(journal_file(tmp_path, "s", "m")).append([rec("old", "NO"), rec("new", "YES")])
    every = journal_score(tmp_path, "s", "m", "1" * 64)
    current = journal_score(tmp_path, "s", "m", "1" * 64, {"new"})
    assert (every.answered, every.overall.k) == (2, 1)  # type: ignore[union-attr]
    assert (current.answered, current.overall.k) == (1, 1)  # type: ignore[union-attr]


def _score(k: int, n: int) -> RunScore:
    p = proportion(k, n)
    return RunScore(answered=n, failed=0, overall=p, by_task={"yesno": p, "mc": p, "count": p, "list": p}, no_answer=0,
                    counting=None, no_share=None, f1=Mean(n, 0.5, Interval(0.4, 0.6), 0.95))


@pytest.mark.parametrize("width", [80, 100])
def test_the_accuracy_table_fits_a_narrow_terminal_and_cuts_no_name(width: int) -> None:
    from rich.console import Console

    scores = {name: _score(k, 36) for k, name in zip((3, 4, 5, 6, 36), ["local-always-no", "baseline-title-similarity",
                                                                        "baseline-topic-cluster", "local-random", "local-oracle"], strict=True)}
    baselines = {"yesno": 0.5, "mc": 0.25, "count": 1 / 21, "list": 0.0}
    console = Console(width=width, record=True, file=io.StringIO())
    for table in accuracy_tables(scores, baselines, "Accuracy", width):
        console.print(table)
    text = console.export_text()
    assert max(map(len, text.splitlines())) <= width
    for shown in ("local-oracle", "local-always-no", "title-similarity†", "topic-cluster†", "random guessing"):
        assert shown in text  # whole, never "local-always-…"
    assert "…" not in text
    for k in (3, 4, 5, 6, 36):  # every model's accuracy and interval (the widest: 100.0 [90.4, 100.0]), as the wide table prints them
        p = proportion(k, 36)
        assert f"{100 * p.estimate:.1f}" in text and f"[{100 * p.interval.low:.1f}, {100 * p.interval.high:.1f}]" in text


def test_a_wide_terminal_gets_one_table_with_a_row_per_model() -> None:
    from rich.console import Console

    scores = {"baseline-title-similarity": _score(5, 36)}
    [table] = accuracy_tables(scores, {"yesno": 0.5, "mc": 0.25}, "Accuracy", 250)
    console = Console(width=250, record=True, file=io.StringIO())
    console.print(table)
    [row] = [line for line in console.export_text().splitlines() if "baseline-title-similarity" in line]
    assert row.count("13.9 [") == 3 and row.count("n=36") == 4  # yesno, mc, all; the list F1


def test_the_modules_compiled_at_setup_exist() -> None:
    """``make setup`` imports graphniah.demo.DEMO_MODULES to write their bytecode; a misspelt name would be
    skipped quietly (an optional module may be missing), so each must be found, part by part on the import
    path, without importing it or its parents."""
    from importlib.machinery import PathFinder

    from graphniah.demo import DEMO_MODULES

    def found(name: str) -> bool:
        path = None
        for part in name.split("."):
            spec = PathFinder.find_spec(part, path)
            if spec is None:
                return False
            path = spec.submodule_search_locations
        return True

    assert [name for name in DEMO_MODULES if not found(name)] == []
    assert not found("graphniah.no_such_module") and not found("sklearn.no_such_module")
