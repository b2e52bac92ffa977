"""Reading raw S2AG release and diff folders with DuckDB, without ever trusting a damaged file.

The folders' layout is :mod:`graphniah.ingest.s2ag.layout`, the queries that normalise their
records :mod:`graphniah.ingest.s2ag.sql`, and the gzip checks :mod:`graphniah.ingest.s2ag.integrity`.

**Integrity.** DuckDB does not check the gzip CRC, so every shard is inflated by us, with ISA-L,
which checks each member's CRC-32 and length, in the same pass that computes the shard's sha256
for the manifest — and DuckDB is fed the inflated bytes through a named pipe instead of reading the
``.gz`` itself (``VerifiedRead``). Each shard is thus inflated exactly once, by a faster inflater
than DuckDB's, and the check costs no extra pass (``bench/ingest.py`` compares the verified ingest
with a bare DuckDB read of the same gzip files). A failure names the file and the byte offset of
the damage, or the file and line of the record DuckDB could not read.
"""

from __future__ import annotations

import contextlib
import os
import re
import tempfile
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from types import TracebackType
from typing import Literal

import duckdb

from graphniah.errors import GraphNIAHError
from graphniah.ingest.s2ag.integrity import damage_error, find_bad_record, inflate, verify_gzip
from graphniah.ingest.s2ag.layout import PAPERS, READ_DATASETS, InputFile, ReleaseInfo, Source, read_release_info, release_sources
from graphniah.ingest.s2ag.sql import NORMALISE_SQL, TABLES, Scan, drop_duplicates, fetch_one

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]  # no fcntl on Windows: pipes keep their default buffer size there

_FILE_IN_ERROR = re.compile(r'file "([^"]+)"')
# DuckDB errors that bad input files cause (anything else is a bug and propagates unchanged).
_READ_ERRORS = (duckdb.IOException, duckdb.InvalidInputException, duckdb.ConversionException, duckdb.InterruptException)
_F_SETPIPE_SZ = 1031  # Linux fcntl: grow a pipe's buffer (fewer context switches per MB)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


class _Feeder:
    """Streams one gzip shard into a named pipe as plain JSON lines, checking CRCs and hashing.

    Why a pipe: DuckDB does not check gzip CRCs, so the shard must be inflated once by a checker
    anyway; feeding DuckDB the inflated bytes means it is inflated *only* once (by ISA-L, which is
    faster than DuckDB's inflate), so verification costs less than nothing compared with letting
    DuckDB read the .gz file itself. The thread blocks in ``open`` until DuckDB opens the pipe.
    """

    def __init__(self, source: Source, fifo: Path, cancel: threading.Event, on_problem: Callable[[], None]) -> None:
        self.source = source
        self.fifo = fifo
        self.result: InputFile | None = None
        self.problem: str | None = None  # gzip damage found while streaming
        self.size = 0
        self.done = threading.Event()
        self._cancel = cancel
        self._on_problem = on_problem
        self.thread = threading.Thread(target=self._run, name=f"feed-{source.path.name}", daemon=True)

    def _run(self) -> None:
        try:
            fd = os.open(self.fifo, os.O_WRONLY)  # blocks until a reader opens the pipe
        except OSError as e:  # pragma: no cover - the pipe was removed under us
            self.problem = f"could not open pipe: {e}"
            self.done.set()
            return
        try:
            if self._cancel.is_set():
                return
            if fcntl is not None:
                with contextlib.suppress(OSError):
                    fcntl.fcntl(fd, _F_SETPIPE_SZ, 1 << 20)
            self.size, digest, problem = inflate(self.source.path, lambda b: _write_all(fd, b), self._cancel)
            if problem is None:
                s = self.source
                self.result = InputFile(s.dataset, s.role, s.relpath, self.size, digest)
            elif problem != "cancelled":
                self.problem = problem
        except BrokenPipeError:
            pass  # the reader stopped early (its query failed or was interrupted); reported by the reader
        finally:
            os.close(fd)
            self.done.set()
            if self.problem is not None:
                self._on_problem()

    def unblock(self) -> None:
        """Let the thread finish when nobody will read the pipe: open the read end and drain it."""
        if self.done.is_set():
            return
        fd = os.open(self.fifo, os.O_RDONLY | os.O_NONBLOCK)
        try:
            while not self.done.wait(0.005):
                with contextlib.suppress(BlockingIOError):
                    os.read(fd, 1 << 20)
        finally:
            os.close(fd)


class VerifiedRead:
    """Run DuckDB statements over ``sources`` so that no damaged byte can go unnoticed.

    Inside the ``with`` block, build SQL from ``vr.scan(sources)``: each shard is then a named
    pipe fed by a ``_Feeder`` thread that inflates it with ISA-L (checking every member's CRC and
    length), hashes it, and streams plain JSON lines to DuckDB. On leaving the block:

    - success: ``inputs`` holds every shard's size and sha256 (manifest records); a shard that was
      damaged raises ``GraphNIAHError`` with the file and byte offset even if DuckDB accepted the
      bytes it was given (feeders interrupt DuckDB as soon as they find damage);
    - a DuckDB read error on sound files: the failing record is located by re-parsing the real
      file and reported as ``file, line N``.

    Where named pipes do not exist (Windows), every shard is verified first and DuckDB reads the
    ``.gz`` files itself.
    """

    def __init__(self, con: duckdb.DuckDBPyConnection, sources: Sequence[Source]) -> None:
        self._con = con
        self._sources = tuple(sources)
        self._cancel = threading.Event()
        self._lock = threading.Lock()
        self._running = False
        self._feeders: dict[Path, _Feeder] = {}  # by source path
        self._by_fifo: dict[str, Source] = {}
        self._tmp: tempfile.TemporaryDirectory[str] | None = None
        self._pipes = hasattr(os, "mkfifo")
        self.inputs: tuple[InputFile, ...] = ()

    def scan(self, sources: Sequence[Source]) -> Scan:
        if not self._pipes:
            return Scan(tuple(str(s.path) for s in sources), "gzip")
        return Scan(tuple(str(self._feeders[s.path].fifo) for s in sources), "none")

    def _problem_found(self) -> None:
        with self._lock:
            if self._running:
                self._con.interrupt()

    def __enter__(self) -> VerifiedRead:
        if not self._pipes:  # pragma: no cover - POSIX has named pipes
            self.inputs = tuple(InputFile(s.dataset, s.role, s.relpath, *verify_gzip(s.path)) for s in self._sources)
            return self
        self._tmp = tempfile.TemporaryDirectory(prefix="graphniah-read.")
        for i, s in enumerate(self._sources):
            fifo = Path(self._tmp.name) / f"{i:05d}-{s.path.name.removesuffix('.gz')}"
            os.mkfifo(fifo, 0o600)
            self._feeders[s.path] = _Feeder(s, fifo, self._cancel, self._problem_found)
            self._by_fifo[str(fifo)] = s
        self._running = True
        for f in self._feeders.values():
            f.thread.start()
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> Literal[False]:
        if not self._pipes:  # pragma: no cover
            return False
        with self._lock:
            self._running = False
        try:
            if exc is not None:
                self._cancel.set()
            for f in self._feeders.values():
                f.unblock()  # no-op for pipes that were read to the end
                f.thread.join()
        finally:
            assert self._tmp is not None
            self._tmp.cleanup()
        feeders = list(self._feeders.values())
        # Damage found in any shard wins over every other outcome: it explains them.
        for f in feeders:
            if f.problem is not None:
                raise damage_error(f.source.path, f.size, f.problem) from None
        if exc is None:
            unread = [f.source.path for f in feeders if f.result is None]
            if unread:  # pragma: no cover - every statement must read its pipes to the end
                raise RuntimeError(f"internal error: DuckDB did not read {unread[:3]} to the end")
            self.inputs = tuple(f.result for f in feeders if f.result is not None)
            return False
        if isinstance(exc, _READ_ERRORS):
            raise GraphNIAHError(self._diagnose(exc)) from None
        return False

    def _diagnose(self, exc: BaseException) -> str:
        msg = str(exc)
        named = _FILE_IN_ERROR.search(msg)
        first = self._by_fifo.get(named.group(1)) if named else None
        ordered = sorted(self._sources, key=lambda s: 0 if first is not None and s.path == first.path else 1)
        for s in ordered:
            found = find_bad_record(s.path, s.dataset)
            if found:
                return found
        files = ", ".join(str(s.path) for s in self._sources[:5]) + (" …" if len(self._sources) > 5 else "")
        return f"could not read S2AG files ({files}): {msg.splitlines()[0] if msg else type(exc).__name__}"


# --- Loading a whole release into tables


def load_release_tables(con: duckdb.DuckDBPyConnection, release_dir: Path, release_id: str | None = None) -> tuple[ReleaseInfo, tuple[InputFile, ...]]:
    """Create (or replace) the ``papers``/``citations``/``venues`` tables from a release folder,
    one row per primary key (``drop_duplicates``) — the release store's full load.

    Raises ``GraphNIAHError`` for an unknown release id (``read_release_info``), a missing dataset
    folder, damaged files, bad records, or a release without papers.
    """
    release_dir = Path(release_dir)
    info = read_release_info(release_dir, release_id)
    sources = release_sources(release_dir)
    with VerifiedRead(con, [s for ds in READ_DATASETS for s in sources[ds]]) as vr:
        for ds in READ_DATASETS:
            con.execute(f"CREATE OR REPLACE TABLE {TABLES[ds]} AS {NORMALISE_SQL[ds](vr.scan(sources[ds]))}")
        require_papers(con, release_dir)
    for ds in READ_DATASETS:
        drop_duplicates(con, ds, TABLES[ds])
    return info, vr.inputs


def require_papers(con: duckdb.DuckDBPyConnection, release_dir: Path) -> None:
    """An empty release is an error (a download that produced empty shards, or the wrong folder)."""
    row = fetch_one(con, f"SELECT count(*) FROM {TABLES[PAPERS]}")
    if not row or row[0] == 0:
        raise GraphNIAHError(f"release {release_dir} is empty: its {PAPERS}/ shards hold no records")
