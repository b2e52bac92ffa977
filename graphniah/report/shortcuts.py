"""The Shortcuts table: how far the shortcut baselines get, per task, against random guessing.

The shortcut journals (``baseline-<name>.jsonl``, written by ``graphniah baselines``) are runs like
any other, so they are rows of every table; this table puts each one's accuracy per task, with its
Wilson interval, beside the exact random-guessing accuracy of that task (appendix D, the answer
sets weighted by their example counts), and gives one verdict per task. A task where a shortcut
beats random is a task whose accuracies can be reached without searching the graph, by that much.

**The test.** Each (shortcut, task) cell gets a one-sided p-value against its baseline: for
accuracies the exact probability that guessing at random gets at least as many right (a sum of
binomials, one per answer space, :func:`graphniah.stats.binomial_sum_tails`). The verdict tries
every shortcut on every task, so the p-values are Holm-adjusted over all cells of the table, and a
shortcut *beats random* when its adjusted p-value is at most half of 1 − confidence (2.5%): for a
single cell, the exact form of "the lower end of the 95% interval lies above the baseline". Without
the correction, the demo's eleven cells of eight examples each, every shortcut guessing at random,
would flag some cell about one time in three (the nine accuracy cells alone: 0.30). When no shortcut beats random, the sentence says what the examples could have
shown: the least accuracy Holm's first step would flag at that size, or that none could.

**The list task** is judged by F1, not by exact sets: a random guess of a set of titles is almost
never exact, so beating 0% says nothing. A list shortcut's p-value is the one-sided Wilcoxon
signed-rank test of its F1 against the F1 of listing every paper of the context but the source,
example by example (:func:`graphniah.report.listing.trivial_f1`); the verdict sentence says so.

A suite that varies an example's variable (depth, component size, context length, distractor, ...)
over several values also gets ``shortcuts_by_<variable>``: the same accuracies and random baselines
per task and value, since a shortcut that beats random at depth 4 but not at 32 makes the depth-4
cells of the accuracy table measure the shortcut's route rather than a search of the graph. Each
task gets a sentence naming the values where some shortcut beats random, and the accuracy tables'
captions repeat those sentences (:func:`with_shortcut_notes`). Suites varying the task (the pooled
table is already per task) or the reasoning effort (a shortcut has none) get no breakdown.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from fractions import Fraction

import numpy as np

from graphniah.baselines import JOURNAL_PREFIX, is_baseline_model
from graphniah.formats import TASK_LABELS, TASKS
from graphniah.report.grid import DASH, ReportContext
from graphniah.report.listing import TRIVIAL, trivial_f1
from graphniah.report.model import Cell, CellValue, ExampleList, ReportTable, pct
from graphniah.seeds import DEFAULT_SEED, Stream, generator
from graphniah.stats import (
    Mean,
    Proportion,
    binomial_sum_tail,
    binomial_sum_tails,
    bootstrap_mean,
    format_pvalue,
    holm,
    random_baseline,
    wilcoxon_signed_rank,
)

__all__ = [
    "ShortcutLevelVerdict",
    "ShortcutResult",
    "ShortcutVerdict",
    "level_table_name",
    "shortcut_level_table",
    "shortcut_level_verdicts",
    "shortcut_results",
    "shortcut_table",
    "shortcut_verdicts",
    "with_shortcut_notes",
]

#: Variables whose values get no breakdown: the pooled table is per task already; shortcuts have no effort.
_NO_BREAKDOWN = ("task", "reasoning_effort")
#: How a sentence names a value of the varied variable ("at depth 4, 8").
_LEVEL_NOUNS = {"depth": "depth", "component_size": "component size", "context_length": "context length",
                "distractor": "distractor", "none_option": "'none of these' option", "render": "rendering"}


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
    level: str | None = None  # the value of the varied variable (None: the task's examples pooled)
    f1: Mean | None = None  # list task: the mean F1 with its bootstrap interval
    list_all: float | None = None  # list task: mean F1 of listing every paper, on the same examples
    pvalue: float = 1.0  # one-sided p-value against the baseline (module docstring)
    adjusted: float = 1.0  # pvalue after Holm's correction over every cell of the verdict
    alpha: float = 0.025  # the level an adjusted p-value must reach
    tests: int = 1  # cells in the verdict's family
    needed: float | None = None  # accuracy tasks: the least accuracy the first Holm step flags (None: none does)
    flaggable: bool = True  # whether any result on these examples could be flagged alone
    chance: tuple[tuple[int, Fraction], ...] = ()  # accuracy tasks: (examples, guessing rate) per answer space

    @property
    def beats_random(self) -> bool:
        """Whether the shortcut beats its task's baseline: its Holm-adjusted one-sided p-value reaches ``alpha``."""
        return self.adjusted <= self.alpha

    @property
    def score_text(self) -> str:
        """The accuracy, or for the list task the mean F1, with its interval."""
        return f"F1 {_mean(self.f1)}" if self.f1 is not None else _acc(self.accuracy)


@dataclass(frozen=True)
class ShortcutVerdict:
    """Per task: which shortcuts beat random guessing beyond their interval (none: the task resists them)."""

    task: str
    random: Fraction
    beaten_by: tuple[ShortcutResult, ...]
    tried: tuple[str, ...]

    list_all: float | None = None  # list task: mean F1 of listing every paper on the examples the shortcuts answered
    tests: int = 1  # cells in the verdict's family (Holm's correction)
    alpha: float = 0.025  # one-sided level of the family
    power: str = ""  # what these examples could show at all (see _power_note)

    @property
    def text(self) -> str:
        label = TASK_LABELS.get(self.task, self.task)
        baseline = (f"listing every paper (F1 {pct(self.list_all)}%)" if self.list_all is not None
                    else f"random guessing ({pct(self.random)}%)")
        note = f"; {self.power}" if self.power and not self.beaten_by else ""
        rule = f"at one-sided p ≤ {self.alpha:.1%} (Holm over {self.tests} tests{note})"
        if not self.beaten_by:
            return f"{label}: no shortcut ({', '.join(self.tried)}) beats {baseline} {rule}"
        parts = [f"{r.shortcut} {r.score_text}, p = {format_pvalue(r.adjusted, 4)}," for r in self.beaten_by]
        verb = "beats" if len(parts) == 1 else "beat"
        return f"{label}: {'; '.join(parts)} {verb} {baseline} {rule}"


def _power_note(results: list[ShortcutResult]) -> str:
    """What the task's examples could show: the least accuracy a shortcut needed to be flagged, or that none could be."""
    if not results:
        return ""
    n = max(r.accuracy.n for r in results)
    if not any(r.flaggable for r in results):
        return f"at {n} examples no result can pass, not even every answer right"
    needed = [r.needed for r in results if r.needed is not None]
    return f"at {n} examples that takes {pct(min(needed))}% or more" if needed else ""


def _acc(p: Proportion) -> str:
    return f"{pct(p.estimate)}% [{pct(p.interval.low)}, {pct(p.interval.high)}]"


def _mean(m: Mean | None) -> str:
    assert m is not None
    return f"{pct(m.estimate)}% [{pct(m.interval.low)}, {pct(m.interval.high)}]"


def _list_all(ctx: ReportContext, ids: np.ndarray) -> float:
    """Mean F1 of listing every paper of the context but the source, over the distinct examples ``ids``."""
    d = ctx.data
    return float(np.mean([trivial_f1(d.examples[i].component_size, d.examples[i].nodes) for i in sorted(set(ids.tolist()))]))


def _results(ctx: ReportContext, task: str, mask: np.ndarray, level: str | None) -> list[ShortcutResult]:
    """Each shortcut run's accuracy on the outcomes under ``mask`` (one task), beside their random baseline."""
    d, o = ctx.data, ctx.data.outcomes
    random = ctx.weighted_baseline(mask)
    if random is None:
        return []
    out = []
    for i, run in enumerate(d.runs):
        m = mask & (o.run == i)
        if not is_baseline_model(run.model) or not m.any():
            continue
        good = o.correct[m]
        ids = o.example_id[m]
        f1: Mean | None = None
        list_all: float | None = None
        chance: tuple[tuple[int, Fraction], ...] = ()
        if task == "list":  # judged by F1 against listing every paper (module docstring)
            f1 = bootstrap_mean(o.f1[m], generator(Stream.F1_BOOTSTRAP, DEFAULT_SEED), ctx.cfg.confidence)
            list_all = _list_all(ctx, ids)
            trivial = np.array([trivial_f1(d.examples[e].component_size, d.examples[e].nodes) for e in ids.tolist()])
            p = _paired_pvalue(trivial, o.f1[m])
        else:
            spaces = ctx.space_key[m].tolist()
            chance = tuple((spaces.count(k), random_baseline(ctx.space(k))) for k in sorted(set(spaces)))
            p = binomial_sum_tail(chance, int(good.sum()))
        out.append(ShortcutResult(task, run.model[len(JOURNAL_PREFIX):], i, ctx.proportion(int(good.sum()), int(m.sum())),
                                  random, tuple(ids[good].tolist()), tuple(ids[~good].tolist()), level, f1, list_all, p,
                                  chance=chance))
    return out


def _paired_pvalue(before: np.ndarray, after: np.ndarray) -> float:
    """One-sided Wilcoxon signed-rank p-value of ``after > before`` (1 when every pair is equal: no evidence)."""
    if not np.any(after != before):
        return 1.0
    return wilcoxon_signed_rank(before, after, alternative="greater").pvalue


def _corrected(ctx: ReportContext, results: list[ShortcutResult]) -> list[ShortcutResult]:
    """The results with Holm-adjusted p-values over the whole family, and what each could have shown.

    The family's one-sided level is half of 1 − confidence, so that a family of one test is the
    interval rule (the lower end of a two-sided 95% interval above the baseline) in exact form.
    ``needed`` is the least accuracy whose p-value passes Holm's first, strictest step (α/m): the
    least a shortcut had to score on these examples to be flagged.
    """
    if not results:
        return []
    alpha, m = (1 - ctx.cfg.confidence) / 2, len(results)
    adjusted = holm([r.pvalue for r in results])
    out = []
    for r, adj in zip(results, adjusted, strict=True):
        n = r.accuracy.n
        if r.f1 is not None:  # the best a list shortcut can do: every pair above, all ranks positive
            best = _paired_pvalue(np.zeros(n), np.arange(1, n + 1, dtype=float))
            needed, flaggable = None, best <= alpha / m
        else:
            k = next((int(k) for k in np.flatnonzero(binomial_sum_tails(r.chance) <= alpha / m)), None)
            needed, flaggable = (None if k is None else k / n), k is not None
        out.append(replace(r, adjusted=adj, alpha=alpha, tests=m, needed=needed, flaggable=flaggable))
    return out


def shortcut_results(ctx: ReportContext) -> list[ShortcutResult]:
    """Every shortcut run's accuracy on every task it answered, in task order."""
    o = ctx.data.outcomes
    return _corrected(ctx, [r for t in TASKS if (o.task == t).any() for r in _results(ctx, t, o.task == t, None)])


def shortcut_verdicts(ctx: ReportContext) -> list[ShortcutVerdict]:
    """One verdict per task that some shortcut answered."""
    results = shortcut_results(ctx)
    tasks = list(dict.fromkeys(r.task for r in results))
    return [ShortcutVerdict(t, next(r.random for r in results if r.task == t),
                            tuple(r for r in results if r.task == t and r.beats_random),
                            tuple(r.shortcut for r in results if r.task == t),
                            _list_all(ctx, np.asarray([i for r in results if r.task == t for i in (*r.correct_ids, *r.wrong_ids)]))
                            if t == "list" else None, len(results), results[0].alpha,
                            _power_note([r for r in results if r.task == t])) for t in tasks]


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
            baseline = f"{TRIVIAL} F1 {pct(r.list_all)}" if r.list_all is not None else pct(r.random)
            rows.append((Cell(label), Cell(r.shortcut), Cell(r.score_text.replace("%", ""), link=anchor), Cell(str(p.n)),
                         Cell(baseline), Cell(format_pvalue(r.adjusted, 4)), Cell("yes" if r.beats_random else "no")))
            if r.f1 is not None and r.list_all is not None:
                m = r.f1
                values.append(CellValue(key, f"{label} | {r.shortcut}", "f1", "f1", None, m.n, m.estimate, m.interval.low,
                                        m.interval.high, link=anchor))
                values.append(CellValue(key, f"{label} | {r.shortcut}", "list_all", "baseline", None, None, r.list_all))
            else:
                values.append(CellValue(key, f"{label} | {r.shortcut}", "accuracy", "accuracy", p.k, p.n, p.estimate,
                                        p.interval.low, p.interval.high, link=anchor))
                values.append(CellValue(key, f"{label} | {r.shortcut}", "random", "baseline", None, None, float(r.random)))
            values.append(CellValue(key, f"{label} | {r.shortcut}", "p_holm", "pvalue", None, None, r.adjusted))
            lists.append(ExampleList(anchor, f"{title} — {label}, {r.shortcut}", (("correct", r.correct_ids), ("wrong", r.wrong_ids))))
        rows.append((Cell(label), Cell("verdict"), Cell(v.text), Cell(""), Cell(""), Cell(""), Cell("")))
    caption = (
        f"Accuracy (%) of the shortcut baselines of suite {ctx.data.suite} (graphniah baselines: title-similarity, "
        "retrieval of the top paper blocks by BM25 within 8,000 tokens, paper-count, topic-cluster: the context's titles "
        f"grouped by subject), per task, with the {100 * ctx.cfg.confidence:g}% Wilson interval, beside the exact "
        "random-guessing accuracy of the task. List: the mean F1 "
        f"with its {100 * ctx.cfg.confidence:g}% bootstrap interval, against the mean F1 of listing every paper of the context "
        "on the same examples. p (Holm): the one-sided p-value against that baseline (exact binomial sum for accuracies, "
        "Wilcoxon signed-rank of the paired F1s for the list task), Holm-adjusted over every row of the table; beats random: "
        f"it is at most {50 * (1 - ctx.cfg.confidence):g}%. Each task's verdict row says whether any shortcut beats its "
        "baseline and, when none does, what these examples could have shown. A dash or a missing row: "
        "the shortcut does not answer that task or rendering (topic-cluster reads titles, which edge lists do not print). "
        "The verdict covers these shortcuts only; it does not show that no other shortcut exists."
    )
    header = ("Task", "Shortcut", "Accuracy", "#Examples", "Random guessing", "p (Holm)", "Beats random")
    return ReportTable(key, title, caption, header, tuple(rows), tuple(values), tuple(lists), label_columns=2)


# ------------------------------------------------------------------------------------------------
# By value of the varied variable
# ------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ShortcutLevelVerdict:
    """Per task: every shortcut's accuracy at each value of the varied variable, and where one beats random."""

    task: str
    noun: str  # how the sentence names the variable ("depth", "context length")
    levels: tuple[str, ...]  # the suite's values, in the accuracy table's order
    results: tuple[ShortcutResult, ...]  # per shortcut run and value, ``level`` set

    @property
    def beaten_by(self) -> tuple[ShortcutResult, ...]:
        return tuple(r for r in self.results if r.beats_random)

    @property
    def beaten_levels(self) -> tuple[str, ...]:
        """The values where some shortcut beats random guessing, in order."""
        beaten = {r.level for r in self.beaten_by}
        return tuple(lv for lv in self.levels if lv in beaten)

    @property
    def text(self) -> str:
        label = TASK_LABELS.get(self.task, self.task)
        first = self.results[0]
        rule = f"one-sided p ≤ {first.alpha:.1%}, Holm over {first.tests} tests"
        if not self.beaten_by:
            tried = ", ".join(dict.fromkeys(r.shortcut for r in self.results))
            if self.task == "list":
                return f"{label}: no shortcut ({tried}) beats listing every paper at any {self.noun} ({rule})"
            return f"{label}: no shortcut ({tried}) beats random guessing at any {self.noun} ({rule})"
        where: dict[str, list[str]] = {}
        for lv in self.levels:
            for r in self.beaten_by:
                if r.level == lv and lv not in where.setdefault(r.shortcut, []):
                    where[r.shortcut].append(lv)
        beats = " beats listing every paper (F1)" if self.task == "list" else " beats random guessing"
        parts = [f"{s}{beats if j == 0 else ''} at {self.noun} {', '.join(lvs)}"
                 for j, (s, lvs) in enumerate(where.items())]
        return f"{label}: {'; '.join(parts)} ({rule})"


def _breaks_down(ctx: ReportContext) -> bool:
    """Whether the breakdown applies: the shortcut runs' outcomes hold several values of the variable."""
    d = ctx.data
    if d.variable in _NO_BREAKDOWN or len(d.levels) < 2:
        return False
    is_shortcut = np.array([is_baseline_model(r.model) for r in d.runs], dtype=bool)
    mask = is_shortcut[d.outcomes.run] if len(d.outcomes) else np.zeros(0, dtype=bool)
    return bool(np.unique(d.value[mask]).size >= 2)


def shortcut_level_verdicts(ctx: ReportContext) -> list[ShortcutLevelVerdict]:
    """One verdict per task that some shortcut answered, by value of the varied variable (empty: no breakdown)."""
    d, o = ctx.data, ctx.data.outcomes
    if not _breaks_down(ctx):
        return []
    noun = _LEVEL_NOUNS.get(d.variable, d.variable_title.lower())
    tasks = [t for t in TASKS if (o.task == t).any()]
    # One family for the whole breakdown: every (shortcut, task, value) cell is one of Holm's tests.
    results = _corrected(ctx, [r for task in tasks for c, lv in enumerate(d.levels)
                               for r in _results(ctx, task, (o.task == task) & (d.value == c), lv)])
    return [ShortcutLevelVerdict(task, noun, d.levels, tuple(r for r in results if r.task == task))
            for task in tasks if any(r.task == task for r in results)]


def _examples_at(v: ShortcutLevelVerdict) -> dict[str, int]:
    """Distinct examples the shortcuts answered at each value (the #Examples row)."""
    return {lv: len({i for r in v.results if r.level == lv for i in (*r.correct_ids, *r.wrong_ids)}) for lv in v.levels}


def _short(r: ShortcutResult, examples: Mapping[str, int]) -> bool:
    """Whether ``r`` answered fewer examples than the shortcuts did at its value (its cell gets a †)."""
    return r.accuracy.n < examples[str(r.level)]


def _level_rows(key: str, title: str, v: ShortcutLevelVerdict) -> tuple[list[tuple[Cell, ...]], list[CellValue], list[ExampleList]]:
    """One task's rows: each shortcut's accuracy per value (bold: beats random), random guessing, #Examples, who beats."""
    label = TASK_LABELS.get(v.task, v.task)
    at = {(r.run, r.level): r for r in v.results}
    examples = _examples_at(v)
    rows: list[tuple[Cell, ...]] = []
    values: list[CellValue] = []
    lists: list[ExampleList] = []
    for run, shortcut in dict.fromkeys((r.run, r.shortcut) for r in v.results):
        cells = [Cell(label), Cell(shortcut)]
        for c, lv in enumerate(v.levels):
            r = at.get((run, lv))
            if r is None:
                cells.append(Cell(DASH))
                continue
            p, anchor = r.accuracy, f"{key}-{v.task}-r{run}-c{c}"
            dagger = "†" if _short(r, examples) else ""
            if r.f1 is not None:
                m = r.f1
                cells.append(Cell(f"{pct(m.estimate)}{dagger} [{pct(m.interval.low)}, {pct(m.interval.high)}]", bold=r.beats_random, link=anchor))
                values.append(CellValue(key, f"{label} | {shortcut}", lv, "f1", None, m.n, m.estimate, m.interval.low, m.interval.high, link=anchor))
            else:
                cells.append(Cell(f"{pct(p.estimate)}{dagger} [{pct(p.interval.low)}, {pct(p.interval.high)}]", bold=r.beats_random, link=anchor))
                values.append(CellValue(key, f"{label} | {shortcut}", lv, "accuracy", p.k, p.n, p.estimate, p.interval.low, p.interval.high, link=anchor))
            lists.append(ExampleList(anchor, f"{title} — {label}, {shortcut}, {lv}", (("correct", r.correct_ids), ("wrong", r.wrong_ids))))
        rows.append(tuple(cells))
    random: dict[str | None, float] = {r.level: float(r.list_all if r.list_all is not None else r.random) for r in v.results}
    name = f"{TRIVIAL} (F1)" if v.task == "list" else "Random guessing"
    rows.append((Cell(label), Cell(name), *[Cell(pct(random[lv]) if lv in random else DASH) for lv in v.levels]))
    values += [CellValue(key, f"{label} | {name}", lv, "baseline", None, None, random[lv]) for lv in v.levels if lv in random]
    rows.append((Cell(label), Cell("#Examples"), *[Cell(str(examples[lv])) for lv in v.levels]))
    beats = [", ".join(dict.fromkeys(r.shortcut for r in v.beaten_by if r.level == lv)) or ("none" if lv in random else DASH) for lv in v.levels]
    rows.append((Cell(label), Cell("Beats random"), *[Cell(b) for b in beats]))
    return rows, values, lists


def level_table_name(ctx: ReportContext) -> str:
    """The name of the ``shortcuts_by_<variable>`` table as a reader sees it (its title's head)."""
    return f"Shortcuts by {ctx.data.variable_title.lower()}"


def shortcut_level_table(ctx: ReportContext, verdicts: list[ShortcutLevelVerdict] | None = None) -> ReportTable | None:
    """The Shortcuts table by value of the varied variable, ``shortcuts_by_<variable>`` (None: no breakdown)."""
    verdicts = shortcut_level_verdicts(ctx) if verdicts is None else verdicts
    if not verdicts:
        return None
    d = ctx.data
    key = f"shortcuts_by_{d.variable}"
    title = f"{level_table_name(ctx)}: accuracy (%) without searching the graph, against random guessing"
    rows: list[tuple[Cell, ...]] = []
    values: list[CellValue] = []
    lists: list[ExampleList] = []
    for v in verdicts:
        r, cv, el = _level_rows(key, title, v)
        rows += r
        values += cv
        lists += el
    dagger = any(_short(r, _examples_at(v)) for v in verdicts for r in v.results)
    caption = (
        f"Accuracy (%) of the shortcut baselines of suite {d.suite} per task and {d.variable_title.lower()}, with the "
        f"{100 * ctx.cfg.confidence:g}% Wilson interval (list: mean F1 with its bootstrap interval). Bold, and named in the "
        "Beats random row: the shortcut beats the exact random-guessing accuracy of the task's examples at that value (answer "
        "sets weighted by their example counts; list: listing every paper) by a one-sided exact test whose p-value, "
        f"Holm-adjusted over every cell of the table, is at most {50 * (1 - ctx.cfg.confidence):g}%; "
        "the accuracy table's cells at such a value can be reached without searching the graph. #Examples: distinct examples "
        "the shortcuts answered there." + (" † marks a shortcut with fewer answers than #Examples." if dagger else "")
        + " " + " ".join(f"{v.text}." for v in verdicts)
    )
    header = ("Task", "Shortcut", *d.levels)
    return ReportTable(key, title, caption, header, tuple(rows), tuple(values), tuple(lists), label_columns=2)


def with_shortcut_notes(tables: list[ReportTable], verdicts: list[ShortcutLevelVerdict], name: str) -> list[ReportTable]:
    """The accuracy tables with a closing caption sentence naming the values where a shortcut beats random
    (the pooled table: every task's; ``accuracy_<task>``: its task's), pointing to the table called ``name``;
    other tables unchanged."""
    beaten = [v for v in verdicts if v.beaten_by]
    if not beaten:
        return tables
    of_task = {f"accuracy_{v.task}": [v] for v in beaten}
    out = []
    for t in tables:
        these = beaten if t.key == "accuracy" else of_task.get(t.key, [])
        if these:
            where = "; ".join(v.text for v in these)
            t = replace(t, caption=f"{t.caption} Shortcuts: {where} — those cells can be reached without searching the graph "
                                   f'(table "{name}").')
        out.append(t)
    return out
