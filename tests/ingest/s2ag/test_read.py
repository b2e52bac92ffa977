"""Reading S2AG files: real records of both formats, gzip damage, bad records, bad layouts."""

from __future__ import annotations

import gzip
import json
import re
from pathlib import Path

import duckdb
import pytest

from graphniah.errors import GraphNIAHError
from graphniah.ingest.s2ag.integrity import find_bad_record, verify_gzip
from graphniah.ingest.s2ag.layout import CITATIONS, PAPERS, VENUES, Source, diff_sources, read_release_info, release_sources, shard_files
from graphniah.ingest.s2ag.read import VerifiedRead
from graphniah.ingest.s2ag.sql import citations_sql, papers_sql, venues_sql
from tests.ingest.s2ag.release_kit import citation, paper, write_release, write_shard


def _lines(path: Path) -> list[dict]:
    with gzip.open(path, "rt", encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def _read(sql: str) -> list[dict]:
    rel = duckdb.sql(sql)
    return [dict(zip(rel.columns, row, strict=True)) for row in rel.fetchall()]


def _id(v) -> int | None:
    return None if v is None else int(v)


# --------------------------------------------------------------------------------------------
# Real S2AG records (../shared/fixtures/s2ag-samples)
# --------------------------------------------------------------------------------------------


def test_every_real_paper_record_parses(s2ag_samples: Path) -> None:
    files = shard_files(s2ag_samples / "release-2022-samples" / "papers")
    assert files
    raw = [r for f in files for r in _lines(f)]
    rows = _read(papers_sql(files))
    assert len(rows) == len(raw) == 100
    by_id = {r["corpusid"]: r for r in rows}
    for rec in raw:
        row = by_id[int(rec["corpusid"])]  # legacy ids are JSON strings; normalised to BIGINT
        assert row["title"] == rec["title"].strip()
        assert row["year"] == rec["year"]
        assert row["publicationdate"] == rec["publicationdate"]
        assert [a["name"] for a in row["authors"]] == [a["name"] for a in rec["authors"]]
        assert [a["authorId"] for a in row["authors"]] == [a["authorId"] for a in rec["authors"]]
        journal = (rec["journal"] or {}).get("name") or None
        assert row["journal"] == journal  # null journal and "" name both become NULL
        assert row["venue"] == (rec["venue"] or None)
        assert row["doi"] == rec["externalids"]["DOI"]
        assert row["fields_of_study"] == sorted({f["category"] for f in rec["s2fieldsofstudy"] or []})
    # Fields of study: 34 records list some (docs/demo-release.md), 20 of them two or more distinct ones.
    assert sum(bool(r["fields_of_study"]) for r in rows) == 34 and sum(len(r["fields_of_study"]) > 1 for r in rows) == 20
    # The sample has the quirks the reader must survive.
    assert any(r["journal"] is None for r in raw) and any(r["publicationdate"] is None and r["year"] for r in raw)


def test_every_real_citation_record_of_both_formats_parses(s2ag_samples: Path) -> None:
    legacy = shard_files(s2ag_samples / "release-2022-samples" / "citations")
    current = [s2ag_samples / "diff-2024-06-25-citations" / "update_files-000.gz"]
    for files, n, has_id in ((legacy, 100, False), (current, 20, True)):
        raw = [r for f in files for r in _lines(f)]
        rows = _read(citations_sql(files))
        assert len(rows) == len(raw) == n
        for rec, row in zip(raw, rows, strict=True):
            assert row["citing"] == _id(rec["citingcorpusid"])
            assert row["cited"] == _id(rec["citedcorpusid"])
            assert row["citationid"] == (rec["citationid"] if has_id else None)
    # Flat intents (legacy) and nested intents (current) are both present and both parsed above.
    assert any(isinstance(r["intents"], list) and r["intents"] and isinstance(r["intents"][0], str) for f in legacy for r in _lines(f))
    assert any(isinstance(r["intents"], list) and r["intents"] and isinstance(r["intents"][0], list) for f in current for r in _lines(f))


def test_every_real_venue_record_parses(s2ag_samples: Path) -> None:
    files = shard_files(s2ag_samples / "release-2022-samples" / "publication-venues")
    raw = [r for f in files for r in _lines(f)]
    rows = _read(venues_sql(files))
    assert [(r["id"], r["name"]) for r in rows] == [(r["id"], r["name"] or None) for r in raw]


def test_every_real_sample_file_passes_the_gzip_check(s2ag_samples: Path) -> None:
    files = sorted(s2ag_samples.rglob("*.gz"))
    assert len(files) >= 8
    for f in files:
        size, digest = verify_gzip(f)
        assert size == f.stat().st_size and re.fullmatch(r"[0-9a-f]{64}", digest)


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


def test_damage_offset_is_exact_in_a_multi_member_file(tmp_path: Path) -> None:
    first = gzip.compress(b'{"corpusid": 1, "title": "One"}\n', mtime=0)
    second = bytearray(gzip.compress(b'{"corpusid": 2, "title": "Two"}\n', mtime=0))
    second[0] = 0x00  # the second member's magic number is broken
    path = tmp_path / "p.gz"
    path.write_bytes(first + bytes(second))
    with pytest.raises(GraphNIAHError, match=rf"corrupt gzip data at byte offset {len(first)} \(incorrect header check\)"):
        verify_gzip(path)


def test_multi_member_gzip_and_trailing_garbage(tmp_path: Path) -> None:
    path = write_shard(tmp_path / "m.gz", [paper(i) for i in range(50)], members=5)
    assert verify_gzip(path)[0] == path.stat().st_size
    assert duckdb.sql(f"SELECT count(*) FROM ({papers_sql([path])})").fetchall() == [(50,)]
    size = path.stat().st_size
    path.write_bytes(path.read_bytes() + b"garbage!")
    with pytest.raises(GraphNIAHError, match=rf"m.gz: corrupt gzip data at byte offset {size:,}"):
        verify_gzip(path)


def test_empty_and_non_gzip_files(tmp_path: Path) -> None:
    (tmp_path / "empty.gz").write_bytes(b"")
    with pytest.raises(GraphNIAHError, match=r"empty.gz: file is empty \(0 bytes\)"):
        verify_gzip(tmp_path / "empty.gz")
    (tmp_path / "plain.gz").write_bytes(b'{"corpusid": 1}\n')
    with pytest.raises(GraphNIAHError, match=r"plain.gz: corrupt gzip data at byte offset 0 \(incorrect header check\)"):
        verify_gzip(tmp_path / "plain.gz")


# --------------------------------------------------------------------------------------------
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


def test_shard_names_are_free_and_hidden_files_are_skipped(tmp_path: Path) -> None:
    for name in ("a.gz", "b.jsonl.gz", "c.json.gz", ".d.gz.part", ".e.gz", "notes.txt"):
        (tmp_path / name).write_bytes(b"")
    assert [p.name for p in shard_files(tmp_path)] == ["a.gz", "b.jsonl.gz", "c.json.gz"]


def test_layout_errors_name_the_missing_piece(tmp_path: Path) -> None:
    with pytest.raises(GraphNIAHError, match=r"release folder .*nowhere does not exist"):
        read_release_info(tmp_path / "nowhere")
    rdir = write_release(tmp_path, "2026-10-06", [paper(1)], [citation(1, 2)])
    assert read_release_info(rdir).release_id == "2026-10-06"
    (rdir / "release.json").write_text("{not json")
    with pytest.raises(GraphNIAHError, match=r"release.json is not valid JSON"):
        read_release_info(rdir)
    (rdir / "release.json").write_text('{"synthetic": true}')
    with pytest.raises(GraphNIAHError, match=r"field 'release_id' must be a non-empty string"):
        read_release_info(rdir)
    for f in (rdir / "citations").iterdir():
        f.unlink()
    with pytest.raises(GraphNIAHError, match=r"is empty: .*citations/ holds no .gz shard files"):
        release_sources(rdir)
    (rdir / "citations").rmdir()
    with pytest.raises(GraphNIAHError, match=r"has no citations/ dataset folder"):
        release_sources(rdir)
    assert release_sources(write_release(tmp_path, "r2", [paper(1)], [citation(1, 2)]))[VENUES] == ()


def test_diff_layout(tmp_path: Path) -> None:
    (tmp_path / "papers" / "update_files").mkdir(parents=True)
    with pytest.raises(GraphNIAHError, match=r"has no citations/ dataset folder"):
        diff_sources(tmp_path)
    (tmp_path / "citations" / "delete_files").mkdir(parents=True)
    write_shard(tmp_path / "citations" / "delete_files" / "x.gz", [{"citationid": 1}])
    src = diff_sources(tmp_path)
    assert src[(PAPERS, "update")] == () and [s.relpath for s in src[(CITATIONS, "delete")]] == ["citations/delete_files/x.gz"]
