"""The Shortcuts table by value of the varied variable (``shortcuts_by_<variable>``), its verdicts and notes."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from scipy.stats import binom
from statsmodels.stats.multitest import multipletests
from statsmodels.stats.proportion import proportion_confint

from graphniah.report import build_report, load_suite
from graphniah.report.grid import DASH
from graphniah.report.shortcuts import shortcut_level_verdicts, shortcut_verdicts

from .synthetic import make_example, write_suite

DEPTHS = (4, 8, 16, 32)


def _depth_suite(tmp_path, task, models, per_depth=20, by="depth"):  # type: ignore[no-untyped-def]
    examples = []
    for depth in DEPTHS:
        for i in range(per_depth):
            label = ("YES", "NO")[i % 2] if task == "yesno" else "ABCD"[i % 4]
            examples.append(make_example(task, depth, 120, label, seed=0, index=len(examples)))
    write_suite(tmp_path, "sd", examples, models, np.random.default_rng(0))
    return load_suite("sd", runs_root=tmp_path / "runs", examples_root=tmp_path / "examples", by=by)


def _wrong(ex):  # type: ignore[no-untyped-def]
    return "NO" if ex.answer == "YES" else ("B" if ex.answer == "A" else "A")


def _right_at(depths, first=20):  # type: ignore[no-untyped-def]
    """Right on the first ``first`` examples (by index within the depth) of the given depths and wrong on the
    rest; at other depths a constant guess, right exactly as often as random guessing (10 of 20 YES/NO answers
    YES, 5 of 20 multiple-choice answers A)."""
    def answer(ex):  # type: ignore[no-untyped-def]
        if ex.depth in depths:
            return ex.answer if int(ex.recipe.params["index"]) % 20 < first else _wrong(ex)
        return "YES" if ex.task == "yesno" else "A"
    return answer


def _two_sided(k: int, n: int, p: float) -> float:
    """Twice the smaller exact binomial tail (scipy)."""
    return min(1.0, 2 * min(binom.sf(k - 1, n, p), binom.cdf(k, n, p)))


def test_beats_random_at_one_depth_only_not_pooled(tmp_path) -> None:
    # 12/20 right at depth 4 (Wilson low 38.7% > 25%), 5/20 elsewhere: 27/80 pooled (two-sided p = 0.10).
    report = build_report(_depth_suite(tmp_path, "mc", {"baseline-retrieval": {"answer": _right_at({4}, first=12)},
                                                         "some-model": {"p": 0.5}}))
    (pooled,) = shortcut_verdicts(report.context)
    assert not pooled.beaten_by  # the per-task verdict hides depth 4
    (v,) = shortcut_level_verdicts(report.context)
    assert v.levels == ("4", "8", "16", "32") and v.beaten_levels == ("4",)
    assert v.text == "Multiple choice: retrieval beats random guessing at depth 4 (two-sided p ≤ 5%, Holm over 4 tests)"
    for r in v.results:
        assert r.random == Fraction(1, 4)
        assert r.accuracy.n == 20 and r.accuracy.k == (12 if r.level == "4" else 5)
    # one family of the four depth cells: exact two-sided binomial tests, Holm-adjusted (scipy, statsmodels)
    adjusted = multipletests([_two_sided(r.accuracy.k, r.accuracy.n, 0.25) for r in v.results], method="holm")[1]
    assert [r.adjusted for r in v.results] == pytest.approx(list(adjusted), rel=1e-9)
    assert [r.beats_random for r in v.results] == [bool(a <= 0.05) for a in adjusted] == [True, False, False, False]
    table = report.table("shortcuts_by_depth")
    assert report.keys[2:4] == ("shortcuts", "shortcuts_by_depth")
    assert table.header == ("Task", "Shortcut", "4", "8", "16", "32")
    row = next(r for r in table.rows if r[1].text == "retrieval")
    assert [c.bold for c in row[2:]] == [True, False, False, False]
    assert row[2].text.startswith("60.00 [")
    assert table.cell("Multiple choice | Flagged", "4").text == "retrieval ↑"
    assert table.cell("Multiple choice | Flagged", "8").text == "none"
    assert table.cell("Multiple choice | Random guessing", "16").text == "25.00"
    assert table.cell("Multiple choice | #Examples", "32").text == "20"
    cell = table.value("Multiple choice | retrieval", "4", "accuracy")
    assert (cell.k, cell.n) == (12, 20)
    lo, hi = proportion_confint(12, 20, method="wilson")
    assert abs(cell.low - lo) < 1e-9 and abs(cell.high - hi) < 1e-9
    assert table.verdicts == ("Multiple choice: retrieval beats random guessing at depth 4 (two-sided p ≤ 5%, Holm over 4 tests).",)
    assert v.text not in table.caption  # the verdict stands under the table, once
    # The accuracy table's caption names the depth; the pooled Shortcuts table is as before.
    assert "Shortcuts: Multiple choice: retrieval beats random guessing at depth 4 (two-sided p ≤ 5%, Holm over 4 tests) — " in report.table("accuracy").caption
    assert report.table("shortcuts").verdicts == (f"{pooled.text}.", "No example of suite sd was drawn with matched sampling "
                                                  "(graphniah sample --match-similarity): nothing in its draw balances a cell "
                                                  "against the shortcuts.")  # the balance note (report.balance) last
    lst = next(x for x in table.lists if x.anchor == row[2].link)
    assert [len(ids) for _, ids in lst.groups] == [12, 8]


def test_beats_random_pooled_but_at_no_depth(tmp_path) -> None:
    # 14/20 right at every depth: Wilson low 48.1% < 50% per depth, 59.2% > 50% over the 80 pooled.
    report = build_report(_depth_suite(tmp_path, "yesno", {"baseline-retrieval": {"answer": _right_at(set(DEPTHS), first=14)}}))
    (pooled,) = shortcut_verdicts(report.context)
    assert [r.shortcut for r in pooled.beaten_by] == ["retrieval"]
    (v,) = shortcut_level_verdicts(report.context)
    assert not v.beaten_by and v.beaten_levels == ()
    assert v.text == "YES/NO: no shortcut (retrieval) beats or falls below random guessing at any depth (two-sided p ≤ 5%, Holm over 4 tests)"
    table = report.table("shortcuts_by_depth")
    assert not any(c.bold for row in table.rows for c in row)
    assert [table.cell("YES/NO | Flagged", d).text for d in ("4", "8", "16", "32")] == ["none"] * 4
    assert "Shortcuts:" not in report.table("accuracy").caption  # nothing to note


def test_two_shortcuts_at_different_depths(tmp_path) -> None:
    models = {"baseline-retrieval": {"answer": _right_at({4, 8})}, "baseline-title-similarity": {"answer": _right_at({4})}}
    report = build_report(_depth_suite(tmp_path, "yesno", models))
    (v,) = shortcut_level_verdicts(report.context)
    assert v.text == "YES/NO: retrieval beats random guessing at depth 4, 8; title-similarity at depth 4 (two-sided p ≤ 5%, Holm over 8 tests)"
    table = report.table("shortcuts_by_depth")
    assert table.cell("YES/NO | Flagged", "4").text == "retrieval ↑, title-similarity ↑"
    assert table.cell("YES/NO | Flagged", "8").text == "retrieval ↑"


def test_random_guessing_per_value_follows_its_answer_sets(tmp_path) -> None:
    # Varying the "none of these" option: 4 options without it, 5 with it; random guessing differs per value.
    examples = []
    for none in (False, True):
        for i in range(20):
            examples.append(make_example("mc", 4, 120, "ABCD"[i % 4], seed=0, index=len(examples), none_option=none))
    write_suite(tmp_path, "sn", examples, {"baseline-retrieval": {"answer": lambda ex: ex.answer if not ex.none_option else "E"}},
                np.random.default_rng(0))
    report = build_report(load_suite("sn", runs_root=tmp_path / "runs", examples_root=tmp_path / "examples", by="none_option"))
    (v,) = shortcut_level_verdicts(report.context)
    random = {r.level: r.random for r in v.results}
    assert random == {"without": Fraction(1, 4), "with 'none'": Fraction(1, 5)}
    ctx, o = report.context, report.data.outcomes
    for c, level in enumerate(report.data.levels):
        assert random[level] == ctx.weighted_baseline((o.task == "mc") & (report.data.value == c))
    assert v.beaten_levels == ("without",) and v.flagged_levels == ("without", "with 'none'")
    # always "none of these" (never right): 0 of 20 against 1/5, two-sided p = 2 · 0.8^20 = 0.023, second in
    # Holm's order of two: a shortcut below random guessing, exploited by avoiding that pick
    below = next(r for r in v.results if r.level == "with 'none'")
    assert below.below_random and below.adjusted == pytest.approx(2 * 0.8**20)
    assert v.text == ("Multiple choice: retrieval beats random guessing at 'none of these' option without, and retrieval falls "
                      "below it at 'none of these' option with 'none' (the rule that exploits it: avoid the option it picks) "
                      "(two-sided p ≤ 5%, Holm over 2 tests)")
    table = report.table("shortcuts_by_none_option")
    assert [table.cell("Multiple choice | Flagged", lv).text for lv in ("without", "with 'none'")] == ["retrieval ↑", "retrieval ↓"]
    assert "shortcuts_by_none_option" in report.keys


def test_no_breakdown_for_one_value_or_the_task(tmp_path) -> None:
    one = build_report(_depth_suite(tmp_path / "a", "mc", {"baseline-retrieval": {"answer": _right_at({4})}}, by="component_size"))
    assert one.data.levels == ("120",)
    assert shortcut_level_verdicts(one.context) == []
    assert not any(k.startswith("shortcuts_by_") for k in one.keys) and "shortcuts" in one.keys
    by_task = build_report(_depth_suite(tmp_path / "b", "mc", {"baseline-retrieval": {"answer": _right_at({4})}}, by="task"))
    assert not any(k.startswith("shortcuts_by_") for k in by_task.keys)
    assert "Shortcuts:" not in by_task.table("accuracy").caption


def test_per_task_accuracy_tables_note_their_own_task(tmp_path) -> None:
    examples = []
    for depth in DEPTHS:
        for i in range(20):
            examples.append(make_example("mc", depth, 120, "ABCD"[i % 4], seed=0, index=len(examples)))
            examples.append(make_example("yesno", depth, 120, ("YES", "NO")[i % 2], seed=0, index=len(examples)))
    mc_at_4 = _right_at({4})
    models = {"baseline-retrieval": {"answer": lambda ex: mc_at_4(ex) if ex.task == "mc" else "YES"}}
    write_suite(tmp_path, "st", examples, models, np.random.default_rng(0))
    report = build_report(load_suite("st", runs_root=tmp_path / "runs", examples_root=tmp_path / "examples", by="depth"))
    texts = [v.text for v in shortcut_level_verdicts(report.context)]
    assert texts == ["YES/NO: no shortcut (retrieval) beats or falls below random guessing at any depth (two-sided p ≤ 5%, Holm over 8 tests)",
                     "Multiple choice: retrieval beats random guessing at depth 4 (two-sided p ≤ 5%, Holm over 8 tests)"]
    assert texts[1] in report.table("accuracy_mc").caption and texts[1] in report.table("accuracy").caption
    assert "Shortcuts:" not in report.table("accuracy_yesno").caption
    assert [row[0].text for row in report.table("shortcuts_by_depth").rows if row[1].text == "Flagged"] == ["YES/NO", "Multiple choice"]


def test_a_shortcut_that_skipped_examples_gets_a_dagger_or_a_dash(tmp_path) -> None:
    # title-similarity never saw depth 8 (a dash) and half of depth 16 (a dagger: fewer answers than #Examples).
    examples = [make_example("mc", depth, 120, "ABCD"[i % 4], seed=0, index=j * 20 + i)
                for j, depth in enumerate(DEPTHS) for i in range(20)]
    skipped = {e.id for e in examples if e.depth == 8 or (e.depth == 16 and int(e.recipe.params["index"]) % 2)}
    write_suite(tmp_path, "sd", examples, {"baseline-retrieval": {"answer": _right_at({4}, first=12)},
                                           "baseline-title-similarity": {"answer": _right_at(set())}},
                np.random.default_rng(0), skip={"baseline-title-similarity": skipped})
    report = build_report(load_suite("sd", runs_root=tmp_path / "runs", examples_root=tmp_path / "examples", by="depth"))
    table = report.table("shortcuts_by_depth")
    row = next(r for r in table.rows if r[1].text == "title-similarity")
    texts = [c.text for c in row[2:]]
    assert texts[1] == DASH and "†" in texts[2] and "†" not in texts[0] + texts[3]
    assert table.cell("Multiple choice | #Examples", "16").text == "20"  # retrieval answered all 20 there
    assert "† marks a shortcut with fewer answers than #Examples." in table.caption


def test_a_task_no_shortcut_answered_gets_no_verdict(tmp_path) -> None:
    """The shortcut answers YES/NO only; multiple-choice examples at the same depths get no level verdict
    (and the one YES/NO verdict does not borrow theirs)."""
    examples = []
    for depth in DEPTHS:
        for i in range(20):
            examples.append(make_example("yesno", depth, 120, ("YES", "NO")[i % 2], seed=0, index=len(examples)))
            examples.append(make_example("mc", depth, 120, "ABCD"[i % 4], seed=0, index=len(examples)))
    models = {"baseline-retrieval": {"answer": _right_at({4})}, "some-model": {"p": 0.5}}  # the model answers both tasks
    skip = {"baseline-retrieval": {e.id for e in examples if e.task == "mc"}}
    write_suite(tmp_path, "sy", examples, models, np.random.default_rng(0), skip=skip)
    report = build_report(load_suite("sy", runs_root=tmp_path / "runs", examples_root=tmp_path / "examples", by="depth"))
    verdicts = shortcut_level_verdicts(report.context)
    assert [v.task for v in verdicts] == ["yesno"]
    assert [r.level for r in verdicts[0].results] == [str(d) for d in DEPTHS]
    caption = report.table("shortcuts_by_depth").caption
    assert "Holm-adjusted over every cell of the table, is at most 5%" in caption and "Wilson interval" in caption


def test_a_counting_breakdown_is_read_against_random_guessing() -> None:
    """Only the list task's rows compare with listing every paper; counting's compare with random guessing."""
    import tempfile
    from pathlib import Path

    with tempfile.TemporaryDirectory() as tmp:
        examples = [make_example("count", d, 120, str(100 + i), seed=0, index=j)
                    for j, (d, i) in enumerate((d, i) for d in DEPTHS for i in range(10))]
        write_suite(Path(tmp), "sc", examples, {"baseline-paper-count": {"answer": lambda ex: ex.answer}}, np.random.default_rng(0))
        report = build_report(load_suite("sc", runs_root=Path(tmp) / "runs", examples_root=Path(tmp) / "examples", by="depth"))
    labels = [row[1].text for row in report.table("shortcuts_by_depth").rows]
    assert "Random guessing" in labels and not any(label.startswith("List every paper") for label in labels)


def test_a_task_with_one_cell_in_the_breakdown(tmp_path) -> None:
    """The shortcut answers YES/NO at every depth but multiple choice at depth 4 only: the multiple-choice
    verdict rests on one cell, and its sentence still names the family of all the breakdown's cells."""
    examples = []
    for depth in DEPTHS:
        for i in range(20):
            examples.append(make_example("yesno", depth, 120, ("YES", "NO")[i % 2], seed=0, index=len(examples)))
            examples.append(make_example("mc", depth, 120, "ABCD"[i % 4], seed=0, index=len(examples)))
    skip = {"baseline-retrieval": {e.id for e in examples if e.task == "mc" and e.depth != 4}}
    write_suite(tmp_path, "so", examples, {"baseline-retrieval": {"answer": _right_at({4})}}, np.random.default_rng(0), skip=skip)
    report = build_report(load_suite("so", runs_root=tmp_path / "runs", examples_root=tmp_path / "examples", by="depth"))
    verdicts = {v.task: v for v in shortcut_level_verdicts(report.context)}
    assert [r.level for r in verdicts["mc"].results] == ["4"]
    assert verdicts["mc"].text == "Multiple choice: retrieval beats random guessing at depth 4 (two-sided p ≤ 5%, Holm over 5 tests)"


def test_no_breakdown_when_the_shortcuts_answered_one_value(tmp_path) -> None:
    """The suite holds four depths (a model answered them all) but the shortcut answered depth 4 only: a
    table by depth needs at least two values among the shortcuts' answers, so there is none."""
    examples = [make_example("mc", d, 120, "ABCD"[i % 4], seed=0, index=j * 20 + i) for j, d in enumerate(DEPTHS) for i in range(20)]
    skip = {"baseline-retrieval": {e.id for e in examples if e.depth != 4}}
    models = {"baseline-retrieval": {"answer": _right_at({4})}, "some-model": {"p": 0.5}}
    write_suite(tmp_path, "s1", examples, models, np.random.default_rng(0), skip=skip)
    report = build_report(load_suite("s1", runs_root=tmp_path / "runs", examples_root=tmp_path / "examples", by="depth"))
    assert report.data.levels == ("4", "8", "16", "32")
    assert shortcut_level_verdicts(report.context) == []
    assert "shortcuts_by_depth" not in report.keys and "shortcuts" in report.keys
    # two values answered are enough
    skip2 = {"baseline-retrieval": {e.id for e in examples if e.depth not in (4, 32)}}
    write_suite(tmp_path / "two", "s2", examples, models, np.random.default_rng(0), skip=skip2)
    two = build_report(load_suite("s2", runs_root=tmp_path / "two" / "runs", examples_root=tmp_path / "two" / "examples", by="depth"))
    (v,) = shortcut_level_verdicts(two.context)
    assert [r.level for r in v.results] == ["4", "32"]
    assert two.table("shortcuts_by_depth").header == ("Task", "Shortcut", "4", "8", "16", "32")


def test_a_shortcut_below_random_at_one_depth_is_noted_in_the_accuracy_captions(tmp_path) -> None:
    """Wrong on every YES/NO question at depth 8 (0 of 20: flip the answer and it is always right), a coin's
    worth elsewhere: the breakdown flags depth 8 below random, and the accuracy tables' captions say so."""
    report = build_report(_depth_suite(tmp_path, "yesno", {"baseline-topic-cluster": {"answer": _right_at({8}, first=0)}}))
    (v,) = shortcut_level_verdicts(report.context)
    assert [r.accuracy.k for r in v.results] == [10, 0, 10, 10]
    adjusted = multipletests([_two_sided(r.accuracy.k, 20, 0.5) for r in v.results], method="holm")[1]
    assert [r.below_random for r in v.results] == [bool(a <= 0.05) for a in adjusted] == [False, True, False, False]
    assert not v.beaten_by and v.flagged_levels == ("8",) and v.beaten_levels == ()
    text = ("YES/NO: topic-cluster falls below random guessing at depth 8 (the rule that exploits it: flip its YES/NO answer) "
            "(two-sided p ≤ 5%, Holm over 4 tests)")
    assert v.text == text
    assert f"Shortcuts: {text} — those cells can be reached without searching the graph" in report.table("accuracy").caption
    row = next(r for r in report.table("shortcuts_by_depth").rows if r[1].text == "topic-cluster")
    assert [c.bold for c in row[2:]] == [False, True, False, False]


def test_every_row_of_the_breakdown_by_component_size_at_another_confidence(tmp_path) -> None:
    """Two component sizes, 90% confidence: the noun, the level (10%), the intervals, the baseline, #Examples and
    Flagged rows, the tidy values, no dagger, and the accuracy caption's pointer to the table by its name."""
    from graphniah.report import ReportConfig

    examples = [make_example("mc", 4, size, "ABCD"[i % 4], seed=0, index=j * 20 + i) for j, size in enumerate((100, 200))
                for i in range(20)]

    def answer(ex):  # type: ignore[no-untyped-def]  # 12 of 20 right at size 100; 'A' (5 of 20) at size 200
        if ex.component_size == 100:
            return ex.answer if int(ex.recipe.params["index"]) % 20 < 12 else _wrong(ex)
        return "A"

    write_suite(tmp_path, "cs", examples, {"baseline-retrieval": {"answer": answer}}, np.random.default_rng(0))
    data = load_suite("cs", runs_root=tmp_path / "runs", examples_root=tmp_path / "examples", by="component_size")
    report = build_report(data, ReportConfig(confidence=0.9))
    (v,) = shortcut_level_verdicts(report.context)
    assert v.noun == "component size" and v.levels == ("100", "200")
    adjusted = multipletests([_two_sided(12, 20, 0.25), _two_sided(5, 20, 0.25)], method="holm")[1]
    assert [r.adjusted for r in v.results] == pytest.approx(list(adjusted), rel=1e-9)
    assert all(r.alpha == pytest.approx(0.1) for r in v.results)
    text = "Multiple choice: retrieval beats random guessing at component size 100 (two-sided p ≤ 10%, Holm over 2 tests)"
    assert v.text == text
    table = report.table("shortcuts_by_component_size")
    assert table.header == ("Task", "Shortcut", "100", "200")
    cells = []
    for k in (12, 5):
        lo, hi = proportion_confint(k, 20, alpha=0.1, method="wilson")
        cells.append(f"{100 * k / 20:.2f} [{100 * lo:.2f}, {100 * hi:.2f}]")
    assert [[c.text for c in row] for row in table.rows] == [
        ["Multiple choice", "retrieval", *cells],
        ["Multiple choice", "Random guessing", "25.00", "25.00"],
        ["Multiple choice", "#Examples", "20", "20"],
        ["Multiple choice", "Flagged", "retrieval ↑", "none"],
    ]
    assert [c.bold for c in table.rows[0][2:]] == [True, False]
    for size, k in (("100", 12), ("200", 5)):
        acc = table.value("Multiple choice | retrieval", size, "accuracy")
        lo, hi = proportion_confint(k, 20, alpha=0.1, method="wilson")
        assert (acc.k, acc.n) == (k, 20) and acc.low == pytest.approx(lo) and acc.high == pytest.approx(hi)
        assert table.value("Multiple choice | Random guessing", size, "baseline").value == pytest.approx(0.25)
    lists = {x.anchor: dict(x.groups) for x in table.lists}
    assert [len(lists[c.link]["correct"]) for c in table.rows[0][2:]] == [12, 5]
    assert "†" not in table.caption  # every shortcut answered every example at every size
    assert "90% Wilson interval" in table.caption and "is at most 10%" in table.caption
    assert report.table("accuracy").caption.endswith(
        f"Shortcuts: {text} — those cells can be reached without searching the graph (table \"Shortcuts by component size\").")


def test_a_value_no_shortcut_answered_gets_dashes_and_no_examples(tmp_path) -> None:
    """A model answered depths 4, 8 and 16, the shortcut 4 and 16 only: at depth 8 the baseline and Flagged rows show a
    dash and #Examples 0; the list breakdown's baseline row is listing every paper's F1 (test_shortcut_list)."""
    examples = [make_example("yesno", d, 120, ("YES", "NO")[i % 2], seed=0, index=j * 20 + i)
                for j, d in enumerate((4, 8, 16)) for i in range(20)]
    skip = {"baseline-retrieval": {e.id for e in examples if e.depth == 8}}
    models = {"baseline-retrieval": {"answer": _right_at({4})}, "some-model": {"p": 0.5}}
    write_suite(tmp_path, "sg", examples, models, np.random.default_rng(0), skip=skip)
    report = build_report(load_suite("sg", runs_root=tmp_path / "runs", examples_root=tmp_path / "examples", by="depth"))
    table = report.table("shortcuts_by_depth")
    assert table.header == ("Task", "Shortcut", "4", "8", "16")
    assert [[c.text for c in row[1:]] for row in table.rows[1:]] == [
        ["Random guessing", "50.00", DASH, "50.00"], ["#Examples", "20", "0", "20"], ["Flagged", "retrieval ↑", DASH, "none"]]
    assert table.rows[0][3].text == DASH
