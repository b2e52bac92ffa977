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


def _suite(tmp_path, models, skip_yesno: str | None = None, n: int = 40):  # type: ignore[no-untyped-def]
    examples = []
    for i in range(n):
        examples.append(make_example("yesno", 4, 120, "YES" if i % 2 else "NO", seed=0, index=len(examples)))
        examples.append(make_example("mc", 4, 120, "ABCD"[i % 4], seed=0, index=len(examples)))
    skip = {skip_yesno: {ex.id for ex in examples if ex.task == "yesno"}} if skip_yesno else None  # never sees them
    write_suite(tmp_path, "sc", examples, models, np.random.default_rng(0), skip=skip)
    return load_suite("sc", runs_root=tmp_path / "runs", examples_root=tmp_path / "examples", by="task")


def _two_sided(k: int, n: int, p: float) -> float:
    """Twice the smaller exact binomial tail, from scipy (for p = 1/2 it is scipy's own two-sided test)."""
    return min(1.0, 2 * min(binom.sf(k - 1, n, p), binom.cdf(k, n, p)))


def _wrong(ex):  # type: ignore[no-untyped-def]
    return "NO" if ex.answer == "YES" else ("B" if ex.answer == "A" else "A")


def test_verdicts_follow_holm_over_exact_two_sided_tests(tmp_path) -> None:
    models = {
        "baseline-retrieval": {"answer": lambda ex: ex.answer},  # always right: beats random on both tasks
        "baseline-title-similarity": {"answer": lambda ex: "YES" if ex.task == "yesno" else "A"},  # a constant guess
        "some-model": {"answer": lambda ex: ex.answer},  # a model, not a shortcut: never in the table
    }
    report = build_report(_suite(tmp_path, models))
    results = shortcut_results(report.context)
    assert {(r.task, r.shortcut) for r in results} == {(t, s) for t in ("yesno", "mc") for s in ("retrieval", "title-similarity")}
    raw = [_two_sided(r.accuracy.k, r.accuracy.n, float(r.random)) for r in results]
    adjusted = multipletests(raw, method="holm")[1]
    for r, p, adj in zip(results, raw, adjusted, strict=True):
        assert r.pvalue == pytest.approx(p, rel=1e-9) and r.adjusted == pytest.approx(adj, rel=1e-9)
        assert r.tests == 4 and r.alpha == pytest.approx(0.05)
        assert r.beats_random == (adj <= 0.05 and r.accuracy.estimate > r.random)
        assert not r.below_random
        assert r.random == (Fraction(1, 2) if r.task == "yesno" else Fraction(1, 4))
    yesno = next(r for r in results if r.task == "yesno" and r.shortcut == "retrieval")
    assert yesno.pvalue == pytest.approx(binomtest(40, 40, 0.5).pvalue)  # two-sided, scipy's own at p = 1/2
    const = {r.task: r for r in results if r.shortcut == "title-similarity"}
    assert const["yesno"].accuracy.k == 20 and not const["yesno"].flagged and const["yesno"].pvalue == 1.0  # YES on half
    assert const["mc"].accuracy.k == 10 and not const["mc"].flagged  # A on a quarter
    verdicts = {v.task: v for v in shortcut_verdicts(report.context)}
    assert [r.shortcut for r in verdicts["yesno"].beaten_by] == ["retrieval"] and verdicts["yesno"].below_by == ()
    assert verdicts["mc"].text.startswith("Multiple choice: retrieval 100.00% [")
    table = report.table("shortcuts")
    assert report.keys.index("shortcuts") == 2  # read beside the accuracy table
    assert "verdict" not in [row[1].text for row in table.rows]  # the verdicts stand under the table, not in its rows
    assert table.verdicts[:2] == (f"{verdicts['yesno'].text}.", f"{verdicts['mc'].text}.")
    assert table.verdicts[2:] == ("No example of suite sc was drawn with matched sampling (graphniah sample --match-similarity): "
                                  "nothing in its draw balances a cell against the shortcuts.",)  # report.balance, last
    md = table.markdown()
    assert f"- {verdicts['mc'].text}." in md and md.index("| Multiple choice | title-similarity") < md.index(f"- {verdicts['yesno'].text}")
    assert "some-model" not in {row[1].text for row in table.rows}
    assert "Holm-adjusted over every row of the table" in table.caption and "at most 5%" in table.caption
    assert [row[5].text for row in table.rows if row[1].text == "retrieval"] == ["<0.0001", "<0.0001"]
    assert [row[6].text for row in table.rows] == ["above", "no", "above", "no"]


def test_a_shortcut_below_random_is_flagged_with_the_rule_that_exploits_it(tmp_path) -> None:
    """Always wrong: YES/NO 0 of 40 (flip the answer: 100%), multiple choice 0 of 40 (avoid the pick).
    The lower tails are scipy's binomial cdf, doubled; Holm runs over the four cells of both sides."""
    models = {"baseline-topic-cluster": {"answer": _wrong}, "baseline-retrieval": {"answer": lambda ex: ex.answer}}
    report = build_report(_suite(tmp_path, models))
    results = shortcut_results(report.context)
    raw = [_two_sided(r.accuracy.k, r.accuracy.n, float(r.random)) for r in results]
    adjusted = multipletests(raw, method="holm")[1]
    assert [r.adjusted for r in results] == pytest.approx(list(adjusted), rel=1e-9)
    below = {r.task: r for r in results if r.shortcut == "topic-cluster"}
    assert below["mc"].pvalue == pytest.approx(2 * 0.75**40, rel=1e-9)
    assert below["yesno"].pvalue == pytest.approx(2 * 0.5**40, rel=1e-9)
    for r in below.values():
        assert r.accuracy.k == 0 and r.direction == "below" and r.below_random and not r.beats_random
    assert below["yesno"].exploit == "flip its YES/NO answer" and below["mc"].exploit == "avoid the option it picks"
    verdicts = {v.task: v for v in shortcut_verdicts(report.context)}
    assert [r.shortcut for r in verdicts["mc"].below_by] == ["topic-cluster"]
    assert [r.shortcut for r in verdicts["mc"].beaten_by] == ["retrieval"]
    text = verdicts["yesno"].text
    assert text.startswith("YES/NO: retrieval 100.00% [")
    assert ", beats random guessing (50.00%), and topic-cluster 0.00% [0.00, " in text
    assert text.endswith(", p = <0.0001, falls below it (the rule that exploits it: flip its YES/NO answer), "
                         "at two-sided p ≤ 5% (Holm over 4 tests)")
    assert verdicts["mc"].text.endswith("falls below it (the rule that exploits it: avoid the option it picks), "
                                        "at two-sided p ≤ 5% (Holm over 4 tests)")
    table = report.table("shortcuts")
    flags = {(row[0].text, row[1].text): row[6].text for row in table.rows}
    assert flags == {("YES/NO", "retrieval"): "above", ("YES/NO", "topic-cluster"): "below",
                     ("Multiple choice", "retrieval"): "above", ("Multiple choice", "topic-cluster"): "below"}


def test_only_a_shortcut_below_random(tmp_path) -> None:
    """A task whose one flagged shortcut lies below random names the baseline itself (not "it")."""
    report = build_report(_suite(tmp_path, {"baseline-title-similarity": {"answer": _wrong}}, n=12))
    verdicts = {v.task: v for v in shortcut_verdicts(report.context)}
    # 0 of 12 YES/NO: 2 · 2^-12 = 0.00049, Holm's first step over two cells: 0.00098 <= 5%
    assert verdicts["yesno"].text == ("YES/NO: title-similarity 0.00% [0.00, "
                                      f"{100 * proportion_confint(0, 12, method='wilson')[1]:.2f}], p = 0.0010, falls below "
                                      "random guessing (50.00%) (the rule that exploits it: flip its YES/NO answer), "
                                      "at two-sided p ≤ 5% (Holm over 2 tests)")
    # 0 of 12 multiple choice: 2 · 0.75^12 = 0.063 > 5%: not flagged, and the note gives both sides' reach
    mc = verdicts["mc"]
    assert not mc.below_by and not mc.beaten_by
    up = next(k for k in range(13) if 2 * binom.sf(k - 1, 12, 0.25) <= 0.05 / 2)
    assert up == 8
    assert mc.text.endswith(f"(Holm over 2 tests; at 12 examples that takes {100 * up / 12:.2f}% or more)")


def test_no_shortcut_journal_no_table(tmp_path) -> None:
    report = build_report(_suite(tmp_path, {"some-model": {"p": 0.5}}))
    assert "shortcuts" not in report.keys
    with pytest.raises(KeyError):
        report.table("shortcuts")


def test_a_task_no_shortcut_beats(tmp_path) -> None:
    report = build_report(_suite(tmp_path, {"baseline-title-similarity": {"answer": lambda ex: "NO" if ex.task == "yesno" else "B"}}))
    verdicts = shortcut_verdicts(report.context)
    assert all(not v.beaten_by and not v.below_by for v in verdicts)
    # Holm's first step over the two cells: the least k of 40 with 2 · P(Binomial(40, 1/2) >= k) <= 5% / 2,
    # and the largest with 2 · P(Binomial(40, 1/2) <= k) <= 5% / 2
    needed = next(k for k in range(41) if 2 * binom.sf(k - 1, 40, 0.5) <= 0.025)
    below = max(k for k in range(41) if 2 * binom.cdf(k, 40, 0.5) <= 0.025)
    assert (needed, below) == (28, 12)
    assert verdicts[0].text == ("YES/NO: no shortcut (title-similarity) beats or falls below random guessing (50.00%) at "
                                f"two-sided p ≤ 5% (Holm over 2 tests; at 40 examples that takes {100 * needed / 40:.2f}% or "
                                f"more, or {100 * below / 40:.2f}% or less)")


def test_the_power_note_counts_the_examples_of_the_result_it_quotes(tmp_path) -> None:
    """Shortcuts that answered different numbers of examples (topic-cluster skips edge lists): the note
    quotes the least accuracy any of them needed, and the count is that shortcut's, not another's."""
    examples = [make_example("yesno", 4, 120, "YES" if i % 2 else "NO", seed=0, index=i) for i in range(40)]
    skipped = {e.id for e in examples if int(e.recipe.params["index"]) >= 16}  # learned-surface sees 16 of 40
    models = {"baseline-learned-surface": {"answer": lambda ex: "NO"}, "baseline-retrieval": {"answer": lambda ex: "NO"}}
    write_suite(tmp_path, "pn", examples, models, np.random.default_rng(0), skip={"baseline-learned-surface": skipped})
    report = build_report(load_suite("pn", runs_root=tmp_path / "runs", examples_root=tmp_path / "examples", by="task"))
    results = {r.shortcut: r for r in shortcut_results(report.context)}
    assert (results["learned-surface"].accuracy.n, results["retrieval"].accuracy.n) == (16, 40)
    level = 0.05 / 2  # Holm's first step over two cells
    need16 = next(k for k in range(17) if 2 * binom.sf(k - 1, 16, 0.5) <= level)
    need40 = next(k for k in range(41) if 2 * binom.sf(k - 1, 40, 0.5) <= level)
    below40 = max(k for k in range(41) if 2 * binom.cdf(k, 40, 0.5) <= level)
    assert results["learned-surface"].needed == need16 / 16 and results["retrieval"].needed == need40 / 40
    assert need40 / 40 < need16 / 16
    (verdict,) = shortcut_verdicts(report.context)
    assert verdict.power == f"at 40 examples that takes {100 * need40 / 40:.2f}% or more, or {100 * below40 / 40:.2f}% or less"
    assert verdict.power == "at 40 examples that takes 70.00% or more, or 30.00% or less"


def test_too_few_examples_to_flag_either_side(tmp_path) -> None:
    """Four YES/NO examples: even 4 of 4 gives 2 · 2^-4 = 0.125 > 5%; the note says no result can pass."""
    examples = [make_example("yesno", 4, 120, "YES" if i % 2 else "NO", seed=0, index=i) for i in range(4)]
    write_suite(tmp_path, "few", examples, {"baseline-retrieval": {"answer": lambda ex: ex.answer}}, np.random.default_rng(0))
    report = build_report(load_suite("few", runs_root=tmp_path / "runs", examples_root=tmp_path / "examples", by="task"))
    (r,) = shortcut_results(report.context)
    assert r.pvalue == pytest.approx(binomtest(4, 4, 0.5).pvalue) == 0.125
    assert not r.flaggable and r.needed is None and r.needed_below is None
    (verdict,) = shortcut_verdicts(report.context)
    assert verdict.text.endswith("(Holm over 1 tests; at 4 examples no result can pass, not even every answer right "
                                 "or every answer wrong)")


def test_a_cell_above_its_interval_is_not_flagged_among_many(tmp_path) -> None:
    """27 of 40 YES/NO answers right: the Wilson interval lies above 50% and p = 0.038 alone, but with
    four cells in the family Holm's adjusted p-value is 0.15; alone in its table the same cell is flagged."""
    def some(ex):  # type: ignore[no-untyped-def]  # the first 27 YES/NO examples (even indices in _suite); A otherwise
        return (ex.answer if int(ex.recipe.params["index"]) // 2 < 27 else _wrong(ex)) if ex.task == "yesno" else "A"

    def constant(ex):  # type: ignore[no-untyped-def]  # half the YES/NO and a quarter of the multiple choice right
        return "YES" if ex.task == "yesno" else "A"

    report = build_report(_suite(tmp_path / "many", {"baseline-retrieval": {"answer": some},
                                                     "baseline-title-similarity": {"answer": constant}}))
    results = shortcut_results(report.context)
    cell = next(r for r in results if r.task == "yesno" and r.shortcut == "retrieval")
    p = binomtest(27, 40, 0.5).pvalue  # two-sided
    assert (cell.accuracy.k, cell.accuracy.n) == (27, 40) and proportion_confint(27, 40, method="wilson")[0] > 0.5
    assert 0.025 < p <= 0.05 and cell.pvalue == pytest.approx(p)
    assert sorted(r.accuracy.k for r in results) == [10, 10, 20, 27]
    assert cell.tests == 4 and cell.adjusted == pytest.approx(4 * p) and not cell.flagged

    examples = [make_example("yesno", 4, 120, "YES" if i % 2 else "NO", seed=0, index=i) for i in range(40)]
    alone = {"baseline-retrieval": {"answer": lambda ex: ex.answer if int(ex.recipe.params["index"]) < 27 else _wrong(ex)}}
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
    assert verdicts["yesno"].text.endswith(", beat random guessing (50.00%), at two-sided p ≤ 5% (Holm over 5 tests)")
    assert "; title-similarity 100.00% [" in verdicts["yesno"].text
    assert verdicts["mc"].text.endswith(", beats random guessing (25.00%), at two-sided p ≤ 5% (Holm over 5 tests)")
    rows = report.table("shortcuts").rows
    by_task: dict[str, list[str]] = {}
    for row in rows:
        by_task.setdefault(row[0].text, []).append(row[1].text)
    assert {t: sorted(s) for t, s in by_task.items()} == {"YES/NO": ["retrieval", "title-similarity"],
                                                         "Multiple choice": ["paper-count", "retrieval", "title-similarity"]}
    caption = report.table("shortcuts").caption
    assert "95% Wilson interval" in caption
    assert "(retrieval, title-similarity, paper-count; graphniah baselines" in caption  # the shortcuts present, no fixed list


# --- the contract, field by field (issue 40): every column, value and list of the table, and the confidence option


def test_every_column_value_and_list_of_the_table_at_another_confidence(tmp_path) -> None:
    """At 90% confidence: the Wilson intervals, the level (10%), the power note's Holm step and the caption all
    follow; each row's cells and tidy values are checked against scipy, statsmodels and the answers themselves."""
    from graphniah.report import ReportConfig
    from graphniah.stats import format_pvalue

    models = {"baseline-retrieval": {"answer": lambda ex: ex.answer},
              "baseline-title-similarity": {"answer": lambda ex: (ex.answer if int(ex.recipe.params["index"]) // 2 < 14 else _wrong(ex))
                                            if ex.task == "yesno" else "A"}}  # 14 of 20 YES/NO: raw p 0.115, adjusted larger
    report = build_report(_suite(tmp_path, models, n=20), ReportConfig(confidence=0.9))
    made = [make_example(t, 4, 120, ("YES" if i % 2 else "NO") if t == "yesno" else "ABCD"[i % 4], seed=0, index=2 * i + j)
            for i in range(20) for j, t in enumerate(("yesno", "mc"))]  # _suite's examples, made again
    results = shortcut_results(report.context)
    raw = [_two_sided(r.accuracy.k, r.accuracy.n, float(r.random)) for r in results]
    adjusted = multipletests(raw, method="holm")[1]
    right = {"retrieval": {"yesno": 20, "mc": 20}, "title-similarity": {"yesno": 14, "mc": 5}}
    assert format_pvalue(raw[1], 4) != format_pvalue(adjusted[1], 4)  # the column must show the adjusted one
    table = report.table("shortcuts")
    assert len(table.rows) == 4
    for r, row, adj in zip(results, table.rows, adjusted, strict=True):
        k = right[r.shortcut][r.task]
        lo, hi = proportion_confint(k, 20, alpha=0.1, method="wilson")
        label = {"yesno": "YES/NO", "mc": "Multiple choice"}[r.task]
        random = {"yesno": 0.5, "mc": 0.25}[r.task]
        assert r.alpha == pytest.approx(0.1) and r.adjusted == pytest.approx(adj, rel=1e-9)
        assert [c.text for c in row] == [label, r.shortcut, f"{100 * k / 20:.2f} [{100 * lo:.2f}, {100 * hi:.2f}]", "20",
                                         f"{100 * random:.2f}", format_pvalue(adj, 4), "above" if adj <= 0.1 and k / 20 > random else "no"]
        name = f"{label} | {r.shortcut}"
        acc = table.value(name, "accuracy", "accuracy")
        assert (acc.k, acc.n) == (k, 20) and acc.value == pytest.approx(k / 20)
        assert acc.low == pytest.approx(lo) and acc.high == pytest.approx(hi)
        assert table.value(name, "random", "baseline").value == pytest.approx(random)
        assert table.value(name, "p_holm", "pvalue").value == pytest.approx(adj, rel=1e-9)
        (lst,) = [x for x in table.lists if x.anchor == row[2].link]
        assert lst.anchor == f"shortcuts-{r.task}-{r.shortcut}"
        examples = [e for e in made if e.task == r.task]
        answer = models[f"baseline-{r.shortcut}"]["answer"]
        want_right = {e.id for e in examples if answer(e) == e.answer}
        assert len(want_right) == k
        assert dict(lst.groups) == {"correct": tuple(r.correct_ids), "wrong": tuple(r.wrong_ids)}
        assert set(r.correct_ids) == want_right and set(r.wrong_ids) == {e.id for e in examples} - want_right
    verdicts = {v.task: v for v in shortcut_verdicts(report.context)}
    assert verdicts["yesno"].alpha == pytest.approx(0.1) and verdicts["yesno"].text.endswith("at two-sided p ≤ 10% (Holm over 4 tests)")
    assert "90% Wilson interval" in table.caption and "at most 10%" in table.caption and "95%" not in table.caption


def test_the_power_note_takes_holm_s_first_step_at_the_configured_level(tmp_path) -> None:
    """No shortcut flagged, confidence 90%: the note quotes the accuracies that pass 10% / 2 (two cells), by scipy."""
    from graphniah.report import ReportConfig

    report = build_report(_suite(tmp_path, {"baseline-title-similarity": {"answer": lambda ex: "NO" if ex.task == "yesno" else "B"}}),
                          ReportConfig(confidence=0.9))
    level = 0.1 / 2
    needed = next(k for k in range(41) if 2 * binom.sf(k - 1, 40, 0.5) <= level)
    below = max(k for k in range(41) if 2 * binom.cdf(k, 40, 0.5) <= level)
    assert (needed, below) == (27, 13)  # at 95% (two cells) it is 28 and 12
    (yesno, _) = shortcut_verdicts(report.context)
    assert yesno.power == f"at 40 examples that takes {100 * needed / 40:.2f}% or more, or {100 * below / 40:.2f}% or less"


def test_too_few_examples_quotes_the_largest_count_answered(tmp_path) -> None:
    """Two shortcuts on 4 and 2 YES/NO examples, neither can be flagged: the note counts the larger, 4."""
    examples = [make_example("yesno", 4, 120, "YES" if i % 2 else "NO", seed=0, index=i) for i in range(4)]
    skipped = {e.id for e in examples if int(e.recipe.params["index"]) >= 2}
    models = {"baseline-learned-surface": {"answer": lambda ex: ex.answer}, "baseline-retrieval": {"answer": lambda ex: ex.answer}}
    write_suite(tmp_path, "tf", examples, models, np.random.default_rng(0), skip={"baseline-learned-surface": skipped})
    report = build_report(load_suite("tf", runs_root=tmp_path / "runs", examples_root=tmp_path / "examples", by="task"))
    assert sorted(r.accuracy.n for r in shortcut_results(report.context)) == [2, 4]
    (verdict,) = shortcut_verdicts(report.context)
    assert verdict.power == "at 4 examples no result can pass, not even every answer right or every answer wrong"
    assert verdict.tried == ("learned-surface", "retrieval") or verdict.tried == ("retrieval", "learned-surface")


def test_on_a_tie_the_power_note_quotes_the_result_with_more_examples(tmp_path) -> None:
    """24 and 28 YES/NO examples both need 75% to pass Holm's first step (18 of 24, 21 of 28, by scipy): the note
    quotes the one of 28 (and its lower reach), though the one of 24 comes first."""
    examples = [make_example("yesno", 4, 120, "YES" if i % 2 else "NO", seed=0, index=i) for i in range(28)]
    skipped = {e.id for e in examples if int(e.recipe.params["index"]) >= 24}
    models = {"baseline-learned-surface": {"answer": lambda ex: "NO"}, "baseline-retrieval": {"answer": lambda ex: "NO"}}
    write_suite(tmp_path, "tie", examples, models, np.random.default_rng(0), skip={"baseline-learned-surface": skipped})
    report = build_report(load_suite("tie", runs_root=tmp_path / "runs", examples_root=tmp_path / "examples", by="task"))
    level = 0.05 / 2
    need = {n: next(k for k in range(n + 1) if 2 * binom.sf(k - 1, n, 0.5) <= level) / n for n in (24, 28)}
    assert need == {24: 0.75, 28: 0.75}
    below28 = max(k for k in range(29) if 2 * binom.cdf(k, 28, 0.5) <= level)
    assert [r.accuracy.n for r in shortcut_results(report.context)] == [24, 28]
    (verdict,) = shortcut_verdicts(report.context)
    assert verdict.power == f"at 28 examples that takes 75.00% or more, or {100 * below28 / 28:.2f}% or less"


def _result(task: str, shortcut: str, k: int, n: int, *, direction: str = "above", adjusted: float = 0.5, level: str | None = None,
            run: int = 0, f1: float | None = None):  # type: ignore[no-untyped-def]
    """A hand-made result (flagged when ``adjusted`` ≤ 5%)."""
    from graphniah.report.shortcuts import ShortcutResult
    from graphniah.stats import Interval, Mean, proportion

    mean = Mean(n, f1, Interval(f1 - 0.05, f1 + 0.05), 0.95) if f1 is not None else None  # type: ignore[call-arg]
    return ShortcutResult(task, shortcut, run, proportion(k, n), Fraction(1, 4), (), (), level, mean, 0.5 if f1 is not None else None,
                          adjusted, direction, adjusted, 0.05, 6)  # type: ignore[arg-type]


def test_verdict_sentences_written_out_for_counting_listing_and_several_below() -> None:
    """The sentences for cases the suites above do not reach: counting below random (its own reverse rule), two
    shortcuts below ('fall', 'them'), the list task judged above only, and the power note only when none is flagged."""
    from graphniah.report.shortcuts import ShortcutVerdict

    low = _result("count", "paper-count", 0, 40, direction="below", adjusted=0.001)
    assert low.below_random and not low.beats_random and low.exploit == "avoid the count it gives"
    v = ShortcutVerdict("count", Fraction(1, 4), (), ("paper-count",), None, 6, 0.05, "at 40 examples that takes 50.00% or more", (low,))
    assert v.text == ("Counting: paper-count 0.00% [0.00, 8.76], p = 0.0010, falls below random guessing (25.00%) (the rule that "
                      "exploits it: avoid the count it gives), at two-sided p ≤ 5% (Holm over 6 tests)")
    two = (_result("mc", "retrieval", 1, 40, direction="below", adjusted=0.01), _result("mc", "topic-cluster", 2, 40, direction="below",
                                                                                        adjusted=0.02))
    text = ShortcutVerdict("mc", Fraction(1, 4), (), ("retrieval", "topic-cluster"), None, 6, 0.05, "", two).text
    assert text.startswith("Multiple choice: retrieval 2.50% [") and "; topic-cluster 5.00% [" in text
    assert text.endswith(", p = 0.0200, fall below random guessing (25.00%) (the rule that exploits them: avoid the option it "
                         "picks), at two-sided p ≤ 5% (Holm over 6 tests)")
    none = ShortcutVerdict("list", Fraction(0), (), ("topic-cluster", "retrieval"), 0.4, 6, 0.05, "at 5 examples no result can pass")
    assert none.text == ("List: no shortcut (topic-cluster, retrieval) beats listing every paper (F1 40.00%) at one-sided p (doubled) "
                         "≤ 5% (Holm over 6 tests; at 5 examples no result can pass)")
    listed = _result("list", "topic-cluster", 0, 30, adjusted=0.001, f1=0.8)
    assert listed.score_text == "F1 80.00% [75.00, 85.00]" and listed.exploit == ""


def test_level_sentences_follow_the_values_order_and_mark_list_f1() -> None:
    from graphniah.report.shortcuts import ShortcutLevelVerdict

    results = (_result("list", "topic-cluster", 0, 20, adjusted=0.01, level="32", f1=0.8),
               _result("list", "topic-cluster", 0, 20, adjusted=0.01, level="4", f1=0.8),
               _result("list", "retrieval", 1, 20, adjusted=0.5, level="4", run=1, f1=0.3))
    v = ShortcutLevelVerdict("list", "depth", ("4", "8", "32"), results)
    assert v.beaten_levels == v.flagged_levels == ("4", "32")
    assert v.text == "List: topic-cluster beats listing every paper (F1) at depth 4, 32 (one-sided p (doubled) ≤ 5%, Holm over 6 tests)"
    below = ShortcutLevelVerdict("yesno", "context length", ("1000", "2000"), (
        _result("yesno", "retrieval", 2, 20, direction="below", adjusted=0.01, level="2000"),
        _result("yesno", "topic-cluster", 3, 20, direction="below", adjusted=0.02, level="1000", run=1)))
    # shortcuts in the order of the first value where each is flagged: topic-cluster (1000) before retrieval (2000)
    assert below.text == ("YES/NO: topic-cluster falls below random guessing at context length 1000; retrieval at context length 2000 "
                          "(the rule that exploits them: flip its YES/NO answer) (two-sided p ≤ 5%, Holm over 6 tests)")
    quiet = ShortcutLevelVerdict("mc", "depth", ("4",), (_result("mc", "retrieval", 5, 20, level="4"),
                                                          _result("mc", "retrieval", 5, 20, level="4")))
    assert quiet.text == "Multiple choice: no shortcut (retrieval) beats or falls below random guessing at any depth (two-sided p ≤ 5%, Holm over 6 tests)"
