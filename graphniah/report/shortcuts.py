"""The Shortcuts table: how far the shortcut baselines get, per task, against random guessing.

The shortcut journals (``baseline-<name>.jsonl``, written by ``graphniah baselines``) are runs like
any other, so they are rows of every table; this table puts each one's accuracy per task, with its
Wilson interval, beside the exact random-guessing accuracy of that task (appendix D, the answer
sets weighted by their example counts), and gives one verdict per task, as sentences under the
table. Every shortcut journal present is read (no list of shortcuts here). A task where a shortcut
differs from random is a task whose accuracies can be reached without searching the graph, by
that much.

**The test.** Each (shortcut, task) cell gets a two-sided p-value against its baseline: for
accuracies twice the smaller of the exact probabilities that guessing at random gets at least, or
at most, as many right (sums of binomials, one per answer space,
:func:`graphniah.stats.binomial_sum_tails`). A shortcut right *less* often than random guessing is
a shortcut too, read in reverse: flip its YES/NO answer, avoid the option (or count) it picks. The
verdict tries every shortcut on every task, so the p-values are Holm-adjusted over all cells of
the table, each cell once whichever side it lies on, and a shortcut is *flagged* above or below
random when its adjusted p-value is at most 1 − confidence (5%): for a single cell, the exact form
of "the 95% interval excludes the baseline". Without the correction, each shortcut, task or side
added would raise the chance that a shortcut guessing at random is flagged somewhere; with it, that
chance stays at most 5% for the whole table. When no shortcut is flagged, the sentence says what the examples could have shown: the
least (and greatest) accuracy Holm's first step would flag at that size, or that none could.

**The list task** is judged by F1, not by exact sets: a random guess of a set of titles is almost
never exact, so beating 0% says nothing. A list shortcut's p-value is the one-sided Wilcoxon
signed-rank test of its F1 against the F1 of listing every paper of the context but the source,
example by example (:func:`graphniah.report.listing.trivial_f1`), doubled so that it stands in the
two-sided family at the same level. It is tested above only: an F1 below listing every paper
exploits nothing, since listing every paper is itself the baseline.

A suite that varies an example's variable (depth, component size, context length, distractor, ...)
over at least two values also gets ``shortcuts_by_<variable>``: the same accuracies and random
baselines per task and value, since a shortcut that beats random at depth 4 but not at 32 makes
the depth-4 cells of the accuracy table measure the shortcut's route rather than a search of the
graph. Each task gets a sentence naming the values where some shortcut is flagged, and the
accuracy tables' captions repeat those sentences (:func:`with_shortcut_notes`). Suites varying the
task (the pooled table is already per task) or the reasoning effort (a shortcut has none) get no
breakdown.

**Balance.** After the verdicts, the Shortcuts table carries the sentences of
:mod:`graphniah.report.balance` (``shortcut_table``'s ``notes``): the cells whose examples' recipes
say they are not (fully) matched, the matched cells where a shortcut is flagged anyway, and a
learned-surface trained on a smaller draw than its design's.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Literal

import numpy as np

from graphniah.baselines import JOURNAL_PREFIX, is_baseline_model
from graphniah.formats import TASK_LABELS, TASKS
from graphniah.report.grid import DASH, ReportContext
from graphniah.report.listing import TRIVIAL, trivial_f1
from graphniah.report.load import SuiteData
from graphniah.report.table import Cell, CellValue, ExampleList, ReportTable, pct
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
    "level_noun",
    "level_table_name",
    "shortcut_level_table",
    "shortcut_level_verdicts",
    "shortcut_results",
    "shortcut_table",
    "shortcut_verdicts",
    "splits_by_value",
    "with_shortcut_notes",
]

#: Variables whose values get no breakdown: the pooled table is per task already; shortcuts have no effort.
_NO_BREAKDOWN = ("task", "reasoning_effort")
#: How a sentence names a value of the varied variable ("at depth 4, 8").
_LEVEL_NOUNS = {"depth": "depth", "component_size": "component size", "context_length": "context length",
                "distractor": "distractor", "none_option": "'none of these' option", "render": "rendering"}
#: The rule that turns a shortcut right less often than random guessing into one right more often, per task.
_EXPLOIT = {"yesno": "flip its YES/NO answer", "mc": "avoid the option it picks", "count": "avoid the count it gives"}

Direction = Literal["above", "below"]
#: How the breakdown's Flagged row marks a side.
_ARROW: dict[Direction, str] = {"above": "↑", "below": "↓"}


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
    pvalue: float = 1.0  # two-sided p-value against the baseline: twice the smaller tail (module docstring)
    direction: Direction = "above"  # the side of the baseline whose tail is the smaller (list task: always above)
    adjusted: float = 1.0  # pvalue after Holm's correction over every cell of the verdict
    alpha: float = 0.05  # the level an adjusted p-value must reach
    tests: int = 1  # cells in the verdict's family
    needed: float | None = None  # accuracy tasks: the least accuracy the first Holm step flags (None: none does)
    needed_below: float | None = None  # accuracy tasks: the largest accuracy the first Holm step flags below (None: none)
    flaggable: bool = True  # whether any result on these examples could be flagged alone, in either direction
    chance: tuple[tuple[int, Fraction], ...] = ()  # accuracy tasks: (examples, guessing rate) per answer space

    @property
    def flagged(self) -> bool:
        """Whether the shortcut differs from its task's baseline: its Holm-adjusted two-sided p-value reaches ``alpha``."""
        return self.adjusted <= self.alpha

    @property
    def beats_random(self) -> bool:
        """Whether the shortcut is flagged above its baseline (right more often than random guessing)."""
        return self.flagged and self.direction == "above"

    @property
    def below_random(self) -> bool:
        """Whether the shortcut is flagged below its baseline: the reverse rule (:attr:`exploit`) beats random guessing."""
        return self.flagged and self.direction == "below"

    @property
    def exploit(self) -> str:
        """The rule that exploits a shortcut below its baseline (flip a YES/NO answer, avoid a pick)."""
        return _EXPLOIT.get(self.task, "")

    @property
    def score_text(self) -> str:
        """The accuracy, or for the list task the mean F1, with its interval."""
        return f"F1 {_mean(self.f1)}" if self.f1 is not None else _acc(self.accuracy)


def _alpha_text(alpha: float) -> str:
    return f"{100 * alpha:g}%"


def _test_text(task: str) -> str:
    """What the verdict's p-value is, in a sentence: two-sided, or for the list task one-sided and doubled."""
    return "one-sided p (doubled)" if task == "list" else "two-sided p"


def _both(task: str) -> str:
    """What no shortcut did: beat the baseline, or for tasks judged in both directions, differ from it."""
    return "beats" if task == "list" else "beats or falls below"


@dataclass(frozen=True)
class ShortcutVerdict:
    """Per task: which shortcuts beat random guessing beyond their interval, which fall below it (none: the task resists them)."""

    task: str
    random: Fraction
    beaten_by: tuple[ShortcutResult, ...]
    tried: tuple[str, ...]

    list_all: float | None = None  # list task: mean F1 of listing every paper on the examples the shortcuts answered
    tests: int = 1  # cells in the verdict's family (Holm's correction)
    alpha: float = 0.05  # two-sided level of the family
    power: str = ""  # what these examples could show at all (see _power_note)
    below_by: tuple[ShortcutResult, ...] = ()  # flagged below the baseline: the reverse rule exploits them

    @property
    def text(self) -> str:
        label = TASK_LABELS.get(self.task, self.task)
        baseline = (f"listing every paper (F1 {pct(self.list_all)}%)" if self.list_all is not None
                    else f"random guessing ({pct(self.random)}%)")
        flagged = self.beaten_by or self.below_by
        note = f"; {self.power}" if self.power and not flagged else ""
        rule = f"at {_test_text(self.task)} ≤ {_alpha_text(self.alpha)} (Holm over {self.tests} tests{note})"
        if not flagged:
            return f"{label}: no shortcut ({', '.join(self.tried)}) {_both(self.task)} {baseline} {rule}"
        clauses = []
        if self.beaten_by:
            clauses.append(f"{_named(self.beaten_by)}, {'beats' if len(self.beaten_by) == 1 else 'beat'} {baseline}")
        if self.below_by:
            verb = "falls" if len(self.below_by) == 1 else "fall"
            clauses.append(f"{_named(self.below_by)}, {verb} below {'it' if self.beaten_by else baseline} "
                           f"(the rule that exploits {'it' if len(self.below_by) == 1 else 'them'}: "
                           f"{_EXPLOIT.get(self.task, 'reverse it')})")
        return f"{label}: {', and '.join(clauses)}, {rule}"


def _named(results: tuple[ShortcutResult, ...]) -> str:
    """Each shortcut with its score and adjusted p-value, for a verdict sentence."""
    return "; ".join(f"{r.shortcut} {r.score_text}, p = {format_pvalue(r.adjusted, 4)}" for r in results)


def _power_note(results: list[ShortcutResult]) -> str:
    """What the task's examples could show: the accuracies a shortcut needed to be flagged, or that none could be.

    The accuracies quoted are one result's, and the count is that result's examples: shortcuts may have
    answered different numbers of examples (topic-cluster skips edge lists), and the note quotes the
    result that needed the least (on a tie, the one with the most examples).
    """
    if not results:
        return ""
    if not any(r.flaggable for r in results):
        n = max(r.accuracy.n for r in results)
        either = "" if results[0].task == "list" else " or every answer wrong"
        return f"at {n} examples no result can pass, not even every answer right{either}"
    with_needed = [r for r in results if r.needed is not None]
    if not with_needed:
        return ""
    best = min(with_needed, key=lambda r: (r.needed, -r.accuracy.n))
    below = f", or {pct(best.needed_below)}% or less" if best.needed_below is not None else ""
    return f"at {best.accuracy.n} examples that takes {pct(best.needed or 0)}% or more{below}"


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
    """Each shortcut run's accuracy on the outcomes under ``mask`` (one task), beside their random baseline.

    Every shortcut journal present is a row (``is_baseline_model``): no list of shortcuts here.
    """
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
        direction: Direction = "above"
        if task == "list":  # judged by F1 against listing every paper, above it only (module docstring)
            f1 = bootstrap_mean(o.f1[m], generator(Stream.F1_BOOTSTRAP, DEFAULT_SEED), ctx.cfg.confidence)
            list_all = _list_all(ctx, ids)
            trivial = np.array([trivial_f1(d.examples[e].component_size, d.examples[e].nodes) for e in ids.tolist()])
            p = min(1.0, 2 * _paired_pvalue(trivial, o.f1[m]))
        else:
            spaces = ctx.space_key[m].tolist()
            chance = tuple((spaces.count(k), random_baseline(ctx.space(k))) for k in sorted(set(spaces)))
            p, direction = _two_sided(chance, int(good.sum()))
        out.append(ShortcutResult(task, run.model[len(JOURNAL_PREFIX):], i, ctx.proportion(int(good.sum()), int(m.sum())),
                                  random, tuple(ids[good].tolist()), tuple(ids[~good].tolist()), level, f1, list_all, p,
                                  direction, chance=chance))
    return out


def _lower_tails(chance: tuple[tuple[int, Fraction], ...]) -> np.ndarray:
    """Entry k is P(S <= k), S the right answers of random guessing: the upper tails of the wrong answers, reversed
    (summed from the far end, so small p-values keep their precision, as in :func:`binomial_sum_tails`)."""
    return binomial_sum_tails([(n, 1 - p) for n, p in chance])[::-1]


def _two_sided(chance: tuple[tuple[int, Fraction], ...], k: int) -> tuple[float, Direction]:
    """The two-sided p-value of ``k`` right answers against random guessing (twice the smaller exact tail) and its side."""
    above = binomial_sum_tail(chance, k)
    below = float(_lower_tails(chance)[k])
    return min(1.0, 2 * min(above, below)), "above" if above <= below else "below"


def _paired_pvalue(before: np.ndarray, after: np.ndarray) -> float:
    """One-sided Wilcoxon signed-rank p-value of ``after > before`` (1 when every pair is equal: no evidence)."""
    if not np.any(after != before):
        return 1.0
    return wilcoxon_signed_rank(before, after, alternative="greater").pvalue


def _reach(r: ShortcutResult, level: float) -> tuple[float | None, float | None, bool]:
    """(least accuracy flagged above, largest flagged below, whether any result is) when a cell's two-sided
    p-value must reach ``level``."""
    n = r.accuracy.n
    if r.f1 is not None:  # the best a list shortcut can do: every pair above, all ranks positive
        best = 2 * _paired_pvalue(np.zeros(n), np.arange(1, n + 1, dtype=float))
        return None, None, best <= level
    up = np.flatnonzero(2 * binomial_sum_tails(r.chance) <= level)
    down = np.flatnonzero(2 * _lower_tails(r.chance) <= level)
    needed = None if not up.size else int(up[0]) / n
    needed_below = None if not down.size else int(down[-1]) / n
    return needed, needed_below, bool(up.size or down.size)


def _corrected(ctx: ReportContext, results: list[ShortcutResult]) -> list[ShortcutResult]:
    """The results with Holm-adjusted p-values over the whole family, and what each could have shown.

    Every cell is one two-sided test at level 1 − confidence, so that a family of one test is the
    interval rule (a two-sided 95% interval that excludes the baseline) in exact form; the family
    holds every cell once, whichever side it lies on. ``needed`` is the least accuracy whose p-value
    passes Holm's first, strictest step (α/m), ``needed_below`` the largest below the baseline: what a
    shortcut had to score on these examples to be flagged.
    """
    if not results:
        return []
    alpha, m = 1 - ctx.cfg.confidence, len(results)
    adjusted = holm([r.pvalue for r in results])
    out = []
    for r, adj in zip(results, adjusted, strict=True):
        needed, needed_below, flaggable = _reach(r, alpha / m)
        out.append(replace(r, adjusted=adj, alpha=alpha, tests=m, needed=needed, needed_below=needed_below, flaggable=flaggable))
    return out


def shortcut_results(ctx: ReportContext) -> list[ShortcutResult]:
    """Every shortcut run's accuracy on every task it answered, in task order."""
    o = ctx.data.outcomes
    return _corrected(ctx, [r for t in TASKS if (o.task == t).any() for r in _results(ctx, t, o.task == t, None)])


def shortcut_verdicts(ctx: ReportContext) -> list[ShortcutVerdict]:
    """One verdict per task that some shortcut answered."""
    results = shortcut_results(ctx)
    out = []
    for t in dict.fromkeys(r.task for r in results):
        mine = [r for r in results if r.task == t]
        ids = np.asarray([i for r in mine for i in (*r.correct_ids, *r.wrong_ids)])
        out.append(ShortcutVerdict(t, mine[0].random, tuple(r for r in mine if r.beats_random), tuple(r.shortcut for r in mine),
                                   _list_all(ctx, ids) if t == "list" else None, len(results), results[0].alpha,
                                   _power_note(mine), tuple(r for r in mine if r.below_random)))
    return out


def _flag_text(r: ShortcutResult) -> str:
    """The Shortcuts table's last column: which side of its baseline the shortcut is flagged on."""
    return "above" if r.beats_random else "below" if r.below_random else "no"


def _names(results: list[ShortcutResult]) -> str:
    """The shortcuts present, as the caption names them."""
    return ", ".join(dict.fromkeys(r.shortcut for r in results))


def shortcut_table(ctx: ReportContext, notes: tuple[str, ...] = (), note_values: tuple[CellValue, ...] = ()) -> ReportTable | None:
    """The Shortcuts table (None when the suite has no shortcut journal); its verdict sentences stand under it,
    then ``notes`` (:func:`graphniah.report.balance.balance_notes`: where the cells are not balanced), whose tidy
    numbers are ``note_values``."""
    results = shortcut_results(ctx)
    if not results:
        return None
    key, title = "shortcuts", "Shortcuts: accuracy (%) without searching the graph, against random guessing"
    rows: list[tuple[Cell, ...]] = []
    values: list[CellValue] = []
    lists: list[ExampleList] = []
    verdicts = shortcut_verdicts(ctx)
    for v in verdicts:
        label = TASK_LABELS.get(v.task, v.task)
        for r in (r for r in results if r.task == v.task):
            anchor = f"{key}-{v.task}-{r.shortcut}"
            p = r.accuracy
            baseline = f"{TRIVIAL} F1 {pct(r.list_all)}" if r.list_all is not None else pct(r.random)
            rows.append((Cell(label), Cell(r.shortcut), Cell(r.score_text.replace("%", ""), link=anchor), Cell(str(p.n)),
                         Cell(baseline), Cell(format_pvalue(r.adjusted, 4)), Cell(_flag_text(r))))
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
    level = _alpha_text(1 - ctx.cfg.confidence)
    caption = (
        f"Accuracy (%) of the shortcut baselines of suite {ctx.data.suite} ({_names(results)}; graphniah baselines: each reads "
        f"the prompt text only), per task, with the {100 * ctx.cfg.confidence:g}% Wilson interval, beside the exact "
        "random-guessing accuracy of the task. List: the mean F1 "
        f"with its {100 * ctx.cfg.confidence:g}% bootstrap interval, against the mean F1 of listing every paper of the context "
        "on the same examples. p (Holm): the two-sided p-value against that baseline, twice the smaller exact tail of the "
        "binomial sum for accuracies (for the list task the one-sided Wilcoxon signed-rank p-value of the paired F1s, doubled: "
        "an F1 below listing every paper exploits nothing), Holm-adjusted over every row of the table, which holds every "
        f"cell once whichever side it lies on. Flagged: the adjusted p-value is at most {level}, above the baseline, or "
        "below it, where the reverse rule beats random guessing (flip a YES/NO answer; avoid the option or count picked). "
        "The sentences under the table give each task's verdict and, when no shortcut is flagged, what these examples could "
        "have shown. A dash or a missing row: the shortcut does not answer that task or rendering (a shortcut that reads "
        "titles skips edge lists, which print none). The verdict covers these shortcuts only; it does not show that no "
        "other shortcut exists."
        + (" After the verdicts: which cells are not balanced against the shortcuts, by the matched-sampling rules their "
           "examples' recipes record and by the verdicts, and whether learned-surface trained on a smaller draw than its "
           "design's." if notes else "")
    )
    header = ("Task", "Shortcut", "Accuracy", "#Examples", "Random guessing", "p (Holm)", "Flagged")
    return ReportTable(key, title, caption, header, tuple(rows), tuple(values) + note_values, tuple(lists), label_columns=2,
                       verdicts=tuple(f"{v.text}." for v in verdicts) + notes)


# ------------------------------------------------------------------------------------------------
# By value of the varied variable
# ------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ShortcutLevelVerdict:
    """Per task: every shortcut's accuracy at each value of the varied variable, and where one is flagged."""

    task: str
    noun: str  # how the sentence names the variable ("depth", "context length")
    levels: tuple[str, ...]  # the suite's values, in the accuracy table's order
    results: tuple[ShortcutResult, ...]  # per shortcut run and value, ``level`` set

    @property
    def beaten_by(self) -> tuple[ShortcutResult, ...]:
        return tuple(r for r in self.results if r.beats_random)

    @property
    def below_by(self) -> tuple[ShortcutResult, ...]:
        return tuple(r for r in self.results if r.below_random)

    @property
    def flagged(self) -> tuple[ShortcutResult, ...]:
        """The cells flagged on either side of their baseline."""
        return tuple(r for r in self.results if r.flagged)

    @property
    def beaten_levels(self) -> tuple[str, ...]:
        """The values where some shortcut beats random guessing, in order."""
        beaten = {r.level for r in self.beaten_by}
        return tuple(lv for lv in self.levels if lv in beaten)

    @property
    def flagged_levels(self) -> tuple[str, ...]:
        """The values where some shortcut is flagged, above or below its baseline, in order."""
        flagged = {r.level for r in self.flagged}
        return tuple(lv for lv in self.levels if lv in flagged)

    def _where(self, results: tuple[ShortcutResult, ...]) -> dict[str, list[str]]:
        """Shortcut -> the values where it is among ``results``, in the values' order."""
        where: dict[str, list[str]] = {}
        for lv in self.levels:
            for r in results:
                if r.level == lv and lv not in where.setdefault(r.shortcut, []):
                    where[r.shortcut].append(lv)
        return where

    @property
    def text(self) -> str:
        label = TASK_LABELS.get(self.task, self.task)
        first = self.results[0]
        rule = f"{_test_text(self.task)} ≤ {_alpha_text(first.alpha)}, Holm over {first.tests} tests"
        baseline = "listing every paper" if self.task == "list" else "random guessing"
        if not self.flagged:
            tried = ", ".join(dict.fromkeys(r.shortcut for r in self.results))
            return f"{label}: no shortcut ({tried}) {_both(self.task)} {baseline} at any {self.noun} ({rule})"
        clauses = []
        above = self._where(self.beaten_by)
        if above:
            beats = f" beats {baseline}" + (" (F1)" if self.task == "list" else "")
            clauses.append("; ".join(f"{s}{beats if j == 0 else ''} at {self.noun} {', '.join(lvs)}" for j, (s, lvs) in enumerate(above.items())))
        below = self._where(self.below_by)
        if below:
            falls = f" falls below {'it' if above else baseline}"
            clauses.append("; ".join(f"{s}{falls if j == 0 else ''} at {self.noun} {', '.join(lvs)}" for j, (s, lvs) in enumerate(below.items()))
                           + f" (the rule that exploits {'it' if len(below) == 1 else 'them'}: {_EXPLOIT.get(self.task, 'reverse it')})")
        return f"{label}: {', and '.join(clauses)} ({rule})"


def level_noun(data: SuiteData) -> str:
    """How a sentence names the suite's varied variable ("depth", "context length")."""
    return _LEVEL_NOUNS.get(data.variable, data.variable_title.lower())


def splits_by_value(data: SuiteData) -> bool:
    """Whether the suite's cells are per task and value of the varied variable (else per task alone): the
    variable is an example's, other than the task, and takes at least two values."""
    return data.variable not in _NO_BREAKDOWN and len(data.levels) >= 2


def _breaks_down(ctx: ReportContext) -> bool:
    """Whether the breakdown applies: the shortcut runs' outcomes hold several values of the variable."""
    d = ctx.data
    if not splits_by_value(d):
        return False
    is_shortcut = np.array([is_baseline_model(r.model) for r in d.runs], dtype=bool)
    mask = is_shortcut[d.outcomes.run] if len(d.outcomes) else np.zeros(0, dtype=bool)
    return bool(np.unique(d.value[mask]).size >= 2)


def shortcut_level_verdicts(ctx: ReportContext) -> list[ShortcutLevelVerdict]:
    """One verdict per task that some shortcut answered, by value of the varied variable (empty: no breakdown)."""
    d, o = ctx.data, ctx.data.outcomes
    if not _breaks_down(ctx):
        return []
    noun = level_noun(d)
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
    """One task's rows: each shortcut's accuracy per value (bold: flagged), random guessing, #Examples, who is flagged where."""
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
                cells.append(Cell(f"{pct(m.estimate)}{dagger} [{pct(m.interval.low)}, {pct(m.interval.high)}]", bold=r.flagged, link=anchor))
                values.append(CellValue(key, f"{label} | {shortcut}", lv, "f1", None, m.n, m.estimate, m.interval.low, m.interval.high, link=anchor))
            else:
                cells.append(Cell(f"{pct(p.estimate)}{dagger} [{pct(p.interval.low)}, {pct(p.interval.high)}]", bold=r.flagged, link=anchor))
                values.append(CellValue(key, f"{label} | {shortcut}", lv, "accuracy", p.k, p.n, p.estimate, p.interval.low, p.interval.high, link=anchor))
            lists.append(ExampleList(anchor, f"{title} — {label}, {shortcut}, {lv}", (("correct", r.correct_ids), ("wrong", r.wrong_ids))))
        rows.append(tuple(cells))
    random: dict[str | None, float] = {r.level: float(r.list_all if r.list_all is not None else r.random) for r in v.results}
    name = f"{TRIVIAL} (F1)" if v.task == "list" else "Random guessing"
    rows.append((Cell(label), Cell(name), *[Cell(pct(random[lv]) if lv in random else DASH) for lv in v.levels]))
    values += [CellValue(key, f"{label} | {name}", lv, "baseline", None, None, random[lv]) for lv in v.levels if lv in random]
    rows.append((Cell(label), Cell("#Examples"), *[Cell(str(examples[lv])) for lv in v.levels]))
    flagged = [", ".join(dict.fromkeys(f"{r.shortcut} {_ARROW[r.direction]}" for r in v.flagged if r.level == lv))
               or ("none" if lv in random else DASH) for lv in v.levels]
    rows.append((Cell(label), Cell("Flagged"), *[Cell(f) for f in flagged]))
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
        "Flagged row (↑ above, ↓ below): the shortcut differs from the exact random-guessing accuracy of the task's examples "
        "at that value (answer sets weighted by their example counts; list: listing every paper, above it only) by an exact "
        f"two-sided test whose p-value, Holm-adjusted over every cell of the table, is at most {_alpha_text(1 - ctx.cfg.confidence)}; "
        "the accuracy table's cells at such a value can be reached without searching the graph (below random guessing: by "
        "the reverse rule, flipping a YES/NO answer or avoiding the option or count picked). #Examples: distinct examples "
        "the shortcuts answered there." + (" † marks a shortcut with fewer answers than #Examples." if dagger else "")
        + " The sentences under the table give each task's verdict."
    )
    header = ("Task", "Shortcut", *d.levels)
    return ReportTable(key, title, caption, header, tuple(rows), tuple(values), tuple(lists), label_columns=2,
                       verdicts=tuple(f"{v.text}." for v in verdicts))


def with_shortcut_notes(tables: list[ReportTable], verdicts: list[ShortcutLevelVerdict], name: str) -> list[ReportTable]:
    """The accuracy tables with a closing caption sentence naming the values where a shortcut is flagged, above or
    below random guessing (the pooled table: every task's; ``accuracy_<task>``: its task's), pointing to the table
    called ``name``; other tables unchanged."""
    beaten = [v for v in verdicts if v.flagged]
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
