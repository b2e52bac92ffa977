"""The normalising SQL on real S2AG records of both formats: papers, citations, venues."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import duckdb

from graphniah.ingest.s2ag.layout import shard_files
from graphniah.ingest.s2ag.sql import citations_sql, papers_sql, venues_sql


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
