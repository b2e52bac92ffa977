"""The Shortcuts table and its verdicts, on synthetic journals with known answers."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from scipy.stats import binom, binomtest
from statsmodels.stats.multitest import multipletests
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


def test_verdicts_follow_holm_over_exact_one_sided_tests(tmp_path) -> None:
    models = {
        "baseline-retrieval": {"answer": lambda ex: ex.answer},  # always right: beats random on both tasks
        "baseline-title-similarity": {"answer": lambda ex: "YES" if ex.task == "yesno" else "A"},  # a constant guess
        "some-model": {"answer": lambda ex: ex.answer},  # a model, not a shortcut: never in the table
    }
    report = build_report(_suite(tmp_path, models))
    results = shortcut_results(report.context)
    assert {(r.task, r.shortcut) for r in results} == {(t, s) for t in ("yesno", "mc") for s in ("retrieval", "title-similarity")}
    raw = [binomtest(r.accuracy.k, r.accuracy.n, float(r.random), alternative="greater").pvalue for r in results]
    adjusted = multipletests(raw, method="holm")[1]
    for r, p, adj in zip(results, raw, adjusted, strict=True):
        assert r.pvalue == pytest.approx(p, rel=1e-9) and r.adjusted == pytest.approx(adj, rel=1e-9)
        assert r.tests == 4 and r.alpha == pytest.approx(0.025)
        assert r.beats_random == (adj <= 0.025)
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
    assert "Holm-adjusted over every row of the table; beats random: it is at most 2.5%" in table.caption
    assert [row[5].text for row in table.rows if row[1].text == "retrieval"] == ["<0.0001", "<0.0001"]


def test_no_shortcut_journal_no_table(tmp_path) -> None:
    report = build_report(_suite(tmp_path, {"some-model": {"p": 0.5}}))
    assert "shortcuts" not in report.keys
    with pytest.raises(KeyError):
        report.table("shortcuts")


def test_a_task_no_shortcut_beats(tmp_path) -> None:
    report = build_report(_suite(tmp_path, {"baseline-title-similarity": {"answer": lambda ex: "NO" if ex.task == "yesno" else "B"}}))
    verdicts = shortcut_verdicts(report.context)
    assert all(not v.beaten_by for v in verdicts)
    # Holm's first step over the two cells: the least k of 40 with P(Binomial(40, 1/2) >= k) <= 0.025 / 2
    needed = next(k for k in range(41) if binom.sf(k - 1, 40, 0.5) <= 0.0125)
    assert needed == 28
    assert verdicts[0].text == ("YES/NO: no shortcut (title-similarity) beats random guessing (50.00%) at one-sided "
                                f"p ≤ 2.5% (Holm over 2 tests; at 40 examples that takes {100 * needed / 40:.2f}% or more)")


def test_a_cell_above_its_interval_is_not_flagged_among_many(tmp_path) -> None:
    """27 of 40 YES/NO answers right: the Wilson interval lies above 50% and p = 0.019 alone, but with
    four cells in the family Holm's adjusted p-value is 0.077; alone in its table the same cell is flagged."""
    def wrong(ex):  # type: ignore[no-untyped-def]
        return "NO" if ex.answer == "YES" else ("B" if ex.answer == "A" else "A")

    def some(ex):  # type: ignore[no-untyped-def]  # the first 27 YES/NO examples (even indices in _suite)
        return ex.answer if ex.task == "yesno" and int(ex.recipe.params["index"]) // 2 < 27 else wrong(ex)

    report = build_report(_suite(tmp_path / "many", {"baseline-retrieval": {"answer": some},
                                                     "baseline-title-similarity": {"answer": wrong}}))
    cell = next(r for r in shortcut_results(report.context) if r.task == "yesno" and r.shortcut == "retrieval")
    p = binomtest(27, 40, 0.5, alternative="greater").pvalue
    assert (cell.accuracy.k, cell.accuracy.n) == (27, 40) and proportion_confint(27, 40, method="wilson")[0] > 0.5
    assert 0.0125 < p <= 0.025 and cell.pvalue == pytest.approx(p)
    assert cell.tests == 4 and cell.adjusted == pytest.approx(4 * p) and not cell.beats_random

    examples = [make_example("yesno", 4, 120, "YES" if i % 2 else "NO", seed=0, index=i) for i in range(40)]
    alone = {"baseline-retrieval": {"answer": lambda ex: ex.answer if int(ex.recipe.params["index"]) < 27 else wrong(ex)}}
    write_suite(tmp_path / "alone", "one", examples, alone, np.random.default_rng(0))
    data = load_suite("one", runs_root=tmp_path / "alone" / "runs", examples_root=tmp_path / "alone" / "examples", by="task")
    (single,) = shortcut_results(build_report(data).context)
    assert (single.accuracy.k, single.tests) == (27, 1) and single.adjusted == pytest.approx(p) and single.beats_random


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
    assert verdicts["yesno"].text.endswith(" beat random guessing (50.00%) at one-sided p ≤ 2.5% (Holm over 5 tests)")
    assert verdicts["mc"].text.endswith(" beats random guessing (25.00%) at one-sided p ≤ 2.5% (Holm over 5 tests)")
    rows = report.table("shortcuts").rows
    by_task: dict[str, list[str]] = {}
    for row in rows:
        if row[1].text != "verdict":
            by_task.setdefault(row[0].text, []).append(row[1].text)
    assert {t: sorted(s) for t, s in by_task.items()} == {"YES/NO": ["retrieval", "title-similarity"],
                                                         "Multiple choice": ["paper-count", "retrieval", "title-similarity"]}
    assert "95% Wilson interval" in report.table("shortcuts").caption
