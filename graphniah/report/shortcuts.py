"""The Shortcuts table: how far the shortcut baselines get, per task, against random guessing.

The shortcut journals (``baseline-<name>.jsonl``, written by ``graphniah baselines``) are runs like
any other, so they are rows of every table; this table puts each one's accuracy per task, with its
Wilson interval, beside the exact random-guessing accuracy of that task (appendix D, the answer
sets weighted by their example counts), and gives one verdict per task: a shortcut *beats random*
when the lower end of its interval lies above the random baseline. A task where one does is a task
whose accuracies can be reached without searching the graph, by that much.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from graphniah.baselines import JOURNAL_PREFIX, is_baseline_model
from graphniah.formats import TASK_LABELS, TASKS
from graphniah.report.model import Cell, CellValue, ExampleList, ReportTable, pct
from graphniah.report.tables import ReportContext
from graphniah.stats import Proportion

__all__ = ["ShortcutResult", "ShortcutVerdict", "shortcut_results", "shortcut_table", "shortcut_verdicts"]


@dataclass(frozen=True)
class ShortcutResult:
    """One shortcut's accuracy on one task, beside that task's random baseline."""

    task: str
    shortcut: str  # the shortcut's name (the journal's model without ``baseline-``)
    run: int  # index into SuiteData.runs
    accuracy: Proportion
    random: Fraction
    correct_ids: tuple[str, ...]
    wrong_ids: tuple[str, ...]

    @property
    def beats_random(self) -> bool:
        return self.accuracy.interval.low > self.random


@dataclass(frozen=True)
class ShortcutVerdict:
    """Per task: which shortcuts beat random guessing beyond their interval (none: the task resists them)."""

    task: str
    random: Fraction
    beaten_by: tuple[ShortcutResult, ...]
    tried: tuple[str, ...]

    @property
    def text(self) -> str:
        label = TASK_LABELS.get(self.task, self.task)
        if not self.beaten_by:
            return (f"{label}: no shortcut ({', '.join(self.tried)}) beats random guessing ({pct(self.random)}%) "
                    "beyond its interval")
        parts = [f"{r.shortcut} {_acc(r.accuracy)}" for r in self.beaten_by]
        return f"{label}: {'; '.join(parts)} beat{'s' if len(parts) == 1 else ''} random guessing ({pct(self.random)}%) beyond the interval"


def _acc(p: Proportion) -> str:
    return f"{pct(p.estimate)}% [{pct(p.interval.low)}, {pct(p.interval.high)}]"


def shortcut_results(ctx: ReportContext) -> list[ShortcutResult]:
    """Every shortcut run's accuracy on every task it answered, in task order."""
    d, o = ctx.data, ctx.data.outcomes
    out = []
    for task in [t for t in TASKS if (o.task == t).any()]:
        in_task = o.task == task
        random = ctx.weighted_baseline(in_task)
        if random is None:
            continue
        for i, run in enumerate(d.runs):
            m = in_task & (o.run == i)
            if not is_baseline_model(run.model) or not m.any():
                continue
            good = o.correct[m]
            ids = o.example_id[m]
            out.append(ShortcutResult(task, run.model[len(JOURNAL_PREFIX):], i, ctx.proportion(int(good.sum()), int(m.sum())),
                                      random, tuple(ids[good].tolist()), tuple(ids[~good].tolist())))
    return out


def shortcut_verdicts(ctx: ReportContext) -> list[ShortcutVerdict]:
    """One verdict per task that some shortcut answered."""
    results = shortcut_results(ctx)
    tasks = list(dict.fromkeys(r.task for r in results))
    return [ShortcutVerdict(t, next(r.random for r in results if r.task == t),
                            tuple(r for r in results if r.task == t and r.beats_random),
                            tuple(r.shortcut for r in results if r.task == t)) for t in tasks]


def shortcut_table(ctx: ReportContext) -> ReportTable | None:
    """The Shortcuts table (None when the suite has no shortcut journal)."""
    results = shortcut_results(ctx)
    if not results:
        return None
    key, title = "shortcuts", "Shortcuts: accuracy (%) without searching the graph, against random guessing"
    rows: list[tuple[Cell, ...]] = []
    values: list[CellValue] = []
    lists: list[ExampleList] = []
    for v in shortcut_verdicts(ctx):
        label = TASK_LABELS.get(v.task, v.task)
        for r in (r for r in results if r.task == v.task):
            anchor = f"{key}-{v.task}-{r.shortcut}"
            p = r.accuracy
            rows.append((Cell(label), Cell(r.shortcut), Cell(_acc(p).replace("%", ""), link=anchor), Cell(str(p.n)),
                         Cell(pct(r.random)), Cell("yes" if r.beats_random else "no")))
            values.append(CellValue(key, f"{label} | {r.shortcut}", "accuracy", "accuracy", p.k, p.n, p.estimate,
                                    p.interval.low, p.interval.high, link=anchor))
            values.append(CellValue(key, f"{label} | {r.shortcut}", "random", "baseline", None, None, float(r.random)))
            lists.append(ExampleList(anchor, f"{title} — {label}, {r.shortcut}", (("correct", r.correct_ids), ("wrong", r.wrong_ids))))
        rows.append((Cell(label), Cell("verdict"), Cell(v.text), Cell(""), Cell(""), Cell("")))
    caption = (
        f"Accuracy (%) of the shortcut baselines of suite {ctx.data.suite} (graphniah baselines: title-similarity, "
        "retrieval of the top paper blocks by BM25 within 8,000 tokens, paper-count), per task, with the "
        f"{100 * ctx.cfg.confidence:g}% Wilson interval, beside the exact random-guessing accuracy of the task. Beats random: "
        "the interval lies wholly above random guessing. Each task's verdict row says whether any shortcut does."
    )
    header = ("Task", "Shortcut", "Accuracy", "#Examples", "Random guessing", "Beats random")
    return ReportTable(key, title, caption, header, tuple(rows), tuple(values), tuple(lists), label_columns=2)
