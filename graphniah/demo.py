"""The main job on the embedded default (`make demo`): the whole pipeline on the synthetic demo release.

    refresh (demo release → store + diffs → snapshot → pruned sets → path pools)
      → build the ``demo`` suite (examples with distractors, packed to the context length)
      → run it through LiteLLM against the local oracle, random and always-NO endpoints
      → score each journal (accuracy with 95% Wilson intervals, per task) next to the exact
        random-guessing baseline.

Each step is resumable and idempotent: a second ``make demo`` reuses the snapshot, the pools, the
built examples and the finished calls in the journals.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from graphniah.examples.records import iter_examples
from graphniah.refresh import refresh
from graphniah.scoring import RunScore
from graphniah.snapshot import Snapshot
from graphniah.stats import CountingAnswers, MultipleChoiceAnswers, YesNoAnswers, random_baseline
from graphniah.suites import build_suite, load_suite

BASELINES = ("oracle", "random", "always-no")
DEMO_SUITE = "demo"

Log = Callable[[str], None]


@dataclass(frozen=True)
class DemoResult:
    snapshot: Snapshot
    examples: Path
    scores: dict[str, RunScore]  # registry model name -> score
    baselines: dict[str, float]  # task -> exact random-guessing accuracy


def run_demo(
    root: Path = Path("snapshots"),
    examples_root: Path = Path("examples"),
    runs_root: Path = Path("runs"),
    *,
    cutoff: dt.date = dt.date(2026, 4, 1),
    per_value: int | None = None,
    seed: int = 0,
    workers: int = 2,
    log: Log = print,
) -> DemoResult:
    """Run the demo pipeline end to end and return the scores of the three local baselines."""
    # Imported here: LiteLLM's import is slow, and only this step needs it.
    from graphniah.models import get_model
    from graphniah.runner import RunOptions, journal_path, read_journal, run_suite
    from graphniah.scoring import score_records
    from graphniah.serve.baseline import BaselineServer

    snap = refresh(cutoff, root, demo=True, log=log).snapshot
    suite = load_suite(DEMO_SUITE)
    log(f"building suite {suite.name}: {suite.description}")
    built = build_suite(suite, snap, seed, out_root=examples_root, per_value=per_value, workers=workers)
    log(f"{built.n_examples} examples in {built.examples_path} ({built.reused} reused)")

    scores: dict[str, RunScore] = {}
    for policy in BASELINES:
        name = f"local-{policy}"
        with BaselineServer(policy, seed=seed) as server:  # type: ignore[arg-type]
            entry = get_model(name).with_overrides(api_base=server.url)
            summary = run_suite(
                entry,
                built.examples_path,
                suite=suite.name,
                runs_root=runs_root,
                snapshots_root=root,
                options=RunOptions(concurrency=4, progress=False),
            )
        log(f"{name}: sent {summary.sent}, ok {summary.ok}, failed {summary.failed} in {summary.elapsed_s:.1f}s")
        records = [r for r in read_journal(journal_path(runs_root, suite.name, name)) if r.settings_hash == entry.settings_hash]
        scores[name] = score_records(records)

    none_option = any(ex.none_option for ex in iter_examples(built.examples_path))
    baselines = {
        "yesno": float(random_baseline(YesNoAnswers())),
        "mc": float(random_baseline(MultipleChoiceAnswers(none_option=none_option))),
        "count": float(random_baseline(CountingAnswers(suite.draw.component_size.min, suite.draw.component_size.max))),
    }
    return DemoResult(snap, built.examples_path, scores, baselines)
