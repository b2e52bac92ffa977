"""``graphniah export``: a suite's examples as a Hugging Face datasets folder.

Layout of ``DIR`` (see :mod:`graphniah.formats.dataset` for the columns)::

    README.md                  dataset card: YAML front matter (configs, license, features) + body
    data/<task>-00000.parquet  one file per task present (zstd, levels in formats/dataset.py), rows in suite order
    lm_eval/                   lm-evaluation-harness tasks over those files (graphniah.dataset.lm_eval)
    graphniah-manifest.json    sha256 of every other file and of the source examples file

One streamed pass reads the examples file (hashing its bytes as it goes), checks each example from
its text alone (:func:`graphniah.text.textcheck.verify`, the check behind ``graphniah
verify``), and appends its row to the buffer of its task; a buffer is written out as a Parquet row
group, built column by column, as soon as it holds :data:`ROW_GROUP_BYTES` of prompt text or
:data:`ROW_GROUP_ROWS` rows. The check, parsing and canonical serialisation of each line run in a
pool of forked worker processes (``workers``, default one per CPU) while this process writes;
results are consumed in file order and at most 2 x workers + 1 lines are in flight, so the output
is the same bytes for any number of workers. The work that releases the GIL runs in threads beside
the parsing: each task's file is converted, encoded, zstd-compressed and hashed by a thread of its
own, and the sha256 of the lines by another (``bench/export.py``: with the verifications that
``graphniah build`` recorded, parsing and canonical serialisation are what is left in this thread).
Memory is therefore bounded by a few examples plus, per task, its buffer and at most two row groups
waiting for its thread, whatever the suite's size: with 922k-token prompts (~4 MB of text each) that is a
few tens of MB of example data per process, on top of the interpreter and its libraries
(``bench/export.py`` prints the whole peak resident memory). If any example fails the check, nothing is written and the error lists
every failing id.

The folder is built in a staging folder and renamed into place (``graphniah.atomic.atomic_dir``); the
manifest is its last file. Nothing in the folder depends on the time or on local paths, so the
same examples always export to the same bytes.
"""

from __future__ import annotations

import functools
import hashlib
import json
import multiprocessing
import os
from collections import deque
from collections.abc import Callable, Generator
from concurrent.futures import Future, ProcessPoolExecutor, ThreadPoolExecutor
from contextlib import closing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from graphniah.atomic import _umask, atomic_dir, sha256_file, write_in_staging
from graphniah.dataset.card import CardFacts, Tally, render_card
from graphniah.dataset.lm_eval import folder_is_current, write_lm_eval_folder
from graphniah.errors import GraphNIAHError
from graphniah.formats import TASKS, Task
from graphniah.formats.dataset import (
    CARD_FILE,
    COMPRESSION_KEY,
    DATA_DIR,
    MANIFEST_FILE,
    PROMPT_COLUMN,
    PROMPT_ZSTD_LEVEL,
    SCHEMA,
    ZSTD_LEVEL,
    DatasetManifest,
    FileEntry,
    SnapshotInfo,
    SourceExamples,
    check_files,
    compression_record,
    example_to_row,
    file_entry,
    manifest_json,
    read_manifest,
)
from graphniah.formats.examples import Example, file_lines, open_examples, parse_example
from graphniah.layout import SNAPSHOTS_ROOT, suite_manifest_of, suite_name
from graphniah.progress import NO_PROGRESS, Progress
from graphniah.text import PromptSet, VerifyResult, checker_version, load_prompts, verify

#: A row group is written once its buffered prompts hold this much text (bounds memory and the
#: cost of reading one row back: a reader decodes a whole row group of the column it asks for).
#: Measured on 100 examples at L = 922,000: peak RSS 0.38 GB at 8 MiB, 0.63 GB at 32 MiB, same time.
ROW_GROUP_BYTES = 8 << 20
ROW_GROUP_ROWS = 1000

_T = TypeVar("_T")


class _InOrder:
    """A thread beside this one that runs jobs one at a time, in the order they were submitted.

    Its jobs spend their time in code that releases the GIL (sha256 over a line of a few MB, Arrow's
    Parquet encoding and zstd compression), so on two or more CPUs they run while this thread parses
    the next lines: the export of a built suite then costs about what parsing does (bench/export.py).
    At most ``limit`` submitted jobs are unfinished (a submit past that waits for the oldest), which
    bounds the lines and rows they hold; a job's error is raised here, at a later submit or at
    :meth:`drain`. The thread starts at the first submit, after any worker processes were forked.
    """

    def __init__(self, name: str, limit: int) -> None:
        self._pool = ThreadPoolExecutor(1, thread_name_prefix=name)
        self._pending: deque[Future[Any]] = deque()
        self._limit = limit

    def submit(self, fn: Callable[..., _T], *args: Any) -> Future[_T]:
        fut = self._pool.submit(fn, *args)
        self._pending.append(fut)
        while self._pending and (len(self._pending) > self._limit or self._pending[0].done()):
            self._pending.popleft().result()
        return fut

    def drain(self) -> None:
        """Wait for every job; raises the first error of one."""
        while self._pending:
            self._pending.popleft().result()

    def close(self) -> None:
        """Stop the thread: jobs not started are dropped (after an error nothing more is written)."""
        self._pool.shutdown(wait=True, cancel_futures=True)


@functools.cache
def _leaf_columns() -> tuple[str, ...]:
    """Dotted paths of the Parquet leaf columns of :data:`SCHEMA` (as the writer names them)."""
    buf = pa.BufferOutputStream()
    with pq.ParquetWriter(buf, SCHEMA):  # a file with no row group: ``SCHEMA.empty_table()`` would import pandas
        pass
    parquet_schema = pq.ParquetFile(pa.BufferReader(buf.getvalue())).schema
    return tuple(parquet_schema.column(i).path for i in range(len(parquet_schema)))


def _offsets(lengths: list[int], what: str) -> pa.Buffer:
    """The int32 offsets buffer of a string or list array whose items have ``lengths``."""
    offsets = np.zeros(len(lengths) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    if offsets[-1] >= 2**31:  # a row group is cut at ROW_GROUP_BYTES of prompt text, far below this
        raise GraphNIAHError(f"export: a row group of the {what} column holds over 2 GiB")
    return pa.py_buffer(offsets.astype(np.int32))


def _arrow_array(values: list[Any], t: pa.DataType, what: str) -> pa.Array:
    """The Arrow array of type ``t`` holding ``values`` (None: null), assembled from its buffers.

    It is the array ``pa.array(values, type=t)`` gives (the same Parquet bytes: the dataset tests
    compare folders), for the types of :data:`SCHEMA`: strings, int64, float64, bool, lists and
    structs. ``pa.array`` on a list first asks whether it is a pandas object, which imports pandas
    (and pyarrow.compute): about as much CPU as reading the whole 100-example bench file.
    """
    n = len(values)
    nulls = [v is None for v in values]
    null_count = sum(nulls)
    validity = pa.py_buffer(np.packbits(~np.array(nulls, dtype=bool), bitorder="little")) if null_count else None
    if pa.types.is_string(t):
        data = [b"" if v is None else v.encode() for v in values]
        return pa.Array.from_buffers(t, n, [validity, _offsets([len(d) for d in data], what), pa.py_buffer(b"".join(data))],
                                     null_count=null_count)
    if pa.types.is_list(t):
        items = [() if v is None else v for v in values]
        child = _arrow_array([x for v in items for x in v], t.value_type, what)
        return pa.Array.from_buffers(t, n, [validity, _offsets([len(v) for v in items], what)], null_count=null_count,
                                     children=[child])
    if pa.types.is_struct(t):
        children = [_arrow_array([None if v is None else v[f.name] for v in values], f.type, f"{what}.{f.name}")
                    for f in (t.field(i) for i in range(t.num_fields))]
        return pa.Array.from_buffers(t, n, [validity], null_count=null_count, children=children)
    if pa.types.is_boolean(t):
        bits = np.packbits(np.array([bool(v) for v in values], dtype=bool), bitorder="little")
        return pa.Array.from_buffers(t, n, [validity, pa.py_buffer(bits)], null_count=null_count)
    dtype = {pa.int64(): np.int64, pa.float64(): np.float64}[t]
    return pa.Array.from_buffers(t, n, [validity, pa.py_buffer(np.array([0 if v is None else v for v in values], dtype=dtype))],
                                 null_count=null_count)


def _compression_json() -> str:
    """The data files' :data:`COMPRESSION_KEY` metadata: the levels this exporter writes at."""
    return json.dumps(compression_record(PROMPT_ZSTD_LEVEL, ZSTD_LEVEL), sort_keys=True)


def _compressed_as_today(out: Path, manifest: DatasetManifest) -> bool:
    """Every data file of ``out`` records the compression this exporter uses (a footer read each)."""
    want = _compression_json().encode()
    return all((pq.read_metadata(out / f.path).metadata or {}).get(COMPRESSION_KEY.encode()) == want
               for f in manifest.data_files())


def data_file_name(task: str) -> str:
    """``data/<task>-00000.parquet``: the one file of a task (the numbering leaves room for shards)."""
    return f"{DATA_DIR}/{task}-00000.parquet"


@dataclass(frozen=True)
class _Checked:
    """One line of the examples file, parsed and checked (in a worker process, or in this one)."""

    #: The parsed example when checked in this process; None from a worker, whose caller parses
    #: the line again: a parse costs less than pickling the example back (bench/export.py measures export).
    example: Example | None
    result: VerifyResult
    #: ``example_to_json(example)`` as UTF-8 when it differs from the line (without its newline);
    #: None when the line already is the canonical form, so the pool need not send it back.
    canonical: bytes | None


_WORKER_PROMPTS: PromptSet | None = None  # the template set of a worker process (set by its initializer)
_WORKER_VERIFIED: frozenset[str] = frozenset()  # its recorded verifications (see _recorded_verifications)


def _init_worker(prompts_dir: str, verified: frozenset[str]) -> None:
    global _WORKER_PROMPTS, _WORKER_VERIFIED
    _WORKER_PROMPTS = load_prompts(prompts_dir)
    _WORKER_VERIFIED = verified


def _recorded_verifications(src: Path, prompt_set: PromptSet) -> tuple[frozenset[str], int]:
    """SHA-256s of example lines that ``graphniah build`` verified from their text with this very
    checker (same :func:`checker_version`: the check's code and this template set), as the suite
    manifest beside ``src`` records them (empty when there is none or it was another checker), and
    how many examples that manifest lists (0 without one)."""
    path = suite_manifest_of(src)
    if not path.is_file():
        return frozenset(), 0
    from graphniah.formats.suites import read_suite_manifest

    m = read_suite_manifest(path)
    if m.checker != checker_version(prompt_set):
        return frozenset(), len(m.examples)
    return frozenset(e.sha256 for e in m.examples if e.sha256), len(m.examples)


def _line_sha256(line: bytes) -> str:
    """sha256 of an examples file line without its newline (what the suite manifest records),
    taken on a view: no copy of a 4 MB line."""
    return hashlib.sha256(memoryview(line)[:-1] if line.endswith(b"\n") else line).hexdigest()


def _check_line(line: bytes, where: str, prompt_set: PromptSet | None = None, verified: frozenset[str] = frozenset(),
                hashes: _InOrder | None = None) -> _Checked:
    """Parse one line, re-solve it from its text (:func:`verify`) and serialise it canonically.

    ``prompt_set`` and ``verified`` are given when checking in the calling process (the example is
    then returned); a worker uses its own and returns no example. A line whose bytes are among the
    recorded verifications is not solved again: that check gave this answer for these bytes.
    ``hashes``, in the calling process, hashes the line while this thread parses it.
    """
    pr = prompt_set or _WORKER_PROMPTS
    if pr is None:  # pragma: no cover - a worker always has run its initializer
        raise GraphNIAHError("export worker started without a prompt template set")
    recorded = verified if prompt_set is not None else _WORKER_VERIFIED
    line_hash = hashes.submit(_line_sha256, line) if recorded and hashes is not None else None
    ex = parse_example(line, where)
    if recorded and (_line_sha256(line) if line_hash is None else line_hash.result()) in recorded:
        result = VerifyResult(True, ex.answer, ex.answer, "verified by graphniah build (same bytes, same checker)")
    else:
        result = verify(ex, pr)
    # ``example_to_json(ex).encode()`` without the detour through str: model_dump_json is this
    # very serializer's bytes decoded, so the bytes are the same (the dataset tests check the
    # canonical sha256 against write_examples' file) at under half the cost on a 4 MB prompt.
    canonical = type(ex).__pydantic_serializer__.to_json(ex)
    # The line, bar a final newline, is the canonical form (compared in place, not on a 4 MB copy).
    same = canonical == line or (len(line) == len(canonical) + 1 and line.endswith(b"\n") and line.startswith(canonical))
    return _Checked(ex if prompt_set is not None else None, result, None if same else canonical)


def default_workers() -> int:
    """Worker processes for the check: one per usable CPU; none (check in this process) on one CPU
    or where processes cannot be forked."""
    if "fork" not in multiprocessing.get_all_start_methods():
        return 0
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    return cpus if cpus > 1 else 0


@dataclass
class _Digests:
    """Size and sha256 of the source file, and sha256 of its canonical form, fed line by line in file order.

    While every line so far is exactly its canonical form (an example as ``write_examples`` writes
    it, newline included), the two byte streams are equal, so one hash serves both. At the first
    line that differs, the canonical hash starts as a copy of the source hash taken before that
    line (whose state is then that of the shared prefix) and is fed separately from there on. So a
    suite that ``graphniah`` wrote is hashed once, not twice.
    """

    source: hashlib._Hash = field(default_factory=hashlib.sha256)
    size: int = 0
    canonical: hashlib._Hash | None = None  # None: the canonical bytes so far are the source bytes

    def add(self, line: bytes, canonical_line: bytes | None) -> None:
        """Feed one line; ``canonical_line`` is what it contributes to the canonical form (None: ``line`` itself)."""
        if canonical_line is not None and self.canonical is None:
            self.canonical = self.source.copy()
        self.source.update(line)
        self.size += len(line)
        if self.canonical is not None:
            self.canonical.update(line if canonical_line is None else canonical_line)

    def canonical_hex(self) -> str:
        return (self.source if self.canonical is None else self.canonical).hexdigest()


def _checked_lines(
    src: Path, prompt_set: PromptSet, workers: int, verified: frozenset[str] = frozenset(), hashes: _InOrder | None = None
) -> Generator[tuple[int, bytes, _Checked | None], None, None]:
    """``(suite index, line, checked)`` for every line of ``src``, in file order (``checked`` is
    None for a blank line, which holds no example and has index -1).

    The file is read once, in binary, and every line (blank ones too) is yielded, so the caller
    can hash the file's bytes without a second read. With ``workers`` > 0 the lines are
    parsed and checked by a process pool (the check is most of the export's CPU time) while this
    process writes; results are taken in submission order, so the output does not depend on
    scheduling, and at most ``2 * workers + 1`` lines are in flight, so memory stays bounded by a few
    examples whatever the suite's size.
    """
    pending: deque[tuple[int, bytes, Future[_Checked] | None]] = deque()
    pool: ProcessPoolExecutor | None = None
    if workers > 0:
        # fork: the workers inherit the imported modules (no re-import, no re-run of a script that
        # calls export_suite without a __main__ guard, as spawn and forkserver would do). They run
        # only Python and pydantic code (parse, verify, serialise), never Arrow, so the state of
        # any Arrow threads this process runs, copied mid-flight by fork, is never touched.
        pool = ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork"),
                                   initializer=_init_worker, initargs=(str(prompt_set.directory), verified))

    def submit(line: bytes, where: str) -> Future[_Checked]:
        if pool is not None:
            return pool.submit(_check_line, line, where)
        done: Future[_Checked] = Future()
        done.set_result(_check_line(line, where, prompt_set, verified, hashes))
        return done

    f = open_examples(src, buffering=0)
    try:
        with f:
            index = 0
            for lineno, line in enumerate(file_lines(f, ends=True), 1):
                if line.isspace():  # what ``not line.strip()`` says, without copying a 4 MB line
                    pending.append((-1, line, None))
                else:
                    pending.append((index, line, submit(line, f"{src}:{lineno}")))
                    index += 1
                while len(pending) > 2 * workers:
                    i, raw, fut = pending.popleft()
                    yield i, raw, None if fut is None else fut.result()
        while pending:
            i, raw, fut = pending.popleft()
            yield i, raw, None if fut is None else fut.result()
    finally:
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)


@dataclass
class _TaskWriter:
    """The Parquet file of one task, with the rows not yet written as a row group.

    The row groups are converted, encoded, compressed and written by ``jobs``, the file's own
    thread, so the file gets its row groups in order (the bytes of writing them here) while the
    files of other tasks are compressed beside it; that thread also hashes the finished file.
    """

    path: Path
    jobs: _InOrder
    writer: pq.ParquetWriter | None = None
    rows: list[dict[str, Any]] = field(default_factory=list)
    text_bytes: int = 0
    count: int = 0
    sha256: str | None = None  # of the finished file, taken by ``jobs``

    def add(self, row: dict[str, Any], text_bytes: int) -> None:
        self.rows.append(row)
        self.text_bytes += text_bytes
        self.count += 1
        if self.text_bytes >= ROW_GROUP_BYTES or len(self.rows) >= ROW_GROUP_ROWS:
            self.flush()

    def flush(self) -> None:
        if self.rows:
            self.jobs.submit(self._write, self.rows)
            self.rows = []
            self.text_bytes = 0

    def _write(self, rows: list[dict[str, Any]]) -> None:
        """Write ``rows`` as one row group (run by ``jobs``)."""
        if self.writer is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            others = [c for c in _leaf_columns() if c != PROMPT_COLUMN]
            # The prompt column is neither dictionary-encoded nor given min/max statistics: its
            # values are ~4 MB strings that never repeat, so a dictionary is abandoned after the
            # first page, and statistics over them are long enough to be dropped from the footer
            # anyway. Skipping both saves CPU on every example (bench/export.py) and changes no value.
            # zstd at the levels formats/dataset.py gives (and says why), recorded in the file's metadata.
            levels = {c: PROMPT_ZSTD_LEVEL if c == PROMPT_COLUMN else ZSTD_LEVEL for c in _leaf_columns()}
            recorded = SCHEMA.with_metadata({COMPRESSION_KEY: _compression_json()})
            self.writer = pq.ParquetWriter(self.path, recorded, compression="zstd", compression_level=levels,
                                           use_dictionary=others, write_statistics=others)
        # Column by column, each ~4 MB prompt string encoded once; ``Table.from_pylist`` walks the
        # rows as nested dicts and was many times slower on such rows.
        table = pa.Table.from_arrays([_arrow_array([r[f.name] for r in rows], f.type, f.name) for f in SCHEMA], schema=SCHEMA)
        table.validate()
        self.writer.write_table(table, row_group_size=len(rows))

    def finish(self) -> None:
        """Write the rows left, close the file and hash it, all by ``jobs`` (:meth:`entry` waits for them)."""
        self.flush()
        self.jobs.submit(self._close_and_hash)

    def _close_and_hash(self) -> None:
        self.close()
        if self.writer is not None:
            self.sha256 = sha256_file(self.path)

    def entry(self, root: Path, task: Task) -> FileEntry:
        """The manifest entry of the finished file (after :meth:`finish`)."""
        self.jobs.drain()
        return file_entry(root, self.path, sha256=self.sha256, rows=self.count, task=task)

    def close(self) -> None:
        """Close the file if it is open (idempotent)."""
        if self.writer is not None:
            self.writer.close()

    def stop(self) -> None:
        """Stop ``jobs`` (dropping the ones not started, after an error) and close the file: on any outcome."""
        self.jobs.close()
        self.close()


@dataclass(frozen=True)
class ExportResult:
    out: Path
    manifest: DatasetManifest
    examples: int


def snapshot_infos(hashes: set[str], snapshots_root: str | os.PathLike[str]) -> tuple[SnapshotInfo, ...]:
    """Release id, cutoff and synthetic flag of each snapshot the examples come from."""
    from graphniah.formats.snapshot import snapshot_at_or_under, source_name

    root = Path(snapshots_root)
    out = []
    for h in sorted(hashes):
        try:
            snap = snapshot_at_or_under(root, h)
        except GraphNIAHError as err:
            raise GraphNIAHError(f"cannot describe the snapshot of the examples: {err} "
                                 "(the card records its release and cutoff; pass --snapshots with the folder holding it)") from None
        m = snap.manifest
        out.append(SnapshotInfo(snapshot_hash=h, release_id=m.release_id, cutoff=m.cutoff, synthetic=m.synthetic, source=source_name(m)))
    return tuple(out)


def _suite_manifest(examples_path: Path) -> dict[str, Any] | None:
    """The suite manifest ``<suite>.json`` next to the examples (``graphniah build`` writes it), if any.

    Kept whole (the suite file, seed, every example's index, value and recipe) so that a report from
    the dataset reads the same manifest as a report from the suite; only the snapshot's local path
    is cut to its ``<release>/cutoff=<date>`` tail, which names it on any machine.
    """
    path = suite_manifest_of(examples_path)
    if not path.is_file():
        return None
    from graphniah.formats.suites import read_suite_manifest

    m = read_suite_manifest(path).model_dump(mode="json")
    snapshot = Path(m["snapshot"])
    return m | {"snapshot": f"{snapshot.parent.name}/{snapshot.name}"}


def _is_replaceable(out: Path) -> bool:
    """An existing ``out`` is replaced only if it is a dataset folder (or empty): never a stranger's folder."""
    return not out.exists() or (out.is_dir() and ((out / MANIFEST_FILE).is_file() or not any(out.iterdir())))


def export_suite(
    examples_path: str | os.PathLike[str],
    out: str | os.PathLike[str],
    *,
    suite: str | None = None,
    snapshots_root: str | os.PathLike[str] = SNAPSHOTS_ROOT,
    progress: Progress = NO_PROGRESS,
    prompts: str | os.PathLike[str] | None = None,
    workers: int | None = None,
) -> ExportResult:
    """Export the examples file as a dataset folder ``out`` (replaced atomically if it is one already).

    ``suite`` names the dataset (default: the file's suite name, :func:`graphniah.layout.suite_name`). Raises ``GraphNIAHError`` listing every
    example that fails the text-only check, and for duplicate ids or snapshots not under
    ``snapshots_root``. ``prompts`` is the template folder the examples were rendered with (default:
    :func:`~graphniah.text.prompts.default_prompts_dir`); the check reads them with it.
    ``workers`` is the number of processes that check examples (default :func:`default_workers`;
    0 checks in this process); the output is the same bytes for any number.
    """
    src = Path(examples_path)
    out = Path(out)
    suite = suite or suite_name(src)
    if not src.is_file():
        raise GraphNIAHError(f"cannot read examples file {src}: no such file")
    if not _is_replaceable(out):
        raise GraphNIAHError(f"{out} exists and is not a GraphNIAH dataset folder; choose another --out")
    prompt_set = load_prompts(None if prompts is None else Path(prompts))
    verified, listed = _recorded_verifications(src, prompt_set)
    if workers is None:
        # Lines whose verification the build recorded are only parsed, which this process does
        # anyway to write the row: a pool would parse them a second time. The pool pays off only
        # when most lines still need the check.
        workers = 0 if len(verified) * 2 >= listed > 0 else default_workers()
    # Size and sha256 of the file's bytes, taken while reading it, and sha256 of the examples as
    # write_examples writes them (what a rebuild gives).
    digests = _Digests()
    with atomic_dir(out, replace=True) as tmp:
        os.chmod(tmp, 0o777 & ~_umask())  # a folder to share: the usual permissions, not mkdtemp's 0700
        # Each task's Parquet file is written by a thread of its own and the hashing by another, all
        # beside the parsing in this one (the limits hold a few row groups and lines: memory stays bounded).
        writers = {t: _TaskWriter(tmp / data_file_name(t), _InOrder(f"export-{t}", limit=2)) for t in TASKS}
        hashing = _InOrder("export-sha256", limit=4)
        progress.start(None, f"exporting {suite}")
        try:
            tally, failures = _write_task_rows(src, prompt_set, workers, writers, digests, progress, verified, hashing)
            # Refused before the files are finished and hashed: the folder is thrown away (finally stops the writers).
            if failures:
                raise GraphNIAHError(
                    f"refusing to export {src}: {len(failures)} example(s) fail the text-only check "
                    f"(`graphniah verify {src}`): " + "; ".join(failures)
                )
            if tally.n == 0:
                raise GraphNIAHError(f"examples file {src} holds no examples")
            for w in writers.values():
                w.finish()
            hashing.drain()
            manifest = _write_card_and_manifest(tmp, src, suite, snapshots_root, tally, digests, writers)
        finally:
            progress.done()
            hashing.close()
            for w in writers.values():
                w.stop()
    return ExportResult(out, manifest, tally.n)


def _write_task_rows(
    src: Path, prompt_set: PromptSet, workers: int, writers: dict[Task, _TaskWriter], digests: _Digests, progress: Progress,
    verified: frozenset[str], hashing: _InOrder,
) -> tuple[Tally, list[str]]:
    """Check every example of ``src`` and write the ones that pass to their task's writer.

    Returns the tally of written examples and the failures (``id (reason)``); after the first
    failure nothing more is written, but reading goes on so that every failure is listed. The
    digests are fed by ``hashing``, in file order; they are complete once it is drained.
    """
    tally = Tally()
    failures: list[str] = []
    seen: set[str] = set()
    # closing(): a refusal mid-file (a duplicate id) shuts the pool down now, not when collected
    with closing(_checked_lines(src, prompt_set, workers, verified, hashing)) as checked_lines:
        for i, line, checked in checked_lines:
            if checked is None:
                hashing.submit(digests.add, line, b"")  # a blank line: in the file, not in the canonical form
                continue
            if checked.canonical is not None:
                hashing.submit(digests.add, line, checked.canonical + b"\n")
            else:
                hashing.submit(digests.add, line, None if line.endswith(b"\n") else line + b"\n")
            result = checked.result
            ex = checked.example or parse_example(line, f"{src}: example {i + 1}")
            if ex.id in seen:
                raise GraphNIAHError(f"{src}: example id {ex.id} appears twice")
            seen.add(ex.id)
            if not result.ok:
                failures.append(f"{ex.id} ({result.reason})")
                continue
            if failures:
                continue  # nothing will be written; keep reading only to list every failure
            tally.add(ex)
            writers[ex.task].add(example_to_row(ex, i), sum(len(m.content) for m in ex.messages))
            progress.advance()
    return tally, failures


def _write_card_and_manifest(
    tmp: Path, src: Path, suite: str, snapshots_root: str | os.PathLike[str], tally: Tally, digests: _Digests,
    writers: dict[Task, _TaskWriter],
) -> DatasetManifest:
    """Write the dataset card and the manifest into the staging folder ``tmp``; returns the manifest.

    The card is written while the writers' threads still finish their files (it names them only).
    """
    snapshots = snapshot_infos(tally.snapshots, snapshots_root)
    source = SourceExamples(file=src.name, bytes=digests.size, sha256=digests.source.hexdigest(), count=tally.n,
                            canonical_sha256=digests.canonical_hex())
    tasks = [t for t, w in writers.items() if w.count]
    suite_manifest = _suite_manifest(src)
    facts = CardFacts(suite=suite, tally=tally, snapshots=snapshots, source=source,
                      data_files={t: data_file_name(t) for t in tasks}, suite_manifest=suite_manifest)
    write_in_staging(tmp / CARD_FILE, render_card(facts))
    lm_eval = [file_entry(tmp, p) for p in write_lm_eval_folder(tmp, tasks)]  # lm-evaluation-harness tasks (dataset.lm_eval)
    data = [writers[t].entry(tmp, t) for t in tasks]
    manifest = DatasetManifest(
        suite=suite,
        examples=source,
        snapshots=snapshots,
        synthetic=any(s.synthetic for s in snapshots),
        generator_versions=tuple(sorted(tally.versions)),
        seeds=tuple(sorted(tally.seeds)),
        tasks={t: w.count for t, w in writers.items() if w.count},
        files=(file_entry(tmp, tmp / CARD_FILE), *data, *lm_eval),
        suite_manifest=suite_manifest,
    )
    write_in_staging(tmp / MANIFEST_FILE, manifest_json(manifest))
    return manifest


def export_if_changed(
    examples_path: str | os.PathLike[str],
    out: str | os.PathLike[str],
    *,
    suite: str | None = None,
    snapshots_root: str | os.PathLike[str] = SNAPSHOTS_ROOT,
    prompts: str | os.PathLike[str] | None = None,
) -> ExportResult:
    """:func:`export_suite`, unless ``out`` already holds an intact export of these very examples.

    "These very examples" means the manifest's source sha256 equals the file's and the suite name
    matches; "intact" means :func:`~graphniah.formats.dataset.check_files` finds nothing. A folder
    whose data files do not record the zstd levels this exporter writes at (other levels, or none:
    exported before the levels were recorded) is exported again, and so is one without this
    exporter's ``lm_eval/`` folder (:func:`~graphniah.dataset.lm_eval.folder_is_current`). Then the folder is exactly what
    exporting again would write (export is deterministic), so it is kept.
    """
    out = Path(out)
    if (out / MANIFEST_FILE).is_file():
        try:
            m = read_manifest(out)
        except GraphNIAHError:
            m = None
        if (m is not None and m.suite == (suite or suite_name(examples_path)) and m.examples.sha256 == sha256_file(examples_path)
                and not check_files(out, m) and _compressed_as_today(out, m) and folder_is_current(m)):
            return ExportResult(out, m, m.examples.count)
    return export_suite(examples_path, out, suite=suite, snapshots_root=snapshots_root, prompts=prompts)
