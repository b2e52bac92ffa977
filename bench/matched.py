"""Benchmark of matched sampling (issues 21 and 27): do titles, subjects or paper counts give the answer away?

On the demo snapshot, for each depth (16 and 32) it samples ``--per-task`` examples of each task
(yesno, mc, count, list; no distractors, as the issues' measurement) once without and once with
``match_similarity`` (which now includes component matching, ``match_components``), and prints side by side:

- YES/NO: accuracy of the median rule (YES when the TF-IDF cosine of source and target titles is
  above the median over the batch) and the AUC of that cosine for YES against NO;
- MC: accuracy of picking the candidate whose title is most similar to the source;
- counting: accuracy of the paper-count rule (distinct papers / 2 − 1), against guessing a size
  uniformly from the size range, and the expected accuracy of the best possible function of the
  paper count (exact, from the size distribution);
- the topic-cluster shortcut (the context's titles grouped by subject, ``graphniah.baselines.topics``):
  YES/NO and MC accuracy against the Wilson interval of chance, counting exact answers against a
  uniform guess of the size and within 5% of the truth, and list F1 against listing every paper;
- MC: picking the candidate with the shortest or the longest title (characters; ties shared);
- the sampling time per example with and without the control, the two batches built alternately
  (the control's one-off index — TF-IDF over all titles, pool endpoints — is printed apart).

Similarities are measured in the sampler's own space (TF-IDF over the snapshot's eligible titles,
``similarity.TitleSpace``). Where the shortcut-baseline library (``graphniah.baselines``) is
installed its ``title-similarity`` and ``paper-count`` shortcuts are scored on the same examples as
well (they fit TF-IDF on the questions' titles alone), and with ``--retrieval`` the retrieval shortcut
too (it reads the citations of the BM25-best 8,000 tokens: how deep a question must be before that
stops answering it; ``--depths 4 8 16 32``). "Within the Wilson interval of random
guessing": the rule's accuracy lies in the 95% Wilson interval of n·p correct answers out of n.

    python bench/matched.py [--snapshot DIR | --root /tmp/graphniah-bench-matched] [--per-task 200] [--depths 8 32] [--retrieval]
"""

from __future__ import annotations

import argparse
import datetime as dt
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa

from graphniah.formats import TASKS
from graphniah.formats.examples import Example
from graphniah.formats.snapshot import Snapshot
from graphniah.sampling.examples.sample import SampleStats, batch_specs, build_example
from graphniah.sampling.examples.spec import MAX_SIZE, MIN_SIZE, SamplingContext
from graphniah.seeds import Stream, generator
from graphniah.stats import wilson_interval

DEPTHS = (16, 32)


def demo_snapshot(root: Path) -> Snapshot:
    """The embedded default (demo release -> snapshot -> pools of 1,000 paths at depths 4-32), built once under ``root``."""
    from graphniah.refresh import refresh

    return refresh(dt.date(2026, 4, 1), root, demo=True).snapshot


@dataclass
class Batch:
    examples: list[Example]
    seconds: list[float]  # per example


def sample_pair(ctx: SamplingContext, task: str, depth: int, n: int, seed: int) -> dict[bool, Batch]:
    """The task's batch without and with the control (same specs otherwise), built alternately,
    example i off then example i on, so that a change in the machine's load hits both alike."""
    specs = {m: batch_specs(task, depth, n, generator(Stream.BATCH, seed), match_similarity=m) for m in (False, True)}  # type: ignore[arg-type]
    out = {m: Batch([], []) for m in (False, True)}
    for i in range(n):
        for m in (False, True):
            t0 = time.perf_counter()
            out[m].examples.append(build_example(ctx, specs[m][i], seed, i, SampleStats()))
            out[m].seconds.append(time.perf_counter() - t0)
    return out


def cosines(ctx: SamplingContext, pairs: Sequence[tuple[int, int]]) -> np.ndarray:
    """TF-IDF cosine of each (corpus id, corpus id) pair in the sampler's title space."""
    a = ctx.graph.vertex_of(np.asarray([p[0] for p in pairs], dtype=np.int64), source="bench")
    b = ctx.graph.vertex_of(np.asarray([p[1] for p in pairs], dtype=np.int64), source="bench")
    titles = ctx._titles
    va = ctx.title_space.vectors(titles.take(pa.array(a)))
    vb = ctx.title_space.vectors(titles.take(pa.array(b)))
    return np.asarray(va.multiply(vb).sum(axis=1)).ravel()


def auc(pos: np.ndarray, neg: np.ndarray) -> float:
    """P(a YES cosine > a NO cosine) + ½ P(tie): the Mann-Whitney AUC."""
    if pos.size == 0 or neg.size == 0:
        return float("nan")
    greater = (pos[:, None] > neg[None, :]).mean()
    ties = (pos[:, None] == neg[None, :]).mean()
    return float(greater + 0.5 * ties)


def within_chance(correct: int, n: int, p: float) -> str:
    iv = wilson_interval(round(n * p), n)
    ok = iv.low <= correct / n <= iv.high
    return f"{100 * correct / n:5.1f}% (chance {100 * p:.1f}%, Wilson [{100 * iv.low:.1f}, {100 * iv.high:.1f}]) {'ok' if ok else 'OUTSIDE'}"


def yesno_lines(ctx: SamplingContext, ex: list[Example]) -> list[str]:
    cos = cosines(ctx, [(e.source, e.targets[0]) for e in ex])
    yes = np.asarray([e.answer == "YES" for e in ex])
    rule = cos > np.median(cos)
    a = auc(cos[yes], cos[~yes])
    return [f"  yesno median rule   {within_chance(int((rule == yes).sum()), len(ex), 0.5)}",
            f"  yesno AUC YES vs NO {a:.3f} {'ok' if 0.44 <= a <= 0.56 else 'OUTSIDE'} [0.44, 0.56]"]


def mc_line(ctx: SamplingContext, ex: list[Example]) -> str:
    cos = cosines(ctx, [(e.source, t) for e in ex for t in e.targets]).reshape(len(ex), -1)
    picks = np.argmax(cos, axis=1)
    truth = np.asarray(["ABCD".index(e.answer) for e in ex])
    return f"  mc most similar     {within_chance(int((picks == truth).sum()), len(ex), 0.25)}"


def best_of_total(lo: int, hi: int, matched: bool) -> float:
    """Accuracy of the best possible function of the total paper count (two components, no
    distractors): the source's size s uniform in [lo, hi]; the other's equal to it (unmatched) or
    uniform among the other sizes (matched). Sum over totals T of max_s P(s, T)."""
    sizes = np.arange(lo, hi + 1)
    if not matched:
        return 1.0
    joint: dict[int, dict[int, float]] = {}
    p = 1 / (len(sizes) * (len(sizes) - 1))
    for s in sizes.tolist():
        for o in sizes.tolist():
            if o != s:
                joint.setdefault(s + o, {}).setdefault(s, 0.0)
                joint[s + o][s] += p
    return sum(max(v.values()) for v in joint.values())


def count_lines(ex: list[Example], matched: bool) -> list[str]:
    total = np.asarray([len(e.papers) for e in ex])  # no distractors: the context names exactly these papers
    answer = np.asarray([int(e.answer) for e in ex])
    rule = int((total // 2 - 1 == answer).sum())
    sizes = MAX_SIZE - MIN_SIZE + 1
    best = best_of_total(MIN_SIZE, MAX_SIZE, matched)
    return [f"  count paper-count   {rule}/{len(ex)} correct (papers / 2 - 1); uniform size guess expects {len(ex) / sizes:.2f} "
            f"({'ok' if rule <= len(ex) / sizes else 'ABOVE'})",
            f"  count best f(total) {100 * best:.2f}% expected for the best possible function of the paper count "
            f"(uniform size guess {100 / sizes:.2f}%)"]


LIBRARY_SHORTCUTS = ("title-similarity", "paper-count")  # topic-cluster: topic_lines


def library_lines(examples: list[Example], names: Sequence[str] = LIBRARY_SHORTCUTS) -> list[str]:
    try:
        from graphniah.baselines import shortcuts
    except ImportError:
        return ["  (graphniah.baselines not installed: library shortcuts skipped)"]
    out = []
    for name in names:
        answers = shortcuts.answer(name, examples)
        by_task: dict[str, list[bool]] = {}
        for e in examples:
            if e.id in answers:
                by_task.setdefault(e.task, []).append(answers[e.id] == e.answer)
        out.append(f"  library {name}: " + ", ".join(f"{t} {100 * np.mean(v):.1f}% of {len(v)}" for t, v in by_task.items()))
    return out


def length_lines(ex: list[Example]) -> list[str]:
    """MC: the chance that picking the shortest (longest) candidate title, ties at random, is right."""
    truth = np.asarray(["ABCD".index(e.answer) for e in ex])
    out = []
    for name, sign in (("shortest", -1), ("longest", 1)):
        got = 0.0
        for e, t in zip(ex, truth, strict=True):
            lengths = sign * np.asarray([len(o) for o in e.options])
            best = lengths == lengths.max()
            got += best[t] / best.sum()
        out.append(f"  mc {name} title     {within_chance(round(got), len(ex), 0.25)}")
    return out


def topic_lines(batches: dict[str, list[Example]]) -> list[str]:
    """The topic-cluster shortcut on each task, against the task's chance level (module docstring)."""
    from graphniah.baselines.shortcuts import response_text
    from graphniah.baselines.topics import topic_cluster
    from graphniah.report.listing import trivial_f1
    from graphniah.scoring import score_response

    out = []
    for task, ex in batches.items():
        answers = topic_cluster(ex)
        scored = [score_response(e.task, e.answer, response_text(answers.get(e.id))) for e in ex]
        k, n = sum(s.correct for s in scored), len(ex)
        if task in ("yesno", "mc"):
            out.append(f"  topic-cluster {task:5s} {within_chance(k, n, 0.5 if task == 'yesno' else 0.25)}")
        elif task == "count":
            p = 1 / (MAX_SIZE - MIN_SIZE + 1)
            iv = wilson_interval(k, n)
            near = sum(answers.get(e.id) is not None and abs(int(answers[e.id] or 0) - int(e.answer)) <= 0.05 * int(e.answer) for e in ex)
            out.append(f"  topic-cluster count exact {k}/{n} = {100 * k / n:.1f}% [{100 * iv.low:.1f}, {100 * iv.high:.1f}] against a "
                       f"uniform size guess {100 * p:.2f}% ({'ok' if iv.low <= p else 'ABOVE'}); within 5%: {100 * near / n:.1f}%")
        else:
            f1 = float(np.mean([s.listing.f1 for s in scored if s.listing is not None] or [0.0]))
            every = float(np.mean([trivial_f1(e.component_size, len(e.papers)) for e in ex]))
            out.append(f"  topic-cluster list  F1 {100 * f1:.1f}% against listing every paper {100 * every:.1f}% "
                       f"({'ok' if f1 <= every else 'ABOVE'}); exact sets {k}/{n}")
    return out


def run_depth(ctx: SamplingContext, depth: int, n: int, seed: int, names: Sequence[str] = LIBRARY_SHORTCUTS,
              tasks: Sequence[str] = TASKS) -> None:
    """Print the measurements at one depth, without and with the control."""
    t0 = time.perf_counter()
    ctx.match_index(depth)
    ctx.component_index(depth)
    print(f"\ndepth {depth}: match index {time.perf_counter() - t0:.2f}s once; {n} examples per task, no distractors")
    pairs = {task: sample_pair(ctx, task, depth, n, seed) for task in tasks}
    for matched in (False, True):
        batches = {task: pairs[task][matched] for task in tasks}
        print(f" match_similarity {'on' if matched else 'off'}:")
        lines = [*yesno_lines(ctx, batches["yesno"].examples)] if "yesno" in batches else []
        if "mc" in batches:
            lines += [mc_line(ctx, batches["mc"].examples), *length_lines(batches["mc"].examples)]
        if "count" in batches:
            lines += count_lines(batches["count"].examples, matched)
        print(*lines, sep="\n")
        print(*topic_lines({t: b.examples for t, b in batches.items()}), sep="\n")
        print(*library_lines([e for b in batches.values() for e in b.examples], names), sep="\n")
        print("  seconds per example (mean): " + ", ".join(f"{t} {np.mean(b.seconds):.3f}" for t, b in batches.items()))
    ratio = {t: float(np.sum(pairs[t][True].seconds) / np.sum(pairs[t][False].seconds)) for t in tasks}
    print("  time ratio on/off (examples built alternately): " + ", ".join(f"{t} {r:.2f}x" for t, r in ratio.items())
          + f" (target <= 1.5x: {'ok' if max(ratio.values()) <= 1.5 else 'ABOVE'})")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--snapshot", type=Path, help="a built snapshot folder (default: the demo, built once under --root)")
    ap.add_argument("--root", type=Path, default=Path("/tmp/graphniah-bench-matched"))
    ap.add_argument("--per-task", type=int, default=200)
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--depths", type=int, nargs="+", default=list(DEPTHS))
    ap.add_argument("--tasks", nargs="+", default=list(TASKS), choices=TASKS)
    ap.add_argument("--retrieval", action="store_true",
                    help="also score the retrieval shortcut (BM25 top 8,000 tokens, then exact reasoning; slower)")
    args = ap.parse_args()
    names = (*LIBRARY_SHORTCUTS, "retrieval") if args.retrieval else LIBRARY_SHORTCUTS

    snap = Snapshot.open(args.snapshot) if args.snapshot else demo_snapshot(args.root)
    ctx = SamplingContext(snap)
    t0 = time.perf_counter()
    ctx.title_space  # noqa: B018 - built here so that it is timed apart from the examples
    print(f"snapshot {snap.path}: {ctx.graph.n:,} papers; TF-IDF over all titles {time.perf_counter() - t0:.1f}s once")
    for depth in args.depths:
        run_depth(ctx, depth, args.per_task, args.seed, names, args.tasks)


if __name__ == "__main__":
    main()
