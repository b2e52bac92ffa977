"""The run journal: one JSON line per finished call, appended and fsynced, safe against kill -9.

``runs/<suite>/<model>.jsonl`` is append-only. A record is written only after its call has finished
(successfully or for good), with a single ``write`` of the whole line to a file opened with
``O_APPEND``, followed by ``fsync`` before the runner counts it as done. The runner holds an
exclusive ``flock`` on the journal while it runs, so there is one writer at a time (the kernel drops
the lock when a process dies, even by kill -9).

On opening, a trailing partial line (the write that a crash interrupted; only the last line can be
partial because appends are sequential and single-writer) is reported and truncated away, so the
file stays valid JSONL and the next append starts on a fresh line. A *complete* line that is not a
valid record means the file was edited or damaged, and is an error naming the file and line.

Why a crash at any moment neither loses nor duplicates a finished call: the runner sends an example
only if the journal (read under the lock at start) has no ``ok`` record for it and these settings,
and sends it at most once per run. If a crash comes before an example's line is completely
written, the file has no complete line for it (the partial line is dropped on the next start), so
it is sent again: nothing that finished is lost except the calls whose lines were not yet written,
which were not finished as far as the journal is concerned. If the crash comes after the line is
written, the next start sees the ``ok`` record and does not send it again. Hence every example has
at most one ``ok`` record per settings hash, and every acknowledged one survives.

**Format.** Every line is one :class:`RunRecord` (a finished call) or one :class:`BatchRecord`
(a step of a provider batch, ``"kind": "batch"``: ``graphniah run --batch``), read and written only
through those models. Lines carry ``format_version`` (currently 4). Version 1 is the run record
without the field (journals written before versions existed); version 2 is version 3 without the
optional ``example_sha256`` and ``reused_from``; version 3 is version 4 without ``batch_id`` and
knows no batch lines. All are upgraded on reading by setting the version (the new fields stay
None), so an old journal keeps working and a resumed run appends version-4 lines after its older
ones; a graphniah that reads version 3 at most refuses a journal with batch lines instead of
misreading it. :func:`read_journal` and :attr:`Journal.records` give the run records,
:func:`read_batches` and :attr:`Journal.batches` the batch records. Any other version is an error naming file, line and version (see :mod:`graphniah.formats`). Which record of
an example counts, and how it is scored, is decided in :mod:`graphniah.scoring` only.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import Field, ValidationError

from graphniah import layout
from graphniah.atomic import atomic_write_text, disk_error, flock_holder
from graphniah.errors import GraphNIAHError, validation_detail
from graphniah.formats.base import Format, Frozen, add_version
from graphniah.formats.names import ReasoningEffort, Task


class Usage(Frozen):
    """Token counts as the provider reported them (reasoning tokens are part of completion tokens)."""

    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    reasoning_tokens: int | None = None


class CallError(Frozen):
    """One failed attempt: its kind (see ``runner.errors``), HTTP status, tier and redacted message."""

    attempt: int
    kind: str
    status: int | None = None
    tier: str
    message: str
    waited_s: float = 0.0  # backoff before the next attempt (0 for the last one or a tier switch)


class RunRecord(Frozen):
    """One finished call.

    ``status`` is ``ok`` when a response arrived (whether or not it contains an answer) and
    ``failed`` when the call failed for good. ``cost_usd`` is LiteLLM's cost of the successful
    attempt (None when LiteLLM cannot price the model); ``cost_usd_registry`` is the same from the
    registry's prices at the tier used. ``response_time_s`` covers the successful attempt only.

    ``example_sha256`` is the SHA-256 of the example's JSON line as sent (None in records of format
    version 2 and older): an answer is reused only for the same bytes. ``reused_from`` names the
    other suite's journal an ``ok`` answer was taken from instead of being sent again (same example
    bytes, model and settings hash); such a record cost this run nothing, so its costs are 0.
    ``batch_id`` names the provider batch the answer came from (None for a direct call; version 3
    and older have none): its costs are at the batch price.
    """

    format_version: Literal[4] = 4  # first, so a line says its version before anything else
    example_id: str
    model: str
    settings_hash: str
    status: Literal["ok", "failed"]
    task: Task
    answer: str
    response: str | None = None
    reasoning: str | None = None
    usage: Usage | None = None
    cost_usd: float | None = None
    cost_usd_registry: float | None = None
    response_time_s: float | None = None
    attempts: int = Field(ge=1)
    errors: tuple[CallError, ...] = ()
    service_tier: str | None = None
    reasoning_effort: ReasoningEffort | None = None
    extracted: str | None = None  # what the scoring rule said when the call finished; scores are re-computed

    correct: bool | None = None
    finished_at: str
    example_sha256: str | None = None
    reused_from: str | None = None
    batch_id: str | None = None

    @property
    def spent_usd(self) -> float:
        """What this call cost for budgeting: the larger of LiteLLM's and the registry's figure (0 if neither).

        Taking the larger one means neither an outdated LiteLLM price map nor a registry entry
        without a price can make a run spend past its budget.
        """
        return max(self.cost_usd or 0.0, self.cost_usd_registry or 0.0)


@dataclass(frozen=True)
class Recovery:
    """What opening the journal found: complete records and a dropped partial last line, if any."""

    records: tuple[RunRecord, ...]
    dropped_bytes: int
    batches: tuple[BatchRecord, ...] = ()


BatchEvent = Literal["intent", "uploaded", "created", "polled", "collected", "abandoned"]


class BatchCounts(Frozen):
    """A batch's request counts as the provider last reported them."""

    total: int = Field(ge=0)
    completed: int = Field(ge=0)
    failed: int = Field(ge=0)


class BatchRecord(Frozen):
    """One step of a provider batch (``graphniah run --batch``), journaled before the step's effect counts.

    ``key`` identifies the batch from its ``intent`` on, before the provider knows it: the uploaded
    file's name and the batch's metadata carry it, so a run killed between upload and create, or
    between create and the journal line that holds the batch id, finds the file and the batch again
    at the provider instead of submitting a second time. The events, in order:

    - ``intent`` (before the upload): ``custom_ids`` (the example ids sent, one request each),
      ``provider``, ``estimate_usd`` (at the batch price) and ``attempt`` (1 for an example's first
      batch, one more each time a failed or expired line is sent again);
    - ``uploaded``: ``file_id``;
    - ``created``: ``batch_id`` (and ``status``); from here the batch is in flight;
    - ``polled``: a new ``status`` and ``counts``;
    - ``collected``: the answers are in the journal (as run records with this ``batch_id``);
    - ``abandoned``: nothing was submitted (the upload or the creation was refused for good), so
      the ids are free to be sent again; ``note`` says why.
    """

    format_version: Literal[4] = 4
    kind: Literal["batch"] = "batch"
    event: BatchEvent
    key: str
    model: str
    settings_hash: str
    at: str
    provider: str | None = None
    custom_ids: tuple[str, ...] = ()
    attempt: int = Field(default=1, ge=1)
    estimate_usd: float | None = None
    file_id: str | None = None
    batch_id: str | None = None
    status: str | None = None
    counts: BatchCounts | None = None
    note: str = ""


JournalLine = RunRecord | BatchRecord

JOURNAL_FORMAT = Format(
    "run record", RunRecord.model_fields["format_version"].default,
    {1: add_version(2), 2: add_version(3), 3: add_version(4)},
    hint="the journal was edited or damaged — move it away to start over",
)


def parse_record(line: bytes, where: str) -> JournalLine:
    """One journal line as a :class:`RunRecord` or :class:`BatchRecord` (older versions upgraded); errors name ``where``."""
    try:
        if line.startswith(_FAST_BATCH):
            return BatchRecord.model_validate_json(line)
        if line.startswith(_FAST):
            return RunRecord.model_validate_json(line)
        obj = JOURNAL_FORMAT.parse_json(line, where)
        return BatchRecord.model_validate(obj) if obj.get("kind") == "batch" else RunRecord.model_validate(obj)
    except ValidationError as err:
        JOURNAL_FORMAT.parse_json(line, where)  # a line that is not JSON, or of another version, says so
        raise GraphNIAHError(f"{where}: not a valid run record ({validation_detail(err)}); "
                             "the journal was edited or damaged — move it away to start over") from None


_FAST = JOURNAL_FORMAT.fast_prefix()
_FAST_BATCH = _FAST + b'"kind":"batch",'


def _parse(path: Path, data: bytes) -> list[JournalLine]:
    return [parse_record(line, f"{path}:{lineno}") for lineno, line in enumerate(data.split(b"\n"), 1) if line.strip()]


def _read_lines(path: str | os.PathLike[str]) -> list[JournalLine]:
    p = Path(path)
    try:
        data = p.read_bytes()
    except FileNotFoundError:
        return []
    end = data.rfind(b"\n") + 1
    return _parse(p, data[:end])


def read_journal(path: str | os.PathLike[str]) -> list[RunRecord]:
    """The complete run records of a journal (a partial last line is ignored; nothing is changed)."""
    return [r for r in _read_lines(path) if isinstance(r, RunRecord)]


def read_batches(path: str | os.PathLike[str]) -> list[BatchRecord]:
    """The complete batch records of a journal, in the order they were written."""
    return [r for r in _read_lines(path) if isinstance(r, BatchRecord)]


class Journal:
    """An open journal: exclusive lock, recovered contents, and durable appends."""

    def __init__(self, path: str | os.PathLike[str]):
        self.path = Path(path)
        self._append_lock = threading.Lock()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_APPEND, 0o644)
        try:
            fcntl.flock(self._fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(self._fd)
            raise GraphNIAHError(f"another runner is writing {self.path} (pid {flock_holder(self.path)} holds the "
                                 "journal's lock); wait for it to finish or stop it first") from None
        try:
            self.recovery = self._recover()
        except BaseException:
            self.close()
            raise

    def _recover(self) -> Recovery:
        size = os.fstat(self._fd).st_size
        data = os.pread(self._fd, size, 0) if size else b""
        end = data.rfind(b"\n") + 1
        dropped = len(data) - end
        if dropped:
            # The tail is a write that a crash cut short; it never counted as finished.
            os.ftruncate(self._fd, end)
            os.fsync(self._fd)
        lines = _parse(self.path, data[:end])
        return Recovery(tuple(r for r in lines if isinstance(r, RunRecord)), dropped,
                        tuple(r for r in lines if isinstance(r, BatchRecord)))

    @property
    def records(self) -> tuple[RunRecord, ...]:
        return self.recovery.records

    @property
    def batches(self) -> tuple[BatchRecord, ...]:
        """The batch records found on opening (appended ones are not added)."""
        return self.recovery.batches

    def append(self, records: Sequence[JournalLine]) -> None:
        """Write the records' lines with one ``write`` and make them durable with ``fsync``."""
        if not records:
            return
        buf = b"".join(r.model_dump_json().encode() + b"\n" for r in records)
        with self._append_lock:  # the writer thread and a cancellation flush never overlap
            view = memoryview(buf)
            size = os.fstat(self._fd).st_size  # one writer (the lock): the file ends here before this write
            try:
                while view:
                    n = os.write(self._fd, view)
                    view = view[n:]
                os.fsync(self._fd)
            except OSError as e:
                # A full or read-only disk: none of these records counts as written. Cut what part of
                # them reached the file, so that a later append (the flush on cancellation) starts on
                # a fresh line instead of completing a torn one.
                with contextlib.suppress(OSError):
                    os.ftruncate(self._fd, size)
                raise disk_error(e, self.path) or e from None

    def close(self) -> None:
        if self._fd >= 0:
            try:
                fcntl.flock(self._fd, fcntl.LOCK_UN)
            finally:
                os.close(self._fd)
                self._fd = -1

    def __enter__(self) -> Journal:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def done_ids(records: Iterable[RunRecord], settings_hash: str) -> set[str]:
    """Examples with a successful record for these settings."""
    return {r.example_id for r in records if r.status == "ok" and r.settings_hash == settings_hash}


def failed_ids(records: Iterable[RunRecord], settings_hash: str) -> set[str]:
    """Examples with a failed record and no successful one for these settings."""
    recs = [r for r in records if r.settings_hash == settings_hash]
    return {r.example_id for r in recs if r.status == "failed"} - done_ids(recs, settings_hash)


class RunSettingsEntry(Frozen):
    """What one settings hash of a journal stands for (written when the settings first run)."""

    model: str
    settings: dict[str, Any]  # ``ModelEntry.settings()``: the exact inputs of the settings hash
    examples: str = ""  # where the examples came from (file or dataset), for the reader's orientation
    first_run: str

    @property
    def reasoning_effort(self) -> str | None:
        eff = self.settings.get("reasoning_effort")
        return str(eff) if eff else None


class RunSettings(Frozen):
    """``<model>.settings.json`` next to a journal: ``runs`` maps each settings hash to its entry.

    Version 1 (written before versions existed) is the bare mapping ``{hash: entry}``; it is upgraded
    on reading by moving the mapping under ``runs``.
    """

    format_version: Literal[2] = 2
    runs: dict[str, RunSettingsEntry] = Field(default_factory=dict)


SETTINGS_FORMAT = Format("run settings file", 2, {1: lambda obj: {"format_version": 2, "runs": obj}},
                         hint="move the file away; the next run writes it again")


def read_run_settings(journal: str | os.PathLike[str]) -> RunSettings:
    """The settings file of a journal (empty when there is none); errors name the file."""
    path = layout.settings_file(journal)
    if not path.exists():
        return RunSettings()
    return SETTINGS_FORMAT.read_file(RunSettings, path)


def record_run_settings(journal: str | os.PathLike[str], settings_hash: str, entry: RunSettingsEntry) -> None:
    """Add ``settings_hash`` to the journal's settings file unless it is there already (atomic write)."""
    known = read_run_settings(journal)
    if settings_hash not in known.runs:
        updated = RunSettings(runs={**known.runs, settings_hash: entry})
        atomic_write_text(layout.settings_file(journal), updated.model_dump_json(indent=2) + "\n")

