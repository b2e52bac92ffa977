"""Where a suite's cells are not balanced against the shortcuts: sentences read off what the examples record.

Matched sampling (:mod:`graphniah.sampling.examples.similarity`, ``.components``, ``.learned``)
draws the wrong answers of a question so that the shortcuts' cues cannot tell them from the true
one. Which of its rules an example was drawn with is in its recipe, one key each
(:attr:`graphniah.report.load.ExampleInfo.matching`): ``match_similarity`` (the control: title
similarity, and for counting and listing sizes the paper count cannot give away), ``match_venue``,
``match_components`` (subject and title length), ``match_learned`` (the learned score) and
``match_weighted`` (wrong answers drawn with weights on that score, not as its nearest candidates). The
examples record nothing else about their balance: the sampler never falls back to an unmatched
draw (a source whose candidates cannot be matched is drawn again, and those redraws are counted
only in the sampler's console summary), so a recipe's keys are all the report can go on, with the
Shortcuts verdicts.

The Shortcuts table gets a sentence under its verdicts, per cell (task, or task and value of the
varied variable when the suite has a breakdown):

* **Partly matched.** Examples whose recipe lacks a rule their task's full matching has
  (:data:`FULL_MATCHING`: YES/NO the first four, multiple choice all five, since on the nearest
  candidates by score its true option is the middle one; counting and listing the control), with
  their count, e.g. multiple choice matched on ranks only, not on the learned score: a learned
  reader may still beat chance there (``docs/paper-deviations.md`` gives the measured residual). A
  suite with no matched example at all gets one sentence instead of one per cell.
* **Flagged though matched.** A shortcut flagged above or below its baseline (the Shortcuts
  verdicts, per value when the suite has a breakdown) in a cell whose examples were matched: the
  matching did not balance that cell against it.
* **A small training draw.** learned-surface trained on fewer questions of a task than
  :data:`graphniah.baselines.TRAINING_PER_TASK` (its settings file records the draw; the demo's
  is smaller on purpose): a reader trained on more questions may find cues this one missed.

Each partly matched cell is also a row of tidy numbers (``cells.csv``: table ``shortcuts``, row
``<task> | balance``, metric ``unbalanced``, ``k`` of ``n`` examples).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from graphniah.baselines import JOURNAL_PREFIX, TRAINING_PER_TASK, is_baseline_model
from graphniah.formats import TASK_LABELS, TASKS
from graphniah.formats.journal import read_run_settings
from graphniah.report.load import ExampleInfo, RunInfo, SuiteData
from graphniah.report.shortcuts import ShortcutLevelVerdict, ShortcutResult, level_noun, splits_by_value
from graphniah.report.table import CellValue

__all__ = ["FULL_MATCHING", "RULE_NAMES", "Balance", "balance_notes"]

#: The recipe keys of each task's full matching (matched sampling with every rule that exists for it).
FULL_MATCHING: dict[str, tuple[str, ...]] = {
    "yesno": ("match_similarity", "match_venue", "match_components", "match_learned"),
    # multiple choice: on the nearest candidates by score the true option is the middle one (docs/paper-deviations.md),
    # so only the weighted draw on the score balances it
    "mc": ("match_similarity", "match_venue", "match_components", "match_learned", "match_weighted"),
    "count": ("match_similarity",),
    "list": ("match_similarity",),
}
#: How a sentence names what each rule matches.
RULE_NAMES: dict[str, tuple[str, ...]] = {"match_similarity": ("title similarity",), "match_venue": ("venue",),
                                         "match_components": ("subject", "title length"), "match_learned": ("the learned score",),
                                         "match_weighted": ("weights on the learned score",)}
_CONTROL = "match_similarity"
_LEARNED = "match_learned"
_WEIGHTED = "match_weighted"
_SHORTCUT = "learned-surface"
_TABLE = "shortcuts"


@dataclass(frozen=True)
class Balance:
    """The sentences under the Shortcuts table about balance, and the tidy numbers of the partly matched cells."""

    notes: tuple[str, ...] = ()
    values: tuple[CellValue, ...] = ()


def _and(names: Iterable[str]) -> str:
    items = list(names)
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}"


def _missing(info: ExampleInfo) -> tuple[str, ...]:
    """The rules of the example's task that its recipe lacks (empty: fully matched, as far as the recipe says)."""
    return tuple(k for k in FULL_MATCHING.get(info.task, ()) if k not in info.matching)


def _what(missing: tuple[str, ...], task: str) -> str:
    """What examples lacking ``missing`` were, in words (their count goes before)."""
    def names(keys: Iterable[str]) -> str:
        return _and(name for k in keys if k != _WEIGHTED for name in RULE_NAMES[k])

    if _CONTROL in missing:
        return "drawn without matched sampling: nothing in their draw balances them against the shortcuts"
    if _LEARNED in missing:  # the weighted draw is a way of matching on the score: "not on the learned score" covers it
        present = [k for k in FULL_MATCHING[task] if k not in missing]
        return (f"matched on ranks only ({names(present)}), not on {names(missing)} — a learned reader may still beat "
                "chance there (docs/paper-deviations.md)")
    if missing == (_WEIGHTED,):
        return ("matched on the learned score by its nearest candidates, not drawn with weights on it: the true option is "
                "then the middle one by score, which a learned reader can pick (docs/paper-deviations.md)")
    return f"matched without {_and(name for k in missing for name in RULE_NAMES[k])}"


def _cells(d: SuiteData) -> dict[tuple[str, str | None], list[ExampleInfo]]:
    """(task, value or None) -> its examples, in task and value order."""
    split = splits_by_value(d)
    order = {lv: i for i, lv in enumerate(d.levels)}
    cells: dict[tuple[str, str | None], list[ExampleInfo]] = {}
    for info in d.examples.values():
        cells.setdefault((info.task, d.example_value(info) if split else None), []).append(info)
    return dict(sorted(cells.items(), key=lambda kv: (TASKS.index(kv[0][0]), order.get(str(kv[0][1]), -1))))


def _at(d: SuiteData, levels: list[str | None]) -> str:
    """" at depth 16, 32" (nothing when the cells are per task)."""
    shown = [lv for lv in levels if lv is not None]
    return f" at {level_noun(d)} {', '.join(shown)}" if shown else ""


def _partly_matched(d: SuiteData, cells: Mapping[tuple[str, str | None], list[ExampleInfo]]) -> tuple[list[str], list[CellValue]]:
    """One sentence per task and kind of shortfall, naming the values where it occurs; one tidy row per cell."""
    notes: list[str] = []
    values: list[CellValue] = []
    for task in dict.fromkeys(t for t, _ in cells):
        label = TASK_LABELS.get(task, task)
        groups: dict[tuple[str, ...], list[tuple[str | None, int, int]]] = {}
        for (t, level), infos in cells.items():
            if t != task:
                continue
            short = [m for m in map(_missing, infos) if m]
            for missing in dict.fromkeys(short):
                groups.setdefault(missing, []).append((level, short.count(missing), len(infos)))
            if short:
                values.append(CellValue(_TABLE, f"{label} | balance", level or "all", "unbalanced", len(short), len(infos),
                                        len(short) / len(infos)))
        for missing, where in groups.items():
            k, n = sum(w[1] for w in where), sum(w[2] for w in where)
            count = f"all {n} examples" if k == n else f"{k} of {n} examples"
            notes.append(f"{label}{_at(d, [w[0] for w in where])}: {count} {_what(missing, task)}.")
    return notes, values


def _side(r: ShortcutResult) -> str:
    if r.task == "list":
        return "above listing every paper"
    return "above random guessing" if r.direction == "above" else f"below random guessing: {r.exploit}"


def _flagged_though_matched(d: SuiteData, cells: Mapping[tuple[str, str | None], list[ExampleInfo]],
                            pooled: Iterable[ShortcutResult], levels: Iterable[ShortcutLevelVerdict]) -> list[str]:
    """A sentence per matched cell where some shortcut is flagged: that cell is not balanced against it.

    With a breakdown the cells are the breakdown's; a shortcut flagged on a task's pooled examples but
    at none of its values gets a sentence for the pooled cell.
    """
    per_level = [r for v in levels for r in v.flagged]
    at_some_level = {(r.task, r.shortcut) for r in per_level}
    flagged = per_level + [r for r in pooled if r.flagged and (r.task, r.shortcut) not in at_some_level]
    by_cell: dict[tuple[str, str | None], list[ShortcutResult]] = {}
    for r in flagged:
        by_cell.setdefault((r.task, r.level), []).append(r)
    notes = []
    def order(cell: tuple[str, str | None]) -> tuple[int, int]:  # task order, then values, the pooled cell last
        return TASKS.index(cell[0]), d.levels.index(cell[1]) if cell[1] in d.levels else len(d.levels)

    for (task, level), results in sorted(by_cell.items(), key=lambda kv: order(kv[0])):
        infos = [i for (t, lv), group in cells.items() if t == task and (level is None or lv == level) for i in group]
        if not any(_CONTROL in i.matching for i in infos):
            continue  # an unmatched cell is said so once (partly matched); the verdict flags the shortcut
        where = _at(d, [level]) if level is not None else (f", {level_noun(d)}s pooled" if splits_by_value(d) else "")
        against = "; ".join(f"{r.shortcut} ({_side(r)})" for r in results)
        notes.append(f"{TASK_LABELS.get(task, task)}{where}: matched, yet not balanced against {against}.")
    return notes


def _in_sentence(task: str) -> str:
    """A task's label inside a sentence ("multiple choice"; YES/NO as it is)."""
    label = TASK_LABELS.get(task, task)
    return label if label.isupper() else label.lower()


def _training_note(run: RunInfo) -> str | None:
    """learned-surface's training draw when it holds fewer questions of a task than :data:`TRAINING_PER_TASK`."""
    entry = read_run_settings(run.journal).runs.get(run.settings_hash)
    training = entry.settings.get("training") if entry is not None else None
    if not isinstance(training, dict) or not isinstance(training.get("drawn_per_task"), dict):
        return f"{_SHORTCUT}: its settings file does not record its training draw, so its size is unknown."
    drawn: dict[str, int] = training["drawn_per_task"]
    if drawn and min(drawn.values()) >= TRAINING_PER_TASK:
        return None
    sizes = ", ".join(f"{_in_sentence(t)} {n:,}" for t, n in drawn.items()) or "none"
    return (f"{_SHORTCUT} was trained on fewer questions than its design asks for ({TRAINING_PER_TASK:,} per task; "
            f"drawn: {sizes}; graphniah baselines --training-per-task): a reader trained on more may beat chance where it did not.")


def balance_notes(d: SuiteData, pooled: Iterable[ShortcutResult], levels: Iterable[ShortcutLevelVerdict] = ()) -> Balance:
    """The Shortcuts table's sentences about balance (module docstring) and the partly matched cells' tidy numbers.

    Parameters
    ----------
    d : SuiteData
        The suite (its examples' recipes, its runs' settings files).
    pooled : iterable of ShortcutResult
        The Shortcuts table's results (:func:`graphniah.report.shortcuts.shortcut_results`).
    levels : iterable of ShortcutLevelVerdict
        The breakdown's verdicts (:func:`graphniah.report.shortcuts.shortcut_level_verdicts`; empty: none).

    Returns
    -------
    Balance
        The sentences, in order: partly matched cells (or one sentence for a suite with no matched
        example), matched cells where a shortcut is flagged, learned-surface's small training draw.
    """
    cells = _cells(d)
    if not any(_CONTROL in i.matching for i in d.examples.values()):
        notes = [f"No example of suite {d.suite} was drawn with matched sampling (graphniah sample --match-similarity): "
                 "nothing in its draw balances a cell against the shortcuts."]
        values: list[CellValue] = []
    else:
        notes, values = _partly_matched(d, cells)
        notes += _flagged_though_matched(d, cells, pooled, levels)
    learned = [r for r in d.runs if is_baseline_model(r.model) and r.model == JOURNAL_PREFIX + _SHORTCUT]
    notes += [n for r in learned if (n := _training_note(r)) is not None]
    return Balance(tuple(notes), tuple(values))
