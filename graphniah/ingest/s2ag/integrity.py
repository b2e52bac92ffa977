"""Checking gzip shards without trusting DuckDB, and locating what is wrong when a read fails.

DuckDB notices a gzip stream that stops early, but it does not check the gzip CRC, so a flipped
byte inside a member can decode to silently different records (measured with DuckDB 2.0: two of
four random flips went through). So every shard is inflated by us, with ISA-L, which checks each
member's CRC-32 and length (``inflate``), in the same pass that computes the shard's sha256 for the
manifest (:class:`graphniah.ingest.s2ag.read.VerifiedRead` feeds DuckDB the inflated bytes).
Errors are located precisely only on the failure path: the damaged file is re-inflated with
``zlib`` (whose state can be copied) to find the exact byte offset (``damage_error``), and a JSON
error is re-parsed in Python to find the exact line (``find_bad_record``).
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path

from isal import isal_zlib

from graphniah.errors import GraphNIAHError
from graphniah.ingest.s2ag.layout import CITATIONS, PAPERS, VENUES

_CHUNK = 1 << 19
_GZIP_WBITS = 31  # zlib: gzip wrapper, 32 KiB window, verifies CRC-32 and ISIZE


def inflate(path: Path, sink: Callable[[bytes], object] | None = None, cancel: threading.Event | None = None) -> tuple[int, str, str | None]:
    """Stream ``path`` once: (size, sha256, problem or None); inflated bytes go to ``sink``.

    ISA-L inflate checks each gzip member's CRC-32 and length; members may follow each other,
    and the stream must end exactly at a member boundary (otherwise the file is truncated).
    Memory stays at one chunk times the compression ratio. ``problem`` is ISA-L's message, or
    "truncated", "empty" or "cancelled".
    """
    sha = hashlib.sha256()
    size = 0
    d = isal_zlib.decompressobj(_GZIP_WBITS)
    in_member = False
    with open(path, "rb") as f:
        while chunk := f.read(_CHUNK):
            if cancel is not None and cancel.is_set():
                return size, "", "cancelled"
            sha.update(chunk)
            size += len(chunk)
            data = chunk
            try:
                while data:
                    in_member = True
                    out = d.decompress(data)
                    if sink is not None:
                        sink(out)
                    if not d.eof:
                        break
                    # Member complete (its CRC and length verified); the rest starts the next one.
                    data = d.unused_data
                    d = isal_zlib.decompressobj(_GZIP_WBITS)
                    in_member = False
            except isal_zlib.error as e:  # type: ignore[misc]  # isal's stub types error as an instance; it is the exception class
                return size, "", str(e)
    if size == 0:
        return 0, "", "empty"
    return size, sha.hexdigest(), "truncated" if in_member else None


def _locate_gzip_damage(path: Path) -> tuple[int, str]:
    """Exact byte offset and zlib's reason for the first damage in ``path`` (failure path only).

    Streams the file through ``zlib`` in 64 KiB pieces, keeping a copy of the inflate state from
    before each piece; when a piece fails, the saved state is fed that piece one byte at a time,
    so the offset reported is the first byte at which inflate (or the CRC/length check of the
    trailer) rejects the stream; for a damaged gzip header it is where that member begins. A
    stream that simply stops yields the file size as the offset.
    """
    d = zlib.decompressobj(_GZIP_WBITS)
    base = 0  # absolute offset of pending[0]
    member_start = 0  # where the current member's header begins (reported for header damage)
    member_open = False
    pending = b""
    with open(path, "rb") as f:
        while True:
            if not pending:
                pending = f.read(1 << 16)
                if not pending:
                    break
            saved = d.copy()
            try:
                d.decompress(pending)
            except zlib.error:
                d = saved
                for i in range(len(pending)):
                    try:
                        d.decompress(pending[i : i + 1])
                    except zlib.error as e:
                        reason = _zlib_reason(e)
                        return (member_start if "header" in reason else base + i), reason
                    if d.eof:  # a member ended before the damage: continue with the next one
                        break
                else:  # pragma: no cover - zlib is deterministic, so the byte-wise replay fails too
                    return base, "corrupt gzip data"
                base, pending = base + i + 1, pending[i + 1 :]
                d, member_open, member_start = zlib.decompressobj(_GZIP_WBITS), False, base
                continue
            member_open = True
            if d.eof:
                used = len(pending) - len(d.unused_data)
                base, pending = base + used, d.unused_data
                d, member_open, member_start = zlib.decompressobj(_GZIP_WBITS), False, base
            else:
                base, pending = base + len(pending), b""
    if member_open:
        return base, "truncated: the gzip stream stops inside a member"
    return base, "no damage found"


def _zlib_reason(e: zlib.error) -> str:
    msg = str(e)
    return msg.split(": ", 1)[1] if ": " in msg else msg


def verify_gzip(path: Path) -> tuple[int, str]:
    """(size, sha256) of a gzip shard after checking every member's CRC; else a ``GraphNIAHError``.

    The error names the file and the byte offset of the damage (a truncated download, a flipped
    byte, trailing garbage), so the user knows which shard to fetch again.
    """
    path = Path(path)
    size, digest, problem = inflate(path)
    if problem is not None:
        raise damage_error(path, size, problem)
    return size, digest


def damage_error(path: Path, size: int, problem: str) -> GraphNIAHError:
    """The user-facing error for a damaged gzip file, with the exact byte offset."""
    if size == 0:
        return GraphNIAHError(f"{path}: file is empty (0 bytes), not a gzip stream")
    offset, reason = _locate_gzip_damage(path)
    if reason.startswith("truncated"):
        return GraphNIAHError(f"{path}: truncated gzip file: the stream ends inside a member at byte offset {offset:,} (file size {size:,}); download it again")
    if reason == "no damage found":  # pragma: no cover - ISA-L and zlib disagree
        reason, offset = problem, 0
    return GraphNIAHError(f"{path}: corrupt gzip data at byte offset {offset:,} ({reason}); download it again")


# --- JSON diagnosis (failure path)

# Fields whose type the normalising SQL casts: integer ids (or digit strings in the legacy format).
_ID_FIELDS = {
    PAPERS: ("corpusid",),
    CITATIONS: ("citationid", "citingcorpusid", "citedcorpusid"),
    VENUES: (),
}
_DIGITS = re.compile(r"[0-9]+")


def iter_lines(path: Path) -> Iterator[tuple[int, bytes]]:
    """(1-based line number, raw line) of a gzip JSON-lines file; assumes the gzip stream is sound."""
    d = zlib.decompressobj(_GZIP_WBITS)
    pending = b""
    lineno = 0
    with open(path, "rb") as f:
        while chunk := f.read(_CHUNK):
            data = chunk
            while data:
                out = d.decompress(data)
                if d.eof:
                    data = d.unused_data
                    d = zlib.decompressobj(_GZIP_WBITS)
                else:
                    data = b""
                pending += out
                *lines, pending = pending.split(b"\n")
                for line in lines:
                    lineno += 1
                    yield lineno, line
    if pending:
        yield lineno + 1, pending


def find_bad_record(path: Path, dataset: str) -> str | None:
    """The first line of ``path`` that the normalising SQL cannot read, described; None if all are fine."""
    id_fields = _ID_FIELDS.get(dataset, ())
    for lineno, raw in iter_lines(Path(path)):
        if not raw.strip():
            continue
        try:
            obj = json.loads(raw)
        except (json.JSONDecodeError, UnicodeDecodeError) as e:
            return f"{path}, line {lineno}: not valid JSON ({e}): {_preview(raw)}"
        if not isinstance(obj, dict):
            return f"{path}, line {lineno}: expected a JSON object, got {type(obj).__name__}: {_preview(raw)}"
        for key in id_fields:
            v = obj.get(key)
            ok = v is None or (isinstance(v, int) and not isinstance(v, bool)) or (isinstance(v, str) and _DIGITS.fullmatch(v))
            if not ok:
                return f"{path}, line {lineno}: field {key!r} must be an integer id, got {v!r}"
    return None


def _preview(raw: bytes, n: int = 80) -> str:
    text = raw.decode("utf-8", errors="replace")
    return repr(text[:n] + ("…" if len(text) > n else ""))
