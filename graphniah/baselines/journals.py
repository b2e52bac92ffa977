"""Writing the shortcuts' answers as run journals beside the models' (``graphniah baselines``).

Each shortcut becomes ``<runs>/<suite>/baseline-<name>.jsonl`` with one
:class:`~graphniah.formats.journal.RunRecord` per answered example and its settings file
``baseline-<name>.settings.json`` (:class:`~graphniah.formats.journal.RunSettings`), so every
reader of journals — the report, the viewer, ``graphniah score`` — takes a shortcut for one more
model. The response is ``\\answer{X}`` (or empty when the shortcut gives no answer), scored again by
:mod:`graphniah.scoring` like any model's.

A shortcut's answers are a function of the whole examples file (title-similarity fits its
vocabulary and median on all the suite's questions), so the journal is written whole, atomically,
each time rather than appended to: after a run it holds exactly the answers to the current file.
The settings hash covers the shortcut's name, its rule version and its parameters.
"""

from __future__ import annotations

import datetime as dt
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from graphniah.atomic import atomic_write_text, canonical_json, sha256_bytes
from graphniah.baselines import BUDGET_TOKENS, SHORTCUTS, TRAINING_PER_TASK, ShortcutName, model_name
from graphniah.errors import GraphNIAHError
from graphniah.formats.examples import Example, read_examples
from graphniah.formats.journal import RunRecord, RunSettings, RunSettingsEntry
from graphniah.layout import RUNS_ROOT, SNAPSHOTS_ROOT, journal_file, settings_file
from graphniah.progress import NO_PROGRESS, Progress
from graphniah.seeds import DEFAULT_SEED
from graphniah.text import PromptSet

if TYPE_CHECKING:
    from graphniah.baselines.training import Scorer

__all__ = ["RULES_VERSION", "BaselineJournal", "settings_of", "write_baselines"]

#: Bumped when a shortcut's rule changes, so old and new answers get different settings hashes.
RULES_VERSION = 1


@dataclass(frozen=True)
class BaselineJournal:
    """One shortcut's journal: where it is, and its answers (``{example id: answer or None}``)."""

    shortcut: ShortcutName
    path: Path
    settings_hash: str
    answers: dict[str, str | None]


def settings_of(shortcut: ShortcutName, seed: int, scorer: Scorer | None = None) -> dict[str, object]:
    """The inputs of a shortcut's settings hash (``scorer``: learned-surface's trained scorer)."""
    settings: dict[str, object] = {"shortcut": shortcut, "rules_version": RULES_VERSION}
    if shortcut == "learned-surface":
        from graphniah.baselines.pairs import FEATURES
        from graphniah.baselines.training import MODEL_PARAMS, TRAINING_VERSION

        if scorer is None:
            raise GraphNIAHError("the learned-surface settings record its trained scorer; none was given")
        settings |= {"model": "scikit-learn HistGradientBoostingClassifier", "params": MODEL_PARAMS, "features": list(FEATURES),
                     "training_version": TRAINING_VERSION, "training": scorer.training, "model_hash": scorer.model_hash,
                     "thresholds": scorer.rule.thresholds, "count_rule": scorer.rule.count_rule, "seed": seed}
    if shortcut == "retrieval":
        settings |= {"ranking": "bm25s lucene k1=1.5 b=0.75, English stop words", "budget_tokens": BUDGET_TOKENS,
                     "tokenizer": "o200k_base", "seed": seed}
    if shortcut == "topic-cluster":
        from graphniah.baselines.topics import KMEANS_RUNS, NEIGHBOURS

        settings |= {"grouping": "TF-IDF of the context's titles, symmetrised nearest-title graph, normalised spectral "
                                 "embedding, k-means++ (best of runs)", "neighbours": NEIGHBOURS, "kmeans_runs": KMEANS_RUNS,
                     "seed": seed}
    return settings


def _records(examples: Sequence[Example], answers: dict[str, str | None], model: str, settings_hash: str) -> list[RunRecord]:
    from graphniah.baselines.shortcuts import response_text
    from graphniah.scoring import score_response

    now = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
    out = []
    for ex in examples:
        if ex.id not in answers:
            continue
        response = response_text(answers[ex.id])
        scored = score_response(ex.task, ex.answer, response)
        out.append(RunRecord(example_id=ex.id, model=model, settings_hash=settings_hash, status="ok", task=ex.task,
                             answer=ex.answer, response=response, attempts=1, extracted=scored.extracted,
                             correct=scored.correct, finished_at=now))
    return out


def write_baselines(
    examples_path: str | os.PathLike[str],
    suite: str,
    runs_root: str | os.PathLike[str] = RUNS_ROOT,
    *,
    shortcuts: Sequence[ShortcutName] = SHORTCUTS,
    seed: int = DEFAULT_SEED,
    prompts: PromptSet | None = None,
    data: Path | None = None,
    source: str | None = None,
    progress: Progress = NO_PROGRESS,
    snapshots: str | os.PathLike[str] = SNAPSHOTS_ROOT,
    training_per_task: int = TRAINING_PER_TASK,
) -> list[BaselineJournal]:
    """Run ``shortcuts`` on the examples file and write each one's journal under ``<runs_root>/<suite>/``.

    ``source`` is what the settings file records as the examples' origin (default: the file).
    learned-surface trains on a draw of ``training_per_task`` questions per task from the examples'
    snapshot (the suite manifest's, else the one under ``snapshots``), cached under ``<runs_root>/.scorers``.
    """
    from graphniah.baselines.shortcuts import answer

    examples = read_examples(examples_path)
    out = []
    for shortcut in shortcuts:
        progress.note(f"shortcut {shortcut} on {len(examples)} examples")
        scorer = None
        if shortcut == "learned-surface":
            from graphniah.baselines.learned import learned_surface

            answers, scorer = learned_surface(examples, prompts, seed=seed, data=data, runs_root=runs_root, snapshots=snapshots,
                                              examples_path=Path(examples_path), per_task=training_per_task, progress=progress)
        else:
            answers = answer(shortcut, examples, prompts, seed=seed, data=data)
        model = model_name(shortcut)
        settings = settings_of(shortcut, seed, scorer)
        h = sha256_bytes(canonical_json(settings).encode())
        path = journal_file(runs_root, suite, model)
        path.parent.mkdir(parents=True, exist_ok=True)
        records = _records(examples, answers, model, h)
        atomic_write_text(path, "".join(r.model_dump_json() + "\n" for r in records))
        entry = RunSettingsEntry(model=model, settings=settings, examples=source or str(examples_path),
                                 first_run=dt.datetime.now(dt.UTC).isoformat(timespec="seconds"))
        atomic_write_text(settings_file(path), RunSettings(runs={h: entry}).model_dump_json(indent=2) + "\n")
        out.append(BaselineJournal(shortcut, path, h, answers))
    return out
