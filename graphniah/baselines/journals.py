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

A shortcut's journal is a pure function of its inputs, so a run with the same inputs as the last one
reuses it (:func:`reusable_journal`): beside each journal, ``baseline-<name>.inputs.json``
(:class:`BaselineInputs`, written last) records the hash of the inputs and the sha256 and size of the
journal and its settings file. The inputs are the examples file's bytes (each recipe names its
snapshot by content hash, and learned-surface trains only on a snapshot of that hash), the suite, the
shortcut, the seed, the template set's hash, the recorded source, learned-surface's training size,
:data:`RULES_VERSION`, learned-surface's training version and the package's source code. A journal is
reused only when the recorded hash matches and both files still have the recorded bytes; anything else
runs the shortcut again.
"""

from __future__ import annotations

import datetime as dt
import functools
import hashlib
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from pydantic import ValidationError

from graphniah.atomic import artifact_problem, atomic_write_text, canonical_json, sha256_bytes, sha256_file
from graphniah.baselines import BUDGET_TOKENS, SHORTCUTS, TRAINING_PER_TASK, ShortcutName, model_name
from graphniah.errors import GraphNIAHError
from graphniah.formats.base import ArtifactHash, Frozen
from graphniah.formats.examples import Example, read_examples
from graphniah.formats.journal import RunRecord, RunSettings, RunSettingsEntry
from graphniah.layout import RUNS_ROOT, SNAPSHOTS_ROOT, inputs_file, journal_file, settings_file
from graphniah.progress import NO_PROGRESS, Progress
from graphniah.seeds import DEFAULT_SEED
from graphniah.text import PromptSet

if TYPE_CHECKING:
    from graphniah.baselines.training import Scorer

__all__ = ["RULES_VERSION", "BaselineInputs", "BaselineJournal", "reusable_journal", "settings_of", "write_baselines"]

#: Bumped when a shortcut's rule changes, so old and new answers get different settings hashes.
RULES_VERSION = 1


@dataclass(frozen=True)
class BaselineJournal:
    """One shortcut's journal: where it is, and its answers (``{example id: answer or None}``)."""

    shortcut: ShortcutName
    path: Path
    settings_hash: str
    answers: dict[str, str | None]


class BaselineInputs(Frozen):
    """``baseline-<name>.inputs.json`` beside a shortcut's journal: what the journal was computed from
    (``inputs``: the hash of its inputs, :func:`reusable_journal`), the journal's and its settings file's recorded bytes,
    and the answers, so that a run with the same inputs reuses them (:func:`reusable_journal`)."""

    format_version: Literal[1] = 1
    inputs: str
    settings_hash: str
    journal: ArtifactHash
    settings: ArtifactHash
    answers: dict[str, str | None]


@functools.cache
def _code_hash() -> str:
    """The sha256 of the package's Python sources (paths and bytes): any change to the code that
    reads, trains or answers makes the shortcuts run again."""
    root = Path(__file__).resolve().parents[1]
    h = hashlib.sha256()
    for path in sorted(root.rglob("*.py")):
        h.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()


def _inputs_of(examples_sha256: str, suite: str, shortcut: ShortcutName, *, seed: int, prompts: PromptSet,
               source: str, training_per_task: int) -> str:
    """The hash of everything a shortcut's journal depends on (module docstring)."""
    from graphniah.baselines.training import TRAINING_VERSION

    doc = {"examples": examples_sha256, "suite": suite, "shortcut": shortcut, "seed": seed, "prompts": prompts.hash,
           "source": source, "rules_version": RULES_VERSION, "code": _code_hash()}
    if shortcut == "learned-surface":
        doc |= {"training_per_task": training_per_task, "training_version": TRAINING_VERSION}
    return sha256_bytes(canonical_json(doc).encode())


def reusable_journal(examples_path: str | os.PathLike[str], suite: str, runs_root: str | os.PathLike[str],
                     shortcut: ShortcutName, *, seed: int = DEFAULT_SEED, prompts: PromptSet | None = None,
                     source: str | None = None, training_per_task: int = TRAINING_PER_TASK) -> BaselineJournal | None:
    """The shortcut's journal under ``<runs_root>/<suite>/`` when it was written from these same inputs
    and is intact, else None (then :func:`write_baselines` runs the shortcut again).

    Parameters are those of :func:`write_baselines`. A missing, unreadable or outdated inputs record,
    or a journal or settings file whose bytes differ from the recorded ones, gives None: reuse is an
    optimisation, never a reason to fail.
    """
    from graphniah.text import load_prompts

    key = _inputs_of(sha256_file(examples_path), suite, shortcut, seed=seed, prompts=prompts or load_prompts(),
                     source=source or str(examples_path), training_per_task=training_per_task)
    return _reuse(shortcut, journal_file(runs_root, suite, model_name(shortcut)), key)


def _reuse(shortcut: ShortcutName, path: Path, key: str) -> BaselineJournal | None:
    """The journal at ``path`` if its inputs record says ``key`` and both files have the recorded bytes."""
    try:
        record = BaselineInputs.model_validate_json(inputs_file(path).read_bytes())
    except (OSError, ValidationError, ValueError):
        return None
    if record.inputs != key:
        return None
    for file, recorded in ((path, record.journal), (settings_file(path), record.settings)):
        if artifact_problem(file, recorded.sha256, recorded.bytes) is not None:
            return None
    return BaselineJournal(shortcut, path, record.settings_hash, dict(record.answers))


def _write_inputs(path: Path, key: str, settings_hash: str, answers: dict[str, str | None]) -> None:
    """Record the journal's inputs and bytes, after the journal and its settings file are in place."""
    def recorded(file: Path) -> ArtifactHash:
        return ArtifactHash(sha256=sha256_file(file), bytes=file.stat().st_size)

    record = BaselineInputs(inputs=key, settings_hash=settings_hash, journal=recorded(path),
                            settings=recorded(settings_file(path)), answers=answers)
    atomic_write_text(inputs_file(path), record.model_dump_json(indent=1) + "\n")


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
    A shortcut whose journal was written from the same inputs and is intact is not run again
    (:func:`reusable_journal`); the examples are read only if one has to run.
    """
    from graphniah.baselines.shortcuts import answer
    from graphniah.text import load_prompts

    pr = prompts or load_prompts()
    origin = source or str(examples_path)
    examples_sha256 = sha256_file(examples_path)
    examples: list[Example] | None = None  # read only when a shortcut has to run
    out = []
    for shortcut in shortcuts:
        model = model_name(shortcut)
        path = journal_file(runs_root, suite, model)
        key = _inputs_of(examples_sha256, suite, shortcut, seed=seed, prompts=pr, source=origin, training_per_task=training_per_task)
        reused = _reuse(shortcut, path, key)
        if reused is not None:
            progress.note(f"shortcut {shortcut}: reused {path} (same inputs)")
            out.append(reused)
            continue
        examples = read_examples(examples_path) if examples is None else examples
        progress.note(f"shortcut {shortcut} on {len(examples)} examples")
        scorer = None
        if shortcut == "learned-surface":
            from graphniah.baselines.learned import learned_surface

            answers, scorer = learned_surface(examples, pr, seed=seed, data=data, runs_root=runs_root, snapshots=snapshots,
                                              examples_path=Path(examples_path), per_task=training_per_task, progress=progress)
        else:
            answers = answer(shortcut, examples, pr, seed=seed, data=data)
        settings = settings_of(shortcut, seed, scorer)
        h = sha256_bytes(canonical_json(settings).encode())
        path.parent.mkdir(parents=True, exist_ok=True)
        records = _records(examples, answers, model, h)
        atomic_write_text(path, "".join(r.model_dump_json() + "\n" for r in records))
        entry = RunSettingsEntry(model=model, settings=settings, examples=origin,
                                 first_run=dt.datetime.now(dt.UTC).isoformat(timespec="seconds"))
        atomic_write_text(settings_file(path), RunSettings(runs={h: entry}).model_dump_json(indent=2) + "\n")
        _write_inputs(path, key, h, answers)
        out.append(BaselineJournal(shortcut, path, h, answers))
    return out
