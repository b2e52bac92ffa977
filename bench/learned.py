"""Benchmark of the learned-surface shortcut on the demo snapshot, control off and on (issue 36).

For each setting (the paper's sampling, then matched sampling: ``match_similarity``), a suite of
``--per-task`` questions per task at ``--depth`` without distractors is drawn (seed ``--seed``) and
written as an examples file; ``graphniah.baselines.learned.learned_surface`` then trains on its own
draw of that design (``--train`` questions per task, another seed, sources disjoint) and answers
the suite. Printed per task: accuracy with its 95% Wilson interval, guessing, and for the list task
the mean F1; then the training draw (sizes, out-of-fold score of the
answer rule) and the seconds spent sampling the suite, training and answering.

Everything lives under ``bench/.data/learned/`` (git-ignored); a second run reuses the snapshot,
the suites and the cached scorers, so delete the folder to time training again.

    python bench/learned.py [--per-task 100] [--train 200] [--depth 16] [--seed 7] [--tasks yesno mc count list] [--control both|off|on]
    python bench/learned.py --examples DIR/yesno-depth32-on.jsonl DIR/mc-depth32-on.jsonl [--train 1000]

``--examples`` scores saved examples files instead (e.g. ``bench/learned_matching.py --save DIR``, so that
learned-surface answers the very questions the other shortcuts and the fresh classifier answered): they
are joined into one suite (``suites/given-<first file's name>``) and learned-surface trains on that
suite's design.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from matched import demo_snapshot

from graphniah.formats.examples import Example, read_examples, write_examples
from graphniah.progress import NO_PROGRESS
from graphniah.sampling.examples.sample import batch_specs, build_example
from graphniah.sampling.examples.spec import SamplingContext
from graphniah.seeds import Stream, generator
from graphniah.stats import wilson_interval

ROOT = Path(__file__).resolve().parent / ".data" / "learned"
CHANCE = {"yesno": 0.5, "mc": 0.25}


def suite(ctx: SamplingContext, tasks: list[str], depth: int, n: int, seed: int, matched: bool) -> tuple[Path, float]:
    """The examples file of one setting (built once) and the seconds its sampling took (0 when cached)."""
    # "on-slots": matched suites since YES/NO and multiple choice take distinct sources (source_slot)
    path = ROOT / "suites" / f"d{depth}-n{n}-s{seed}-{'on-slots' if matched else 'off'}-{'-'.join(tasks)}.jsonl"
    if path.is_file():
        return path, 0.0
    t0 = time.perf_counter()
    examples: list[Example] = []
    for k, task in enumerate(tasks):
        specs = batch_specs(task, depth, n, generator(Stream.BATCH, seed + k), match_similarity=matched)  # type: ignore[arg-type]
        examples += [build_example(ctx, spec, seed, k * n + i) for i, spec in enumerate(specs)]
    path.parent.mkdir(parents=True, exist_ok=True)
    write_examples(path, examples)
    return path, time.perf_counter() - t0


def report(path: Path, train: int, snapshots: Path) -> None:
    from graphniah.baselines.learned import learned_surface
    from graphniah.baselines.shortcuts import response_text
    from graphniah.scoring import score_response

    examples = read_examples(path)
    t0 = time.perf_counter()
    answers, scorer = learned_surface(examples, runs_root=ROOT / "runs", snapshots=snapshots, examples_path=path, per_task=train,
                                      progress=NO_PROGRESS)
    seconds = time.perf_counter() - t0
    for task in dict.fromkeys(ex.task for ex in examples):
        exs = [ex for ex in examples if ex.task == task and ex.id in answers]
        scored = [score_response(task, ex.answer, response_text(answers[ex.id])) for ex in exs]
        k = sum(s.correct for s in scored)
        lo, hi = wilson_interval(k, len(exs))
        line = f"  {task:6s} {100 * k / len(exs):5.1f}% [{100 * lo:.1f}, {100 * hi:.1f}] of {len(exs)}"
        if task in CHANCE:
            line += f"  (guessing {100 * CHANCE[task]:.0f}%)"
        if task == "list":
            f1 = sum(s.listing.f1 for s in scored if s.listing is not None) / len(exs)
            line += f"  mean F1 {f1:.3f}"
        print(line)
    t = scorer.training
    print(f"  training draw: seed {t['seed']}, drawn {t['drawn_per_task']}, suite papers kept out {t['suite_papers_kept_out']} "
          f"(tuples drawn again {t['redrawn_for_a_suite_paper']}, failed and replaced {t['failed_and_replaced']}), "
          f"out-of-fold {({k: round(v, 3) for k, v in t['out_of_fold'].items()})}, rule {scorer.rule}")
    print(f"  learned-surface: {seconds:.1f}s (training included unless the scorer was cached), model {scorer.model_hash[:12]}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--per-task", type=int, default=100)
    ap.add_argument("--train", type=int, default=200)
    ap.add_argument("--depth", type=int, default=16)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--tasks", nargs="+", default=["yesno", "mc", "count", "list"])
    ap.add_argument("--control", choices=["both", "off", "on"], default="both", help="which settings to run (default both)")
    ap.add_argument("--examples", type=Path, nargs="+", help="saved examples files of one depth, scored as one suite")
    args = ap.parse_args()
    if args.examples:
        path = ROOT / "suites" / f"given-{args.examples[0].name}"
        path.parent.mkdir(parents=True, exist_ok=True)
        write_examples(path, [ex for f in args.examples for ex in read_examples(f)])
        print(f"given examples: {' '.join(map(str, args.examples))} ({path.name})", flush=True)
        report(path, args.train, ROOT / "snapshots")
        return
    snap = demo_snapshot(ROOT / "snapshots")
    ctx = SamplingContext(snap)
    for matched in {"both": (False, True), "off": (False,), "on": (True,)}[args.control]:
        path, sampled = suite(ctx, args.tasks, args.depth, args.per_task, args.seed, matched)
        print(f"control {'on' if matched else 'off'}: depth {args.depth}, {args.per_task} per task, no distractors "
              f"(sampled in {sampled:.1f}s; {path.name})", flush=True)
        report(path, args.train, ROOT / "snapshots")


if __name__ == "__main__":
    main()
