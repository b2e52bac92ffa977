"""Look for a planted secret in everything a test run wrote, the way a reader of the files would.

A byte search over the files misses a key that sits inside compressed data: a zstd Parquet
column, a ``.jsonl.gz`` journal, a DuckDB table (DuckDB compresses strings with FSST). So every
file is decoded before matching, by its content (magic bytes), not by its name:

* gzip, zstd, bz2, xz and LZ4 frames are decompressed, zip and tar archives opened, and what comes
  out is scanned again (a ``.npz`` is a zip, a ``.tar.gz`` a tar inside gzip);
* Parquet files are read with pyarrow: every string and binary cell (inside lists, structs, maps
  and dictionaries too), the column names and the key-value metadata;
* DuckDB files are opened read-only (or, when that fails, e.g. because of a pending WAL or a
  lock, a copy is opened): the catalog (tables, views, columns, indexes, sequences, with their
  SQL and comments) and every column of every table cast to text;
* every file and every decoded layer is also searched as bytes, which covers JSON, JSONL, YAML,
  HTML, logs and other text.

The secret is searched as written, JSON-escaped and percent-encoded (as in a URL). A file that
looks like one of these formats but cannot be decoded is reported too: what cannot be read
cannot be shown to be free of the secret. Reports name the file and the place, never the secret.
"""

from __future__ import annotations

import bz2
import gzip
import io
import json
import lzma
import shutil
import tarfile
import tempfile
import zipfile
from collections.abc import Callable, Iterator
from pathlib import Path
from urllib.parse import quote

import duckdb
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

# Nested containers deeper than this are reported rather than followed (a zip bomb guard).
_MAX_DEPTH = 6

_GZIP = b"\x1f\x8b"
_ZSTD = b"\x28\xb5\x2f\xfd"
_BZ2 = b"BZh"
_XZ = b"\xfd7zXZ\x00"
_LZ4_FRAME = b"\x04\x22\x4d\x18"
_ZIP = (b"PK\x03\x04", b"PK\x05\x06")
_PARQUET = b"PAR1"
_DUCKDB = b"DUCK"  # at offset 8 of a DuckDB database file


def secret_forms(secret: str) -> tuple[str, ...]:
    """The secret as written, JSON-escaped (``ensure_ascii``) and percent-encoded."""
    if not secret:
        raise ValueError("an empty secret matches everything")
    return tuple(dict.fromkeys((secret, json.dumps(secret)[1:-1], quote(secret, safe=""))))


def find_secret(root: Path, secret: str) -> list[str]:
    """Every place under ``root`` (a folder or one file) where ``secret`` occurs once decoded.

    Each entry names the file (relative to ``root``), the layers decoded to reach the place
    (``gzip``, ``zip member x``, ``column y``, ...), or why a file could not be read.
    """
    root = Path(root)
    forms = secret_forms(secret)
    files = [root] if root.is_file() else sorted(p for p in root.rglob("*") if p.is_file() and not p.is_symlink())
    hits: list[str] = []
    for path in files:
        name = path.name if path == root else str(path.relative_to(root))
        if any(s in name for s in forms):
            hits.append(f"a file name under {root}")
        hits += _scan_file(path, name, forms)
    # File and member names appear in the reports; the secret must not, even when it is in a name.
    for form in forms:
        hits = [h.replace(form, "<secret>") for h in hits]
    return hits


def assert_secret_absent(root: Path, secret: str) -> None:
    """Fail, naming the places (not the secret), if ``secret`` occurs anywhere under ``root``."""
    hits = find_secret(root, secret)
    assert not hits, f"the secret occurs in {len(hits)} place(s) under {root}: {hits}"


# ---- files and byte layers ----------------------------------------------------------------------


def _scan_file(path: Path, where: str, forms: tuple[str, ...]) -> list[str]:
    with path.open("rb") as f:
        head = f.read(16)
    if head[8:12] == _DUCKDB:
        return _scan_bytes(path.read_bytes(), where, forms, 0) + _scan_duckdb_file(path, where, forms)
    return _scan_bytes(path.read_bytes(), where, forms, 0)


def _scan_bytes(data: bytes, where: str, forms: tuple[str, ...], depth: int) -> list[str]:
    hits = []
    if any(_encoded_in(data, s) for s in forms):
        hits.append(f"{where} (bytes)")
    if depth > _MAX_DEPTH:
        return [*hits, f"{where}: nested more than {_MAX_DEPTH} containers deep, not followed"]
    try:
        layers = list(_decoded_layers(data, where, nested=depth > 0))
    except Exception as exc:  # any failure to decode is a finding, not a pass
        return [*hits, f"{where}: could not be decoded ({type(exc).__name__}: {exc})"]
    for kind, payload, inner in layers:
        if kind == "bytes":
            hits += _scan_bytes(payload, inner, forms, depth + 1)
        elif kind == "parquet":
            hits += _scan_parquet(payload, inner, forms)
        elif kind == "duckdb":
            hits += _scan_duckdb_bytes(payload, inner, forms)
    return hits


def _encoded_in(data: bytes, form: str) -> bool:
    return form.encode("utf-8") in data or form.encode("utf-16-le") in data


def _decoded_layers(data: bytes, where: str, *, nested: bool) -> Iterator[tuple[str, bytes, str]]:
    """What lies inside ``data``: (kind, payload, place) for each decodable layer. A DuckDB file
    on disk is opened in place by ``_scan_file`` (its WAL lies beside it); only one found inside
    an archive (``nested``) is decoded here."""
    for magic, name, decompress in _COMPRESSIONS:
        if data.startswith(magic):
            yield "bytes", decompress(data), f"{where} > {name}"
            return
    if data.startswith(_ZIP):
        yield from _zip_layers(data, where)
    elif len(data) >= 262 and data[257:262] == b"ustar":
        yield from _tar_layers(data, where)
    elif data.startswith(_PARQUET) and data.endswith(_PARQUET):
        yield "parquet", data, where
    elif nested and data[8:12] == _DUCKDB:
        yield "duckdb", data, where


# (magic bytes, name, decompress) of the single-stream compressions, tried in this order
_COMPRESSIONS: tuple[tuple[bytes, str, Callable[[bytes], bytes]], ...] = (
    (_GZIP, "gzip", gzip.decompress),
    (_ZSTD, "zstd", lambda data: _arrow_decompress(data, "zstd")),
    (_LZ4_FRAME, "lz4", lambda data: _arrow_decompress(data, "lz4")),
    (_BZ2, "bz2", bz2.decompress),
    (_XZ, "xz", lzma.decompress),
)


def _zip_layers(data: bytes, where: str) -> Iterator[tuple[str, bytes, str]]:
    """Each member's name, and each file member's bytes."""
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        for info in z.infolist():
            yield "bytes", info.filename.encode(), f"{where} > zip member name"
            if not info.is_dir():
                yield "bytes", z.read(info), f"{where} > zip member {info.filename}"


def _tar_layers(data: bytes, where: str) -> Iterator[tuple[str, bytes, str]]:
    """Each member's name, and each regular file's bytes."""
    with tarfile.open(fileobj=io.BytesIO(data)) as t:
        for member in t.getmembers():
            yield "bytes", member.name.encode(), f"{where} > tar member name"
            if member.isfile():
                extracted = t.extractfile(member)
                assert extracted is not None
                yield "bytes", extracted.read(), f"{where} > tar member {member.name}"


def _arrow_decompress(data: bytes, codec: str) -> bytes:
    with pa.CompressedInputStream(pa.BufferReader(data), codec) as stream:
        return stream.read()


# ---- Parquet ------------------------------------------------------------------------------------


def _scan_parquet(data: bytes, where: str, forms: tuple[str, ...]) -> list[str]:
    try:
        pf = pq.ParquetFile(pa.BufferReader(data))
        table = pf.read()
    except Exception as exc:  # unreadable is a finding, not a pass
        return [f"{where}: Parquet that pyarrow cannot read ({type(exc).__name__}: {exc})"]
    hits = []
    meta_text = repr(pf.metadata.metadata) + repr(pf.schema_arrow) + repr(table.schema.metadata)
    if any(s in meta_text for s in forms):
        hits.append(f"{where}: Parquet schema or key-value metadata")
    for name, column in zip(table.column_names, table.columns, strict=True):
        for chunk in column.chunks:
            for array in _string_arrays(chunk):
                if any(pc.any(pc.match_substring(array, s)).as_py() for s in forms):
                    hits.append(f"{where}: Parquet column {name!r}")
                    break
            else:
                continue
            break
    return hits


def _string_arrays(array: pa.Array) -> Iterator[pa.Array]:
    """The string and binary arrays inside ``array``, through every kind of nesting."""
    t = array.type
    if isinstance(array, pa.ExtensionArray):
        yield from _string_arrays(array.storage)
    elif pa.types.is_string(t) or pa.types.is_large_string(t) or pa.types.is_binary(t) or pa.types.is_large_binary(t):
        yield array
    elif pa.types.is_string_view(t) or pa.types.is_binary_view(t) or pa.types.is_fixed_size_binary(t):
        yield array.cast(pa.large_binary())
    elif pa.types.is_dictionary(t):
        yield from _string_arrays(array.dictionary)
    elif pa.types.is_map(t):
        yield from _string_arrays(array.keys)
        yield from _string_arrays(array.items)
    elif pa.types.is_list(t) or pa.types.is_large_list(t) or pa.types.is_fixed_size_list(t) or pa.types.is_list_view(t):
        yield from _string_arrays(array.flatten())
    elif pa.types.is_struct(t) or pa.types.is_union(t):
        for i in range(t.num_fields):
            yield from _string_arrays(array.field(i))


# ---- DuckDB -------------------------------------------------------------------------------------

_CATALOG = ("duckdb_tables()", "duckdb_views()", "duckdb_columns()", "duckdb_indexes()", "duckdb_sequences()", "duckdb_schemas()")


def _scan_duckdb_bytes(data: bytes, where: str, forms: tuple[str, ...]) -> list[str]:
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / "inner.duckdb"
        copy.write_bytes(data)
        return _scan_duckdb_file(copy, where, forms)


def _scan_duckdb_file(path: Path, where: str, forms: tuple[str, ...]) -> list[str]:
    try:
        con = duckdb.connect(str(path), read_only=True)
    except duckdb.Error:
        # Locked by a writer, or a WAL that a read-only connection cannot replay: open a copy.
        with tempfile.TemporaryDirectory() as tmp:
            copy = Path(tmp) / path.name
            shutil.copyfile(path, copy)
            wal = path.with_name(path.name + ".wal")
            if wal.is_file():
                shutil.copyfile(wal, copy.with_name(copy.name + ".wal"))
            try:
                con = duckdb.connect(str(copy))
            except duckdb.Error as exc:
                return [f"{where}: DuckDB file that cannot be opened ({exc})"]
            with con:
                return _scan_duckdb(con, where, forms)
    with con:
        return _scan_duckdb(con, where, forms)


def _scan_duckdb(con: duckdb.DuckDBPyConnection, where: str, forms: tuple[str, ...]) -> list[str]:
    hits = []
    db = con.execute("SELECT current_database()").fetchone()[0]
    for fn in _CATALOG:
        rows = con.execute(f"SELECT * FROM {fn} WHERE database_name = ?", [db]).fetchall()
        if any(s in repr(rows) for s in forms):
            hits.append(f"{where}: DuckDB catalog ({fn})")
    tables = con.execute(
        "SELECT schema_name, table_name FROM duckdb_tables() WHERE database_name = ? ORDER BY ALL", [db]
    ).fetchall()
    for schema, table in tables:
        columns = con.execute(
            "SELECT column_name FROM duckdb_columns() WHERE database_name = ? AND schema_name = ? AND table_name = ? "
            "ORDER BY column_index",
            [db, schema, table],
        ).fetchall()
        for (column,) in columns:
            q = f"SELECT count(*) FROM {_ident(schema)}.{_ident(table)} WHERE " + " OR ".join(
                f"contains(CAST({_ident(column)} AS VARCHAR), ?)" for _ in forms
            )
            if con.execute(q, list(forms)).fetchone()[0]:
                hits.append(f"{where}: DuckDB table {schema}.{table} column {column!r}")
    return hits


def _ident(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'
