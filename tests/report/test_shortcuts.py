"""The Shortcuts table and its verdicts, on synthetic journals with known answers."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from statsmodels.stats.proportion import proportion_confint

from graphniah.report import build_report, load_suite
from graphniah.report.shortcuts import shortcut_results, shortcut_verdicts

from .synthetic import make_example, write_suite


def _suite(tmp_path, models, skip_yesno: str | None = None):  # type: ignore[no-untyped-def]
    examples = []
    for i in range(40):
        examples.append(make_example("yesno", 4, 120, "YES" if i % 2 else "NO", seed=0, index=len(examples)))
        examples.append(make_example("mc", 4, 120, "ABCD"[i % 4], seed=0, index=len(examples)))
    skip = {skip_yesno: {ex.id for ex in examples if ex.task == "yesno"}} if skip_yesno else None  # never sees them
    write_suite(tmp_path, "sc", examples, models, np.random.default_rng(0), skip=skip)
    return load_suite("sc", runs_root=tmp_path / "runs", examples_root=tmp_path / "examples", by="task")


def test_verdicts_follow_the_wilson_interval(tmp_path) -> None:
    models = {
        "baseline-retrieval": {"answer": lambda ex: ex.answer},  # always right: beats random on both tasks
        "baseline-title-similarity": {"answer": lambda ex: "YES" if ex.task == "yesno" else "A"},  # a constant guess
        "some-model": {"answer": lambda ex: ex.answer},  # a model, not a shortcut: never in the table
    }
    report = build_report(_suite(tmp_path, models))
    results = shortcut_results(report.context)
    assert {(r.task, r.shortcut) for r in results} == {(t, s) for t in ("yesno", "mc") for s in ("retrieval", "title-similarity")}
    for r in results:
        lo = proportion_confint(r.accuracy.k, r.accuracy.n, method="wilson")[0]
        assert r.beats_random == (lo > r.random)
        assert r.random == (Fraction(1, 2) if r.task == "yesno" else Fraction(1, 4))
    const = {r.task: r for r in results if r.shortcut == "title-similarity"}
    assert const["yesno"].accuracy.k == 20 and not const["yesno"].beats_random  # YES on half the questions
    assert const["mc"].accuracy.k == 10 and not const["mc"].beats_random  # A on a quarter
    verdicts = {v.task: v for v in shortcut_verdicts(report.context)}
    assert [r.shortcut for r in verdicts["yesno"].beaten_by] == ["retrieval"]
    assert verdicts["mc"].text.startswith("Multiple choice: retrieval 100.00% [")
    table = report.table("shortcuts")
    assert report.keys.index("shortcuts") == 2  # read beside the accuracy table
    assert [row[1].text for row in table.rows].count("verdict") == 2
    assert "some-model" not in {row[1].text for row in table.rows}


def test_no_shortcut_journal_no_table(tmp_path) -> None:
    report = build_report(_suite(tmp_path, {"some-model": {"p": 0.5}}))
    assert "shortcuts" not in report.keys
    with pytest.raises(KeyError):
        report.table("shortcuts")


def test_a_task_no_shortcut_beats(tmp_path) -> None:
    report = build_report(_suite(tmp_path, {"baseline-title-similarity": {"answer": lambda ex: "NO" if ex.task == "yesno" else "B"}}))
    verdicts = shortcut_verdicts(report.context)
    assert all(not v.beaten_by for v in verdicts)
    assert verdicts[0].text == "YES/NO: no shortcut (title-similarity) beats random guessing (50.00%) beyond its interval"


def test_each_verdict_names_its_own_tasks_shortcuts_and_agrees_in_number(tmp_path) -> None:
    """With two shortcuts beating random on one task and one on the other, each verdict lists the
    shortcuts tried on its task only, and says "beat" of two and "beats" of one; the table's rows of a
    task are that task's shortcuts."""
    models = {
        "baseline-retrieval": {"answer": lambda ex: ex.answer},  # right everywhere
        "baseline-title-similarity": {"answer": lambda ex: ex.answer if ex.task == "yesno" else "A"},  # right on YES/NO only
        "baseline-paper-count": {"answer": lambda ex: "A"},  # a constant, on the multiple-choice questions only (below)
    }
    report = build_report(_suite(tmp_path, models, skip_yesno="baseline-paper-count"))
    verdicts = {v.task: v for v in shortcut_verdicts(report.context)}
    assert sorted(verdicts["yesno"].tried) == ["retrieval", "title-similarity"]
    assert sorted(verdicts["mc"].tried) == ["paper-count", "retrieval", "title-similarity"]
    assert sorted(r.shortcut for r in verdicts["yesno"].beaten_by) == ["retrieval", "title-similarity"]
    assert [r.shortcut for r in verdicts["mc"].beaten_by] == ["retrieval"]
    assert " beat random guessing (50.00%) beyond the interval" in verdicts["yesno"].text
    assert " beats random guessing (25.00%) beyond the interval" in verdicts["mc"].text
    rows = report.table("shortcuts").rows
    by_task: dict[str, list[str]] = {}
    for row in rows:
        if row[1].text != "verdict":
            by_task.setdefault(row[0].text, []).append(row[1].text)
    assert {t: sorted(s) for t, s in by_task.items()} == {"YES/NO": ["retrieval", "title-similarity"],
                                                         "Multiple choice": ["paper-count", "retrieval", "title-similarity"]}
    assert "95% Wilson interval" in report.table("shortcuts").caption
