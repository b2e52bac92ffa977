"""The batch loop: submit the pending examples as provider batches, poll them, journal their answers.

Every step that changes something at the provider is journaled (one fsynced line,
:class:`graphniah.formats.journal.BatchRecord`) *before* the step, or before anything after it
counts, so that a run killed at any moment resumes without submitting an example twice:

1. ``intent`` (key, custom ids, attempt) before the upload. Resumed with no ``uploaded`` line:
   the file named after the key is looked for, and uploaded only if the provider has none (an
   upload bills nothing anyway).
2. ``uploaded`` (file id) before the creation. Resumed with no ``created`` line: the provider's
   batches are listed for the key's tag before one is created; the same is done before each
   retry of a creation that failed without an answer (the request may have taken effect).
3. ``created`` (batch id) once the provider answers; from then on the batch is only polled.
   An Anthropic or Gemini batch has no file: its requests go in the creation (step 2 is
   skipped), and a resumed intent with no ``created`` line first looks for the batch it may
   have made (:meth:`graphniah.run.batch.anthropic.AnthropicBatches.find_batch`,
   :meth:`graphniah.run.batch.gemini.GeminiBatches.find_batch`: by the display name).
4. ``polled`` lines record a changed state; when the batch ends, its output and error files are
   downloaded and every answer is appended as a run record carrying the batch id, then
   ``collected`` (one write of all of them: a kill in the middle leaves whole lines, and a resumed
   run downloads again and appends only the answers it does not have).

Lines that failed with a server error or a rate limit, or that the batch never ran (expired,
cancelled, a failed batch), are sent again, by themselves, in a new batch (``attempt`` + 1) until
the retry policy's ``max_attempts``; then, like a line the provider refused (a 4xx), they are
journaled as failed calls. Answers are scored by :func:`graphniah.scoring.score_response`, as
direct calls are, and priced at the batch price.

The loop runs until no batch is in flight. A KeyboardInterrupt leaves the batches running at the
provider; the same command collects them later, and ``graphniah batches`` lists them.
"""

from __future__ import annotations

import datetime as dt
import time
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

from graphniah.atomic import sha256_bytes
from graphniah.errors import GraphNIAHError
from graphniah.formats.examples import ExampleRef
from graphniah.formats.journal import BatchCounts, BatchRecord, CallError, Journal, RunRecord, Usage
from graphniah.progress import Progress
from graphniah.run.batch.client import Batches, Remote
from graphniah.run.batch.lines import LineResult, split
from graphniah.run.batch.options import NATIVE_BATCH_PROVIDERS, BatchOptions, batch_limits, provider_of
from graphniah.run.batch.price import batch_cost, batch_estimates
from graphniah.run.client import register_local_model
from graphniah.run.failures import RETRYABLE, ErrorKind, Redactor, classify
from graphniah.run.plan import RunOptions, RunPlan
from graphniah.scoring import score_response
from graphniah.seeds import Stream, generator

if TYPE_CHECKING:
    from graphniah.run.batch.anthropic import AnthropicBatches
    from graphniah.run.batch.gemini import GeminiBatches

    Api = Batches | AnthropicBatches | GeminiBatches

T = TypeVar("T")
BATCH_TIER = "batch"  # the service_tier of a batched answer's record


def _now() -> str:
    return dt.datetime.now(dt.UTC).isoformat(timespec="milliseconds")


def _epoch(iso: str) -> float:
    return dt.datetime.fromisoformat(iso).timestamp()


@dataclass
class Tracked:
    """A batch as the journal knows it (the fold of its :class:`BatchRecord` lines)."""

    key: str
    ids: tuple[str, ...]
    attempt: int
    intent_at: str
    estimate_usd: float | None = None
    file_id: str | None = None
    batch_id: str | None = None
    status: str | None = None
    counts: BatchCounts | None = None
    created_at: str | None = None
    finished: bool = False


def ledger(batches: Iterable[BatchRecord], settings_hash: str | None = None) -> dict[str, Tracked]:
    """Every batch of the journal (of one settings hash, if given) by key, in the order of their intents."""
    out: dict[str, Tracked] = {}
    for b in batches:
        if settings_hash is not None and b.settings_hash != settings_hash:
            continue
        if b.event == "intent":
            out[b.key] = Tracked(b.key, b.custom_ids, b.attempt, b.at, b.estimate_usd)
            continue
        t = out.get(b.key)
        if t is None:
            raise GraphNIAHError(f"batch {b.key} has a {b.event!r} line before its intent; the journal was edited or damaged")
        t.file_id = b.file_id or t.file_id
        t.batch_id = b.batch_id or t.batch_id
        t.status = b.status or t.status
        t.counts = b.counts or t.counts
        if b.event == "created":
            t.created_at = b.at
        t.finished = t.finished or b.event in ("collected", "abandoned")
    return out


def open_batches(batches: Iterable[BatchRecord], settings_hash: str | None = None) -> list[Tracked]:
    """The batches not yet collected (or abandoned): in flight at the provider, or about to be."""
    return [t for t in ledger(batches, settings_hash).values() if not t.finished]


@dataclass
class BatchSummary:
    """What the loop did: the same counts a direct run reports."""

    sent: int = 0  # examples in the batches this run submitted or resumed
    unsent: int = 0  # examples left unsubmitted (the budget stopped the run)
    ok: int = 0
    failed: int = 0
    no_answer: int = 0
    run_spent: float = 0.0
    stopped_by: str | None = None
    batches: int = 0
    errors: dict[str, list[CallError]] = field(default_factory=dict)


class BatchRun:
    """One run in batch mode over a plan, writing to the open (locked) journal."""

    def __init__(self, plan: RunPlan, journal: Journal, options: RunOptions, batch: BatchOptions,
                 redactor: Redactor, progress: Progress, api: Api | None = None):
        self.plan, self.entry, self.journal, self.options, self.batch = plan, plan.entry, journal, options, batch
        self.redact, self.progress = redactor, progress
        self.limits = batch_limits(self.entry.litellm_model, self.entry.name, batch)
        self.refs = {r.id: r for r in plan.to_send}
        self.tracked = ledger(journal.batches, self.entry.settings_hash)
        self.attempts: Counter[str] = Counter()
        for t in self.tracked.values():
            for i in t.ids:
                self.attempts[i] = max(self.attempts[i], t.attempt)
        self.estimates = batch_estimates(plan)
        self.spent = plan.spent_before_usd
        self.reserved = 0.0
        self.rng = generator(Stream.BACKOFF, options.seed)
        self.summary = BatchSummary()
        self.api = api
        self.finished_ids: set[str] = set()
        self.submitted: set[str] = set()

    # -- journal --------------------------------------------------------------------------------

    def _mark(self, t: Tracked, event: str, **fields: Any) -> None:
        self.journal.append([BatchRecord(event=event, key=t.key, model=self.entry.name,  # type: ignore[arg-type]  # events are the BatchEvent literals
                                         settings_hash=self.entry.settings_hash, at=_now(), **fields)])

    # -- calls with retries -----------------------------------------------------------------------

    def _retrying(self, what: str, fn: Callable[[], T], before_retry: Callable[[], T | None] | None = None) -> T:
        """``fn()``, retried on transient failures; ``before_retry`` may find the result a lost reply took effect with."""
        policy = self.options.retry
        for attempt in range(policy.max_attempts):
            try:
                found = before_retry() if attempt and before_retry is not None else None
                return found if found is not None else fn()
            except Exception as exc:  # every provider failure is classified
                c = classify(exc, BATCH_TIER)
                if c.kind not in RETRYABLE or attempt + 1 >= policy.max_attempts:
                    raise GraphNIAHError(f"{self.entry.name}: {what} failed ({c.kind}): "
                                         f"{self.redact(f'{type(exc).__name__}: {exc}')[:500]}; every batch step so far is "
                                         "journaled: the same command resumes without submitting anything twice") from None
                time.sleep(policy.delay(attempt, c.retry_after_s, self.rng))
        raise AssertionError("unreachable: the last attempt returns or raises")

    def _client(self) -> Api:
        """The provider's batch API: Anthropic's or Google's own endpoint, else LiteLLM's files and batches."""
        if self.api is None:
            provider = provider_of(self.entry.litellm_model)
            if provider == "gemini":
                from graphniah.run.batch.gemini import GeminiBatches

                self.api = GeminiBatches(self.entry)
            elif provider in NATIVE_BATCH_PROVIDERS:
                from graphniah.run.batch.anthropic import AnthropicBatches

                self.api = AnthropicBatches(self.entry)
            else:
                register_local_model(self.entry)
                self.api = Batches(self.entry)
        return self.api

    # -- submitting -----------------------------------------------------------------------------

    def submit(self, refs: Sequence[ExampleRef], attempt: int) -> None:
        """Send ``refs`` as batches within the limits and the budget (intent, upload, create each)."""
        if not refs:
            return
        api = self._client()
        lines = ((r.id, api.line(self.refs[r.id])) for r in refs)  # one batch's lines in memory at a time
        budget = self.options.budget_usd
        for group in split(lines, self.limits):
            ids = tuple(cid for cid, _ in group)
            est = sum(self.estimates.get(i, 0.0) for i in ids)
            if budget is not None and self.spent + self.reserved + est > budget:
                self.summary.stopped_by = "budget"
                return
            seq = sum(1 for t in self.tracked.values() if t.ids == ids)
            key = sha256_bytes("\n".join([self.entry.settings_hash, str(seq), *ids]).encode())[:24]
            t = Tracked(key, ids, attempt, _now(), est if self.estimates else None)
            self._mark(t, "intent", provider=self.entry.litellm_model.split("/", 1)[0], custom_ids=ids, attempt=attempt,
                       estimate_usd=t.estimate_usd)
            self.tracked[key] = t
            self.reserved += est
            for i in ids:
                self.attempts[i] = attempt
            self.summary.sent += len(ids) if attempt == 1 else 0
            self.submitted.update(ids)
            self.advance(t, b"".join(line for _, line in group), resumed=False)

    def advance(self, t: Tracked, data: bytes | None, resumed: bool) -> None:
        """Take a batch from its intent to ``created`` (finding what a killed run did at the provider first)."""
        api = self._client()
        if isinstance(api, Batches) and t.file_id is None:
            found = self._retrying("looking for the uploaded file", lambda: api.find_file(t.key)) if resumed else None
            if found is None:
                payload = data if data is not None else self._rebuild(t)
                if payload is None:
                    return
                found = self._retrying("uploading the batch file", lambda: api.upload(t.key, payload))
            t.file_id = found
            self._mark(t, "uploaded", file_id=found)
        since = _epoch(t.intent_at)
        claimed = frozenset(x.batch_id for x in self.tracked.values() if x.batch_id is not None)

        def find() -> Remote | None:
            return api.find_batch(t.key, since, len(t.ids), claimed)

        remote = self._retrying("looking for the batch", find) if resumed else None
        if remote is None:
            remote = self._create(api, t, data, find)
            if remote is None:
                return
        t.batch_id, t.status, t.created_at = remote.batch_id, remote.status, _now()
        self._mark(t, "created", batch_id=remote.batch_id, status=remote.status, counts=remote.counts)
        self.summary.batches += 1

    def _create(self, api: Api, t: Tracked, data: bytes | None,
                find: Callable[[], Remote | None]) -> Remote | None:
        """Create the batch (from the uploaded file, or with its requests inline); None if it was abandoned."""
        if isinstance(api, Batches):
            file_id = t.file_id
            assert file_id is not None
            return self._retrying("creating the batch", lambda: api.create(t.key, file_id), before_retry=find)
        payload = data if data is not None else self._rebuild(t)
        if payload is None:
            return None
        return self._retrying("creating the batch", lambda: api.create_inline(t.key, payload), before_retry=find)

    def _rebuild(self, t: Tracked) -> bytes | None:
        """The input file of a resumed intent (its examples' lines), or None if none is still to send (abandoned)."""
        missing = [i for i in t.ids if i not in self.refs]
        if missing:
            self._mark(t, "abandoned", note=f"{len(missing)} of its examples are no longer pending; nothing was submitted")
            t.finished = True
            return None
        api = self._client()
        return b"".join(api.line(self.refs[i]) for i in t.ids)

    # -- polling and collecting -------------------------------------------------------------------

    def poll(self, t: Tracked) -> bool:
        """Poll a created batch; collect it once it ended. True when it is finished."""
        assert t.batch_id is not None
        batch_id = t.batch_id
        api = self._client()
        remote = self._retrying("polling the batch", lambda: api.retrieve(batch_id))
        if remote.status != t.status or remote.counts != t.counts:
            t.status, t.counts = remote.status, remote.counts
            self._mark(t, "polled", batch_id=batch_id, status=remote.status, counts=remote.counts)
        if not remote.terminal:
            return False
        self.collect(t, remote)
        return True

    def collect(self, t: Tracked, remote: Remote) -> None:
        """Download a finished batch's results, journal its answers and failures, and resend what may be."""
        api = self._client()
        results = self._retrying("downloading results", lambda: api.results(remote, t.key))
        records: list[RunRecord] = []
        again: list[ExampleRef] = []
        for cid in t.ids:
            ref = self.refs.get(cid)
            if ref is None or cid in self.finished_ids:
                continue  # answered already (a resumed collection), or no longer pending
            res = results.get(cid) or LineResult(cid, None, None, "not_run", f"batch {remote.status} without this request")
            if res.ok:
                records.append(self.answer(ref, res, remote.batch_id, t.attempt))
            elif res.retryable and t.attempt < self.options.retry.max_attempts:
                self._note_error(cid, res, t.attempt)
                again.append(ref)
            else:
                self._note_error(cid, res, t.attempt)
                records.append(self.failure(ref, res, t.attempt))
        self.journal.append([*records, BatchRecord(event="collected", key=t.key, model=self.entry.name,
                                                   settings_hash=self.entry.settings_hash, at=_now(),
                                                   batch_id=remote.batch_id, status=remote.status, counts=remote.counts)])
        t.finished = True
        self.reserved = max(0.0, self.reserved - (t.estimate_usd or 0.0))
        self._count(records)
        if again:
            self.submit(again, t.attempt + 1)

    def _count(self, records: Sequence[RunRecord]) -> None:
        s = self.summary
        for r in records:
            self.finished_ids.add(r.example_id)
            self.spent += r.spent_usd
            s.run_spent += r.spent_usd
            if r.status == "ok":
                s.ok += 1
                s.no_answer += r.extracted is None
            else:
                s.failed += 1
        self.progress.advance(len(records))

    def _note_error(self, cid: str, res: LineResult, attempt: int) -> None:
        kind = ErrorKind.TIMEOUT if res.status is None else ErrorKind.RATE_LIMIT if res.status == 429 else \
            ErrorKind.SERVER if res.status >= 500 else ErrorKind.BAD_REQUEST
        message = self.redact(f"{res.code}: {res.message}")[:2000]
        self.summary.errors.setdefault(cid, []).append(
            CallError(attempt=attempt, kind=kind, status=res.status, tier=BATCH_TIER, message=message))

    # -- records ------------------------------------------------------------------------------------

    def _record(self, ref: ExampleRef, **fields: Any) -> RunRecord:
        return RunRecord(example_id=ref.id, model=self.entry.name, settings_hash=self.entry.settings_hash,
                         task=ref.task, answer=ref.answer, reasoning_effort=self.entry.reasoning_effort,
                         finished_at=_now(), example_sha256=ref.sha256 or None, service_tier=BATCH_TIER,
                         errors=tuple(self.summary.errors.get(ref.id, ())), **fields)

    def answer(self, ref: ExampleRef, res: LineResult, batch_id: str, attempt: int) -> RunRecord:
        """The run record of an answered request: scored like a direct call's, priced at the batch price."""
        body = res.body or {}
        choices = body.get("choices") or [{}]
        message: Mapping[str, Any] = choices[0].get("message") or {}
        content = str(message.get("content") or "")
        u: Mapping[str, Any] = body.get("usage") or {}
        details: Mapping[str, Any] = u.get("completion_tokens_details") or {}
        usage = Usage(prompt_tokens=u.get("prompt_tokens"), completion_tokens=u.get("completion_tokens"),
                      reasoning_tokens=details.get("reasoning_tokens")) if u else None
        lite, reg = batch_cost(self.entry, usage)
        scored = score_response(ref.task, ref.answer, content)
        return self._record(ref, status="ok", response=content, reasoning=message.get("reasoning_content") or None,
                            usage=usage, cost_usd=lite, cost_usd_registry=reg, attempts=attempt,
                            extracted=scored.extracted, correct=scored.correct, batch_id=batch_id)

    def failure(self, ref: ExampleRef, res: LineResult, attempt: int) -> RunRecord:
        return self._record(ref, status="failed", attempts=attempt)

    # -- the loop -------------------------------------------------------------------------------------

    def run(self) -> BatchSummary:
        """Resume the journal's open batches, submit the rest, and poll until none is in flight."""
        open_ = [t for t in self.tracked.values() if not t.finished]
        busy = {i for t in open_ for i in t.ids}
        self.progress.start(len(self.refs), f"{self.entry.name}: batched calls")
        try:
            for t in open_:
                self.reserved += t.estimate_usd or 0.0
                self.summary.sent += sum(1 for i in t.ids if i in self.refs)
                if t.batch_id is None:
                    self.advance(t, None, resumed=True)
            self.submit([r for r in self.plan.to_send if r.id not in busy], 1)
            self.summary.unsent = sum(1 for r in self.plan.to_send if r.id not in busy and r.id not in self.submitted)
            while True:
                live = [t for t in self.tracked.values() if not t.finished and t.batch_id is not None]
                if not live:
                    break
                for t in live:
                    self.poll(t)
                if any(not t.finished for t in self.tracked.values()):
                    time.sleep(self.batch.poll_s)
        finally:
            self.progress.done()
        return self.summary
