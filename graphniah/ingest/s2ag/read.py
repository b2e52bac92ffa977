"""Reading raw S2AG release and diff folders with DuckDB, without ever trusting a damaged file.

Layout (shared with the demo generator and the API downloader)::

    <release_dir>/release.json                 {"release_id": ..., "synthetic": ...} (optional; graphniah.formats.release)
    <release_dir>/<dataset>/*.gz               gzip JSON-lines shards, any file names
    <diff_dir>/diff.json                       {"from_release": ..., "to_release": ..., "synthetic": ...} (optional)
    <diff_dir>/<dataset>/update_files/*.gz     complete new records (upserted by primary key)
    <diff_dir>/<dataset>/delete_files/*.gz     objects holding at least the primary key

The descriptors are written by this project's downloader and demo generator. A release fetched
with S2's own scripts has only the dataset folders: its id then comes from an option or from the
folder name (``read_release_info``, ``read_diff_info``).

**One normalising query per dataset.** ``papers_sql``/``citations_sql``/``venues_sql`` turn raw
records of either S2AG format into the same typed columns: ids that are JSON strings (legacy) or
integers (current) both become ``BIGINT``; ``journal`` may be null or a struct; fields we do not
use (``intents`` flat or nested, ``contexts``, ``updated``) are not read at all. The direct ingest
path and the release store both use exactly these queries, so they cannot disagree.

**Integrity.** DuckDB notices a gzip stream that stops early, but it does not check the gzip CRC,
so a flipped byte inside a member can decode to silently different records (measured with DuckDB
2.0: two of four random flips went through). So every shard is inflated by us, with ISA-L, which
checks each member's CRC-32 and length, in the same pass that computes the shard's sha256 for
the manifest — and DuckDB is fed the inflated bytes through a named pipe instead of reading the
``.gz`` itself (``VerifiedRead``). Each shard is thus inflated exactly once, by a faster inflater
than DuckDB's, and the check costs no extra pass (``bench/ingest.py`` compares the verified ingest
with a bare DuckDB read of the same gzip files). Errors are located
precisely only on the failure path: the damaged file is re-inflated with ``zlib`` (whose state
can be copied) to find the exact byte offset, and a JSON error is re-parsed in Python to find
the exact line.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import hashlib
import json
import os
import re
import tempfile
import threading
import zlib
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any, Literal

import duckdb
from isal import isal_zlib

from graphniah.errors import GraphNIAHError
from graphniah.formats.release import DIFF_FILE, RELEASE_FILE, read_diff_descriptor, read_release_descriptor

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]  # no fcntl on Windows: pipes keep their default buffer size there

PAPERS = "papers"
CITATIONS = "citations"
VENUES = "publication-venues"
AUTHORS = "authors"
DATASETS = (PAPERS, CITATIONS, VENUES, AUTHORS)
REQUIRED_DATASETS = (PAPERS, CITATIONS)
# Datasets the snapshot needs (authors are embedded in paper records, so the authors dataset is not read).
READ_DATASETS = (PAPERS, CITATIONS, VENUES)
UPDATE_FILES = "update_files"
DELETE_FILES = "delete_files"

Role = Literal["release", "update", "delete"]

_CHUNK = 1 << 19
_GZIP_WBITS = 31  # zlib: gzip wrapper, 32 KiB window, verifies CRC-32 and ISIZE


# --------------------------------------------------------------------------------------------
# Layout
# --------------------------------------------------------------------------------------------


# Where a release id came from (recorded in manifests and the store's provenance).
ID_FROM_DESCRIPTOR = "descriptor"  # release.json / diff.json written by this project's downloader
ID_FROM_OPTION = "option"  # --release-id, --from-release/--to-release (release_id=, from_release=/to_release=)
ID_FROM_FOLDER_NAME = "folder_name"  # the folder is named like a release id (or <from>_to_<to>)

# S2AG release ids are dates; a folder named like one (``2026-11-25``) names its release.
_RELEASE_ID_NAME = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
_DIFF_NAME = re.compile(r"(?P<a>[0-9]{4}-[0-9]{2}-[0-9]{2})_to_(?P<b>[0-9]{4}-[0-9]{2}-[0-9]{2})")
# Ids given as options end up in folder names (snapshots/<release>/…): no separators or spaces.
_SAFE_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")


@dataclass(frozen=True)
class ReleaseInfo:
    """A release folder's id, whether it is synthetic, and where the id came from (``ID_FROM_*``)."""

    release_id: str
    synthetic: bool
    path: Path
    release_id_from: str = ID_FROM_DESCRIPTOR


@dataclass(frozen=True)
class DiffInfo:
    """A diff folder (one step between consecutive releases): from/to ids and where they came from."""

    from_release: str
    to_release: str
    synthetic: bool
    path: Path
    release_ids_from: str = ID_FROM_DESCRIPTOR

    @property
    def name(self) -> str:
        return f"{self.from_release}_to_{self.to_release}"


def _is_date_id(name: str) -> bool:
    if not _RELEASE_ID_NAME.fullmatch(name):
        return False
    try:
        dt.date.fromisoformat(name)
    except ValueError:
        return False
    return True


def _option_id(value: str, option: str) -> str:
    if not _SAFE_ID.fullmatch(value):
        raise GraphNIAHError(f"{option} {value!r} is not a usable release id: use letters, digits, '.', '_' or '-' (e.g. 2026-11-25)")
    return value


def _require_dir(folder: Path, what: str) -> None:
    if not folder.is_dir():
        raise GraphNIAHError(f"{what} folder {folder} does not exist")


def _refuse_unfinished_download(folder: Path, pattern: str, marker: str) -> None:
    """Without a descriptor, a folder holding a downloader's ``.part`` files is a download that
    stopped half-way (``graphniah s2ag download`` writes the descriptor last): never read it."""
    part = next(iter(sorted(folder.glob(pattern))), None)
    if part is not None:
        raise GraphNIAHError(
            f"{folder} looks like an unfinished download: it has no {marker} but holds the partial file {part}; "
            "run the download again to finish it (`graphniah s2ag download` / `graphniah s2ag diffs`)"
        )


def read_release_info(release_dir: Path, release_id: str | None = None) -> ReleaseInfo:
    """The id of a release folder: from its ``release.json`` (this project's downloader and demo
    generator write one), else from ``release_id`` (``--release-id``), else from the folder's name
    when that is a release id (``2026-11-25``) — a release fetched with S2's own scripts is just
    the dataset folders. A ``release_id`` that contradicts ``release.json`` is an error; so is a
    folder whose id cannot be determined (the message says which option to pass). Releases
    without a descriptor are real S2AG data (``synthetic`` False).
    """
    release_dir = Path(release_dir)
    _require_dir(release_dir, "release")
    path = release_dir / RELEASE_FILE
    if path.is_file():
        desc = read_release_descriptor(path)
        rid = desc.release_id
        if release_id is not None and release_id != rid:
            raise GraphNIAHError(f"--release-id {release_id} contradicts {path}, which names release {rid}; drop the option or fix the folder")
        return ReleaseInfo(rid, desc.synthetic, release_dir, ID_FROM_DESCRIPTOR)
    _refuse_unfinished_download(release_dir, "*/*.part", RELEASE_FILE)
    if release_id is not None:
        return ReleaseInfo(_option_id(release_id, "--release-id"), False, release_dir, ID_FROM_OPTION)
    name = release_dir.resolve().name
    if _is_date_id(name):
        return ReleaseInfo(name, False, release_dir, ID_FROM_FOLDER_NAME)
    raise GraphNIAHError(
        f"cannot tell which S2AG release {release_dir} holds: it has no {RELEASE_FILE} and its name "
        f"{name!r} is not a release id (a date such as 2026-11-25); pass --release-id "
        "RELEASE_ID (release_id=...), or rename the folder to its release id"
    )


def read_diff_info(diff_dir: Path, from_release: str | None = None, to_release: str | None = None) -> DiffInfo:
    """The from/to ids of a diff folder: from its ``diff.json``, else from ``from_release`` and
    ``to_release`` (``--from-release/--to-release``, both), else from a folder named
    ``<from>_to_<to>`` with two release ids; otherwise an error that names the options.
    """
    diff_dir = Path(diff_dir)
    _require_dir(diff_dir, "diff")
    given = (from_release, to_release)
    if (from_release is None) != (to_release is None):
        raise GraphNIAHError(f"diff {diff_dir}: pass both --from-release and --to-release (got only {'--from-release' if from_release else '--to-release'})")
    path = diff_dir / DIFF_FILE
    if path.is_file():
        diff = read_diff_descriptor(path)
        ids = (diff.from_release, diff.to_release)
        if from_release is not None and given != ids:
            raise GraphNIAHError(f"--from-release/--to-release {from_release} → {to_release} contradict {path}, which says {ids[0]} → {ids[1]}")
        return DiffInfo(*ids, diff.synthetic, diff_dir, ID_FROM_DESCRIPTOR)
    _refuse_unfinished_download(diff_dir, "*/*/*.part", DIFF_FILE)
    if from_release is not None and to_release is not None:
        a, b = _option_id(from_release, "--from-release"), _option_id(to_release, "--to-release")
        how = ID_FROM_OPTION
    elif (m := _DIFF_NAME.fullmatch(diff_dir.resolve().name)) and _is_date_id(m["a"]) and _is_date_id(m["b"]):
        a, b, how = m["a"], m["b"], ID_FROM_FOLDER_NAME
    else:
        raise GraphNIAHError(
            f"cannot tell which releases diff {diff_dir} goes between: it has no {DIFF_FILE} and its name "
            f"{diff_dir.resolve().name!r} is not <from>_to_<to> (e.g. 2026-11-18_to_2026-11-25); pass --from-release "
            "FROM --to-release TO (from_release=..., to_release=...)"
        )
    if a == b:
        raise GraphNIAHError(f"diff {diff_dir} goes from release {a} to itself; check --from-release/--to-release")
    return DiffInfo(a, b, False, diff_dir, how)


def shard_files(folder: Path) -> tuple[Path, ...]:
    """The gzip shards of one dataset folder, in name order (``*.gz`` covers ``*.jsonl.gz`` too).

    Hidden files (``.name``, e.g. a downloader's temporary file) are not shards.
    """
    return tuple(sorted(p for p in Path(folder).glob("*.gz") if p.is_file() and not p.name.startswith(".")))


@dataclass(frozen=True)
class Source:
    """One input shard: which dataset it belongs to, its role, and its path relative to its folder."""

    dataset: str
    role: Role
    path: Path
    relpath: str


@dataclass(frozen=True)
class InputFile:
    """A verified input shard as recorded in manifests: relative path, size in bytes, sha256."""

    dataset: str
    role: Role
    path: str
    size: int
    sha256: str

    def to_json(self) -> dict[str, Any]:
        return {"dataset": self.dataset, "role": self.role, "path": self.path, "size": self.size, "sha256": self.sha256}


def release_sources(release_dir: Path) -> dict[str, tuple[Source, ...]]:
    """Shards of each dataset the snapshot reads; ``papers`` and ``citations`` must be present and non-empty."""
    release_dir = Path(release_dir)
    out: dict[str, tuple[Source, ...]] = {}
    for ds in READ_DATASETS:
        folder = release_dir / ds
        if not folder.is_dir():
            if ds in REQUIRED_DATASETS:
                raise GraphNIAHError(f"release {release_dir} has no {ds}/ dataset folder (expected {folder}/*.gz)")
            out[ds] = ()
            continue
        files = shard_files(folder)
        if not files and ds in REQUIRED_DATASETS:
            raise GraphNIAHError(f"release {release_dir} is empty: {folder}/ holds no .gz shard files")
        out[ds] = tuple(Source(ds, "release", p, p.relative_to(release_dir).as_posix()) for p in files)
    return out


def diff_sources(diff_dir: Path) -> dict[tuple[str, Role], tuple[Source, ...]]:
    """Update and delete shards per dataset of a diff folder.

    ``papers/`` and ``citations/`` must exist (a missing one means an incomplete download); their
    ``update_files/`` or ``delete_files/`` sub-folders may be absent or empty (nothing changed).
    """
    diff_dir = Path(diff_dir)
    out: dict[tuple[str, Role], tuple[Source, ...]] = {}
    for ds in READ_DATASETS:
        folder = diff_dir / ds
        if not folder.is_dir() and ds in REQUIRED_DATASETS:
            raise GraphNIAHError(f"diff {diff_dir} has no {ds}/ dataset folder (expected {folder}/{UPDATE_FILES}/ and {DELETE_FILES}/)")
        roles: tuple[tuple[Role, str], ...] = (("update", UPDATE_FILES), ("delete", DELETE_FILES))
        for role, sub in roles:
            files = shard_files(folder / sub) if (folder / sub).is_dir() else ()
            out[(ds, role)] = tuple(Source(ds, role, p, p.relative_to(diff_dir).as_posix()) for p in files)
    return out


# --------------------------------------------------------------------------------------------
# gzip integrity
# --------------------------------------------------------------------------------------------


def _inflate(path: Path, sink: Callable[[bytes], object] | None = None, cancel: threading.Event | None = None) -> tuple[int, str, str | None]:
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
    size, digest, problem = _inflate(path)
    if problem is not None:
        raise _damage_error(path, size, problem)
    return size, digest


# --------------------------------------------------------------------------------------------
# JSON diagnosis (failure path)
# --------------------------------------------------------------------------------------------

# Fields whose type the normalising SQL casts: integer ids (or digit strings in the legacy format).
_ID_FIELDS = {
    PAPERS: ("corpusid",),
    CITATIONS: ("citationid", "citingcorpusid", "citedcorpusid"),
    VENUES: (),
}
_DIGITS = re.compile(r"[0-9]+")


def _iter_lines(path: Path) -> Iterator[tuple[int, bytes]]:
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
    for lineno, raw in _iter_lines(Path(path)):
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


# --------------------------------------------------------------------------------------------
# Normalising SQL (shared by the direct ingest and the release store)
# --------------------------------------------------------------------------------------------

# Raw S2AG columns we read, with explicit types. DuckDB casts digit strings to BIGINT, so both
# formats land in the same types; unknown keys in a record are ignored.
PAPERS_RAW = {
    "corpusid": "BIGINT",
    "title": "VARCHAR",
    "authors": "STRUCT(authorId VARCHAR, name VARCHAR)[]",  # renamed to {id, name} on output
    "venue": "VARCHAR",
    "publicationvenueid": "VARCHAR",
    "year": "INTEGER",
    "publicationdate": "VARCHAR",
    "journal": "STRUCT(name VARCHAR)",
    "externalids": "STRUCT(ArXiv VARCHAR, DOI VARCHAR)",
    "s2fieldsofstudy": "STRUCT(category VARCHAR, source VARCHAR)[]",
}
CITATIONS_RAW = {"citationid": "BIGINT", "citingcorpusid": "BIGINT", "citedcorpusid": "BIGINT"}
VENUES_RAW = {"id": "VARCHAR", "name": "VARCHAR"}

# Primary keys (layout contract). Citations: citationid when present, else the (citing, cited) pair.
KEY_COLUMNS = {
    PAPERS: {"corpusid": "BIGINT"},
    CITATIONS: CITATIONS_RAW,
    VENUES: {"id": "VARCHAR"},
}

_RAW_AUTHOR = "STRUCT(authorId VARCHAR, name VARCHAR)"
# Titles are trimmed of white space at both ends, Unicode separators included (DuckDB's trim()
# strips only ' '). The regex runs only on titles whose first or last character is white space
# (an ord() test, three times cheaper than running the regex on every title).
_WHITESPACE = (0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x20, 0x85, 0xA0, 0x1680, *range(0x2000, 0x200C), 0x2028, 0x2029, 0x202F, 0x205F, 0x3000, 0xFEFF)
_WS_CLASS = "[" + "".join(f"\\x{{{c:04X}}}" for c in _WHITESPACE) + "]"
_WS_CODES = ", ".join(str(c) for c in _WHITESPACE)


def sql_str(s: str | Path) -> str:
    """A SQL string literal."""
    return "'" + str(s).replace("'", "''") + "'"


def strip_ws_sql(expr: str) -> str:
    """``expr`` without white space (Unicode separators included) at either end."""
    return f"regexp_replace({expr}, '^{_WS_CLASS}+|{_WS_CLASS}+$', '', 'g')"


def _trim_title(expr: str) -> str:
    return f"CASE WHEN ord({expr}[1]) IN ({_WS_CODES}) OR ord({expr}[-1]) IN ({_WS_CODES}) THEN {strip_ws_sql(expr)} ELSE {expr} END"


def _clean(expr: str) -> str:
    """Names with spaces trimmed; an empty string becomes NULL."""
    return f"NULLIF(trim({expr}), '')"


def _nonempty(expr: str) -> str:
    """Identifiers: an empty string becomes NULL."""
    return f"NULLIF({expr}, '')"


def _fields_of_study(expr: str) -> str:
    """The distinct S2 field-of-study categories of ``s2fieldsofstudy`` (any source), sorted; [] for none."""
    cats = f"list_transform({expr}, lambda f: NULLIF(trim(f.category), ''))"
    return f"COALESCE(list_sort(list_distinct({cats})), CAST([] AS VARCHAR[]))"


def fetch_one(con: duckdb.DuckDBPyConnection, sql: str) -> tuple[Any, ...] | None:
    """The first row of ``sql`` (or None), with the result fully consumed so the connection is free."""
    rows = con.execute(sql).fetchall()
    return rows[0] if rows else None


def fetch_row(con: duckdb.DuckDBPyConnection, sql: str) -> tuple[Any, ...]:
    """The one row of an aggregate query (``count(*)`` and the like return exactly one row)."""
    row = fetch_one(con, sql)
    if row is None:
        raise RuntimeError(f"internal error: the aggregate query returned no row: {sql}")
    return row


def _scan(files: Scan | Sequence[str | Path], columns: dict[str, str]) -> str:
    """A table expression over JSON-lines shards with the given raw columns (empty if no files)."""
    scan = Scan.of(files)
    if not scan.paths:
        cols = ", ".join(f"CAST(NULL AS {t}) AS {c}" for c, t in columns.items())
        return f"(SELECT {cols} WHERE false)"
    col_spec = ", ".join(f"{c}: {sql_str(t)}" for c, t in columns.items())
    file_list = "[" + ", ".join(sql_str(p) for p in scan.paths) + "]"
    return (
        f"read_json({file_list}, format='newline_delimited', compression={sql_str(scan.compression)}, "
        f"ignore_errors=false, columns={{{col_spec}}})"
    )


def papers_sql(files: Scan | Sequence[str | Path]) -> str:
    """Normalised paper rows: one per input record (duplicates kept; the snapshot query counts them).

    Columns: corpusid BIGINT, title (trimmed, '' kept so it can be counted as empty), authors
    list<{authorId, name}> ([] for null; renamed to {id, name} only for the eligible papers
    written out), venue / journal (trimmed, '' → NULL), publicationvenueid / arxiv_id / doi
    ('' → NULL), year INTEGER, publicationdate VARCHAR (validated by the snapshot query),
    fields_of_study VARCHAR[] (the distinct s2fieldsofstudy categories, sorted; [] for none).
    """
    return f"""
        SELECT
            corpusid,
            {_trim_title("title")} AS title,
            COALESCE(authors, CAST([] AS {_RAW_AUTHOR}[])) AS authors,
            {_clean("venue")} AS venue,
            {_clean("journal.name")} AS journal,
            {_nonempty("publicationvenueid")} AS publicationvenueid,
            year,
            publicationdate,
            {_nonempty("externalids.ArXiv")} AS arxiv_id,
            {_nonempty("externalids.DOI")} AS doi,
            {_fields_of_study("s2fieldsofstudy")} AS fields_of_study
        FROM {_scan(files, PAPERS_RAW)}
    """


def citations_sql(files: Scan | Sequence[str | Path]) -> str:
    """Normalised citation rows: citationid (NULL in the legacy format), citing, cited (may be NULL)."""
    return f"SELECT citationid, citingcorpusid AS citing, citedcorpusid AS cited FROM {_scan(files, CITATIONS_RAW)}"


def venues_sql(files: Scan | Sequence[str | Path]) -> str:
    """Normalised publication venues: id, name ('' → NULL)."""
    return f"SELECT {_clean('id')} AS id, {_clean('name')} AS name FROM {_scan(files, VENUES_RAW)}"


def delete_keys_sql(dataset: str, files: Scan | Sequence[str | Path]) -> str:
    """Primary keys listed in delete files, in the normalised column names."""
    if dataset == PAPERS:
        return f"SELECT corpusid FROM {_scan(files, KEY_COLUMNS[PAPERS])}"
    if dataset == CITATIONS:
        return citations_sql(files)
    if dataset == VENUES:
        return f"SELECT {_clean('id')} AS id FROM {_scan(files, KEY_COLUMNS[VENUES])}"
    raise ValueError(f"no delete keys for dataset {dataset!r}")


NORMALISE_SQL = {PAPERS: papers_sql, CITATIONS: citations_sql, VENUES: venues_sql}

# Which of several rows with one primary key is kept: the first in a content order. Ordering
# by content (not by file order) makes the choice independent of shard names and read order, so
# the full ingest and the store keep the same row. (Real duplicates are normally identical.)
# Per dataset: the key expressions (citations: citationid, else the (citing, cited) pair) and
# the order; for papers it lists every other normalised column, so ties are identical rows.
DEDUP_RULES = {
    PAPERS: (("corpusid",), "title, publicationdate, year, venue, journal, publicationvenueid, arxiv_id, doi, authors, fields_of_study"),
    CITATIONS: (("citationid", "CASE WHEN citationid IS NULL THEN citing END", "CASE WHEN citationid IS NULL THEN cited END"), "citing, cited"),
    VENUES: (("id",), "name"),
}


def duplicate_losers_sql(dataset: str, table: str) -> str:
    """The ``rowid`` (as ``_rid``) of every row of ``table`` that another row with the same primary
    key beats under ``DEDUP_RULES``; deleting them leaves exactly one row per key.

    Only keys that occur more than once are ranked (found by a GROUP BY, in which NULLs are equal,
    matched back with IS NOT DISTINCT FROM): ranking every row would sort the whole table by
    all its columns, while duplicates are rare or absent.
    """
    keys, order = DEDUP_RULES[dataset]
    named = ", ".join(f"{k} AS _k{i}" for i, k in enumerate(keys))
    on = " AND ".join(f"t._k{i} IS NOT DISTINCT FROM d._k{i}" for i in range(len(keys)))
    part = ", ".join(f"_k{i}" for i in range(len(keys)))
    return f"""
        SELECT _rid FROM (
            SELECT t._rid, row_number() OVER (PARTITION BY {part} ORDER BY {order}) AS _rank
            FROM (SELECT rowid AS _rid, *, {named} FROM {table}) t
            SEMI JOIN (SELECT {named} FROM {table} GROUP BY ALL HAVING count(*) > 1) d ON {on})
        WHERE _rank > 1
    """


def drop_duplicates(con: duckdb.DuckDBPyConnection, dataset: str, table: str) -> None:
    """Keep one row per primary key in ``table`` (the store's loads and diff updates)."""
    con.execute(f"DELETE FROM {table} WHERE rowid IN ({duplicate_losers_sql(dataset, table)})")


# --------------------------------------------------------------------------------------------
# Running reads with verification
# --------------------------------------------------------------------------------------------

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
            self.size, digest, problem = _inflate(self.source.path, lambda b: _write_all(fd, b), self._cancel)
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


def _damage_error(path: Path, size: int, problem: str) -> GraphNIAHError:
    """The user-facing error for a damaged gzip file, with the exact byte offset."""
    if size == 0:
        return GraphNIAHError(f"{path}: file is empty (0 bytes), not a gzip stream")
    offset, reason = _locate_gzip_damage(path)
    if reason.startswith("truncated"):
        return GraphNIAHError(f"{path}: truncated gzip file: the stream ends inside a member at byte offset {offset:,} (file size {size:,}); download it again")
    if reason == "no damage found":  # pragma: no cover - ISA-L and zlib disagree
        reason, offset = problem, 0
    return GraphNIAHError(f"{path}: corrupt gzip data at byte offset {offset:,} ({reason}); download it again")


@dataclass(frozen=True)
class Scan:
    """What DuckDB reads for a set of shards: file paths (or pipes) and their compression."""

    paths: tuple[str, ...]
    compression: str = "gzip"

    @classmethod
    def of(cls, files: Scan | Sequence[str | Path]) -> Scan:
        return files if isinstance(files, Scan) else cls(tuple(str(p) for p in files), "gzip")


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
                raise _damage_error(f.source.path, f.size, f.problem) from None
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


# --------------------------------------------------------------------------------------------
# Loading a whole release into tables
# --------------------------------------------------------------------------------------------

# Table names of the normalised datasets, in the store and in the direct ingest's scratch database.
TABLES = {PAPERS: "papers", CITATIONS: "citations", VENUES: "venues"}


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
