"""The planted-secret search sees inside compressed and structured files, so it can fail."""

from __future__ import annotations

import gzip
import io
import json
import tarfile
import zipfile
from pathlib import Path

import duckdb
import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from tests.secret_scan import assert_secret_absent, find_secret, secret_forms

KEY = "k3y-Pl4nted-9c2e7d1a"


def _filler(n: int, rng: np.random.Generator) -> list[str]:
    """Repetitive text (compresses well, as real journals and titles do)."""
    words = ["graph", "citation", "paper", "reach", "path", "node", "answer", "model"]
    return [" ".join(rng.choice(words, 12)) for _ in range(n)]


def _write_all_formats(folder: Path, key: str | None) -> None:
    """A folder like a run's output: zstd Parquet (flat and nested), a gzip JSONL journal, a DuckDB
    store, an npz, a tar.gz, plain JSON; ``key`` goes into one deep place of each, or nowhere."""
    rng = np.random.default_rng(0)
    rows = _filler(2000, rng)
    folder.mkdir(parents=True)
    planted = list(rows)
    if key:
        planted[1234] = f"{rows[1234]} Authorization: Bearer {key} {rows[1235]}"
    pq.write_table(pa.table({"id": np.arange(2000), "response": planted}), folder / "answers.parquet", compression="zstd")
    nested = pa.table({"meta": pa.array([[{"name": "a", "value": v}] for v in planted])})
    pq.write_table(nested, folder / "nested.parquet", compression="snappy")
    with gzip.open(folder / "journal.jsonl.gz", "wt") as f:
        for i, r in enumerate(planted):
            f.write(json.dumps({"i": i, "text": r}) + "\n")
    con = duckdb.connect(str(folder / "store.duckdb"))
    con.register("planted_rows", pa.table({"id": np.arange(2000, dtype=np.int32), "headers": planted}))
    con.execute("CREATE TABLE calls AS SELECT * FROM planted_rows")
    con.execute("CHECKPOINT")
    con.close()
    buf = io.BytesIO()
    np.savez_compressed(buf, x=np.arange(10))
    (folder / "arrays.npz").write_bytes(buf.getvalue())
    (folder / "plain.json").write_text(json.dumps({"rows": rows[:50]}))


def test_a_clean_folder_has_no_hits(tmp_path: Path) -> None:
    _write_all_formats(tmp_path / "out", None)
    assert find_secret(tmp_path / "out", KEY) == []
    assert_secret_absent(tmp_path / "out", KEY)


def test_finds_a_key_planted_inside_zstd_parquet_gzip_and_duckdb(tmp_path: Path) -> None:
    out = tmp_path / "out"
    _write_all_formats(out, KEY)
    # A byte search over the files (what the tests did before) cannot see into the zstd Parquet
    # or the gzip journal (snappy and DuckDB happen to leave this key's bytes readable)...
    assert KEY.encode() not in (out / "answers.parquet").read_bytes()
    assert KEY.encode() not in (out / "journal.jsonl.gz").read_bytes()
    # ...the scan finds the key in every file, naming the place.
    hits = find_secret(out, KEY)
    assert "answers.parquet: Parquet column 'response'" in hits
    assert "nested.parquet: Parquet column 'meta'" in hits
    assert "journal.jsonl.gz > gzip (bytes)" in hits
    assert "store.duckdb: DuckDB table main.calls column 'headers'" in hits
    assert {h.split(" ")[0].rstrip(":") for h in hits} == {"answers.parquet", "nested.parquet", "journal.jsonl.gz", "store.duckdb"}
    with pytest.raises(AssertionError, match=r"occurs in \d+ place") as info:
        assert_secret_absent(out, KEY)
    assert KEY not in str(info.value)
    # Each file on its own (a path may be a file).
    assert "store.duckdb: DuckDB table main.calls column 'headers'" in find_secret(out / "store.duckdb", KEY)
    assert find_secret(out / "answers.parquet", KEY) == ["answers.parquet: Parquet column 'response'"]


def test_finds_keys_in_metadata_catalogs_archives_and_encodings(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    table = pa.table({"x": [1, 2]}).replace_schema_metadata({"run": f"key={KEY}"})
    pq.write_table(table, out / "meta.parquet", compression="zstd")
    con = duckdb.connect(str(out / "catalog.duckdb"))
    con.execute("CREATE TABLE t (x INTEGER)")
    con.execute(f"COMMENT ON TABLE t IS 'made with {KEY}'")
    con.close()
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tf:
        data = gzip.compress(f"token {KEY}\n".encode())
        info = tarfile.TarInfo("logs/call.log.gz")
        info.size = len(data)
        tf.addfile(info, io.BytesIO(data))
    (out / "bundle.tar.gz").write_bytes(buf.getvalue())
    with zipfile.ZipFile(out / "archive.zip", "w", compression=zipfile.ZIP_DEFLATED) as z:
        z.writestr("inner/url.txt", "https://api.example/x?key=" + secret_forms("a b/" + KEY)[-1])
    hits = find_secret(out, KEY)
    assert "meta.parquet: Parquet schema or key-value metadata" in hits
    assert "catalog.duckdb: DuckDB catalog (duckdb_tables())" in hits
    assert "bundle.tar.gz > gzip > tar member logs/call.log.gz > gzip (bytes)" in hits
    assert "archive.zip > zip member inner/url.txt (bytes)" in hits
    # "a b/<key>" is written only percent-encoded ("a%20b%2F<key>"), and still found.
    assert find_secret(out, "a b/" + KEY) == ["archive.zip > zip member inner/url.txt (bytes)"]


def test_finds_a_key_in_a_duckdb_file_still_open_with_its_wal(tmp_path: Path) -> None:
    """A writer still holds the store and the row is only in the WAL: the scan opens a copy."""
    path = tmp_path / "live.duckdb"
    con = duckdb.connect(str(path))
    try:
        con.execute("CREATE TABLE pending (note VARCHAR)")
        con.execute("INSERT INTO pending VALUES (?)", [f"sent with {KEY}"])
        assert path.with_name("live.duckdb.wal").is_file()
        hits = find_secret(tmp_path, KEY)
    finally:
        con.close()
    assert "live.duckdb: DuckDB table main.pending column 'note'" in hits


def test_unreadable_containers_are_reported_not_passed(tmp_path: Path) -> None:
    (tmp_path / "broken.parquet").write_bytes(b"PAR1" + b"\0" * 64 + b"PAR1")
    (tmp_path / "truncated.gz").write_bytes(gzip.compress(b"x" * 10_000)[:40])
    hits = find_secret(tmp_path, KEY)
    assert any(h.startswith("broken.parquet: Parquet that pyarrow cannot read") for h in hits), hits
    assert any(h.startswith("truncated.gz: could not be decoded") for h in hits), hits


def test_reports_never_show_the_secret(tmp_path: Path) -> None:
    (tmp_path / f"dump-{KEY}.txt").write_text(KEY)
    hits = find_secret(tmp_path, KEY)
    assert len(hits) == 2 and not any(KEY in h for h in hits)
