"""Which OpenAlex records the reader keeps, on small folders written by hand: of several records of a
work the one of the newest partition, then of the newest ``updated_date``; merged ids of either bucket
layout removed; every DOI and arXiv id a work names (its own ``doi`` too) read, the earliest counting;
the release id of a folder without a descriptor; a manifest that lists a file twice.

Expected values are written out from the records themselves; one case repeats with a real OpenAlex
record (``../shared/fixtures/openalex-samples``) where that folder exists."""

from __future__ import annotations

import datetime as dt
import gzip
import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from graphniah.formats.snapshot import Snapshot
from graphniah.ingest.build import ingest_openalex
from graphniah.ingest.openalex.layout import open_works
from tests.conftest import REPO
from tests.ingest.openalex.conftest import CUTOFF, work, write_folder

SAMPLES = REPO.parent / "shared" / "fixtures" / "openalex-samples"


def _ingest(folder: Path, tmp_path: Path, cutoff: dt.date = CUTOFF) -> Snapshot:
    return Snapshot.open(ingest_openalex(folder, cutoff, tmp_path / "snap"))


def _papers(snap: Snapshot) -> dict[int, dict]:
    return {r["corpusid"]: r for r in pq.read_table(snap.papers_path).to_pylist()}


@pytest.mark.parametrize("newest_first", [True, False])
def test_within_a_partition_the_newest_updated_date_wins(tmp_path: Path, newest_first: bool) -> None:
    # "Alpha" would win any tie-break by title; the newer record is "Zeta"
    newer = work(1, title="Zeta, the newer record", updated_date="2026-06-02T08:00:00")
    older = work(1, title="Alpha, the older record", updated_date="2026-06-01T23:59:59")
    records = [newer, older] if newest_first else [older, newer]
    snap = _ingest(write_folder(tmp_path / "oa", {"2026-06-01": [*records, work(2)]}), tmp_path)
    assert {k: p["title"] for k, p in _papers(snap).items()} == {1: "Zeta, the newer record", 2: "Work number 2"}
    src = snap.manifest.source
    assert (src["records_read"], src["superseded"], src["works"]) == (3, 1, 2)


def test_the_newest_partition_wins_over_a_newer_updated_date_of_an_older_one(tmp_path: Path) -> None:
    old = [work(1, title="Zeta, from the older partition", updated_date="2026-08-01T00:00:00")]
    new = [work(1, title="Alpha, from the newer partition", updated_date="2026-06-01T00:00:00")]
    snap = _ingest(write_folder(tmp_path / "oa", {"2026-06-01": old, "2026-07-01": new}), tmp_path)
    assert [p["title"] for p in _papers(snap).values()] == ["Alpha, from the newer partition"]


def test_merged_ids_of_the_newer_bucket_layout_are_dropped(tmp_path: Path) -> None:
    folder = write_folder(tmp_path / "oa", {"2026-06-01": [work(1), work(2), work(3), work(4)]}, layout="jsonl")
    legacy = folder / "legacy-data" / "merged_ids" / "works" / "2026-06-02.csv.gz"
    legacy.parent.mkdir(parents=True)
    legacy.write_bytes(gzip.compress(b"merge_date,id,merge_into_id\n2026-06-02,W2,W1\n2026-06-02,https://openalex.org/W4,W3\n"))
    assert open_works(folder).merged == (legacy,)
    snap = _ingest(folder, tmp_path)
    assert sorted(_papers(snap)) == [1, 3]
    assert (snap.manifest.source["merged"], snap.manifest.source["works"]) == (2, 2)


def test_a_preprint_named_only_by_the_work_s_own_doi_counts(tmp_path: Path) -> None:
    works = [
        work(1, doi="https://doi.org/10.1101/2025.11.03.123456"),  # a bioRxiv DOI of November 2025, no location
        work(2, doi="https://doi.org/10.20944/preprints202511.0001.v1"),  # a Preprints.org DOI of November 2025
        work(3, doi="https://doi.org/10.48550/arXiv.2512.01234"),  # an arXiv DOI of December 2025
        work(4, doi="https://doi.org/10.48550/arXiv.2604.00007"),  # an arXiv DOI of April 2026: after the cutoff
        work(5, doi="https://doi.org/10.1000/journal.5"),  # a journal DOI: no preprint
    ]
    snap = _ingest(write_folder(tmp_path / "oa", {"2026-06-01": works}), tmp_path)
    rows = snap.manifest.rows["papers"]
    assert rows["preprint_before_cutoff_by_source"] == {"arxiv": 1, "biorxiv": 1, "preprints": 1}
    kept = _papers(snap)
    assert sorted(kept) == [4, 5]
    assert kept[4]["arxiv_id"] == "2604.00007" and kept[4]["earliest_public_date"] == dt.date(2026, 4, 1)
    assert kept[5]["arxiv_id"] is None and kept[5]["earliest_public_date"] == dt.date(2026, 5, 1)


def _arxiv(arxiv_id: str) -> dict:
    return {"landing_page_url": f"https://arxiv.org/abs/{arxiv_id}", "pdf_url": None, "source": None}


def test_the_earliest_arxiv_id_and_its_date_are_used(tmp_path: Path) -> None:
    works = [
        work(1, locations=[_arxiv("2605.00002"), _arxiv("2604.00003")]),  # May, then April 2026: April counts
        work(2, locations=[_arxiv("2605.00004"), _arxiv("2512.00005v2")]),  # the December 2025 copy: a preprint before the cutoff
        work(3, locations=[_arxiv("2604.00006")], doi="https://doi.org/10.48550/arXiv.2605.00009"),  # location and DOI
    ]
    snap = _ingest(write_folder(tmp_path / "oa", {"2026-06-01": works}), tmp_path)
    kept = _papers(snap)
    assert sorted(kept) == [1, 3]
    assert (kept[1]["arxiv_id"], kept[1]["earliest_public_date"]) == ("2604.00003", dt.date(2026, 4, 1))
    assert (kept[3]["arxiv_id"], kept[3]["earliest_public_date"]) == ("2604.00006", dt.date(2026, 4, 1))
    assert snap.manifest.rows["papers"]["preprint_before_cutoff_by_source"]["arxiv"] == 1


def test_without_a_descriptor_the_release_is_named_after_the_newest_partition(tmp_path: Path) -> None:
    folder = write_folder(tmp_path / "oa", {"2026-07-15": [work(2)], "2026-06-01": [work(1)], "2026-07-02": [work(3)]})
    works = open_works(folder)
    assert (works.release_id, works.release_id_from) == ("openalex-2026-07-15", "newest_partition")
    assert [d.isoformat() for d, _ in works.partitions()] == ["2026-06-01", "2026-07-02", "2026-07-15"]  # oldest first
    assert open_works(folder, release_id="my-release").release_id == "my-release"


def test_a_file_the_manifest_lists_twice_is_read_once(tmp_path: Path) -> None:
    folder = write_folder(tmp_path / "oa", {"2026-06-01": [work(1), work(2)], "2026-07-01": [work(3)]})
    manifest = folder / "data" / "works" / "manifest"
    doc = json.loads(manifest.read_text(encoding="utf-8"))
    doc["entries"] = [doc["entries"][0], *doc["entries"], doc["entries"][1]]
    manifest.write_text(json.dumps(doc), encoding="utf-8")
    works = open_works(folder)
    assert len(works.parts) == 2 and works.listed_records == 3
    snap = _ingest(folder, tmp_path)
    assert (snap.manifest.source["records_read"], snap.manifest.source["superseded"]) == (3, 0)
    assert sorted(_papers(snap)) == [1, 2, 3]


def test_a_real_record_and_an_older_copy_of_it_in_one_partition(tmp_path: Path) -> None:
    path = SAMPLES / "work-W2741809807.json"
    if not path.is_file():
        pytest.skip(f"real OpenAlex samples not found at {SAMPLES}")
    real = json.loads(path.read_text(encoding="utf-8"))
    older = real | {"title": "An older title of the same work", "updated_date": "2025-01-01T00:00:00"}
    folder = write_folder(tmp_path / "oa", {"2025-06-11": [real, older]})
    snap = _ingest(folder, tmp_path, dt.date(1000, 1, 1))
    number = int(real["id"].rsplit("W", 1)[1])
    (paper,) = _papers(snap).values()
    assert paper["corpusid"] == number and paper["title"] == real["title"].strip()
    assert paper["doi"] == real["doi"].removeprefix("https://doi.org/")
    assert snap.manifest.source["superseded"] == 1


def test_a_bad_record_is_found_by_line_in_a_json_lines_file(tmp_path: Path) -> None:
    from graphniah.ingest.openalex.read import find_bad_work

    folder = write_folder(tmp_path / "oa", {"2026-06-01": [work(1), work(2, referenced_works=["https://openalex.org/A5"]), work(3)]})
    (part,) = open_works(folder).parts
    assert find_bad_work(part.path) == (f"{part.path}, line 2: referenced_works entry 'https://openalex.org/A5' of work "
                                        "https://openalex.org/W2 is not a work id (https://openalex.org/W…)")
    clean = write_folder(tmp_path / "ok", {"2026-06-01": [work(1)]})
    assert find_bad_work(open_works(clean).parts[0].path) is None


def test_merged_id_files_without_an_id_column_are_named_three_at_most(tmp_path: Path) -> None:
    from graphniah.errors import GraphNIAHError

    folder = write_folder(tmp_path / "oa", {"2026-06-01": [work(1)]})
    merged = folder / "data" / "merged_ids" / "works"
    merged.mkdir(parents=True)
    names = [merged / f"2026-06-0{i}.csv.gz" for i in range(1, 5)]
    for path in names:
        path.write_bytes(gzip.compress(b"merge_date,work,merge_into_id\n2026-06-01,W1,W2\n"))
    with pytest.raises(GraphNIAHError) as err:
        ingest_openalex(folder, CUTOFF, tmp_path / "snap")
    assert str(err.value).startswith(f"merged ids ({names[0]}, {names[1]}, {names[2]}): not a CSV with an id column (")


def test_a_manifest_listing_fewer_records_than_the_files_hold_is_refused(tmp_path: Path) -> None:
    from graphniah.errors import GraphNIAHError
    from graphniah.ingest.openalex.layout import OLD_MANIFEST, write_manifest

    folder = write_folder(tmp_path / "oa", {"2026-06-01": [work(1), work(2), work(3)]})
    (part,) = open_works(folder).parts
    write_manifest(folder, "works", [(part.relpath, 2)])
    with pytest.raises(GraphNIAHError) as err:
        ingest_openalex(folder, CUTOFF, tmp_path / "snap")
    assert str(err.value) == f"{folder / OLD_MANIFEST} lists 2 works records, its files hold 3: download the folder again"


def test_a_bad_record_of_a_parquet_file_is_named_by_its_row(tmp_path: Path) -> None:
    import duckdb

    from graphniah.errors import GraphNIAHError
    from graphniah.ingest.openalex.layout import write_manifest

    records = [work(1), work(2), work(3, referenced_works=["https://openalex.org/I7"]), work(4)]
    folder = write_folder(tmp_path / "oa", {"2026-06-01": records}, layout="parquet")
    (part,) = open_works(folder).parts
    raw = part.path.with_suffix(".json.gz")  # write_folder wrote gzip JSON under the Parquet name
    part.path.rename(raw)
    duckdb.sql(f"COPY (SELECT * FROM read_json('{raw}')) TO '{part.path}' (FORMAT parquet)")
    raw.unlink()
    write_manifest(folder, "parquet", [(part.relpath, 4)])
    with pytest.raises(GraphNIAHError) as err:
        ingest_openalex(folder, CUTOFF, tmp_path / "snap")
    assert str(err.value) == (f"{part.path}, row 3: referenced_works entry 'https://openalex.org/I7' of work https://openalex.org/W3 "
                              "is not a work id (https://openalex.org/W…)")


def test_a_descriptor_names_the_release_and_a_contradicting_id_is_refused(tmp_path: Path) -> None:
    import dataclasses

    from graphniah.errors import GraphNIAHError
    from graphniah.formats.release import OpenAlexDescriptor, write_descriptor

    folder = write_folder(tmp_path / "oa", {"2026-06-01": [work(1)], "2026-07-01": [work(2)]})
    write_descriptor(folder / "openalex.json", OpenAlexDescriptor(release_id="openalex-api-2026-06-30", synthetic=True))
    works = open_works(folder)
    assert (works.release_id, works.release_id_from, works.synthetic) == ("openalex-api-2026-06-30", "descriptor", True)
    same = "".join(["openalex-api-", "2026-06-30"])  # equal, not the descriptor's own string
    assert open_works(folder, release_id=same).release_id == "openalex-api-2026-06-30"
    with pytest.raises(GraphNIAHError, match=r"--release-id openalex-2026-07-01 contradicts .*openalex.json, which names release "
                                             r"openalex-api-2026-06-30"):
        open_works(folder, release_id="openalex-2026-07-01")
    with pytest.raises(dataclasses.FrozenInstanceError):
        works.release_id = "changed"  # type: ignore[misc]


def test_a_manifest_line_not_found_in_the_text_is_named_as_line_one(tmp_path: Path) -> None:
    """JSON may escape the slashes of a URL, so the URL as parsed is not in the text: the error says line 1."""
    from graphniah.errors import GraphNIAHError
    from graphniah.ingest.openalex.layout import OLD_MANIFEST

    folder = write_folder(tmp_path / "oa", {"2026-06-01": [work(1)], "2026-07-01": [work(2)]})
    manifest = folder / OLD_MANIFEST
    doc = json.loads(manifest.read_text(encoding="utf-8"))
    rel = doc["entries"][1]["url"].removeprefix("s3://openalex/")
    (folder / rel).unlink()
    manifest.write_text(json.dumps(doc, indent=2).replace("/", "\\/"), encoding="utf-8")
    with pytest.raises(GraphNIAHError) as err:
        open_works(folder)
    assert str(err.value) == (f"{manifest}, line 1: lists s3://openalex/{rel}, but {folder / rel} does not exist "
                              "(download it, or sync the folder again)")
