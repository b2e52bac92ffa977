"""report/balance.py: the sentences under the Shortcuts table saying which cells are not balanced, from
synthetic suites whose recipes carry known matched-sampling keys and whose shortcut answers are fixed."""

from __future__ import annotations

import html

import numpy as np
import pytest
from scipy.stats import binom

from graphniah.atomic import sha256_bytes
from graphniah.formats.journal import RunSettings, RunSettingsEntry
from graphniah.layout import journal_file, settings_file
from graphniah.report import build_report, load_suite, write_report
from graphniah.report.balance import balance_notes
from graphniah.report.shortcuts import shortcut_level_verdicts, shortcut_results

from .synthetic import make_example, write_suite

LEARNED = "b" * 64  # a scorer's sha256, as the recipe records it
FULL = {"match_similarity": True, "match_venue": True, "match_components": True, "match_learned": LEARNED}
RANKS = {"match_similarity": True, "match_venue": True, "match_components": True}
SIZE = {"match_similarity": True, "size_range": (100, 120)}
MC_NOTE = ("matched on ranks only (title similarity, venue, subject and title length), not on the learned score — a learned "
           "reader may still beat chance there (docs/paper-deviations.md).")
UNMATCHED = "drawn without matched sampling: nothing in their draw balances them against the shortcuts."


def _examples(count_unmatched_at_32: int = 8, per_depth: int = 20):  # type: ignore[no-untyped-def]
    """Per depth 16 and 32: YES/NO fully matched, multiple choice on ranks only, counting matched by size
    (at depth 32 the last ``count_unmatched_at_32`` counting examples without the control)."""
    out = []
    for depth in (16, 32):
        for i in range(per_depth):
            out.append(make_example("yesno", depth, 110, ("YES", "NO")[i % 2], seed=0, index=len(out), matching=FULL))
            out.append(make_example("mc", depth, 110, "ABCD"[i % 4], seed=0, index=len(out), matching=RANKS))
            unmatched = depth == 32 and i >= per_depth - count_unmatched_at_32
            out.append(make_example("count", depth, 110, "109", seed=0, index=len(out), matching=None if unmatched else SIZE))
    return out


def _learned_answers(ex):  # type: ignore[no-untyped-def]
    """Wrong on every YES/NO at depth 32; elsewhere a constant guess (YES: 10 of 20 right; A: 5 of 20); counts wrong."""
    if ex.task == "yesno":
        return ("NO" if ex.answer == "YES" else "YES") if ex.depth == 32 else "YES"
    return "A" if ex.task == "mc" else "0"


def _settings(root, model: str, drawn: dict[str, int] | None) -> None:  # type: ignore[no-untyped-def]
    """The settings file ``graphniah baselines`` writes beside a journal (hash as write_suite gives it)."""
    h = sha256_bytes(model.encode())
    settings: dict[str, object] = {"shortcut": model.removeprefix("baseline-")}
    if drawn is not None:
        settings["training"] = {"seed": 1, "requested_per_task": max(drawn.values()), "drawn_per_task": drawn}
    entry = RunSettingsEntry(model=model, settings=settings, examples="x", first_run="2026-11-01T00:00:00+00:00")
    settings_file(journal_file(root / "runs", "bal", model)).write_text(RunSettings(runs={h: entry}).model_dump_json())


def _load(tmp_path, examples, models, drawn=None, by="depth"):  # type: ignore[no-untyped-def]
    write_suite(tmp_path, "bal", examples, models, np.random.default_rng(0))
    if "baseline-learned-surface" in models:
        _settings(tmp_path, "baseline-learned-surface", drawn)
    return load_suite("bal", runs_root=tmp_path / "runs", examples_root=tmp_path / "examples", by=by)


def test_partly_matched_cells_and_a_matched_cell_flagged_below(tmp_path) -> None:
    models = {"baseline-learned-surface": {"answer": _learned_answers}}
    data = _load(tmp_path, _examples(), models, drawn={"yesno": 1000, "mc": 1000, "count": 1000})
    assert data.examples[next(iter(data.examples))].matching == ("match_similarity", "match_venue", "match_components",
                                                                 "match_learned")
    report = build_report(data)
    # The breakdown by depth is one Holm family of 3 tasks x 2 depths; YES/NO at depth 32 is 0 of 20 (scipy's exact
    # two-sided p, six cells: Holm's first step multiplies by 6), every other cell at exactly its chance count or at 0 counts.
    (yesno,) = [v for v in shortcut_level_verdicts(report.context) if v.task == "yesno"]
    at32 = next(r for r in yesno.results if r.level == "32")
    assert at32.adjusted == pytest.approx(6 * 2 * binom.cdf(0, 20, 0.5)) and at32.below_random
    assert [r.level for v in shortcut_level_verdicts(report.context) for r in v.flagged] == ["32"]
    notes = (
        f"Multiple choice at depth 16, 32: all 40 examples {MC_NOTE}",
        f"Counting at depth 32: 8 of 20 examples {UNMATCHED}",
        "YES/NO at depth 32: matched, yet not balanced against learned-surface (below random guessing: flip its YES/NO answer).",
    )
    table = report.table("shortcuts")
    task_verdicts = len({r.task for r in shortcut_results(report.context)})
    assert table.verdicts[task_verdicts:] == notes  # after the one verdict per task, in this order
    # the tidy numbers of the partly matched cells (cells.csv)
    rows = sorted((v.row, v.column, v.k, v.n) for v in table.values if v.metric == "unbalanced")
    assert rows == [("Counting | balance", "32", 8, 20), ("Multiple choice | balance", "16", 20, 20),
                    ("Multiple choice | balance", "32", 20, 20)]
    # Markdown and HTML print them under the table as sentences, never in a cell
    out = write_report(report, tmp_path / "report", figures=False)
    md = (out.out / "report.md").read_text(encoding="utf-8")
    page = out.html.read_text(encoding="utf-8") if out.html is not None else ""
    for note in notes:
        assert f"- {note}" in md
        assert f"<li>{html.escape(note)}</li>" in page and f"<td>{html.escape(note)}" not in page
    assert "Counting | balance,32,unbalanced,8,20,0.4" in (out.out / "cells.csv").read_text(encoding="utf-8")


def test_pooled_flag_in_a_matched_suite_without_a_breakdown(tmp_path) -> None:
    # Every YES/NO wrong: 0 of 40, flagged below on the pooled table (the suite varies the task: no breakdown).
    examples = [make_example("yesno", 16, 110, ("YES", "NO")[i % 2], seed=0, index=i, matching=FULL) for i in range(40)]
    models = {"baseline-title-similarity": {"answer": lambda ex: "NO" if ex.answer == "YES" else "YES"}}
    data = _load(tmp_path, examples, models, by="task")
    b = balance_notes(data, shortcut_results(build_report(data).context))
    assert b.notes == ("YES/NO: matched, yet not balanced against title-similarity (below random guessing: flip its YES/NO answer).",)
    assert b.values == ()


def test_flagged_above_at_no_value_but_pooled(tmp_path) -> None:
    # 14 of 20 right at each depth: not flagged at either depth (p = 0.115 each), flagged on the 40 pooled
    # (scipy: two-sided p = 2 P(S >= 28 | 40, 1/2) = 0.0166), in matched cells: the pooled cell is named.
    examples = [make_example("yesno", d, 110, ("YES", "NO")[i % 2], seed=0, index=2 * i + (d == 32), matching=FULL)
                for d in (16, 32) for i in range(20)]
    right = {ex.id for d in (16, 32) for ex in [e for e in examples if e.depth == d][:14]}
    models = {"baseline-retrieval": {"answer": lambda ex: ex.answer if ex.id in right else ("NO" if ex.answer == "YES" else "YES")}}
    data = _load(tmp_path, examples, models)
    ctx = build_report(data).context
    (pooled,) = shortcut_results(ctx)
    assert pooled.adjusted == pytest.approx(2 * binom.sf(27, 40, 0.5)) and pooled.beats_random
    assert not any(v.flagged for v in shortcut_level_verdicts(ctx))
    b = balance_notes(data, [pooled], shortcut_level_verdicts(ctx))
    assert b.notes == ("YES/NO, depths pooled: matched, yet not balanced against retrieval (above random guessing).",)


def test_a_suite_with_no_matched_example_gets_one_sentence(tmp_path) -> None:
    examples = [make_example(t, d, 110, "YES" if t == "yesno" else "A", seed=0, index=i)
                for i, (t, d) in enumerate([(t, d) for t in ("yesno", "mc") for d in (16, 32) for _ in range(4)])]
    data = _load(tmp_path, examples, {"baseline-retrieval": {"answer": lambda ex: "NO" if ex.task == "yesno" else "B"}})
    b = balance_notes(data, shortcut_results(build_report(data).context))
    assert b.notes == ("No example of suite bal was drawn with matched sampling (graphniah sample --match-similarity): "
                       "nothing in its draw balances a cell against the shortcuts.",)


def test_a_fully_matched_suite_gets_no_sentence(tmp_path) -> None:
    examples = [make_example("yesno", 16, 110, ("YES", "NO")[i % 2], seed=0, index=i, matching=FULL) for i in range(8)]
    data = _load(tmp_path, examples, {"baseline-learned-surface": {"answer": lambda ex: "YES"}},
                 drawn={"yesno": 1000, "mc": 1003})
    report = build_report(data)
    assert balance_notes(data, shortcut_results(report.context)).notes == ()
    assert len(report.table("shortcuts").verdicts) == 1  # the task's verdict alone


@pytest.mark.parametrize(("drawn", "note"), [
    ({"yesno": 25, "mc": 25, "count": 24}, "learned-surface was trained on fewer questions than its design asks for (1,000 per "
     "task; drawn: YES/NO 25, multiple choice 25, counting 24; graphniah baselines --training-per-task): a reader trained on "
     "more may beat chance where it did not."),
    ({"yesno": 1000, "mc": 999}, "learned-surface was trained on fewer questions than its design asks for (1,000 per task; "
     "drawn: YES/NO 1,000, multiple choice 999; graphniah baselines --training-per-task): a reader trained on more may beat "
     "chance where it did not."),
    (None, "learned-surface: its settings file does not record its training draw, so its size is unknown."),
])
def test_the_training_draw_of_learned_surface_below_its_design(tmp_path, drawn, note) -> None:  # type: ignore[no-untyped-def]
    examples = [make_example("yesno", 16, 110, ("YES", "NO")[i % 2], seed=0, index=i, matching=FULL) for i in range(8)]
    data = _load(tmp_path, examples, {"baseline-learned-surface": {"answer": lambda ex: "YES"},
                                      "baseline-retrieval": {"answer": lambda ex: "YES"}}, drawn=drawn)
    assert build_report(data).table("shortcuts").verdicts[-1] == note
    assert balance_notes(data, ()).notes == (note,)


def test_an_unmatched_cell_is_said_once_even_where_a_shortcut_is_flagged(tmp_path) -> None:
    # YES/NO at depth 16 drawn without the control, at depth 32 fully matched; retrieval wrong everywhere (0 of 20 per
    # depth: flagged below at both). The unmatched cell gets the sentence on its draw; only the matched one the other.
    examples = [make_example("yesno", d, 110, ("YES", "NO")[i % 2], seed=0, index=2 * i + (d == 32),
                             matching=FULL if d == 32 else None) for d in (16, 32) for i in range(20)]
    data = _load(tmp_path, examples, {"baseline-retrieval": {"answer": lambda ex: "NO" if ex.answer == "YES" else "YES"}})
    ctx = build_report(data).context
    assert [r.level for v in shortcut_level_verdicts(ctx) for r in v.below_by] == ["16", "32"]
    assert balance_notes(data, shortcut_results(ctx), shortcut_level_verdicts(ctx)).notes == (
        f"YES/NO at depth 16: all 20 examples {UNMATCHED}",
        "YES/NO at depth 32: matched, yet not balanced against retrieval (below random guessing: flip its YES/NO answer).",
    )


def test_an_older_recipe_matched_on_title_similarity_alone(tmp_path) -> None:
    # recipes from before the venue, subject and learned-score rules: only match_similarity is set
    examples = [make_example("mc", 16, 110, "ABCD"[i % 4], seed=0, index=i, matching={"match_similarity": True}) for i in range(8)]
    data = _load(tmp_path, examples, {"baseline-retrieval": {"answer": lambda ex: "A"}}, by="task")
    assert balance_notes(data, shortcut_results(build_report(data).context)).notes == (
        "Multiple choice: all 8 examples matched on ranks only (title similarity), not on venue, subject, title length and "
        "the learned score — a learned reader may still beat chance there (docs/paper-deviations.md).",)


def test_multiple_choice_matched_on_the_nearest_candidates_by_score(tmp_path) -> None:
    # match_learned without match_weighted: YES/NO counts as matched, multiple choice does not (the middle option by score)
    examples = [make_example(t, 16, 110, ("YES", "NO")[i % 2] if t == "yesno" else "ABCD"[i % 4], seed=0, index=2 * i + (t == "mc"),
                             matching=FULL) for t in ("yesno", "mc") for i in range(8)]
    examples += [make_example("mc", 16, 110, "ABCD"[i % 4], seed=0, index=100 + i, matching=FULL | {"match_weighted": True})
                 for i in range(4)]
    data = _load(tmp_path, examples, {"baseline-retrieval": {"answer": lambda ex: "YES" if ex.task == "yesno" else "A"}}, by="task")
    assert balance_notes(data, shortcut_results(build_report(data).context)).notes == (
        "Multiple choice: 8 of 12 examples matched on the learned score by its nearest candidates, not drawn with weights on "
        "it: the true option is then the middle one by score, which a learned reader can pick (docs/paper-deviations.md).",)
