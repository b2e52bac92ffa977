"""Verified reads: damaged shards and bad records are errors naming the file and the offset or line, never data."""

from __future__ import annotations

import re
from pathlib import Path

import duckdb
import pytest

from graphniah.errors import GraphNIAHError
from graphniah.ingest.s2ag.integrity import find_bad_record
from graphniah.ingest.s2ag.layout import CITATIONS, PAPERS, Source
from graphniah.ingest.s2ag.read import VerifiedRead
from graphniah.ingest.s2ag.sql import citations_sql, papers_sql
from tests.ingest.s2ag.release_kit import citation, paper, write_shard

# --------------------------------------------------------------------------------------------
# gzip damage: always an error naming the file and byte offset, never a silent success
# --------------------------------------------------------------------------------------------


@pytest.fixture()
def good_gz(tmp_path: Path) -> Path:
    return write_shard(tmp_path / "papers" / "part-000.jsonl.gz", [paper(i, f"A study of item {i} in depth") for i in range(400)])


def _read_via_duckdb(path: Path) -> None:
    con = duckdb.connect()
    src = [Source(PAPERS, "release", path, path.name)]
    with VerifiedRead(con, src) as vr:
        con.execute(f"CREATE TABLE t AS {papers_sql(vr.scan(src))}")


@pytest.mark.parametrize("keep", [10, 0.5, -9, -1])
def test_truncated_gzip_is_an_error_with_file_and_offset(good_gz: Path, keep: float) -> None:
    blob = good_gz.read_bytes()
    n = int(len(blob) * keep) if isinstance(keep, float) else (keep if keep > 0 else len(blob) + keep)
    good_gz.write_bytes(blob[:n])
    with pytest.raises(GraphNIAHError, match=r"truncated gzip file") as e:
        _read_via_duckdb(good_gz)
    assert str(good_gz) in str(e.value) and f"byte offset {n:,}" in str(e.value)


def test_crc_mismatch_is_caught_although_duckdb_ignores_it(good_gz: Path) -> None:
    blob = bytearray(good_gz.read_bytes())
    blob[-6] ^= 0xFF  # inside the CRC-32 of the trailer: the data decodes fine, only the check fails
    good_gz.write_bytes(bytes(blob))
    # DuckDB alone accepts this file (the reason for our own check) ...
    assert duckdb.sql(f"SELECT count(*) FROM ({papers_sql([good_gz])})").fetchall() == [(400,)]
    # ... but the verified read does not.
    with pytest.raises(GraphNIAHError, match=r"corrupt gzip data at byte offset [0-9,]+ \(incorrect data check\)") as e:
        _read_via_duckdb(good_gz)
    offset = int(re.search(r"byte offset ([0-9,]+)", str(e.value)).group(1).replace(",", ""))
    assert len(blob) - 8 <= offset < len(blob) and str(good_gz) in str(e.value)


@pytest.mark.parametrize("where", [0.2, 0.5, 0.8])
def test_flipped_byte_inside_the_stream_is_never_accepted(good_gz: Path, where: float) -> None:
    blob = bytearray(good_gz.read_bytes())
    blob[int(len(blob) * where)] ^= 0x55
    good_gz.write_bytes(bytes(blob))
    with pytest.raises(GraphNIAHError, match=r"corrupt gzip data at byte offset [0-9,]+|not valid JSON") as e:
        _read_via_duckdb(good_gz)
    assert str(good_gz) in str(e.value)



# Bad records: error names the file and line
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("bad", "expected"),
    [
        ('{"corpusid": 5, "title": "unterminated', r"line 3: not valid JSON"),
        ("[1, 2, 3]", r"line 3: expected a JSON object, got list"),
        ('{"corpusid": "abc", "title": "x"}', r"line 3: field 'corpusid' must be an integer id, got 'abc'"),
    ],
)
def test_bad_record_is_reported_by_file_and_line(tmp_path: Path, bad: str, expected: str) -> None:
    path = write_shard(tmp_path / "papers" / "part-007.jsonl.gz", [paper(1), paper(2), bad, paper(4)])
    with pytest.raises(GraphNIAHError, match=expected) as e:
        _read_via_duckdb(path)
    assert str(path) in str(e.value)
    assert find_bad_record(write_shard(tmp_path / "ok.gz", [paper(1)]), PAPERS) is None


def test_bad_citation_id_is_reported(tmp_path: Path) -> None:
    path = write_shard(tmp_path / "c.gz", [citation(1, 2), {"citingcorpusid": 1, "citedcorpusid": {"x": 1}}])
    con = duckdb.connect()
    src = [Source(CITATIONS, "release", path, "c.gz")]
    with pytest.raises(GraphNIAHError, match=r"c.gz, line 2: field 'citedcorpusid' must be an integer id"):
        with VerifiedRead(con, src) as vr:
            con.execute(f"CREATE TABLE t AS {citations_sql(vr.scan(src))}")


# --------------------------------------------------------------------------------------------
# Layout
# --------------------------------------------------------------------------------------------
