"""Benchmark of matching on a learned score (issue 36, items 3-4): can a reader of the surface still tell the true option?

On the demo snapshot, at each depth (16 and 32), it samples ``--per-task`` YES/NO and multiple-choice
examples (no distractors) with the control off and with it on (``graphniah sample --match-similarity``:
``batch_specs(match_similarity=True)``, which matches the wrong answers on the snapshot's frozen
learned scorer, ``match_learned``), and prints for each:

- the shortcuts ``title-similarity`` and ``topic-cluster`` (``graphniah.baselines``; ``learned-surface``
  too when the library has it) against the 95% Wilson interval of chance, in both directions;
- the AUC of the frozen scorer (``graphniah.sampling.examples.learned``) between the true option and
  the wrong ones (YES/NO: the YES targets against the NO targets);
- each visible cue (the columns of ``graphniah.text.surface.pair_features`` as the prompt prints them:
  the day only where both papers have a block; plus whether the candidate has a block and how often
  it is cited in the context) compared between true and wrong options by a two-sided Mann-Whitney
  test, Holm-adjusted over the cues of the cell;
- a classifier trained anew on the draw (scikit-learn ``HistGradientBoostingClassifier``, 5 folds
  split by question, by source, and by shared papers: questions naming a common paper as source or
  option stay in one fold; not the frozen scorer) on those cues and the source's own: its accuracy on the
  held-out questions (YES/NO: YES when the predicted probability is above 1/2; multiple choice: the
  most probable option) against the same Wilson interval;
- with ``--count-list N``: N counting and N listing examples with the control on, and topic-cluster's
  exact counts (goal at most 3%) and list F1 against listing every paper;
- the sampling time of the on examples against today's matched sampling (the same specs without
  ``match_learned``), the first ``--timing`` examples of each cell built alternately (goal at most 2x);
- per depth, what the weighted draw gives in expectation over every source of the pool that it keeps
  (no sampling noise): the within-question chance that the frozen scorer ranks the true option above a
  wrong one, and that the true option has the most similar title of four (exact weights, three wrong
  options drawn 200 times per source, conflicts among them ignored), with the weights as they are and
  tempered (``exp(0.8 logit)``).

With ``--seeds A B C`` each YES/NO and multiple-choice cell is sampled once per seed (the same snapshot and
frozen scorer) and printed per seed, then pooled: the frozen scorer's AUC over every seed's options, and the
fresh classifier's hits summed over the seeds (each seed trained and scored on its own draw) against the
Wilson interval of chance for the pooled count.

With ``--null N`` the classifier trained anew is also trained on N copies of the draw with the answers
permuted (YES/NO across questions, multiple choice within each question), which gives its null
distribution: on 300 YES/NO questions its accuracy then has a standard deviation of about 4 points, not
the 2.9 of a binomial, so the Wilson interval is too narrow for it.

The examples can be kept (``--save DIR``, one JSONL per cell) for ``graphniah baselines --examples``.

    python bench/learned_matching.py [--snapshot DIR | --root /tmp/graphniah-bench-learned] [--per-task 300] [--depths 16 32]
                                     [--timing 40] [--count-list 100] [--seed 23 | --seeds 101 103 107] [--save DIR]
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import pyarrow as pa
from scipy import stats as sps

sys.path.insert(0, str(Path(__file__).resolve().parent))

from matched import demo_snapshot, topic_lines

from graphniah.formats.examples import Example, write_examples
from graphniah.formats.snapshot import Snapshot
from graphniah.sampling.examples.learned import printed
from graphniah.sampling.examples.sample import SampleStats, batch_specs, build_example
from graphniah.sampling.examples.spec import ExampleSpec, SamplingContext
from graphniah.seeds import Stream, generator
from graphniah.stats import holm, wilson_interval
from graphniah.text.surface import SURFACE_FEATURES, pair_features

TASKS = ("yesno", "mc")
MODES = ("off", "on", "nearest", "weighted")
CHANCE = {"yesno": 0.5, "mc": 0.25}
EXTRA = ("has_block", "cited", "source_has_block", "source_title_words", "source_title_chars", "source_authors")


@dataclass(frozen=True)
class CellScore:
    """What one cell measured, for pooling over seeds: the frozen scorer's logits of the true and the wrong
    options, and the fresh classifier's hits (folds by question, by source) out of ``n`` questions."""

    true_logits: np.ndarray
    wrong_logits: np.ndarray
    by_question: int
    by_source: int
    n: int
    by_papers: int  # folds by shared papers (:func:`paper_folds`)
    cues: np.ndarray  # the visible cues, one row per option (``option_rows(..., as_printed=True)``)
    truth: np.ndarray  # whether the row is the true option


@dataclass
class Cell:
    examples: list[Example]
    seconds: list[float]
    matched_seconds: list[float]  # today's matched sampling, built alternately with the first examples
    redrawn: int = 0  # tuples the matched draw rejected (weighted: a source whose pool is too small to weight)


def cell_specs(task: str, depth: int, n: int, seed: int, mode: str) -> list[ExampleSpec]:
    """The batch of one cell: the control ``off``, ``on`` (today's defaults of ``batch_specs``), ``nearest``
    (the nearest-by-score draw) or ``weighted`` (the density-ratio draw, ``match_weighted``)."""
    specs = batch_specs(task, depth, n, generator(Stream.BATCH, seed), match_similarity=mode != "off")  # type: ignore[arg-type]
    if mode in ("nearest", "weighted"):
        specs = [replace(s, match_learned=True, match_weighted=mode == "weighted") for s in specs]
    return specs


def sample_cell(ctx: SamplingContext, task: str, depth: int, n: int, seed: int, mode: str, timing: int) -> Cell:
    specs = cell_specs(task, depth, n, seed, mode)
    cell = Cell([], [], [])
    for i, spec in enumerate(specs):
        if mode != "off" and i < timing:  # today's matched sampling, same spec without the learned score
            t0 = time.perf_counter()
            build_example(ctx, replace(spec, match_learned=False, match_weighted=False, source_slot=None), seed, i, SampleStats())
            cell.matched_seconds.append(time.perf_counter() - t0)
        stats = SampleStats()
        t0 = time.perf_counter()
        cell.examples.append(build_example(ctx, spec, seed, i, stats))
        cell.seconds.append(time.perf_counter() - t0)
        cell.redrawn += stats.rejects["paths_no_match"]
    return cell


def _cosine(ctx: SamplingContext, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    titles = ctx._titles
    va = ctx.title_space.vectors(titles.take(pa.array(a)))
    vb = ctx.title_space.vectors(titles.take(pa.array(b)))
    return np.asarray(va.multiply(vb).sum(axis=1)).ravel()


def option_rows(ctx: SamplingContext, e: Example, as_printed: bool) -> tuple[np.ndarray, np.ndarray]:
    """(one feature row per option, whether it is the true one). ``as_printed``: the day only where
    both papers have a block, plus the extra cues (EXTRA); otherwise as the frozen scorer sees them."""
    cid = ctx.graph.corpusids
    verts = ctx.graph.vertex_of(np.asarray([e.source, *e.targets], dtype=np.int64), source="bench")
    meta = ctx.meta(verts)
    papers = [printed(meta[int(cid[v])]) for v in verts]
    citing = {a for a, _ in e.edges}
    cited_by = np.asarray([b for _, b in e.edges], dtype=np.int64)
    if as_printed:
        papers = [replace(p, date=p.date if c in citing else None) for p, c in zip(papers, [e.source, *e.targets], strict=True)]
    cos = _cosine(ctx, np.repeat(verts[0], len(e.targets)), verts[1:])
    x = pair_features(papers[0], papers[1:], cos)
    if as_printed:
        src = papers[0]
        extra = np.column_stack([
            [float(t in citing) for t in e.targets], [float((cited_by == t).sum()) for t in e.targets],
            np.full(len(e.targets), float(e.source in citing)), np.full(len(e.targets), float(len(src.title.split()))),
            np.full(len(e.targets), float(len(src.title))), np.full(len(e.targets), float(len(src.authors))),
        ])
        x = np.hstack([x, extra])
    truth = (np.asarray([e.answer == "YES"]) if e.task == "yesno"
             else np.arange(len(e.targets)) == "ABCD".index(e.answer))
    return x, truth


def auc(pos: np.ndarray, neg: np.ndarray) -> float:
    if pos.size == 0 or neg.size == 0:
        return float("nan")
    return float((pos[:, None] > neg[None, :]).mean() + 0.5 * (pos[:, None] == neg[None, :]).mean())


def verdict(correct: int, n: int, p: float) -> str:
    iv = wilson_interval(round(n * p), n)
    ok = iv.low <= correct / n <= iv.high
    return f"{100 * correct / n:5.1f}% of {n} (chance {100 * p:.0f}%, [{100 * iv.low:.1f}, {100 * iv.high:.1f}]) {'ok' if ok else 'OUTSIDE'}"


def fresh_classifier(x: np.ndarray, y: np.ndarray, groups: np.ndarray, task: str, folds: np.ndarray | None = None) -> int:
    """Questions answered right by a classifier trained anew on the other folds (split by question, or by
    ``folds``: e.g. the question's source, so a source asked twice is never in both a training and a test fold)."""
    from sklearn.ensemble import HistGradientBoostingClassifier
    from sklearn.model_selection import GroupKFold

    correct = 0
    for train, test in GroupKFold(n_splits=5).split(x, y, groups if folds is None else folds):
        model = HistGradientBoostingClassifier(max_iter=200, learning_rate=0.05, random_state=0).fit(x[train], y[train])
        p = model.predict_proba(x[test])[:, 1]
        if task == "yesno":
            correct += int(((p > 0.5) == y[test]).sum())
            continue
        g = groups[test]
        for q in np.unique(g):
            rows = g == q
            correct += int(y[test][rows][int(np.argmax(p[rows]))])
    return correct


def paper_folds(examples: list[Example]) -> np.ndarray:
    """Per question, a label shared by the questions it is linked to through a paper they both name as
    source or option (union-find): folds split by it never hold one paper in a training and a test fold.

    Why: a paper can be the YES target of one question and the NO target of another (16 such papers in
    a batch of 300 at depth 16, seed 211), so a classifier that remembers papers could learn one answer
    from the other. This split rules that memory out; on seeds 101, 103 and 107 it did not bring depth
    16's figure below chance back to 50% (docs/paper-deviations.md). The union-find is the textbook one
    (as in ``graphniah.text.textcheck``), kept here so the bench imports no private helper."""
    parent = list(range(len(examples)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    first: dict[int, int] = {}
    for i, e in enumerate(examples):
        for paper in (e.source, *e.targets):
            if paper in first:
                parent[root(i)] = root(first[paper])
            else:
                first[paper] = i
    return np.asarray([root(i) for i in range(len(examples))])


def null_line(x: np.ndarray, y: np.ndarray, groups: np.ndarray, task: str, reps: int) -> str:
    """The classifier trained anew (folds by question) on ``reps`` draws with the answers permuted (YES/NO:
    across questions; multiple choice: within each question), for its real null: folds trained on
    overlapping data err together, so its spread exceeds the binomial one the Wilson interval assumes."""
    rng = generator(Stream.MATCH_SCORER, 0, reps)
    n = int(groups.max()) + 1
    hits = []
    for _ in range(reps):
        # groups are contiguous and ascending, so sorting by (group, random) shuffles within each question
        yp = rng.permutation(y) if task == "yesno" else y[np.lexsort((rng.random(y.size), groups))]
        hits.append(fresh_classifier(x, yp, groups, task) / n)
    a = np.asarray(hits)
    return (f"    classifier trained anew on permuted answers ({reps}x, folds by question): mean {100 * a.mean():.1f}%, "
            f"95% range {100 * np.quantile(a, 0.025):.1f}-{100 * np.quantile(a, 0.975):.1f}%, sd {100 * a.std():.1f} points")


def cue_lines(x: np.ndarray, y: np.ndarray) -> list[str]:
    names = (*SURFACE_FEATURES, *EXTRA)
    rows, ps = [], []
    for j, name in enumerate(names):
        a, b = x[y, j], x[~y, j]
        a, b = a[~np.isnan(a)], b[~np.isnan(b)]
        if a.size < 5 or b.size < 5 or np.all(np.concatenate([a, b]) == a[0]):
            rows.append((name, a, b))
            ps.append(1.0)
            continue
        ps.append(float(sps.mannwhitneyu(a, b, alternative="two-sided").pvalue))
        rows.append((name, a, b))
    adjusted = holm(ps)
    return [f"    cue {name:18s} true median {np.median(a) if a.size else float('nan'):8.2f} (n {a.size:4d}) "
            f"wrong {np.median(b) if b.size else float('nan'):8.2f} (n {b.size:4d})  Holm p {q:.3g}{'  DIFFERS' if q < 0.05 else ''}"
            for (name, a, b), q in zip(rows, adjusted, strict=True)]


def shortcut_lines(examples: list[Example], task: str) -> list[str]:
    from graphniah.baselines import shortcuts
    from graphniah.baselines.shortcuts import response_text
    from graphniah.scoring import score_response

    out = []
    names = [n for n in ("title-similarity", "topic-cluster", "learned-surface") if n in getattr(shortcuts, "SHORTCUT_TASKS", {})]
    for name in names:
        try:
            answers = shortcuts.answer(name, examples)  # type: ignore[arg-type]
        except Exception as err:  # a shortcut that needs more (a training draw) is reported, not fatal
            out.append(f"    {name:16s} not scored here ({type(err).__name__}: {err}); run graphniah baselines --examples")
            continue
        k = sum(score_response(e.task, e.answer, response_text(answers.get(e.id))).correct for e in examples)
        out.append(f"    {name:16s} {verdict(k, len(examples), CHANCE[task])}")
    return out


def pick_lines(x: np.ndarray, y: np.ndarray, groups: np.ndarray) -> list[str]:
    """Per cue, how often the option with its largest (smallest) value is the true one (ties: the first
    in the question's random order; NaN counts as the cue's median), as a share of the questions."""
    names = (*SURFACE_FEATURES, *EXTRA)
    n = int(groups.max()) + 1
    out = []
    for j, name in enumerate(names):
        hi = lo = 0
        for q in range(n):
            rows = groups == q
            col = x[rows, j]
            if np.all(np.isnan(col)) or np.nanmin(col) == np.nanmax(col):
                continue
            col = np.where(np.isnan(col), np.nanmedian(col), col)
            hi += int(y[rows][int(np.argmax(col))])
            lo += int(y[rows][int(np.argmin(col))])
        out.append(f"    pick {name:18s} largest {100 * hi / n:5.1f}%  smallest {100 * lo / n:5.1f}%")
    return out


def cell_lines(ctx: SamplingContext, cell: Cell, task: str, depth: int, mode: str, null: int = 0) -> tuple[list[str], CellScore]:
    ex = cell.examples
    scorer = ctx.learned_match(depth, mode == "weighted").scorer
    frozen = [option_rows(ctx, e, False) for e in ex]
    seen = [option_rows(ctx, e, True) for e in ex]
    # YES/NO has one row per question: the YES targets are the true pairs, the NO targets the wrong ones
    s_true = np.concatenate([scorer.logits(x)[t] for x, t in frozen])
    s_wrong = np.concatenate([scorer.logits(x)[~t] for x, t in frozen])
    a = auc(s_true, s_wrong)
    x = np.concatenate([r for r, _ in seen])
    y = np.concatenate([t for _, t in seen])
    groups = np.concatenate([np.full(len(t), i) for i, (_, t) in enumerate(seen)])
    sources = np.concatenate([np.full(len(t), e.source) for e, (_, t) in zip(ex, seen, strict=True)])
    fresh = fresh_classifier(np.nan_to_num(x, nan=-999.0), y, groups, task)
    by_source = fresh_classifier(np.nan_to_num(x, nan=-999.0), y, groups, task, sources)
    linked = paper_folds(ex)
    by_papers = fresh_classifier(np.nan_to_num(x, nan=-999.0), y, groups, task, linked[groups])
    lines = [f"    frozen scorer AUC true vs wrong {a:.3f}",
             f"    classifier trained anew (5 folds by question) {verdict(fresh, len(ex), CHANCE[task])}",
             f"    classifier trained anew (5 folds by source; {len({e.source for e in ex})} distinct sources) "
             f"{verdict(by_source, len(ex), CHANCE[task])}",
             f"    classifier trained anew (5 folds by shared papers; {len(set(linked.tolist()))} linked groups) "
             f"{verdict(by_papers, len(ex), CHANCE[task])}"]
    if null:
        lines.append(null_line(np.nan_to_num(x, nan=-999.0), y, groups, task, null))
    picks = pick_lines(x, y, groups) if task == "mc" else []
    return lines + shortcut_lines(ex, task) + cue_lines(x, y) + picks, CellScore(s_true, s_wrong, fresh, by_source, len(ex), by_papers, x, y)


def pooled_lines(scores: list[CellScore], task: str) -> list[str]:
    """The cells of several seeds pooled: the frozen scorer's AUC over all their options, the fresh
    classifier's hits summed (each seed's classifier trained on its own draw) and each cue's two-sample test."""
    n = sum(c.n for c in scores)
    a = auc(np.concatenate([c.true_logits for c in scores]), np.concatenate([c.wrong_logits for c in scores]))
    per_seed = ", ".join(f"{auc(c.true_logits, c.wrong_logits):.3f}" for c in scores)
    return [f"    pooled frozen scorer AUC true vs wrong {a:.3f} (per seed {per_seed})",
            f"    pooled classifier trained anew (folds by question) {verdict(sum(c.by_question for c in scores), n, CHANCE[task])}",
            f"    pooled classifier trained anew (folds by source)   {verdict(sum(c.by_source for c in scores), n, CHANCE[task])}",
            f"    pooled classifier trained anew (folds by shared papers) {verdict(sum(c.by_papers for c in scores), n, CHANCE[task])}",
            *cue_lines(np.concatenate([c.cues for c in scores]), np.concatenate([c.truth for c in scores]))]


def expected_lines(ctx: SamplingContext, depth: int, reps: int = 200) -> list[str]:
    """The weighted draw in expectation over the pool's kept sources (module docstring): within-question
    P(true logit > wrong logit) and P(the true title is the most similar of four), weights tempered or not."""
    from graphniah.sampling.examples.learned import MIN_EFFECTIVE, effective_size

    index, conflict = ctx.match_index(depth), ctx.pool_index(depth).conflict
    partners, learned = ctx.component_index(depth).partners, ctx.learned_match(depth, weighted=True)
    rng = generator(Stream.MATCH_SCORER, 0, depth)
    got: dict[float, list[tuple[float, float]]] = {1.0: [], 0.8: []}
    n = index.n
    for src in range(2 * n):
        cos = index.cosines_from(src)
        rows = np.flatnonzero(index._near(src, cos, conflict, True, partners, caliper=False))
        if rows.size < 3:
            continue
        tgt = (src + n) % (2 * n)
        both = np.concatenate([[tgt], rows])
        lg = learned(src, both, cos[both])
        for lam, out in got.items():
            w = np.exp(lam * (lg[1:] - lg[1:].max()))
            if effective_size(w) < MIN_EFFECTIVE:
                continue
            p = w / w.sum()
            top = cos[rows][rng.choice(rows.size, size=(reps, 3), p=p)].max(axis=1)
            out.append((float(p[lg[1:] < lg[0]].sum() + 0.5 * p[lg[1:] == lg[0]].sum()),
                        float(np.mean(cos[tgt] > top) + 0.25 * np.mean(cos[tgt] == top))))
    return [f"  expected over the {len(v)} kept sources, weights exp({lam} logit): P(true logit > wrong) "
            f"{np.mean([a for a, _ in v]):.3f}, true title the most similar of four {100 * np.mean([b for _, b in v]):.1f}%"
            for lam, v in got.items()]


def run_cell(ctx: SamplingContext, task: str, depth: int, n: int, seed: int, mode: str, timing: int, save: Path | None,
             name_seed: bool, null: int = 0) -> CellScore:
    """Sample one cell on one seed, print what it measures and return it for pooling."""
    cell = sample_cell(ctx, task, depth, n, seed, mode, timing)
    tag = f"-seed{seed}" if name_seed else ""
    if save is not None:
        save.mkdir(parents=True, exist_ok=True)
        write_examples(save / f"{task}-depth{depth}-{mode}{tag}.jsonl", cell.examples)
    print(f"  {task} control {mode}{' seed ' + str(seed) if name_seed else ''}: {np.mean(cell.seconds):.3f}s per example; "
          f"{cell.redrawn} tuples redrawn by the matched draw")
    lines, score = cell_lines(ctx, cell, task, depth, mode, null)
    print(*lines, sep="\n", flush=True)
    if mode != "off" and cell.matched_seconds:
        k = len(cell.matched_seconds)
        ratio = float(np.sum(cell.seconds[:k]) / np.sum(cell.matched_seconds))
        print(f"    time against today's matched sampling ({k} examples built alternately): {ratio:.2f}x "
              f"({'ok' if ratio <= 2 else 'ABOVE'} 2x)")
    return score


def run_depth(ctx: SamplingContext, depth: int, n: int, seeds: tuple[int, ...], timing: int, count_list: int, save: Path | None,
              tasks: tuple[str, ...] = TASKS, modes: tuple[str, ...] = MODES, null: int = 0) -> None:
    t0 = time.perf_counter()
    ctx.learned_match(depth)
    t1 = time.perf_counter()
    ctx.learned_match(depth, weighted=True)
    print(f"\ndepth {depth}: indexes and frozen scorer {t1 - t0:.1f}s once (scorer {ctx.learned_match(depth).sha256[:12]}), "
          f"the weighted draw's {time.perf_counter() - t1:.1f}s ({ctx.learned_match(depth, weighted=True).sha256[:12]}); "
          f"{n} examples per task, no distractors", flush=True)
    print(*expected_lines(ctx, depth), sep="\n", flush=True)
    for task in tasks:
        for mode in modes:
            scores = [run_cell(ctx, task, depth, n, seed, mode, timing, save, len(seeds) > 1, null) for seed in seeds]
            if len(seeds) > 1:
                print(f"  {task} control {mode}, seeds {' '.join(map(str, seeds))} pooled ({sum(c.n for c in scores)} questions):")
                print(*pooled_lines(scores, task), sep="\n", flush=True)
    seed = seeds[0]
    if count_list:
        batches = {task: [build_example(ctx, s, seed, i, SampleStats()) for i, s in
                          enumerate(batch_specs(task, depth, count_list, generator(Stream.BATCH, seed), match_similarity=True))]
                   for task in ("count", "list")}
        print(f"  count and list, control on, {count_list} each:")
        print(*topic_lines(batches), sep="\n")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--snapshot", type=Path)
    ap.add_argument("--root", type=Path, default=Path("/tmp/graphniah-bench-learned"))
    ap.add_argument("--per-task", type=int, default=300)
    ap.add_argument("--depths", type=int, nargs="+", default=[16, 32])
    ap.add_argument("--timing", type=int, default=40)
    ap.add_argument("--count-list", type=int, default=100)
    ap.add_argument("--seed", type=int, default=23)
    ap.add_argument("--seeds", type=int, nargs="+", help="several seeds: each cell per seed, then pooled (count and list: the first seed)")
    ap.add_argument("--save", type=Path)
    ap.add_argument("--null", type=int, default=0, help="also train the fresh classifier on N draws with permuted answers (its null)")
    ap.add_argument("--tasks", nargs="*", default=list(TASKS), choices=TASKS, help="the YES/NO and MC cells to sample (none: only --count-list)")
    ap.add_argument("--modes", nargs="+", default=list(MODES), choices=MODES,
                    help="off: no control; on: today's defaults; nearest / weighted: the learned score's nearest-neighbour / density-ratio draw")
    args = ap.parse_args()
    snap = Snapshot(args.snapshot) if args.snapshot else demo_snapshot(args.root)
    ctx = SamplingContext(snap)
    print(f"snapshot {snap.path}: {ctx.graph.n:,} papers")
    for depth in args.depths:
        run_depth(ctx, depth, args.per_task, tuple(args.seeds or [args.seed]), args.timing, args.count_list, args.save,
                  tuple(args.tasks), tuple(args.modes), args.null)


if __name__ == "__main__":
    main()
