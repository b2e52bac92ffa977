"""What the OpenAlex reader takes from a record, on small folders written by hand (issue 40's second audit):
the journal only of a source whose type is ``journal``, fields of study from level-0 concepts only when
a work has no topics, and of two files with bad records the one of the oldest partition named.

Expected values are written out from the records themselves (``docs/openalex.md``'s field mapping)."""

from __future__ import annotations

from pathlib import Path

import pyarrow.parquet as pq
import pytest

from graphniah.errors import GraphNIAHError
from graphniah.formats.snapshot import Snapshot
from graphniah.ingest.build import ingest_openalex
from graphniah.ingest.openalex.layout import open_works
from tests.ingest.openalex.conftest import CUTOFF, work, write_folder


def _papers(folder: Path, tmp_path: Path) -> dict[int, dict]:
    snap = Snapshot.open(ingest_openalex(folder, CUTOFF, tmp_path / "snap"))
    return {r["corpusid"]: r for r in pq.read_table(snap.papers_path).to_pylist()}


def test_the_journal_is_the_source_of_type_journal_and_fields_come_from_topics_else_level_0_concepts(tmp_path: Path) -> None:
    concepts = [{"display_name": "Computer science", "level": 0}, {"display_name": "Machine learning", "level": 1},
                {"display_name": "Artificial intelligence", "level": 0}]
    works = [
        work(1, primary_location={"source": {"display_name": "Proceedings of a Conference", "type": "conference"}}, concepts=concepts),
        work(2, primary_location={"source": {"display_name": "A Journal of Things", "type": "journal"}},
             topics=[{"field": {"display_name": "Medicine"}}, {"field": {"display_name": "Biology"}}], concepts=concepts),
        work(3, primary_location={"source": {"display_name": "An Archive", "type": "repository"}}),
    ]
    papers = _papers(write_folder(tmp_path / "oa", {"2026-06-01": works}), tmp_path)
    got = {k: (p["venue"], p["journal"], p["fields_of_study"]) for k, p in papers.items()}
    assert got == {
        1: ("Proceedings of a Conference", None, ["Artificial intelligence", "Computer science"]),
        2: ("A Journal of Things", "A Journal of Things", ["Biology", "Medicine"]),
        3: ("An Archive", None, []),
    }


def test_of_two_partitions_with_bad_records_the_oldest_is_named(tmp_path: Path) -> None:
    folder = write_folder(tmp_path / "oa", {
        "2026-06-01": [work(1), work(2, referenced_works=["https://openalex.org/A5"])],
        "2026-07-01": [work(3, referenced_works=["https://openalex.org/A6"])],
    })
    older = open_works(folder).parts[0].path
    with pytest.raises(GraphNIAHError) as err:
        ingest_openalex(folder, CUTOFF, tmp_path / "snap")
    assert str(err.value) == (f"{older}, line 2: referenced_works entry 'https://openalex.org/A5' of work "
                              "https://openalex.org/W2 is not a work id (https://openalex.org/W…)")


def test_a_dx_doi_link_and_a_padded_venue_are_read_clean(tmp_path: Path) -> None:
    """``https://dx.doi.org/`` is a DOI link like ``https://doi.org/``; a venue is trimmed, and one of spaces is none."""
    works = [
        work(1, doi="https://dx.doi.org/10.1000/journal.1", primary_location={"source": {"display_name": "  A Venue  ", "type": "journal"}}),
        work(2, doi="http://doi.org/10.1000/journal.2", primary_location={"source": {"display_name": "   ", "type": "conference"}}),
    ]
    papers = _papers(write_folder(tmp_path / "oa", {"2026-06-01": works}), tmp_path)
    assert {k: (p["doi"], p["venue"], p["journal"]) for k, p in papers.items()} == {
        1: ("10.1000/journal.1", "A Venue", "A Venue"), 2: ("10.1000/journal.2", None, None)}


# ---- the contracts, one by one (after the third audit): every column works_sql writes ----------------


def _normalised(tmp_path: Path, records: list[dict], part: int = 0) -> dict[int, dict]:
    """``works_sql``'s rows of ``records`` (a JSON lines file read with the reader's raw types), by work id,
    with each source's date of ``source_dates_sql``."""
    import json

    import duckdb

    from graphniah.ingest.openalex.read import WORKS_RAW, source_dates_sql, works_sql

    f = tmp_path / "works.jsonl"
    f.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    cols = "{" + ", ".join(f"'{c}': '{t}'" for c, t in WORKS_RAW.items()) + "}"
    scan = f"read_json('{f}', format='newline_delimited', columns={cols})"
    dates = ", ".join(f"{e} AS _date_{k}" for k, e in source_dates_sql().items())
    con = duckdb.connect()
    rel = con.sql(f"SELECT *, {dates} FROM ({works_sql(scan, part)})")
    return {r["corpusid"]: r for r in (dict(zip(rel.columns, row, strict=True)) for row in rel.fetchall())}


def test_every_column_of_a_full_record_is_its_documented_field(tmp_path: Path) -> None:
    import datetime as dt

    rec = work(
        42, doi=" https://DOI.org/10.1234/Some.Paper ", title=None, display_name="  The shown name ", publication_date="2026-05-17",
        publication_year=2025, type="preprint", updated_date="2026-06-03T10:00:00",
        primary_location={"source": {"display_name": " Journal of Tests ", "type": "journal"}},
        authorships=[{"author": {"id": "https://openalex.org/A99", "display_name": "Ann Author"}},
                     {"author": {"id": None, "display_name": "Bob Nobody"}}],
        topics=[{"field": {"display_name": " Physics "}}, {"field": {"display_name": "Physics"}}, {"field": {"display_name": "Biology"}},
                {"field": {"display_name": " "}}],
        concepts=[{"display_name": "Level zero", "level": 0}],
        referenced_works=["https://openalex.org/W5", "W6", "https://openalex.org/A1"],
        locations=[{"landing_page_url": "https://www.biorxiv.org/content/10.1101/2025.11.03.123456v1", "pdf_url": "https://arxiv.org/pdf/2512.00005v2.pdf"},
                   {"landing_page_url": "https://doi.org/10.5555/other", "pdf_url": None},
                   {"landing_page_url": "https://www.preprints.org/manuscript/202510.0001/v1", "pdf_url": None}],
    )
    (row,) = _normalised(tmp_path, [rec], part=3).values()
    assert row["corpusid"] == 42 and row["title"] == "The shown name"
    assert row["authors"] == [{"authorId": "A99", "name": "Ann Author"}, {"authorId": None, "name": "Bob Nobody"}]
    assert (row["venue"], row["journal"], row["publicationvenueid"]) == ("Journal of Tests", "Journal of Tests", None)
    assert (row["year"], row["publicationdate"], row["doi"]) == (2025, "2026-05-17", "10.1234/Some.Paper")
    assert row["fields_of_study"] == ["Biology", "Physics"]  # topics win over concepts; trimmed, distinct, sorted
    assert (row["_refs"], row["_bad_refs"]) == ([5, 6, None], 1)
    assert sorted(row["_dois"]) == sorted(["10.1234/Some.Paper", "10.1101/2025.11.03.123456", "10.5555/other",
                                           "10.20944/preprints202510.0001"])
    assert (row["arxiv_id"], row["_arxiv_date0"]) == ("2512.00005", dt.date(2025, 12, 1))
    assert (row["_date_arxiv"], row["_date_biorxiv"], row["_date_preprints"]) == (dt.date(2025, 12, 1), dt.date(2025, 11, 3),
                                                                                  dt.date(2025, 10, 1))
    assert (row["_is_preprint"], row["_updated"], row["_part"]) == (True, "2026-06-03T10:00:00", 3)


def test_of_several_biorxiv_and_preprints_ids_the_earliest_date_counts(tmp_path: Path) -> None:
    """A work naming two bioRxiv DOIs (its own, then a location's) and two Preprints.org pages, the later
    listed first: each source's date is the earliest of its ids, as the module docstring says (dates read
    off the ids by hand: 10.1101/2025.11.03.… is 3 November 2025, manuscript 202509.… is September 2025)."""
    import datetime as dt

    rec = work(5, doi="https://doi.org/10.1101/2025.12.20.654321",
               locations=[{"landing_page_url": "https://www.biorxiv.org/content/10.1101/2025.11.03.123456v2", "pdf_url": None},
                          {"landing_page_url": "https://www.preprints.org/manuscript/202511.0007/v1", "pdf_url": None},
                          {"landing_page_url": "https://www.preprints.org/manuscript/202509.0002/v3", "pdf_url": None}])
    (row,) = _normalised(tmp_path, [rec]).values()
    assert (row["_date_biorxiv"], row["_date_preprints"]) == (dt.date(2025, 11, 3), dt.date(2025, 9, 1))


def test_a_bare_record_reads_as_empty_lists_and_nulls(tmp_path: Path) -> None:
    bare = {"id": "w7", "title": "Bare", "publication_date": "2026-05-01", "publication_year": 2026, "type": "article"}
    odd = work(8, id="https://openalex.org/A8")  # an author id where a work id belongs: no corpusid
    rows = _normalised(tmp_path, [bare, odd])
    row = rows[7]
    assert (row["title"], row["authors"], row["fields_of_study"], row["_refs"], row["_bad_refs"], row["_dois"]) == (
        "Bare", [], [], [], 0, [])
    assert (row["venue"], row["journal"], row["doi"], row["arxiv_id"], row["_arxiv_date0"], row["_is_preprint"], row["_part"]) == (
        None, None, None, None, None, False, 0)
    assert None in rows and rows[None]["title"] == "Work number 8"


@pytest.mark.parametrize(("doi", "read"), [("https://doi.org/10.1/a", "10.1/a"), ("http://dx.doi.org/10.1/b", "10.1/b"),
                                           ("HTTPS://DOI.ORG/10.1/c", "10.1/c"), ("10.1/d", "10.1/d"), ("https://doi.org/", None),
                                           ("   ", None), ("https://example.org/doi.org/10.1/e", "https://example.org/doi.org/10.1/e")])
def test_a_doi_loses_only_a_leading_doi_link(tmp_path: Path, doi: str, read: str | None) -> None:
    (row,) = _normalised(tmp_path, [work(1, doi=doi)]).values()
    assert row["doi"] == read


@pytest.mark.parametrize(("url", "arxiv"), [("https://arxiv.org/abs/2604.00001", "2604.00001"), ("http://export.arxiv.org/abs/2604.00002v3", "2604.00002"),
                                            ("https://www.arxiv.org/pdf/2604.00003.pdf", "2604.00003"), ("https://arxiv.org/abs/hep-th/9901001", "hep-th/9901001"),
                                            ("https://arxiv.org/list/2604", None), ("https://example.org/abs/2604.00004", None)])
def test_the_arxiv_id_of_a_location(tmp_path: Path, url: str, arxiv: str | None) -> None:
    (row,) = _normalised(tmp_path, [work(1, locations=[{"landing_page_url": None, "pdf_url": url}])]).values()
    assert row["arxiv_id"] == arxiv


def test_an_arxiv_id_without_a_date_comes_after_every_dated_one(tmp_path: Path) -> None:
    import datetime as dt

    locs = [{"landing_page_url": "https://arxiv.org/abs/notanid", "pdf_url": None},
            {"landing_page_url": "https://arxiv.org/abs/2605.00001", "pdf_url": None}]
    (row,) = _normalised(tmp_path, [work(1, locations=locs)]).values()
    assert (row["arxiv_id"], row["_arxiv_date0"]) == ("2605.00001", dt.date(2026, 5, 1))
    (row,) = _normalised(tmp_path, [work(1, locations=locs[:1])]).values()
    assert (row["arxiv_id"], row["_arxiv_date0"]) == ("notanid", None)


def test_the_counts_of_an_ingest_are_those_of_its_records(tmp_path: Path) -> None:
    """Records read, superseded (an older copy), merged (one id), works left, and the preprint-typed ones among them."""
    folder = write_folder(tmp_path / "oa", {
        "2026-06-01": [work(1, type="preprint"), work(2, type="preprint"), work(3)],
        "2026-07-01": [work(1, type="preprint"), work(4, type="preprint", publication_date="2026-01-05")],
    }, merged=["W2"])
    snap = Snapshot.open(ingest_openalex(folder, CUTOFF, tmp_path / "snap"))
    src = snap.manifest.source
    # W4 was published before the cutoff, so it is not kept; W1 (newest copy) is
    assert (src["records_read"], src["superseded"], src["merged"], src["works"]) == (5, 1, 1, 3)
    assert src["type_preprint"] == {"works": 2, "kept": 1}


def test_a_folder_whose_works_are_all_merged_is_refused(tmp_path: Path) -> None:
    folder = write_folder(tmp_path / "oa", {"2026-06-01": [work(1), work(2)]}, merged=["W1", "https://openalex.org/W2"])
    with pytest.raises(GraphNIAHError) as err:
        ingest_openalex(folder, CUTOFF, tmp_path / "snap")
    assert str(err.value) == f"OpenAlex folder {folder} holds no works once merged ones are removed"


def test_of_two_copies_in_one_partition_with_one_updated_date_the_first_title_wins(tmp_path: Path) -> None:
    """A full tie (partition and updated_date): the title, then the date, then the DOI decide, so the result never
    depends on the order of the lines."""
    a = work(1, title="Alpha")
    b = work(1, title="Beta")
    for order in ([a, b], [b, a]):
        papers = _papers(write_folder(tmp_path / f"oa{order[0]['title']}", {"2026-06-01": order}), tmp_path / order[0]["title"])
        assert [p["title"] for p in papers.values()] == ["Alpha"]
    undated = work(1, title="Zeta, dated", updated_date="2026-06-01T00:00:00")
    papers = _papers(write_folder(tmp_path / "oaN", {"2026-06-01": [work(1, title="Alpha, undated", updated_date=None), undated]}),
                     tmp_path / "N")
    assert [p["title"] for p in papers.values()] == ["Zeta, dated"]  # a record without updated_date loses


def test_citations_are_the_referenced_works_of_the_kept_record(tmp_path: Path) -> None:
    old = work(1, referenced_works=["https://openalex.org/W3"])
    new = work(1, referenced_works=["https://openalex.org/W2"])
    folder = write_folder(tmp_path / "oa", {"2026-06-01": [old, work(2), work(3)], "2026-07-01": [new]})
    snap = Snapshot.open(ingest_openalex(folder, CUTOFF, tmp_path / "snap"))
    edges = pq.read_table(snap.edges_path).to_pylist()
    assert [(e["citing"], e["cited"]) for e in edges] == [(1, 2)]


@pytest.mark.parametrize(("line", "error"), [
    ('{"id": null}', "line 2: the work has no id"),
    ('{"title": "no id key"}', "line 2: the work has no id"),
    ('{"id": ""}', "line 2: the work has id '', which is not an OpenAlex work id (https://openalex.org/W…)"),
    ('{"id": "https://openalex.org/I5"}', "line 2: the work has id 'https://openalex.org/I5', which is not an OpenAlex work id (https://openalex.org/W…)"),
    ('["a list"]', "line 2: expected a JSON object (a work), got list"),
    ('{"id": "W9", "referenced_works": [5]}', "line 2: referenced_works entry 5 of work W9 is not a work id (https://openalex.org/W…)"),
])
def test_find_bad_work_names_the_first_bad_line_and_what_is_wrong(tmp_path: Path, line: str, error: str) -> None:
    import gzip
    import json

    from graphniah.ingest.openalex.read import find_bad_work

    f = tmp_path / "part_000.gz"
    f.write_bytes(gzip.compress((json.dumps(work(1)) + "\n" + line + "\n\n" + '{"id": null}\n').encode()))
    assert find_bad_work(f) == f"{f}, {error}"
