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
