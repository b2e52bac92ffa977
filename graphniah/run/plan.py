"""The plan of a run: which examples are done, which are reused, which to send, and their cost.

The journal is read; examples with an ``ok`` record for the model's settings hash are done,
recorded failures are skipped unless ``retry_failed``, the rest are sent — except those whose
answer another suite's journal holds (:func:`graphniah.run.reuse.reusable_answers`). The cost
estimate is :func:`graphniah.run.cost.estimate_cost`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from graphniah.errors import GraphNIAHError
from graphniah.formats.examples import Example, ExampleRef
from graphniah.formats.journal import RunRecord, done_ids, failed_ids
from graphniah.run.batch.options import BatchOptions
from graphniah.run.cost import Estimate, estimate_cost
from graphniah.run.failures import RetryPolicy
from graphniah.run.models import ModelEntry


def refs_of(examples: Iterable[Example]) -> list[ExampleRef]:
    refs = [ExampleRef.of(ex) for ex in examples]
    ids = [r.id for r in refs]
    if len(set(ids)) != len(ids):
        raise GraphNIAHError("the examples contain duplicate ids")
    return refs


@dataclass(frozen=True)
class RunOptions:
    """How to run. ``seed`` drives the backoff jitter only."""

    concurrency: int = 8
    budget_usd: float | None = None
    retry_failed: bool = False
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    assume_output_tokens: int | None = None  # None: the registry's prior (graphniah.run.cost.output_guess)
    seed: int = 0
    reuse: bool = True  # take answers other suites' journals hold for the same example bytes (reusable_answers)
    batch: BatchOptions | None = None  # send through the provider's batch API (graphniah.run.batch); None: direct calls

    def __post_init__(self) -> None:
        if self.concurrency < 1:
            raise GraphNIAHError(f"concurrency must be at least 1, got {self.concurrency}")
        if self.budget_usd is not None and self.budget_usd < 0:
            raise GraphNIAHError(f"budget must be non-negative, got {self.budget_usd}")


@dataclass(frozen=True)
class RunPlan:
    entry: ModelEntry
    journal: Path
    total: int
    done: int
    failed_before: int
    to_send: tuple[ExampleRef, ...]
    spent_before_usd: float
    estimate: Estimate
    dropped_bytes: int = 0
    reused: tuple[RunRecord, ...] = ()  # answers taken from other suites' journals instead of being sent
    reuse_saves: Estimate | None = None  # what sending the reused examples would have cost


def make_plan(entry: ModelEntry, refs: Sequence[ExampleRef], journal_file: Path, records: Sequence[RunRecord],
              options: RunOptions, dropped_bytes: int = 0, *, count_missing: bool = True,
              reusable: Mapping[str, RunRecord] | None = None, history: Sequence[RunRecord] = ()) -> RunPlan:
    """What to send: the examples without a record here, less those ``reusable`` answers (by id).

    The cost estimate learns output lengths from this journal's finished calls and ``history``
    (other suites' calls of the same settings, :func:`graphniah.run.reuse.settings_history`).
    """
    h = entry.settings_hash
    mine = [r for r in records if r.settings_hash == h]
    done = done_ids(mine, h)
    failed = failed_ids(mine, h)
    skip = done if options.retry_failed else done | failed
    pending = [r for r in refs if r.id not in skip]
    reusable = reusable or {}
    to_send = tuple(r for r in pending if r.id not in reusable)
    reused = tuple(reusable[r.id] for r in pending if r.id in reusable)
    ids = {r.id for r in refs}
    history = [*(r for r in records if r.model == entry.name), *history]
    saves = (estimate_cost(entry, [r for r in pending if r.id in reusable], history, options.assume_output_tokens,
                           count_missing=count_missing) if reused else None)
    return RunPlan(
        entry=entry,
        journal=journal_file,
        total=len(refs),
        done=len(done & ids),
        failed_before=len(failed & ids),
        to_send=to_send,
        spent_before_usd=float(sum(r.spent_usd for r in mine)),
        estimate=estimate_cost(entry, to_send, history, options.assume_output_tokens, count_missing=count_missing),
        dropped_bytes=dropped_bytes,
        reused=reused,
        reuse_saves=saves,
    )
