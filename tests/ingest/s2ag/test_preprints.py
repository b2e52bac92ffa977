"""The preprint rule: earliest public dates from arXiv ids and preprint DOIs, in SQL and through the ingest."""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path

import duckdb
import pyarrow.parquet as pq
import pytest

from graphniah.formats.snapshot import Snapshot
from graphniah.ingest.build import ingest_release
from graphniah.ingest.s2ag import preprints
from graphniah.ingest.s2ag.layout import shard_files
from graphniah.ingest.s2ag.sql import papers_sql
from tests.ingest.s2ag.release_kit import paper, write_release

D = dt.date

ARXIV = {  # externalids.ArXiv -> the date it gives (None: ignored as a source)
    "2103.01234": D(2021, 3, 1),
    "2103.01234v2": D(2021, 3, 1),
    "2604.00001v13": D(2026, 4, 1),
    "arXiv:2603.12345": D(2026, 3, 1),  # the arXiv: prefix some feeds write
    " 2603.12345 ": D(2026, 3, 1),  # white space around
    "0704.0001": D(2007, 4, 1),  # the first new-style id (four digits until 1412)
    "1412.9999v1": D(2014, 12, 1),
    "1501.00001": D(2015, 1, 1),  # five digits from 1501
    "hep-th/9901001": D(1999, 1, 1),  # old style: archive/YYMMNNN
    "hep-th/9901001v3": D(1999, 1, 1),
    "math.AG/0309136": D(2003, 9, 1),  # with a subject class
    "cond-mat/0703999": D(2007, 3, 1),  # the last old-style month
    "astro-ph/9108001": D(1991, 8, 1),  # the first
    # malformed: kept, ignored as a source
    "2103.1234": None,  # four digits after 2014
    "1412.00001": None,  # five digits before 2015
    "0703.0001": None,  # new style before April 2007
    "2113.00001": None,  # month 13
    "2100.00001": None,  # month 0
    "hep-th/0801001": None,  # old style after March 2007
    "hep-th/9107001": None,  # old style before August 1991
    "hep-th/9913001": None,  # month 13
    "hep-th/99010011": None,  # eight digits
    "2603.12345v": None,
    "2603.12345 v2": None,
    "garbage": None,
    "12.3": None,
    "": None,
}
DOI = {  # externalids.DOI -> (bioRxiv/medRxiv date, Preprints.org date)
    "10.1101/2020.01.02.123456": (D(2020, 1, 2), None),
    "10.1101/2026.03.31.700001v2": (D(2026, 3, 31), None),  # a version suffix (as in bioRxiv URLs) keeps the date
    "10.1101/20260331.700001": (None, None),  # no dots in the date: not the dated form
    "10.1101/2026.03.31.700001": (D(2026, 3, 31), None),
    "10.1101/2021.02.29.1": (None, None),  # 29 February 2021 does not exist
    "10.1101/123456": (None, None),  # bioRxiv's undated DOIs
    "10.1101/gr.123.456": (None, None),  # a Cold Spring Harbor journal, not a preprint
    "10.20944/preprints202003.0123.v1": (None, D(2020, 3, 1)),
    "10.20944/PREPRINTS202603.0001.V2": (None, D(2026, 3, 1)),  # DOIs are case-insensitive
    "10.20944/preprints202013.0001.v1": (None, None),  # month 13
    "10.20944/preprints2020.0001": (None, None),
    "10.48550/arXiv.2603.12345": (None, None),  # arXiv's DataCite DOI: the ArXiv id dates the paper
    "10.1000/xyz": (None, None),
    "": (None, None),
}


def _eval(sql: str, value: str | None) -> object:
    return duckdb.execute(f"SELECT {sql} FROM (SELECT CAST(? AS VARCHAR) AS x)", [value]).fetchall()[0][0]


@pytest.mark.parametrize(("arxiv", "expected"), [*ARXIV.items(), (None, None)])
def test_arxiv_dates(arxiv: str | None, expected: dt.date | None) -> None:
    assert _eval(preprints.arxiv_date_sql("x"), arxiv) == expected


@pytest.mark.parametrize(("doi", "expected"), [*DOI.items(), (None, (None, None))])
def test_preprint_doi_dates(doi: str | None, expected: tuple[dt.date | None, dt.date | None]) -> None:
    assert (_eval(preprints.biorxiv_date_sql("x"), doi), _eval(preprints.preprints_date_sql("x"), doi)) == expected


# A pure-Python statement of the rule, to check the SQL on records nobody wrote for it.
def _month(y: int, m: int) -> dt.date | None:
    return dt.date(y, m, 1) if 1 <= m <= 12 else None


def _arxiv_reference(a: str | None) -> dt.date | None:
    a = (a or "").strip()
    if m := re.fullmatch(r"(?:[aA][rR][xX][iI][vV]:)?(\d\d)(\d\d)\.(\d{4,5})(?:v\d+)?", a):
        yymm, digits = int(m[1] + m[2]), len(m[3])
        if (digits == 4 and 704 <= yymm <= 1412) or (digits == 5 and yymm >= 1501):
            return _month(2000 + int(m[1]), int(m[2]))
    if (m := re.fullmatch(r"(?:[aA][rR][xX][iI][vV]:)?[a-z]+(?:-[a-z]+)*(?:\.[A-Za-z]{2})?/(\d\d)(\d\d)\d{3}(?:v\d+)?", a)) and (
        int(m[1] + m[2]) >= 9108 or int(m[1] + m[2]) <= 703
    ):
        return _month((1900 if int(m[1]) >= 91 else 2000) + int(m[1]), int(m[2]))
    return None


def _doi_reference(doi: str | None) -> dt.date | None:
    d = (doi or "").strip()
    found: list[dt.date] = []
    if m := re.match(r"10\.1101/(\d{4})\.(\d\d)\.(\d\d)\.", d):
        try:
            found.append(dt.date(int(m[1]), int(m[2]), int(m[3])))
        except ValueError:
            pass
    if (m := re.match(r"10\.20944/preprints(\d{4})(\d\d)\.", d.lower())) and (date := _month(int(m[1]), int(m[2]))):
        found.append(date)
    return min(found, default=None)


def test_the_sql_matches_the_rule_on_the_hand_made_ids() -> None:
    # the Python statement of the rule agrees with the hand-made tables ...
    assert all(_arxiv_reference(a) == want for a, want in ARXIV.items())
    assert all(_doi_reference(d) == min((x for x in want if x), default=None) for d, want in DOI.items())
    # ... and the ingest's SQL (every source date, then the earliest) agrees with both on every pairing
    # of a hand-made arXiv id with a hand-made DOI, in one query as the ingest runs it
    pairs = [(a, d) for a in [*ARXIV, None] for d in [*DOI, None]]
    dates = preprints.source_dates_sql("arxiv_id", "doi")
    rows = duckdb.execute(f"SELECT arxiv_id, doi, {preprints.earliest_sql(list(dates.values()))} "
                          "FROM (SELECT unnest(?::VARCHAR[]) AS arxiv_id, unnest(?::VARCHAR[]) AS doi)",
                          [[a for a, _ in pairs], [d for _, d in pairs]]).fetchall()
    assert len(rows) == len(pairs) == (len(ARXIV) + 1) * (len(DOI) + 1)
    for arxiv, doi, got in rows:
        tabled = [ARXIV.get(arxiv) if arxiv is not None else None, *(DOI.get(doi, (None, None)) if doi is not None else ())]
        assert got == min((x for x in tabled if x), default=None), (arxiv, doi)
        assert got == min((x for x in (_arxiv_reference(arxiv), _doi_reference(doi)) if x), default=None), (arxiv, doi)


def test_real_s2ag_records(s2ag_samples: Path) -> None:
    """Every real papers record (externalids as S2AG wrote them, legacy 2022 format): the earliest
    public date the ingest computes is the Python rule's, and no id makes it fail."""
    files = shard_files(s2ag_samples / "release-2022-samples" / "papers")
    dates = preprints.source_dates_sql("arxiv_id", "doi")
    record = preprints.record_date_sql("TRY_CAST(publicationdate AS DATE)", "year")
    rows = duckdb.execute(f"""
        SELECT corpusid, arxiv_id, doi, TRY_CAST(publicationdate AS DATE), year, {preprints.earliest_sql([*dates.values(), record])}
        FROM ({papers_sql(files)})""").fetchall()
    assert len(rows) == 100
    for cid, arxiv, doi, pdate, year, got in rows:
        own = pdate if pdate is not None else (dt.date(year, 1, 1) if year is not None else None)
        want = min((d for d in (_arxiv_reference(arxiv), _doi_reference(doi), own) if d is not None), default=None)
        assert got == want, (cid, arxiv, doi, pdate, year)
    assert sum(1 for r in rows if r[2]) == 20  # the sample's DOIs are all read (none is a preprint DOI)


def _ingest(tmp_path: Path, records: list[dict], cutoff: dt.date) -> tuple[dict[int, dict], dict]:
    rdir = write_release(tmp_path, "2026-10-06", records, [])
    out = ingest_release(rdir, cutoff, tmp_path / f"snap-{cutoff}")
    kept = {r["corpusid"]: r for r in pq.read_table(out / "papers.parquet").to_pylist()}
    return kept, Snapshot.open(out).manifest["rows"]["papers"]


def test_the_cutoff_month_boundary(tmp_path: Path) -> None:
    """A month-precision date is that month's first day: on a cutoff on the 1st, that month's ids
    stay; on a later day of the month, they go; the month before always goes."""
    records = [
        paper(1, date="2026-05-02", arxiv="2604.00001"),
        paper(2, date="2026-05-02", arxiv="2603.99999v2"),
        paper(3, date="2026-05-02", doi="10.20944/preprints202604.0001.v1"),
        paper(4, date="2026-05-02", doi="10.1101/2026.04.01.000001"),
        paper(5, date="2026-05-02", doi="10.1101/2026.03.31.000001"),
        paper(6, date="2026-05-02", legacy=True, arxiv="hep-th/0301001"),
    ]
    kept, rows = _ingest(tmp_path, records, dt.date(2026, 4, 1))
    assert sorted(kept) == [1, 3, 4]
    assert rows["dropped"]["preprint_before_cutoff"] == 3
    assert rows["preprint_before_cutoff_by_source"] == {"arxiv": 2, "biorxiv": 1, "preprints": 0}
    assert {c: r["earliest_public_date"] for c, r in kept.items()} == {1: D(2026, 4, 1), 3: D(2026, 4, 1), 4: D(2026, 4, 1)}
    kept, rows = _ingest(tmp_path, records, dt.date(2026, 4, 2))
    assert kept == {}  # every preprint is dated on or before 1 April
    assert rows["preprint_before_cutoff_by_source"] == {"arxiv": 3, "biorxiv": 2, "preprints": 1}


def test_malformed_ids_are_kept_and_the_earliest_source_counts(tmp_path: Path) -> None:
    bad = [a for a, want in ARXIV.items() if want is None]
    records = [paper(100 + i, date="2026-05-02", arxiv=a, doi="10.1101/2021.02.29.1", legacy=i % 2 == 1) for i, a in enumerate(bad)]
    records += [
        # arXiv and bioRxiv both before the cutoff: counted under the earlier one
        paper(1, date="2026-06-01", arxiv="2602.00001", doi="10.1101/2026.01.15.000002"),
        # equal dates: the first source in SOURCES order
        paper(2, date="2026-06-01", arxiv="2601.00001", doi="10.20944/preprints202601.0002.v1"),
        # a malformed arXiv id does not hide a dated DOI
        paper(3, date="2026-06-01", arxiv="2613.00001", doi="10.20944/Preprints202512.0003.v1"),
        # a paper dated before the cutoff is before_cutoff, whatever its preprints say
        paper(4, date="2026-03-01", arxiv="2602.00004"),
        # no preprint: the publication date
        paper(5, date="2026-06-01"),
    ]
    kept, rows = _ingest(tmp_path, records, dt.date(2026, 4, 1))
    assert sorted(kept) == [5, *range(100, 100 + len(bad))]
    assert all(kept[100 + i]["earliest_public_date"] == D(2026, 5, 2) and kept[100 + i]["arxiv_id"] == (a or None) for i, a in enumerate(bad))
    assert kept[5]["earliest_public_date"] == D(2026, 6, 1)
    assert rows["dropped"]["before_cutoff"] == 1 and rows["dropped"]["preprint_before_cutoff"] == 3
    assert rows["preprint_before_cutoff_by_source"] == {"arxiv": 1, "biorxiv": 1, "preprints": 1}
    m = Snapshot.open(tmp_path / "snap-2026-04-01").manifest
    assert m.earliest_public_date is not None and (m.earliest_public_date.min, m.earliest_public_date.max) == (D(2026, 5, 2), D(2026, 6, 1))
    assert m.eligibility["earliest_public_date"] == preprints.rule_json()
