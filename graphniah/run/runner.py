"""Running one model over a suite of examples through LiteLLM, journaled, bounded, and guarded.

Flow of :func:`run_suite`:

1. **Guard.** Every snapshot the examples come from must have a cutoff strictly later than the
   model's knowledge cutoff (the examples' papers, and their earliest public versions — arXiv,
   bioRxiv/medRxiv and Preprints.org preprints included —, are all on or after their snapshot's
   cutoff, so they then all postdate the model's training data); otherwise the run is refused,
   naming both. A snapshot built without the preprint guard is refused too.
2. **Plan.** The journal is read; examples with an ``ok`` record for the model's settings hash are
   done, recorded failures are skipped unless ``retry_failed``, the rest are sent — except those
   whose answer another suite's journal holds for the same example bytes, model and settings
   (:func:`reusable_answers`): those are appended as reused records naming that journal, and never
   sent (``RunOptions.reuse=False``, ``--no-reuse``, sends them anyway). The cost estimate
   uses each example's stored token counts (or counts them with ``graphniah.text.tokenizers`` when it can)
   and the registry's price at the tier requests go to.
3. **Run.** ``concurrency`` workers pull examples from one iterator and call ``litellm.acompletion``;
   retries follow :mod:`graphniah.run.failures`. Finished records go to a single writer task that
   appends them in batches (one ``write`` + one ``fsync`` per batch: group commit), so journal lines
   never interleave and the event loop never blocks on the disk.
4. **Budget.** Before a worker sends an example it checks ``spent + reserved + estimate <= budget``,
   where ``spent`` covers every record of these settings in the journal and ``reserved`` the
   estimates of calls in flight; the first example that does not fit stops the run (calls in flight
   finish and are recorded).

LiteLLM is imported lazily with ``LITELLM_LOCAL_MODEL_COST_MAP=True`` (its price map is the one in
the installed package; nothing is fetched), its callbacks, telemetry and message logging off, and
its loggers silenced. API keys are read by LiteLLM from the provider's usual environment variable;
the runner never puts them in a record, and error messages are passed through a
:class:`~graphniah.run.failures.Redactor` before they are stored or shown.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
import os
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

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
    done_ids,
    failed_ids,
    read_journal,
    record_run_settings,
)
from graphniah.layout import RUNS_ROOT, SNAPSHOTS_ROOT, suite_name
from graphniah.progress import NO_PROGRESS, Progress
from graphniah.run.failures import RETRYABLE, ErrorKind, Redactor, RetryPolicy, classify
from graphniah.run.models import LOCAL_DUMMY_KEY, ModelEntry, Tier
from graphniah.scoring import score_response
from graphniah.seeds import Stream, generator

_LITELLM: Any = None


def litellm_module() -> Any:
    """LiteLLM, imported once with the local price map and without callbacks, telemetry or logs."""
    global _LITELLM
    if _LITELLM is None:
        os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"
        os.environ.setdefault("LITELLM_LOG", "CRITICAL")
        import litellm

        litellm.suppress_debug_info = True
        litellm.telemetry = False
        litellm.turn_off_message_logging = True
        litellm.redact_messages_in_exceptions = True
        litellm.drop_params = False
        litellm.callbacks = []
        litellm.success_callback = []
        litellm.failure_callback = []
        for name in ("LiteLLM", "LiteLLM Router", "LiteLLM Proxy", "litellm", "httpx", "openai"):
            logging.getLogger(name).setLevel(logging.CRITICAL + 1)
        _drop_success_logging()
        _LITELLM = litellm
    return _LITELLM


def _drop_success_logging() -> None:
    """Do not run LiteLLM's per-call success logging, which we have no callbacks for.

    LiteLLM queues a "success handler" after every call even with no callbacks registered; it builds
    a logging payload (deep copies of the request, 200 KB-4 MB here) and costs several milliseconds of
    CPU per call, which at concurrency 32 made the runner, not the server, the bottleneck. Cost and
    usage are computed before the response is returned and are unaffected. The hook is internal to
    LiteLLM: if it moves, this does nothing and the runner is merely slower.
    """
    try:
        from litellm.litellm_core_utils.logging_worker import GLOBAL_LOGGING_WORKER
    except ImportError:
        return

    def discard(async_coroutine: Any) -> None:
        async_coroutine.close()

    if hasattr(GLOBAL_LOGGING_WORKER, "ensure_initialized_and_enqueue"):
        GLOBAL_LOGGING_WORKER.ensure_initialized_and_enqueue = discard  # type: ignore[method-assign]  # the point: replace LiteLLM's hook


def _register_local_model(entry: ModelEntry) -> None:
    """Tell LiteLLM a local endpoint's (zero) price, so its cost is 0 rather than a failed lookup.

    LiteLLM prices only models in its map; for an unknown name it searches every provider variant on
    each response (milliseconds per call) and reports no cost. Only free local endpoints are
    registered (the registration lasts for the process, so a priced entry under the same name later
    would read 0 from LiteLLM; the budget uses the larger of LiteLLM's and the registry's figure, see
    ``RunRecord.spent_usd``). A real model's cost stays LiteLLM's own figure.
    """
    lit = litellm_module()
    price = entry.price.standard
    free = price is not None and price.input == price.output == 0 and price.above_input_tokens is None
    if price is None or not entry.is_local or not free or entry.litellm_model in lit.model_cost:
        return
    provider = entry.litellm_model.split("/", 1)[0]
    lit.register_model({entry.litellm_model: {
        "input_cost_per_token": price.input / 1e6, "output_cost_per_token": price.output / 1e6,
        "litellm_provider": provider, "mode": "chat", "max_input_tokens": entry.input_limit,
    }})


# ------------------------------------------------------------------------------------------------
# Examples
# ------------------------------------------------------------------------------------------------


def refs_of(examples: Iterable[Example]) -> list[ExampleRef]:
    refs = [ExampleRef.of(ex) for ex in examples]
    ids = [r.id for r in refs]
    if len(set(ids)) != len(ids):
        raise GraphNIAHError("the examples contain duplicate ids")
    return refs


# ------------------------------------------------------------------------------------------------
# Reuse: never pay twice for the same call
# ------------------------------------------------------------------------------------------------


def reusable_answers(entry: ModelEntry, refs: Sequence[ExampleRef], journal_file: Path,
                     runs_root: str | os.PathLike[str]) -> dict[str, RunRecord]:
    """Answers already journaled in other suites' journals for the same example bytes, model and settings.

    Every ``<runs_root>/<other suite>/<model>.jsonl`` but ``journal_file`` is read; an ``ok`` record
    of ``entry``'s settings hash whose ``example_sha256`` is that of one of ``refs`` (so the prompt
    sent was byte for byte the same) is returned under the example's id as the record to append
    here: ``reused_from`` names the journal it came from, its costs are 0 (this run pays nothing),
    and the rest is the answer as it was recorded. The first journal in name order wins.
    """
    wanted = {r.sha256: r.id for r in refs if r.sha256}
    if not wanted:
        return {}
    name = layout.journal_file(runs_root, "_", entry.name).name
    mine = journal_file.resolve()
    found: dict[str, RunRecord] = {}
    now = dt.datetime.now(dt.UTC).isoformat(timespec="milliseconds")
    for other in sorted(Path(runs_root).glob(f"*/{name}")):
        if other.resolve() == mine:
            continue
        for rec in read_journal(other):
            eid = wanted.get(rec.example_sha256 or "")
            if (eid is not None and eid == rec.example_id and eid not in found and rec.status == "ok"
                    and rec.settings_hash == entry.settings_hash):
                found[eid] = rec.model_copy(update={"reused_from": str(other), "cost_usd": 0.0, "cost_usd_registry": 0.0,
                                                    "finished_at": now})
    return found


# ------------------------------------------------------------------------------------------------
# Contamination guard
# ------------------------------------------------------------------------------------------------


def snapshot_cutoffs(hashes: Iterable[str], snapshots_root: str | os.PathLike[str]) -> dict[str, dt.date]:
    """The date from which the papers of each snapshot the examples were made from were public
    (found by content hash under the root): its cutoff, or the earliest public date of one of its
    papers if that were earlier (``graphniah.ingest.s2ag.preprints``; the ingest drops such papers,
    so it is the cutoff). A snapshot built before the preprint guard (no ``earliest_public_date``
    in its manifest) is refused: its papers may have had preprints before its cutoff."""
    from graphniah.formats.snapshot import snapshot_at_or_under

    root = Path(snapshots_root)
    out = {}
    for h in sorted(set(hashes)):
        try:
            snap = snapshot_at_or_under(root, h)
        except GraphNIAHError as err:
            raise GraphNIAHError(f"cannot check the examples against the model's knowledge cutoff: {err} "
                                 "(pass --snapshots with the folder holding it)") from None
        m = snap.manifest
        if m.earliest_public_date is None:
            raise GraphNIAHError(f"snapshot {snap.path} was built before the preprint guard (manifest format 1 or 2), so its papers "
                                 "may have been public as preprints before its cutoff; rebuild it with graphniah refresh "
                                 "(or graphniah ingest --replace) and build the examples again")
        first = m.earliest_public_date.min
        out[h] = min(m.cutoff, first) if first is not None else m.cutoff
    return out


def check_cutoff(entry: ModelEntry, cutoffs: Mapping[str, dt.date]) -> None:
    """Refuse a model whose knowledge cutoff is not strictly before every snapshot's cutoff."""
    kc = entry.knowledge_cutoff
    if kc is None:
        return  # a baseline that reads nothing but the prompt
    for h, cutoff in sorted(cutoffs.items(), key=lambda kv: kv[1]):
        if not kc < cutoff:
            note = f" ({entry.cutoff_note})" if entry.cutoff_note else ""
            raise GraphNIAHError(
                f"refusing to run {entry.name}: its knowledge cutoff is {kc.isoformat()}{note}, but snapshot "
                f"{h[:12]} has cutoff {cutoff.isoformat()}, so its papers may be in the model's training data; "
                f"use a snapshot whose cutoff is after {kc.isoformat()}"
            )


# ------------------------------------------------------------------------------------------------
# Cost estimate
# ------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Estimate:
    """Expected cost of the calls still to send.

    ``usd`` is at the price of the tier requests go to; when that price is unknown (flex prices the
    paper does not state) it is None and ``usd_upper`` bounds the cost at the standard price.
    ``per_example`` holds the bound the budget check reserves for each example (None if unknown).
    """

    examples: int
    input_tokens: int | None
    output_tokens_per_example: int
    output_basis: str
    tier: str
    usd: float | None
    usd_upper: float | None
    per_example: Mapping[str, float] | None
    note: str = ""


def _stored_count(entry: ModelEntry, ref: ExampleRef) -> int | None:
    """The example's stored input-token count under the model's tokenizer, if the packer stored one."""
    counts = ref.token_counts or {}
    if entry.tokenizer is not None:
        return int(counts[entry.tokenizer]) if entry.tokenizer in counts else None
    return max(int(v) for v in counts.values()) if counts else None  # unknown tokenizer: the largest bounds it


class _TokenCounter:
    """Input tokens of an example under the model's tokenizer: stored counts first, else counted."""

    def __init__(self, entry: ModelEntry):
        self.entry = entry
        self._tok: Any = None
        self.unavailable: str | None = None

    def _tokenizer(self) -> Any:
        if self._tok is None and self.unavailable is None:
            try:
                from graphniah.text import load_tokenizer

                self._tok = load_tokenizer(self.entry.tokenizer or "o200k_base")
            except ImportError:
                self.unavailable = "graphniah.text.tokenizers is not available"
            except GraphNIAHError as err:
                self.unavailable = f"the {self.entry.tokenizer or 'o200k_base'} tokenizer cannot be loaded ({err})"
        return self._tok

    def __call__(self, ref: ExampleRef) -> int | None:
        stored = _stored_count(self.entry, ref)
        if stored is not None:
            return stored
        tok = self._tokenizer()
        if tok is None:
            return None
        return int(tok.chat_count([(m["role"], m["content"]) for m in ref.messages()]))


def estimate_cost(entry: ModelEntry, refs: Sequence[ExampleRef], history: Sequence[RunRecord],
                  assume_output_tokens: int, *, count_missing: bool = True) -> Estimate:
    """Estimate the cost of sending ``refs``; output tokens are the mean of finished calls if any.

    Examples without stored token counts are tokenized only when ``count_missing`` (a dry run or a
    budget needs the figure; a plain run should not spend minutes tokenizing a 1M-token suite first).
    """
    finished = [r.usage.completion_tokens for r in history
                if r.status == "ok" and r.usage is not None and r.usage.completion_tokens is not None]
    if finished:
        out_tokens = round(float(np.mean(finished)))
        basis = f"mean of {len(finished)} finished call(s) of this model"
    else:
        out_tokens = int(assume_output_tokens)
        basis = "assumed (--assume-output-tokens)"
    tier: Tier = entry.service_tier
    price = entry.price_at(tier)
    bound = price or entry.price.standard
    counter = _TokenCounter(entry)
    notes = []
    if entry.price.note:
        notes.append(entry.price.note)
    if not count_missing and not all(_stored_count(entry, r) is not None for r in refs):
        notes.append("not estimated: some examples have no stored token counts (--dry-run counts them)")
        return Estimate(len(refs), None, out_tokens, basis, tier, None, None, None, "; ".join(notes))
    tokens = {r.id: counter(r) for r in refs}
    if any(v is None for v in tokens.values()):
        notes.append(f"cannot estimate: some examples have no stored token counts and {counter.unavailable}")
        return Estimate(len(refs), None, out_tokens, basis, tier, None, None, None, "; ".join(notes))
    known = {i: t for i, t in tokens.items() if t is not None}  # all of them (checked above), typed as int
    total_in = int(sum(known.values()))
    if bound is None:
        notes.append(f"no price for {entry.name} in the registry: cost unknown")
        return Estimate(len(refs), total_in, out_tokens, basis, tier, None, None, None, "; ".join(notes))
    per = {i: bound.cost(t, out_tokens) for i, t in known.items()}
    usd = float(sum(price.cost(t, out_tokens) for t in known.values())) if price else None
    upper = float(sum(per.values()))
    return Estimate(len(refs), total_in, out_tokens, basis, tier, usd, upper, per, "; ".join(notes))


# ------------------------------------------------------------------------------------------------
# Plan and run
# ------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class RunOptions:
    """How to run. ``seed`` drives the backoff jitter only."""

    concurrency: int = 8
    budget_usd: float | None = None
    retry_failed: bool = False
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    assume_output_tokens: int = 4000
    seed: int = 0
    reuse: bool = True  # take answers other suites' journals hold for the same example bytes (reusable_answers)

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


def make_plan(entry: ModelEntry, refs: Sequence[ExampleRef], journal_file: Path, records: Sequence[RunRecord],
              options: RunOptions, dropped_bytes: int = 0, *, count_missing: bool = True,
              reusable: Mapping[str, RunRecord] | None = None) -> RunPlan:
    """What to send: the examples without a record here, less those ``reusable`` answers (by id)."""
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
    history = [r for r in records if r.model == entry.name]
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
            _register_local_model(self.entry)

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
    if dry_run:
        plan = make_plan(entry, refs, jpath, read_journal(jpath), options, reusable=reusable)
        if on_plan:
            on_plan(plan)
        return plan
    with Journal(jpath) as journal:
        plan = make_plan(entry, refs, jpath, journal.records, options, journal.recovery.dropped_bytes,
                         count_missing=options.budget_usd is not None, reusable=reusable)
        if on_plan:
            on_plan(plan)
        if isinstance(examples, str | os.PathLike):
            source += f" sha256:{sha256_file(source)}"
        return execute(plan, journal, options, examples_source=source, progress=progress)
