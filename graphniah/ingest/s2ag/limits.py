"""Bounded memory for the ingest and the release store: one budget, split between DuckDB and the rest.

The full S2AG is about 45 GB of papers and 255 GB of citations (gzip), far more than memory. The
ingest never holds a whole table in Python (Parquet files and content hashes are written from
streamed record batches), so what grows with the release is DuckDB's working set: tables, hash
tables of the GROUP BYs and semi-joins, sorts. DuckDB keeps those within ``memory_limit`` and
spills the rest to ``temp_directory``. ``--memory-limit`` is the budget of the whole process; DuckDB
gets it minus a reserve for what lives outside DuckDB's buffer manager (320 MB + 1/8 of the
budget: the interpreter and libraries, record batches in flight, the gzip feeders' buffers;
measured by ``bench/ingest.py``, which checks the peak RSS against the budget).

Threads default to the CPUs this process may use (affinity mask and cgroup CPU quota), not the
machine's core count, so a container with two CPUs does not run sixteen DuckDB threads; and to
no more than DuckDB's share allows (100 MB per thread).
"""

from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass
from pathlib import Path

import duckdb

from graphniah.errors import GraphNIAHError
from graphniah.ingest.s2ag.sql import sql_str

# What lives outside DuckDB's buffer manager (measured on the 1M-paper demo release with
# bench/ingest.py): ~110 MB of interpreter and libraries (numpy, pyarrow, duckdb, pydantic),
# DuckDB's own unaccounted allocations (JSON reader buffers, Arrow conversion), record batches in
# flight, Parquet column chunks, pipe and inflate buffers, and what the allocators keep after
# freeing: about 300-450 MB together, hardly growing with the budget.
_RESERVE_FIXED = 320 * 10**6
_RESERVE_FRACTION = 0.125
# DuckDB needs a few blocks per thread and per operator; below ~128 MB it fails on small inputs.
_DUCKDB_MIN = 128 * 10**6
MIN_MEMORY_LIMIT = _RESERVE_FIXED + _DUCKDB_MIN + 64 * 10**6  # 512 MB
# Each DuckDB thread reading JSON holds buffers of its own (large records make them large): with
# two threads a 128 MB share ran out of memory while reading 1 kB titles, with one it did not.
# The default thread count is capped so that every thread has this much of DuckDB's share.
_DUCKDB_PER_THREAD = 100 * 10**6
DEFAULT_RAM_FRACTION = 0.5

_UNITS = {
    "": 1, "b": 1,
    "kb": 10**3, "mb": 10**6, "gb": 10**9, "tb": 10**12,
    "kib": 2**10, "mib": 2**20, "gib": 2**30, "tib": 2**40,
    "k": 10**3, "m": 10**6, "g": 10**9, "t": 10**12,
}  # fmt: skip
_SIZE = re.compile(r"\s*([0-9]+(?:\.[0-9]+)?)\s*([A-Za-z]*)\s*")


def parse_memory_size(text: str | int) -> int:
    """Bytes in ``"4GB"``, ``"512MB"``, ``"1.5GiB"``, ``"64MB"`` or a plain byte count (DuckDB's
    convention: KB/MB/GB are powers of 1000, KiB/MiB/GiB powers of 1024)."""
    if isinstance(text, int):
        n = text
    else:
        m = _SIZE.fullmatch(text)
        unit = m.group(2).lower() if m else None
        if m is None or unit not in _UNITS:
            raise GraphNIAHError(f"memory limit {text!r} is not a size such as 4GB, 512MB or 1.5GiB")
        n = math.floor(float(m.group(1)) * _UNITS[unit])
    if n < MIN_MEMORY_LIMIT:
        raise GraphNIAHError(f"memory limit {text!r} is below the minimum of {MIN_MEMORY_LIMIT // 10**6}MB that the ingest needs (the interpreter and libraries alone take ~110 MB)")
    return n


def _cgroup_value(path: str) -> str | None:
    try:
        return Path(path).read_text().strip()
    except OSError:
        return None


def available_memory() -> int:
    """Bytes of RAM this process may use: physical memory, or a lower cgroup (v2) limit."""
    total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    limit = _cgroup_value("/sys/fs/cgroup/memory.max")
    if limit and limit.isdigit():
        total = min(total, int(limit))
    return total


def available_cpus() -> int:
    """CPUs this process may use: its affinity mask, capped by a cgroup (v2) CPU quota."""
    n = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    quota = _cgroup_value("/sys/fs/cgroup/cpu.max")
    if quota:
        parts = quota.split()
        if len(parts) == 2 and parts[0].isdigit() and parts[1].isdigit() and int(parts[1]) > 0:
            n = min(n, max(1, math.ceil(int(parts[0]) / int(parts[1]))))
    return max(1, n)


def default_memory_limit() -> int:
    """Half of the memory available to the process (the rest is for the page cache and others)."""
    return max(MIN_MEMORY_LIMIT, int(available_memory() * DEFAULT_RAM_FRACTION))


def spilled_bytes(con: duckdb.DuckDBPyConnection) -> int:
    """Bytes DuckDB currently holds in spill files (evicted tables, sorts, aggregates)."""
    rows = con.execute("SELECT coalesce(sum(size), 0) FROM duckdb_temporary_files()").fetchall()  # fetchall: frees the connection
    return int(rows[0][0])


def format_size(n: int) -> str:
    return f"{n / 1e9:.2f} GB" if n >= 10**9 else f"{n / 1e6:.0f} MB"


@dataclass(frozen=True)
class Limits:
    """The process's memory budget (bytes) and DuckDB's thread count."""

    memory: int
    threads: int

    @classmethod
    def resolve(cls, memory_limit: str | int | None = None, threads: int | None = None) -> Limits:
        """``memory_limit`` as given (``"4GB"`` or bytes) or the default; threads likewise."""
        memory = default_memory_limit() if memory_limit is None else parse_memory_size(memory_limit)
        if threads is not None and threads < 1:
            raise GraphNIAHError(f"threads must be at least 1, got {threads}")
        if threads is None:
            threads = max(1, min(available_cpus(), cls(memory, 1).duckdb_memory // _DUCKDB_PER_THREAD))
        return cls(memory, threads)

    @property
    def duckdb_memory(self) -> int:
        """DuckDB's ``memory_limit``: the budget minus the reserve for everything outside DuckDB."""
        return max(_DUCKDB_MIN, self.memory - _RESERVE_FIXED - int(self.memory * _RESERVE_FRACTION))

    def configure(self, con: duckdb.DuckDBPyConnection, temp_dir: Path) -> None:
        """Apply the limits to a connection; spill files go to ``temp_dir``.

        ``preserve_insertion_order = false``: no statement of the ingest relies on the order of
        rows it did not sort (duplicates are ranked by content, outputs have ORDER BY), and
        without the guarantee DuckDB streams inserts and sorts in less memory.
        """
        temp_dir.mkdir(parents=True, exist_ok=True)
        con.execute(f"SET memory_limit = '{self.duckdb_memory}B'")
        con.execute(f"SET threads = {self.threads}")
        con.execute(f"SET temp_directory = {sql_str(temp_dir)}")
        con.execute("SET preserve_insertion_order = false")
        con.execute("SET enable_progress_bar = false")

    def to_json(self) -> dict[str, int]:
        return {"memory_limit": self.memory, "duckdb_memory_limit": self.duckdb_memory, "threads": self.threads}


def out_of_memory(e: duckdb.OutOfMemoryException, limits: Limits) -> GraphNIAHError:
    """The user-facing error when DuckDB cannot stay within its share of ``--memory-limit``."""
    first = str(e).splitlines()[0] if str(e) else type(e).__name__
    return GraphNIAHError(
        f"DuckDB ran out of memory within --memory-limit {format_size(limits.memory)} "
        f"(DuckDB's share {format_size(limits.duckdb_memory)}, {limits.threads} threads): {first}; "
        "raise --memory-limit or lower the thread count, or free disk space for spill files"
    )
