"""Running one model over a suite of examples through LiteLLM, journaled, bounded, and guarded.

Flow of :func:`run_suite`:

1. **Guard** (:mod:`graphniah.run.guard`). Every snapshot the examples come from must have a cutoff
   strictly later than the model's knowledge cutoff; otherwise the run is refused, naming both.
2. **Plan** (:mod:`graphniah.run.plan`). The journal is read; done examples are skipped, recorded
   failures too unless ``retry_failed``, and answers another suite's journal holds for the same
   example bytes, model and settings are reused, not sent (:mod:`graphniah.run.reuse`). The cost
   estimate is :mod:`graphniah.run.cost`'s.
3. **Run.** ``concurrency`` workers pull examples from one iterator and call ``litellm.acompletion``
   (LiteLLM set up by :mod:`graphniah.run.client`); retries follow :mod:`graphniah.run.failures`.
   Finished records go to a single writer task that appends them in batches (one ``write`` + one
   ``fsync`` per batch: group commit), so journal lines never interleave and the event loop never
   blocks on the disk.
4. **Budget.** Before a worker sends an example it checks ``spent + reserved + estimate <= budget``,
   where ``spent`` covers every record of these settings in the journal and ``reserved`` the
   estimates of calls in flight; the first example that does not fit stops the run (calls in flight
   finish and are recorded).

API keys are read by LiteLLM from the provider's usual environment variable; the runner never puts
them in a record, and error messages are passed through a
:class:`~graphniah.run.failures.Redactor` before they are stored or shown.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import os
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from graphniah import layout
from graphniah.atomic import sha256_file
from graphniah.errors import GraphNIAHError
from graphniah.formats.examples import Example, ExampleRef, index_examples
from graphniah.formats.journal import (
    CallError,
    Journal,
    RunRecord,
    RunSettingsEntry,
    Usage,
    read_journal,
    record_run_settings,
)
from graphniah.layout import RUNS_ROOT, SNAPSHOTS_ROOT, suite_name
from graphniah.progress import NO_PROGRESS, Progress
from graphniah.run.client import litellm_module, register_local_model
from graphniah.run.failures import RETRYABLE, ErrorKind, Redactor, classify
from graphniah.run.guard import check_cutoff, snapshot_cutoffs
from graphniah.run.models import LOCAL_DUMMY_KEY, ModelEntry, Tier
from graphniah.run.plan import RunOptions, RunPlan, make_plan, refs_of
from graphniah.run.reuse import other_journals, reusable_answers, settings_history
from graphniah.scoring import score_response
from graphniah.seeds import Stream, generator


@dataclass(frozen=True)
class RunSummary:
    plan: RunPlan
    sent: int
    ok: int
    failed: int
    no_answer: int
    spent_usd: float
    unsent: int
    stopped_by: str | None
    elapsed_s: float

    @property
    def reused(self) -> int:
        return len(self.plan.reused)


class _Run:
    """The state of one run: workers, the journal writer, budget accounting."""

    def __init__(self, plan: RunPlan, journal: Journal, options: RunOptions, redactor: Redactor, progress: Progress):
        self.plan = plan
        self.entry = plan.entry
        self.journal = journal
        self.options = options
        self.redact = redactor
        self.rng = generator(Stream.BACKOFF, options.seed)
        self.api_key = LOCAL_DUMMY_KEY if self.entry.is_local else None
        self.spent = plan.spent_before_usd
        self.run_spent = 0.0
        self.reserved = 0.0
        self.stopped_by: str | None = None
        self.sent = self.ok = self.failed = self.no_answer = 0
        self.queue: asyncio.Queue[RunRecord | None] = asyncio.Queue()
        self.progress = progress
        self.per_example = plan.estimate.per_example or {}
        self.litellm = litellm_module() if plan.to_send else None
        if plan.to_send:
            register_local_model(self.entry)

    # -- one example ------------------------------------------------------------------------------

    def _record(self, ref: ExampleRef, **fields: Any) -> RunRecord:
        return RunRecord(example_id=ref.id, model=self.entry.name, settings_hash=self.entry.settings_hash,
                         task=ref.task, answer=ref.answer, reasoning_effort=self.entry.reasoning_effort,
                         finished_at=dt.datetime.now(dt.UTC).isoformat(timespec="milliseconds"),
                         example_sha256=ref.sha256 or None, **fields)

    def _ok(self, ref: ExampleRef, resp: Any, tier: Tier, elapsed: float, attempts: int, errors: list[CallError]) -> RunRecord:
        message = resp.choices[0].message
        content = message.content or ""
        reasoning = getattr(message, "reasoning_content", None) or None
        u = getattr(resp, "usage", None)
        usage = None
        if u is not None:
            details = getattr(u, "completion_tokens_details", None)
            usage = Usage(prompt_tokens=getattr(u, "prompt_tokens", None),
                          completion_tokens=getattr(u, "completion_tokens", None),
                          reasoning_tokens=getattr(details, "reasoning_tokens", None) if details is not None else None)
        hidden = getattr(resp, "_hidden_params", None) or {}
        cost = hidden.get("response_cost")
        price = self.entry.price_at(tier)
        reg = None
        if price is not None and usage is not None and usage.prompt_tokens is not None and usage.completion_tokens is not None:
            reg = price.cost(usage.prompt_tokens, usage.completion_tokens)
        scored = score_response(ref.task, ref.answer, content)
        return self._record(ref, status="ok", response=content, reasoning=reasoning, usage=usage,
                            cost_usd=float(cost) if cost is not None else None, cost_usd_registry=reg,
                            response_time_s=round(elapsed, 4), attempts=attempts, errors=tuple(errors),
                            service_tier=tier, extracted=scored.extracted, correct=scored.correct)

    async def call(self, ref: ExampleRef) -> RunRecord:
        policy = self.options.retry
        tiers = self.entry.tiers()
        ti = attempts = retries = 0
        errors: list[CallError] = []
        messages = ref.messages()
        assert self.litellm is not None, "LiteLLM is loaded whenever a plan has examples to send"
        while True:
            tier = tiers[ti]
            attempts += 1
            kwargs = self.entry.completion_kwargs(tier)
            t0 = time.perf_counter()
            try:
                resp = await self.litellm.acompletion(messages=messages, api_key=self.api_key, timeout=self.entry.timeout_s,
                                                      max_retries=0, **kwargs)
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # every provider failure is classified and recorded
                c = classify(exc, tier)
                message = self.redact(f"{type(exc).__name__}: {exc}")[:2000]
                last = attempts >= policy.max_attempts
                if c.kind is ErrorKind.FLEX_CAPACITY and ti + 1 < len(tiers) and not last:
                    errors.append(CallError(attempt=attempts, kind=c.kind, status=c.status, tier=tier, message=message))
                    ti += 1
                    continue
                kind = ErrorKind.RATE_LIMIT if c.kind is ErrorKind.FLEX_CAPACITY else c.kind
                if kind in RETRYABLE and not last:
                    wait = policy.delay(retries, c.retry_after_s, self.rng)
                    retries += 1
                    errors.append(CallError(attempt=attempts, kind=kind, status=c.status, tier=tier, message=message,
                                            waited_s=round(wait, 3)))
                    await asyncio.sleep(wait)
                    continue
                errors.append(CallError(attempt=attempts, kind=kind, status=c.status, tier=tier, message=message))
                return self._record(ref, status="failed", attempts=attempts, errors=tuple(errors), service_tier=tier)
            return self._ok(ref, resp, tier, time.perf_counter() - t0, attempts, errors)

    # -- workers and writer -----------------------------------------------------------------------

    async def worker(self, it: Iterable[ExampleRef]) -> None:
        budget = self.options.budget_usd
        for ref in it:
            if self.stopped_by is not None:
                return
            est = self.per_example.get(ref.id, 0.0)
            if budget is not None and (self.spent + self.reserved + est > budget or self.spent > budget):
                self.stopped_by = "budget"
                return
            self.reserved += est
            self.sent += 1
            try:
                rec = await self.call(ref)
            finally:
                self.reserved -= est
            self.spent += rec.spent_usd
            self.run_spent += rec.spent_usd
            self.queue.put_nowait(rec)

    async def writer(self) -> None:
        while True:
            batch = [await self.queue.get()]
            while not self.queue.empty():
                batch.append(self.queue.get_nowait())
            records = [r for r in batch if r is not None]
            if records:
                await asyncio.to_thread(self.journal.append, records)
                for r in records:
                    if r.status == "ok":
                        self.ok += 1
                        self.no_answer += r.extracted is None
                    else:
                        self.failed += 1
                self.progress.advance(len(records))
            if None in batch:
                return

    def flush_queued(self) -> None:
        """Write whatever finished but was not yet written (on cancellation)."""
        records = []
        while not self.queue.empty():
            r = self.queue.get_nowait()
            if r is not None:
                records.append(r)
        self.journal.append(records)

    async def run(self) -> None:
        it = iter(self.plan.to_send)
        n = min(self.options.concurrency, len(self.plan.to_send))
        writer = asyncio.create_task(self.writer())
        self.progress.start(len(self.plan.to_send), f"{self.entry.name}: calls")
        try:
            await asyncio.gather(*(self.worker(it) for _ in range(n)))
            self.queue.put_nowait(None)
            await writer
        except BaseException:
            writer.cancel()
            self.flush_queued()
            raise
        finally:
            self.progress.done()


def _record_settings(plan: RunPlan, examples_source: str) -> None:
    """Keep ``<model>.settings.json`` next to the journal: what each settings hash stands for."""
    record_run_settings(plan.journal, plan.entry.settings_hash, RunSettingsEntry(
        model=plan.entry.name, settings=plan.entry.settings(), examples=examples_source,
        first_run=dt.datetime.now(dt.UTC).isoformat(timespec="seconds")))


def _execute_batches(plan: RunPlan, journal: Journal, options: RunOptions, redactor: Redactor, progress: Progress,
                     t0: float) -> RunSummary:
    """Send ``plan.to_send`` as provider batches (:mod:`graphniah.run.batch.send`) and resume the journal's open ones."""
    from graphniah.run.batch.options import BatchOptions
    from graphniah.run.batch.send import BatchRun

    b = BatchRun(plan, journal, options, options.batch or BatchOptions(), redactor, progress).run()
    return RunSummary(plan=plan, sent=b.sent, ok=b.ok, failed=b.failed, no_answer=b.no_answer, spent_usd=b.run_spent,
                      unsent=b.unsent, stopped_by=b.stopped_by, elapsed_s=time.perf_counter() - t0)


def execute(plan: RunPlan, journal: Journal, options: RunOptions, *, examples_source: str = "",
            progress: Progress = NO_PROGRESS) -> RunSummary:
    """Send ``plan.to_send`` and journal the results (``journal`` must be the open, locked journal)."""
    entry = plan.entry
    if not entry.is_local and entry.api_key_env and not os.environ.get(entry.api_key_env):
        raise GraphNIAHError(f"{entry.name} needs an API key in the environment variable {entry.api_key_env}")
    if options.budget_usd is not None and plan.to_send and plan.estimate.per_example is None:
        raise GraphNIAHError(f"cannot enforce --budget-usd for {entry.name}: {plan.estimate.note or 'no cost estimate'}")
    redactor = Redactor([os.environ.get(entry.api_key_env, "")] if entry.api_key_env else [])
    _record_settings(plan, examples_source)
    journal.append(plan.reused)  # before anything is sent: a crash after this keeps them, a rerun finds them done
    t0 = time.perf_counter()
    if options.batch is not None or entry.batch:
        return _execute_batches(plan, journal, options, redactor, progress, t0)
    state = _Run(plan, journal, options, redactor, progress)
    if plan.to_send:
        asyncio.run(state.run())
    return RunSummary(plan=plan, sent=state.sent, ok=state.ok, failed=state.failed, no_answer=state.no_answer,
                      spent_usd=state.run_spent, unsent=len(plan.to_send) - state.sent, stopped_by=state.stopped_by,
                      elapsed_s=time.perf_counter() - t0)


def run_suite(
    entry: ModelEntry,
    examples: str | os.PathLike[str] | Sequence[Example] | Sequence[ExampleRef],
    *,
    suite: str | None = None,
    runs_root: str | os.PathLike[str] = RUNS_ROOT,
    snapshots_root: str | os.PathLike[str] = SNAPSHOTS_ROOT,
    cutoffs: Mapping[str, dt.date] | None = None,
    examples_source: str | None = None,
    options: RunOptions | None = None,
    dry_run: bool = False,
    on_plan: Callable[[RunPlan], None] | None = None,
    progress: Progress = NO_PROGRESS,
) -> RunPlan | RunSummary:
    """Run ``entry`` on the examples (a JSONL file, Example objects, or prepared ``ExampleRef``s); a dry run returns the plan only.

    ``cutoffs`` (``{snapshot_hash: cutoff}``) replaces looking the snapshots up under ``snapshots_root``
    for the knowledge-cutoff guard when they are known otherwise (a dataset's manifest records them);
    ``examples_source`` describes in-memory examples in ``<model>.settings.json``.

    The journal is ``<runs_root>/<suite>/<entry.name>.jsonl``; ``suite`` defaults to the file's suite name (:func:`graphniah.layout.suite_name`).
    ``on_plan`` is called with the plan before anything is sent (the CLI prints it); ``progress`` counts
    the finished calls.
    """
    options = options or RunOptions()
    if isinstance(examples, str | os.PathLike):
        src = Path(examples)
        refs = index_examples(src)
        suite = suite or suite_name(src)
        source = str(src)
    else:
        given: list[Example | ExampleRef] = list(examples)
        prepared = [e for e in given if isinstance(e, ExampleRef)]
        plain = [e for e in given if isinstance(e, Example)]
        if prepared and plain:
            raise GraphNIAHError("examples given in memory must be all Example records or all prepared ExampleRefs")
        refs = prepared or refs_of(plain)
        if suite is None:
            raise GraphNIAHError("a suite name is needed when examples are given in memory")
        source = examples_source or "in-memory examples"
    if entry.knowledge_cutoff is not None:
        check_cutoff(entry, cutoffs if cutoffs is not None else snapshot_cutoffs((r.snapshot_hash for r in refs), snapshots_root))
    jpath = layout.journal_file(runs_root, suite, entry.name)
    reusable = reusable_answers(entry, refs, jpath, runs_root) if options.reuse else {}
    history = settings_history(entry, other_journals(entry, jpath, runs_root))
    if dry_run:
        plan = make_plan(entry, refs, jpath, read_journal(jpath), options, reusable=reusable, history=history)
        if on_plan:
            on_plan(plan)
        return plan
    with Journal(jpath) as journal:
        plan = make_plan(entry, refs, jpath, journal.records, options, journal.recovery.dropped_bytes,
                         count_missing=options.budget_usd is not None, reusable=reusable, history=history)
        if on_plan:
            on_plan(plan)
        if isinstance(examples, str | os.PathLike):
            source += f" sha256:{sha256_file(source)}"
        return execute(plan, journal, options, examples_source=source, progress=progress)
