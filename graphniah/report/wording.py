"""Is a score a property of the model or of the wording? The report of a suite that varies ``template``.

A suite whose ``template`` is a list (``prompt-sensitivity``) asks every example once per template
set: the same forest and context, only the wording differs (``graphniah.text.prompts``). The
examples are matched across sets by their recipe without the wording (``ExampleInfo.wording_key``),
and each model is compared with itself on the examples it answered under every set:

- ``wording``: accuracy per set with Wilson intervals, the spread (best minus worst set) with a
  bootstrap interval over examples, and Cochran's Q across the sets; under the table, one sentence
  per model ("the wording moves this model's accuracy by X points [lo, hi]") and, for two or more
  models, one per pair ("the ranking of A over B holds in k of K wordings") with Kendall's τ of the
  models' ranking between every two sets;
- ``wording_pairs``: every pair of sets by the exact McNemar test, Holm-adjusted per model.

The accuracy table's caption also says for how many examples the context is the same text in every
set (the sampler packs it to fit every set's prompt; where it could not, the contexts differ and the
caption names those examples: :func:`shared_contexts`).

:func:`wording_tables` gives both (none for a suite in one wording), in :mod:`graphniah.report`'s
table model; the statistics are :mod:`graphniah.stats.paired`'s.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from itertools import combinations

import numpy as np
import numpy.typing as npt

from graphniah.baselines import is_baseline_model
from graphniah.errors import GraphNIAHError
from graphniah.formats.examples import iter_examples
from graphniah.report.grid import ReportContext
from graphniah.report.table import Cell, CellValue, ReportTable, pct
from graphniah.seeds import DEFAULT_SEED, Stream, generator
from graphniah.stats import (
    PairedComparison,
    Spread,
    accuracy_spread,
    cochran_q,
    format_pvalue,
    kendall_tau,
    pairwise_mcnemar_holm,
    proportion,
    ranking_agreement,
)
from graphniah.text import Undetermined, split_messages
from graphniah.text.prompts import load_template

__all__ = ["WordingRun", "shared_contexts", "wording_runs", "wording_sentences", "wording_tables"]


@dataclass(frozen=True)
class WordingRun:
    """One model's right/wrong table over the examples it answered in every template set."""

    label: str
    sets: tuple[str, ...]
    correct: npt.NDArray[np.int64]  # examples × sets, 1 = right
    spread: Spread
    cochran: float  # Cochran's Q p-value
    cochran_q: float
    pairs: tuple[PairedComparison, ...]

    @property
    def accuracy(self) -> npt.NDArray[np.float64]:
        return np.asarray(self.correct.mean(axis=0), dtype=np.float64)


def _sets(ctx: ReportContext) -> tuple[str, ...]:
    """The template sets of the suite's answered examples, default first, then in name order."""
    names = {ctx.data.examples[i].template for i in ctx.data.outcomes.example_id.tolist()}
    return tuple(sorted(names, key=lambda n: (n != "default", n)))


def wording_runs(ctx: ReportContext, seed: int = DEFAULT_SEED) -> list[WordingRun]:
    """Per run, the complete example × set table and its statistics (empty when one set is asked); the
    shortcut baselines are left out (they read prompts in the default set's wording only)."""
    d, o = ctx.data, ctx.data.outcomes
    sets = _sets(ctx)
    if len(sets) < 2:
        return []
    col = {s: j for j, s in enumerate(sets)}
    runs: list[WordingRun] = []
    for r, info in enumerate(d.runs):
        if is_baseline_model(info.model):  # the shortcut baselines read the default set's wording only
            continue
        rows: dict[str, npt.NDArray[np.int64]] = {}
        mine = np.flatnonzero(o.run == r)
        for i in mine.tolist():
            ex = d.examples[str(o.example_id[i])]
            row = rows.setdefault(ex.wording_key, np.full(len(sets), -1, dtype=np.int64))
            row[col[ex.template]] = int(bool(o.correct[i]))
        complete = [row for row in rows.values() if (row >= 0).all()]
        if not complete:
            continue
        table = np.vstack(complete)
        spread = accuracy_spread(table, sets, generator(Stream.WORDING_BOOTSTRAP, seed), ctx.cfg.confidence)
        q = cochran_q(table)
        runs.append(WordingRun(info.label, sets, table, spread, q.pvalue, q.statistic, pairwise_mcnemar_holm(table, sets)))
    return runs


def shared_contexts(ctx: ReportContext) -> tuple[int, tuple[str, ...]] | None:
    """How many examples asked in several sets have one context text in all of them, and the ids of
    those whose contexts differ (None when the examples file cannot be read again: a dataset folder).

    The context of each worded example is read from its messages with its own set's templates.
    """
    d = ctx.data
    if not d.examples_path.is_file():
        return None
    contexts: dict[str, set[str]] = defaultdict(set)
    ids: dict[str, list[str]] = defaultdict(list)
    for ex in iter_examples(d.examples_path):
        info = d.examples.get(ex.id)
        if info is None or not ex.recipe.params.templates:
            continue
        try:
            text = split_messages(ex.messages, load_template(info.template))[2]
        except (Undetermined, GraphNIAHError):
            text = f"unreadable {ex.id}"
        contexts[info.wording_key].add(text)
        ids[info.wording_key].append(ex.id)
    differ = tuple(i for key, group in contexts.items() if len(group) > 1 for i in ids[key])
    return sum(len(group) == 1 for group in contexts.values()), differ


def wording_sentences(runs: list[WordingRun]) -> list[str]:
    """The sentences a reader can quote: the wording effect per model, the ranking's stability per pair."""
    out = []
    for w in runs:
        s = w.spread
        ends = f"{s.best} best, {s.worst} worst, " if s.value > 0 else ""
        out.append(
            f"The wording moves {w.label}'s accuracy by {100 * s.value:.1f} points [{100 * s.interval.low:.1f}, "
            f"{100 * s.interval.high:.1f}] ({ends}over {s.n} examples asked in {len(w.sets)} wordings; "
            f"Cochran's Q p = {format_pvalue(w.cochran)}: "
            + ("the wordings differ" if w.cochran < 0.05 else "no difference between the wordings shown") + ")."
        )
    for a, b in combinations(runs, 2):
        if a.sets != b.sets:
            continue
        k = ranking_agreement(a.accuracy, b.accuracy)
        first, second, wins = (a, b, k) if 2 * k >= len(a.sets) else (b, a, ranking_agreement(b.accuracy, a.accuracy))
        out.append(f"The ranking of {first.label} over {second.label} holds in {wins} of {len(a.sets)} wordings.")
    if len(runs) >= 2 and len({w.sets for w in runs}) == 1:
        acc = np.vstack([w.accuracy for w in runs])  # runs × sets
        taus = [kendall_tau(acc[:, i], acc[:, j]) for i, j in combinations(range(acc.shape[1]), 2)]
        finite = [t for t in taus if np.isfinite(t)]
        if finite:
            out.append(f"Kendall's τ between the models' rankings under two wordings: mean {np.mean(finite):.2f}, "
                       f"lowest {min(finite):.2f} ({len(finite)} pairs of wordings).")
    return out


def _accuracy_table(ctx: ReportContext, runs: list[WordingRun]) -> ReportTable:
    sets = runs[0].sets
    cfg = ctx.cfg
    header = ("Model", *sets, "Spread", "Cochran's Q p")
    rows: list[tuple[Cell, ...]] = []
    values: list[CellValue] = []
    for w in runs:
        cells = [Cell(w.label)]
        best = float(w.accuracy.max())
        for j, s in enumerate(sets):
            p = proportion(int(w.correct[:, j].sum()), w.correct.shape[0], cfg.confidence, z=cfg.z)
            cells.append(Cell(f"{pct(p.estimate)} [{pct(p.interval.low)}, {pct(p.interval.high)}]", bold=p.estimate == best))
            values.append(CellValue("wording", w.label, s, "accuracy", p.k, p.n, p.estimate, p.interval.low, p.interval.high))
        sp = w.spread
        cells.append(Cell(f"{pct(sp.value)} [{pct(sp.interval.low)}, {pct(sp.interval.high)}]"))
        values.append(CellValue("wording", w.label, "Spread", "spread", None, sp.n, sp.value, sp.interval.low, sp.interval.high))
        cells.append(Cell(format_pvalue(w.cochran)))
        values.append(CellValue("wording", w.label, "Cochran's Q p", "cochran_q", None, sp.n, w.cochran_q, pvalue=w.cochran))
        rows.append(tuple(cells))
    n = ", ".join(f"{w.label} {w.correct.shape[0]}" for w in runs)
    caption = (f"Accuracy (%) of each model in each template set, on the examples it answered in every set ({n}), with "
               f"{100 * cfg.confidence:g}% Wilson intervals. Spread: best minus worst set, with a percentile bootstrap "
               "interval over examples (biased upward: the best and worst are chosen from the data). Cochran's Q tests "
               "whether the sets have one accuracy; pairwise tests are in the next table.")
    shared = shared_contexts(ctx)
    if shared is not None:
        same, differ = shared
        caption += (f" The context is one text in every set for {same} examples"
                    + (f"; it differs between sets for {len(differ)} example prompts ({', '.join(differ[:6])}"
                       + (", …" if len(differ) > 6 else "") + ")." if differ else "."))
    return ReportTable("wording", "Accuracy by wording (template set)", caption, header, tuple(rows), tuple(values),
                       verdicts=tuple(wording_sentences(runs)))


def _pairs_table(runs: list[WordingRun]) -> ReportTable:
    header = ("Model", "Sets", "Difference", "Only first right", "Only second right", "p", "p (Holm)")
    rows: list[tuple[Cell, ...]] = []
    values: list[CellValue] = []
    for w in runs:
        for c in w.pairs:
            pair = f"{c.second} − {c.first}"
            rows.append((Cell(w.label), Cell(pair), Cell(f"{100 * c.difference:+.2f}"), Cell(str(c.only_first)),
                         Cell(str(c.only_second)), Cell(format_pvalue(c.pvalue)), Cell(format_pvalue(c.pvalue_holm), bold=c.pvalue_holm < 0.05)))
            values.append(CellValue("wording_pairs", f"{w.label} | {pair}", "Difference", "mcnemar_holm",
                                    c.only_second, c.only_first + c.only_second, c.difference, pvalue=c.pvalue_holm))
    caption = ("Every pair of template sets on the same examples: accuracy difference in points (second minus first), "
               "the discordant examples, the exact McNemar p-value and its Holm adjustment over the pairs of one model "
               "(bold: below 0.05).")
    return ReportTable("wording_pairs", "Pairs of wordings (exact McNemar, Holm-adjusted)", caption, header, tuple(rows),
                       tuple(values), label_columns=2)


def wording_tables(ctx: ReportContext) -> list[ReportTable]:
    """The wording tables of a suite asked in several template sets; none otherwise."""
    runs = wording_runs(ctx)
    if not runs:
        return []
    return [_accuracy_table(ctx, runs), _pairs_table(runs)]
