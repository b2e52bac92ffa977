"""The report's tables, in the layouts of the paper's appendices E and F.

Every table is computed from :class:`graphniah.report.load.SuiteData` by vectorised group-bys
over the outcome rows, and every statistic comes from :mod:`graphniah.stats`. Which tables a
suite gets depends on its varied variable and its tasks:

==========================  ==================================================  ===============
key                         content                                             paper
==========================  ==================================================  ===============
``accuracy``                accuracy per model × value, Overall, random row     Tables 23–28
``accuracy_<task>``         the same for one task (variable is not the task)    Tables 5–10, 19
``labels``                  YES/NO accuracy on YES-label and NO-label examples  Tables 11–13
``no_rate``                 share of NO answers, ground-truth row               Table 14
``counting``                exact / too low / too high / no number / within     Table 15
``counting_by_size``        counting accuracy by component-size range           Table 16
``none_option``             before/after "none of these", gained/lost, McNemar  Table 17
``none_option_tokens``      output/reasoning tokens before/after, Wilcoxon      Table 18
``pairwise``                Fisher per pair of values with Holm, overall χ²      Tables 20, 22
``paired``                  McNemar per pair of efforts on the same examples    Table 21
``cost``                    answered/failed, tokens, response time, cost        Tables 29–34
==========================  ==================================================  ===============

Random baselines follow appendix D: when the task of each example is drawn at random, every
column's baseline is the uniform mixture over the answer sets of the tasks in the table (25.22%
for the paper's three); when the column fixes the answer set (the task experiment, the "none of
these" option) it is that set's, and a pooled column weighs the sets by their example counts.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from graphniah.errors import GraphNIAHError
from graphniah.formats import TASK_LABELS, TASKS
from graphniah.report.grid import (
    DASH,
    AccuracyGrid,
    ReportContext,
    accuracy_grid,
    accuracy_text,
    examples_row,
    grid_rows,
    size_bins,
    tabulate,
)
from graphniah.report.listing import evidence_tables, list_tables
from graphniah.report.load import level_label
from graphniah.report.table import Cell, CellValue, ExampleList, ReportTable, pct
from graphniah.stats import (
    MultipleChoiceAnswers,
    YesNoAnswers,
    chi2_test,
    counting_outcomes,
    fisher_detectable_difference,
    format_pvalue,
    mcnemar_detectable_difference,
    mcnemar_exact,
    pairwise_fisher_holm,
    random_baseline,
    wilcoxon_signed_rank,
)

__all__ = ["build_tables"]

_PAIRED_VARIABLES = ("reasoning_effort",)
_MDE_NOTE = (
    "'detects ±x': the smallest accuracy difference (points) the two-sided Fisher test at α = 0.05 would detect with 80% "
    "power at the cell's two numbers of answers, placed around their pooled accuracy (before Holm's correction, which "
    "asks for more); a smaller true difference is likely to go unseen."
)
_MDE_NOTE_PAIRED = (
    "'detects ±x': the smallest accuracy difference (points) the exact McNemar test at α = 0.05 would detect with 80% "
    "power on these pairs, at their observed share of discordant pairs (a dash: none at that share)."
)


def _mde_text(mde: float | None) -> str:
    return f"(detects ±{DASH})" if mde is None else f"(detects ±{100 * mde:.1f})"


# ------------------------------------------------------------------------------------------------
# Shared context
# ------------------------------------------------------------------------------------------------


def _baseline_row(grid: AccuracyGrid, label_width: int, skip_overall: bool = False) -> list[Cell]:
    bs = grid.baselines[:-1] if skip_overall else grid.baselines
    return [Cell("Random guessing")] + [Cell("")] * (label_width - 1) + [Cell(DASH if b is None else pct(b)) for b in bs]


def _dagger_note(grid: AccuracyGrid) -> str:
    if (grid.n[grid.n > 0] < np.broadcast_to(grid.examples, grid.n.shape)[grid.n > 0]).any():
        return " † marks a model with fewer answered examples than the column's #Examples (failed calls or a partial run); such cells are not bold."
    return ""


# ------------------------------------------------------------------------------------------------
# The tables
# ------------------------------------------------------------------------------------------------


def _accuracy_table(ctx: ReportContext, task: str | None) -> ReportTable:
    d = ctx.data
    grid = accuracy_grid(ctx, task)
    key = "accuracy" if task is None else f"accuracy_{task}"
    what = "" if task is None else f" on the {TASK_LABELS[task]} examples"
    title = f"Accuracy (%){what} by {d.variable_title.lower()}"
    rows, values, lists = grid_rows(ctx, grid, key, title, row_parts=[(x,) for x in grid.row_labels], bold=True)
    rows.append(_baseline_row(grid, 1))
    rows.append(examples_row(grid, ("#Examples",)))
    caption = (
        f"Accuracy (%) of each model{what} in suite {d.suite}, by {d.variable_title.lower()}; Overall pools all values. "
        f"Brackets: {100 * ctx.cfg.confidence:g}% Wilson interval. Bold: the highest accuracy in each column. "
        "Random guessing: the exact expected accuracy of uniform guesses (appendix D). "
        "#Examples: distinct examples answered in the column. A dash marks a missing result." + _dagger_note(grid)
    )
    return ReportTable(key, title, caption, ("Model", *grid.col_labels), tuple(map(tuple, rows)), tuple(values), tuple(lists))


def _labels_table(ctx: ReportContext) -> ReportTable | None:
    d, o = ctx.data, ctx.data.outcomes
    yn = o.task == "yesno"
    if not yn.any():
        return None
    is_no = (o.answer == "NO").astype(np.int64)
    key, title = "labels", "YES/NO accuracy (%) on YES-label and NO-label examples"
    if d.variable == "task":
        # Table 13: the columns are the labels.
        half = random_baseline(YesNoAnswers())
        grid = tabulate(ctx, yn, d.row, d.row_labels, is_no, ("YES-label", "NO-label"), baselines=[half] * 3)
        rows, values, lists = grid_rows(ctx, grid, key, title, row_parts=[(x,) for x in grid.row_labels], bold=True)
        rows.append(_baseline_row(grid, 1))
        rows.append(examples_row(grid, ("#Examples",)))
        header: tuple[str, ...] = ("Model", *grid.col_labels)
        note = _dagger_note(grid)
    else:
        # Tables 11-12: one row per model and label, columns are the values.
        parts = [(m, lab) for m in d.row_labels for lab in ("YES-label", "NO-label")]
        grid = tabulate(ctx, yn, d.row * 2 + is_no, [" | ".join(p) for p in parts], d.value, d.levels,
                     baselines=[random_baseline(YesNoAnswers())] * (len(d.levels) + 1))
        rows, values, lists = grid_rows(ctx, grid, key, title, row_parts=parts, bold=False)
        rows.append(_baseline_row(grid, 2))
        for lab_code, lab in enumerate(("YES-label", "NO-label")):
            sub = tabulate(ctx, yn & (is_no == lab_code), np.zeros(len(o), dtype=np.int64), ("x",), d.value, d.levels,
                        baselines=[None] * (len(d.levels) + 1))
            rows.append(examples_row(sub, ("#Examples", lab)))
        header = ("Model", "Label", *grid.col_labels)
        note = _dagger_note(grid)
    caption = (
        f"YES/NO reachability accuracy (%) of each model on YES-label and NO-label examples of suite {d.suite}. "
        f"Brackets: {100 * ctx.cfg.confidence:g}% Wilson interval. A dash marks a missing result." + note
    )
    return ReportTable(key, title, caption, header, tuple(map(tuple, rows)), tuple(values), tuple(lists), label_columns=len(header) - len(grid.col_labels))


def _no_rate_table(ctx: ReportContext) -> ReportTable | None:
    d, o = ctx.data, ctx.data.outcomes
    yn = o.task == "yesno"
    if not yn.any():
        return None
    if d.variable == "task":
        depths = sorted(set(o.depth[yn].tolist()))
        cols = np.searchsorted(np.asarray(depths), o.depth)
        col_labels = tuple(map(str, depths))
        var_title = "question depth k"
    else:
        cols, col_labels, var_title = d.value, d.levels, d.variable_title.lower()
    said_no = np.array([e == "NO" for e in o.extracted.tolist()], dtype=bool)
    key, title = "no_rate", "Share (%) of YES/NO examples answered NO"
    grid = tabulate(ctx, yn, d.row, d.row_labels, cols, col_labels, success=said_no, baselines=[None] * (len(col_labels) + 1))
    truth = tabulate(ctx, yn, np.zeros(len(o), dtype=np.int64), ("x",), cols, col_labels,
                  success=(o.answer == "NO"), baselines=[None] * (len(col_labels) + 1))
    # Ground truth: the share of NO labels among the column's distinct examples.
    gt: list[Cell] = [Cell("Ground truth")]
    for c in range(len(col_labels) + 1):
        good, bad = truth.ids.get((0, c), ((), ()))
        n_ex = len(set(good) | set(bad))
        gt.append(Cell(pct(len(set(good)) / n_ex) if n_ex else DASH))
    rows, values, lists = grid_rows(ctx, grid, key, title, row_parts=[(x,) for x in grid.row_labels], bold=False,
                                     metric="no_share", groups=("answered NO", "answered otherwise"))
    rows = [gt, *rows, examples_row(grid, ("#Examples",))]
    caption = (
        f"Percentage of the YES/NO examples of suite {d.suite} that each model answers NO, by {var_title}; Overall pools all. "
        f"Brackets: {100 * ctx.cfg.confidence:g}% Wilson interval. Ground truth is the percentage of NO-label examples, i.e. "
        "what an always-correct model would answer. Answers without a YES or NO count as not NO."
    )
    return ReportTable(key, title, caption, ("Model", *grid.col_labels), tuple(map(tuple, rows)), tuple(values), tuple(lists))


def _counting_table(ctx: ReportContext) -> ReportTable | None:
    d, o = ctx.data, ctx.data.outcomes
    cnt = o.task == "count"
    if not cnt.any():
        return None
    tol = ctx.cfg.counting_tolerance
    key, title = "counting", "Outcomes (%) of the counting answers"
    header = ("Model", "#Examples", "Exact", "Too low", "Too high", "No number", f"Within {float(tol) * 100:g}%", "Median ratio")
    rows: list[tuple[Cell, ...]] = []
    values: list[CellValue] = []
    lists: list[ExampleList] = []
    truth_all = np.array([int(a) for a in o.answer[cnt].tolist()], dtype=np.int64)
    for r, label in enumerate(d.row_labels):
        sel = d.row[cnt] == r
        if not sel.any():
            rows.append((Cell(label), Cell("0"), *[Cell(DASH)] * 6))
            continue
        pred = o.predicted[cnt][sel]
        truth = truth_all[sel]
        ids = o.example_id[cnt][sel]
        res = counting_outcomes([None if np.isnan(p) else p for p in pred.tolist()], truth, tolerance=tol)
        numeric = ~np.isnan(pred)
        t = truth.astype(float)
        cats = {
            "Exact": numeric & (pred == t),
            "Too low": numeric & (pred < t),
            "Too high": numeric & (pred > t),
            "No number": ~numeric,
            header[6]: numeric & (np.abs(np.where(numeric, pred, 0) - t) * tol.denominator <= tol.numerator * t),
        }
        counts = {"Exact": res.exact, "Too low": res.too_low, "Too high": res.too_high, "No number": res.no_number, header[6]: res.within_tolerance}
        cells = [Cell(label), Cell(str(res.n))]
        for c, (name, m) in enumerate(cats.items()):
            if int(m.sum()) != counts[name]:
                raise AssertionError(f"internal error: counting category {name} disagrees with stats.counting_outcomes")
            p = ctx.proportion(counts[name], res.n)
            anchor = f"{key}-r{r}-c{c}"
            cells.append(Cell(accuracy_text(p, False), link=anchor))
            values.append(CellValue(key, label, name, "share", p.k, p.n, p.estimate, p.interval.low, p.interval.high, link=anchor))
            lists.append(ExampleList(anchor, f"{title} — {label}, {name}", ((name, tuple(sorted(ids[m].tolist()))), ("other", tuple(sorted(ids[~m].tolist()))))))
        mr = res.median_ratio
        cells.append(Cell(DASH if mr is None else f"{mr:.2f}"))
        values.append(CellValue(key, label, "Median ratio", "median_ratio", None, int(numeric.sum()), mr))
        rows.append(tuple(cells))
    caption = (
        f"Outcomes of the counting answers of each model in suite {d.suite}, as a percentage of its answered counting examples. "
        f"Brackets: {100 * ctx.cfg.confidence:g}% Wilson interval. Exact, Too low, Too high and No number add up to 100%; "
        "No number covers answers without an integer in the last answer block (or without a block). "
        f"Within {float(tol) * 100:g}% includes exact answers. Median ratio: median of predicted / true count over numeric answers."
    )
    return ReportTable(key, title, caption, header, tuple(rows), tuple(values), tuple(lists))


def _counting_by_size_table(ctx: ReportContext) -> ReportTable | None:
    d, o = ctx.data, ctx.data.outcomes
    cnt = o.task == "count"
    if not cnt.any() or d.variable == "component_size":
        return None
    codes, labels, _ = size_bins(o.component_size)
    base = ctx.uniform_baseline(cnt)
    grid = tabulate(ctx, cnt, d.row, d.row_labels, codes, labels, baselines=[base] * (len(labels) + 1))
    key, title = "counting_by_size", "Counting accuracy (%) by component size"
    rows, values, lists = grid_rows(ctx, grid, key, title, row_parts=[(x,) for x in grid.row_labels], bold=True)
    rows += [_baseline_row(grid, 1), examples_row(grid, ("#Examples",))]
    caption = (
        f"Counting accuracy (%) of each model in suite {d.suite} by component-size range; Overall pools all. "
        f"Brackets: {100 * ctx.cfg.confidence:g}% Wilson interval. Bold: the highest accuracy in each column." + _dagger_note(grid)
    )
    return ReportTable(key, title, caption, ("Model", *grid.col_labels), tuple(map(tuple, rows)), tuple(values), tuple(lists))


@dataclass(frozen=True)
class _Pairs:
    """Per row: the (before, after) outcome indices of paired multiple-choice examples."""

    before: dict[int, np.ndarray]
    after: dict[int, np.ndarray]


def _none_pairs(ctx: ReportContext) -> _Pairs:
    o = ctx.data.outcomes
    before: dict[int, list[int]] = {}
    after: dict[int, list[int]] = {}
    for r in range(len(ctx.data.row_labels)):
        idx = np.flatnonzero((o.task == "mc") & (ctx.data.row == r))
        b = {o.pair_key[i]: int(i) for i in idx if not o.none_option[i]}
        a = {o.pair_key[i]: int(i) for i in idx if o.none_option[i]}
        common = sorted(set(b) & set(a))
        if common:
            before[r] = [b[k] for k in common]
            after[r] = [a[k] for k in common]
    return _Pairs({r: np.asarray(v) for r, v in before.items()}, {r: np.asarray(v) for r, v in after.items()})


def _none_option_tables(ctx: ReportContext) -> list[ReportTable]:
    d, o = ctx.data, ctx.data.outcomes
    pairs = _none_pairs(ctx)
    if not pairs.before:
        return []
    key, title = "none_option", "Multiple-choice accuracy (%) before and after adding 'none of these'"
    header = ("Model", "#Examples", "Before", "After", "Change (pp)", "Gained / lost")
    rows: list[tuple[Cell, ...]] = []
    values: list[CellValue] = []
    lists: list[ExampleList] = []
    for r, label in enumerate(d.row_labels):
        if r not in pairs.before:
            continue
        bi, ai = pairs.before[r], pairs.after[r]
        cb, ca = o.correct[bi], o.correct[ai]
        pb, pa = ctx.proportion(cb.sum(), cb.size), ctx.proportion(ca.sum(), ca.size)
        gained, lost = int((~cb & ca).sum()), int((cb & ~ca).sum())
        test = mcnemar_exact(gained, lost)
        mde = mcnemar_detectable_difference(int(cb.size), test.n / cb.size)
        anchor = f"{key}-r{r}"
        rows.append((
            Cell(label), Cell(str(cb.size)), Cell(accuracy_text(pb, False)), Cell(accuracy_text(pa, False)),
            Cell(f"{100 * (pa.estimate - pb.estimate):+.2f}"),
            Cell(f"+{gained} / -{lost} p = {format_pvalue(test.pvalue)} {_mde_text(mde)}", link=anchor),
        ))
        values += [
            CellValue(key, label, "Before", "accuracy", pb.k, pb.n, pb.estimate, pb.interval.low, pb.interval.high),
            CellValue(key, label, "After", "accuracy", pa.k, pa.n, pa.estimate, pa.interval.low, pa.interval.high),
            CellValue(key, label, "Gained / lost", "mcnemar", gained, lost, pa.estimate - pb.estimate, pvalue=test.pvalue, link=anchor),
            CellValue(key, label, "Gained / lost", "detectable_80", None, int(cb.size), mde),
        ]
        lists.append(ExampleList(anchor, f"{title} — {label}", (
            ("gained (before ids)", tuple(o.example_id[bi][~cb & ca].tolist())),
            ("lost (before ids)", tuple(o.example_id[bi][cb & ~ca].tolist())),
        )))
    r4 = random_baseline(MultipleChoiceAnswers(options=4))
    r5 = random_baseline(MultipleChoiceAnswers(options=4, none_option=True))
    rows.append((Cell("Random guessing"), Cell(""), Cell(pct(r4)), Cell(pct(r5)), Cell(f"{100 * float(r5 - r4):+.2f}"), Cell("")))
    caption = (
        f"Multiple-choice accuracy (%) of each model in suite {d.suite} before and after a fifth option 'none of these' is "
        "added to the same examples (same context, candidates and answer; the new option is never correct). #Examples counts "
        "the pairs answered both before and after. Change is After minus Before in percentage points; Gained / lost counts "
        f"examples that become correct (+) and wrong (-), with the exact McNemar p-value. {_MDE_NOTE_PAIRED}"
    )
    out = [ReportTable(key, title, caption, header, tuple(rows), tuple(values), tuple(lists))]

    # Table 18: tokens before/after.
    key2, title2 = "none_option_tokens", "Output and reasoning tokens before and after adding 'none of these'"
    rows2: list[tuple[Cell, ...]] = []
    values2: list[CellValue] = []
    for r, label in enumerate(d.row_labels):
        if r not in pairs.before:
            continue
        bi, ai = pairs.before[r], pairs.after[r]
        for name, col in (("Output", o.completion_tokens), ("Reasoning", o.reasoning_tokens)):
            x, y = col[bi], col[ai]
            ok = ~(np.isnan(x) | np.isnan(y))
            x, y = x[ok], y[ok]
            if not x.size:
                rows2.append((Cell(label), Cell(name), Cell(DASH), Cell(DASH), Cell(DASH), Cell(DASH)))
                continue
            med = float(np.median(y - x))
            try:
                p: float | None = wilcoxon_signed_rank(x, y).pvalue
            except GraphNIAHError:
                p = None  # all differences zero: nothing to test
            rows2.append((Cell(label), Cell(name), Cell(_mean_sd(x)), Cell(_mean_sd(y)), Cell(f"{med:+,.2f}"),
                          Cell(DASH if p is None else format_pvalue(p))))
            values2.append(CellValue(key2, f"{label} | {name}", "Median change", "wilcoxon", None, int(x.size), med, pvalue=p))
    caption2 = (
        "Mean ± standard deviation of output (completion) and reasoning tokens per example before and after adding the option, "
        "on the same pairs as the previous table. Median change: median of After minus Before; p: two-sided Wilcoxon "
        "signed-rank test (not adjusted for multiple tests; a dash when every difference is zero)."
    )
    out.append(ReportTable(key2, title2, caption2, ("Model", "Tokens", "Before", "After", "Median change", "p"), tuple(rows2),
                           tuple(values2), label_columns=2))
    return out


def _mean_sd(x: np.ndarray) -> str:
    x = x[~np.isnan(x)]
    if not x.size:
        return DASH
    if x.size == 1:
        return f"{x[0]:,.2f}"
    return f"{x.mean():,.2f} ± {x.std(ddof=1):,.2f}"


def _pairwise_table(ctx: ReportContext) -> ReportTable | None:
    d = ctx.data
    L = len(d.levels)
    if L < 2 or d.variable in _PAIRED_VARIABLES or d.variable == "none_option":
        return None
    grid = accuracy_grid(ctx)
    pairs = [(i, j) for i in range(L) for j in range(i + 1, L)]
    # The paper prints raw p-values for context lengths (Table 22) and Holm-adjusted ones for
    # distractor types (Table 20); the context-length cells show both, raw first.
    raw_first = d.variable == "context_length"
    key, title = "pairwise", f"Pairwise comparison of the values of {d.variable_title.lower()}"
    cells = {(pi, r): Cell(DASH) for pi in range(len(pairs)) for r in range(len(d.row_labels))}
    chi = [Cell(DASH)] * len(d.row_labels)
    values: list[CellValue] = []
    for r, label in enumerate(d.row_labels):
        groups = [(d.levels[c], int(grid.k[r, c]), int(grid.n[r, c])) for c in range(L) if grid.n[r, c]]
        if len(groups) < 2:
            continue
        comps = {(g.first, g.second): g for g in pairwise_fisher_holm(groups)}
        for pi, (i, j) in enumerate(pairs):
            g = comps.get((d.levels[i], d.levels[j]))
            if g is None:
                continue
            if raw_first:
                text = f"{100 * g.difference:+.2f} p = {format_pvalue(g.pvalue)} (Holm p = {format_pvalue(g.pvalue_holm)})"
            else:
                text = f"{100 * g.difference:+.2f} p = {format_pvalue(g.pvalue_holm)}"
            n_i, n_j, k_ij = int(grid.n[r, i]), int(grid.n[r, j]), int(grid.k[r, i] + grid.k[r, j])
            mde = fisher_detectable_difference(n_i, n_j, k_ij / (n_i + n_j))
            cells[(pi, r)] = Cell(f"{text} {_mde_text(mde)}")
            values.append(CellValue(key, f"{d.levels[i]} vs {d.levels[j]}", label, "fisher_holm", None, None, g.difference,
                                    pvalue=g.pvalue_holm))
            values.append(CellValue(key, f"{d.levels[i]} vs {d.levels[j]}", label, "fisher_raw", None, None, g.difference,
                                    pvalue=g.pvalue))
            values.append(CellValue(key, f"{d.levels[i]} vs {d.levels[j]}", label, "detectable_80", None, n_i + n_j, mde))
        try:
            test = chi2_test(np.array([[k, n - k] for _, k, n in groups], dtype=np.int64))
            chi[r] = Cell(f"p = {format_pvalue(test.pvalue)}")
            values.append(CellValue(key, "chi2", label, "chi2", None, test.n, test.statistic, pvalue=test.pvalue))
        except GraphNIAHError:
            pass  # a model right (or wrong) on every example: the χ² statistic is undefined
    rows = [tuple([Cell(f"{d.levels[i]} vs {d.levels[j]}")] + [cells[(pi, r)] for r in range(len(d.row_labels))]) for pi, (i, j) in enumerate(pairs)]
    rows.append(tuple([Cell(f"All {L}, χ² test")] + chi))
    pvalues = (
        f"the two-sided p-value of Fisher's exact test, raw (as in the paper's Table 22), and in parentheses after Holm's "
        f"correction over the {len(pairs)} pairs of each model. Each value has its own examples, so the test treats the two "
        "sets of answers as independent samples"
        if raw_first else
        f"the p-value of Fisher's exact test after Holm's correction over the {len(pairs)} pairs of each model (raw p-values "
        "in cells.csv)"
    )
    caption = (
        f"Pairwise comparison of the values of {d.variable_title.lower()} in suite {d.suite}, all tasks pooled. Each cell: accuracy "
        f"with the second value minus accuracy with the first, in percentage points, and {pvalues}. {_MDE_NOTE} Last row: "
        "p-value of Pearson's χ² test that accuracy is the same for all values (a dash where it is undefined)."
    )
    return ReportTable(key, title, caption, (d.variable_title, *d.row_labels), tuple(rows), tuple(values))


def _paired_table(ctx: ReportContext) -> ReportTable | None:
    d, o = ctx.data, ctx.data.outcomes
    L = len(d.levels)
    if d.variable not in _PAIRED_VARIABLES or L < 2:
        return None
    pairs = [(i, j) for i in range(L) for j in range(i + 1, L)]
    key, title = "paired", f"Paired comparison of the values of {d.variable_title.lower()}"
    rows: list[tuple[Cell, ...]] = []
    values: list[CellValue] = []
    lists: list[ExampleList] = []
    for r, label in enumerate(d.row_labels):
        at: list[dict[str, bool]] = [{} for _ in range(L)]
        for x in np.flatnonzero(d.row == r):
            at[d.value[x]][o.example_id[x]] = bool(o.correct[x])
        cells = [Cell(label)]
        for pi, (i, j) in enumerate(pairs):
            common = sorted(set(at[i]) & set(at[j]))
            if not common:
                cells.append(Cell(DASH))
                continue
            gained = [e for e in common if not at[i][e] and at[j][e]]
            lost = [e for e in common if at[i][e] and not at[j][e]]
            test = mcnemar_exact(len(gained), len(lost))
            anchor = f"{key}-r{r}-c{pi}"
            mde = mcnemar_detectable_difference(len(common), test.n / len(common))
            cells.append(Cell(f"+{len(gained)} / -{len(lost)} p = {format_pvalue(test.pvalue)} {_mde_text(mde)}", link=anchor))
            values.append(CellValue(key, label, f"{d.levels[i]} → {d.levels[j]}", "mcnemar", len(gained), len(lost), None,
                                    pvalue=test.pvalue, link=anchor))
            values.append(CellValue(key, label, f"{d.levels[i]} → {d.levels[j]}", "detectable_80", None, len(common), mde))
            lists.append(ExampleList(anchor, f"{title} — {label}, {d.levels[i]} → {d.levels[j]}", (("gained", tuple(gained)), ("lost", tuple(lost)))))
        rows.append(tuple(cells))
    caption = (
        f"Paired comparison of the values of {d.variable_title.lower()} in suite {d.suite} on the examples a model answered at "
        "both values. Each cell: examples that become correct (+) and wrong (-) with the change in the header, and the p-value "
        f"of the exact McNemar test. {_MDE_NOTE_PAIRED}"
    )
    return ReportTable(key, title, caption, ("Model", *[f"{d.levels[i]} → {d.levels[j]}" for i, j in pairs]), tuple(rows), tuple(values), tuple(lists))


def _cost_table(ctx: ReportContext) -> ReportTable:
    d, o = ctx.data, ctx.data.outcomes
    by_level = d.variable in ("reasoning_effort", "context_length")
    key, title = "cost", "Cost, tokens and response time of each model"
    header = ["Model"] + ([d.variable_title.split(" (")[0]] if by_level else []) + [
        "#Examples", "Failed", "Batched", "Input tokens", "Output tokens", "Response time (s)", "Cost per example (¢)", "Total cost ($)"]
    # Failed examples per (row, level).
    failed: dict[tuple[int, int], int] = {}
    for run_i, run in enumerate(d.runs):
        r = int(ctx.run_row[run_i])
        for ex_id in run.failed:
            if d.variable == "reasoning_effort":
                lvl = d.levels.index(level_label("reasoning_effort", run.reasoning_effort or ""))
            elif by_level:
                lvl = d.levels.index(d.example_value(d.examples[ex_id]))
            else:
                lvl = 0
            failed[(r, lvl)] = failed.get((r, lvl), 0) + 1
    rows: list[tuple[Cell, ...]] = []
    values: list[CellValue] = []
    total_all = 0.0
    any_cost = False
    groups = [(r, lvl) for r in range(len(d.row_labels)) for lvl in (range(len(d.levels)) if by_level else (0,))]
    for r, lvl in groups:
        m = d.row == r
        if by_level:
            m = m & (d.value == lvl)
        n_fail = failed.get((r, lvl), 0)
        if not m.any() and not n_fail:
            continue
        cost = o.cost_usd[m]
        known = cost[~np.isnan(cost)]
        total = float(known.sum()) if known.size else None
        if total is not None:
            total_all += total
            any_cost = True
        label = [Cell(d.row_labels[r])] + ([Cell(d.levels[lvl])] if by_level else [])
        rows.append((*label, Cell(str(int(m.sum()))), Cell(str(n_fail)), Cell(str(int(o.batched[m].sum()))), Cell(_mean_sd(o.prompt_tokens[m])),
                     Cell(_mean_sd(o.completion_tokens[m])), Cell(_mean_sd(o.response_time_s[m])),
                     Cell(_mean_sd(100 * cost)), Cell(DASH if total is None else f"{total:,.2f}")))
        row_name = " | ".join(c.text for c in label)
        for name, col in (("prompt_tokens", o.prompt_tokens), ("completion_tokens", o.completion_tokens),
                          ("response_time_s", o.response_time_s), ("cost_usd", o.cost_usd)):
            x = col[m]
            x = x[~np.isnan(x)]
            values.append(CellValue(key, row_name, name, "mean", None, int(x.size), float(x.mean()) if x.size else None))
        values.append(CellValue(key, row_name, "cost_usd", "total", None, int(known.size), total))
        values.append(CellValue(key, row_name, "failed", "count", n_fail, None))
    rows.append((Cell("All models"), *[Cell("")] * (len(header) - 2), Cell(f"{total_all:,.2f}" if any_cost else DASH)))
    caption = (
        f"Answered (#Examples) and failed examples, and mean ± standard deviation per answered example of input tokens, output "
        "tokens (completion tokens as the provider reports them, reasoning included), response time of the successful request, "
        f"and cost (LiteLLM's estimate, US cents), with the total cost in US dollars, in suite {d.suite}. Failed examples "
        "(calls that failed for good) are not in any accuracy. Batched: answers sent through the provider's batch API "
        "(graphniah run --batch), priced at the batch price. A dash: not reported by the provider."
    )
    return ReportTable(key, title, caption, tuple(header), tuple(rows), tuple(values), label_columns=2 if by_level else 1)


def build_tables(ctx: ReportContext) -> list[ReportTable]:
    """Every table that applies to the suite, in the order of the report."""
    d, o = ctx.data, ctx.data.outcomes
    tables = [_accuracy_table(ctx, None)]
    tasks = [t for t in TASKS if (o.task == t).any()]
    if d.variable != "task" and len(tasks) > 1:
        tables += [_accuracy_table(ctx, t) for t in tasks]
    for make in (_labels_table, _no_rate_table, _counting_table, _counting_by_size_table):
        t = make(ctx)
        if t is not None:
            tables.append(t)
    tables += _none_option_tables(ctx)

    tables += list_tables(ctx) + evidence_tables(ctx)
    for make in (_pairwise_table, _paired_table):
        t = make(ctx)
        if t is not None:
            tables.append(t)
    tables.append(_cost_table(ctx))
    return tables
