"""The OpenAlex reader: both forms of one demo world give one snapshot, every layout reads the same,
the preprint guard reads the identifiers of locations, and of several records of a work the newest wins."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from graphniah.formats.snapshot import Snapshot, source_label, source_name
from graphniah.graph.store import build_path_pools, prune_snapshot
from graphniah.ingest.build import PAPER_DROP_REASONS, ingest_openalex
from graphniah.ingest.demo_release.openalex import convert_demo_releases
from graphniah.ingest.openalex.layout import open_works, write_manifest
from graphniah.layout import pool_file
from tests.ingest.openalex.conftest import CUTOFF, World, work, write_folder


def test_both_forms_of_one_world_give_one_paper_set_edges_and_drop_counts(world: World) -> None:
    s2, oa = world.s2ag_snapshot, world.openalex_snapshot
    a, b = pq.read_table(s2.papers_path), pq.read_table(oa.papers_path)
    assert a.num_rows > 1000 and a.num_rows == b.num_rows
    for column in ("corpusid", "title", "venue", "publication_date", "year", "arxiv_id", "doi", "earliest_public_date", "fields_of_study"):
        assert a.column(column).equals(b.column(column)), column
    # authors: the same names in the same order; OpenAlex ids are A<the S2 author id>
    for x, y in zip(a.column("authors").to_pylist(), b.column("authors").to_pylist(), strict=True):
        assert [u["name"] for u in x] == [u["name"] for u in y]
        assert [None if u["id"] is None else "A" + u["id"] for u in x] == [u["id"] for u in y]
    assert pq.read_table(s2.edges_path).equals(pq.read_table(oa.edges_path))
    ma, mb = s2.manifest, oa.manifest
    assert mb.rows["papers"] == ma.rows["papers"]  # every drop reason, the preprint sources, titles cleaned
    assert sum(ma.rows["papers"]["preprint_before_cutoff_by_source"].values()) > 0
    assert all(ma.rows["papers"]["preprint_before_cutoff_by_source"][s] > 0 for s in ("arxiv", "biorxiv", "preprints"))
    # OpenAlex lists only resolved references: S2AG's unresolved rows are all that is missing.
    unresolved = ma.rows["edges"]["dropped"]["null_cited"]
    assert unresolved > 0
    assert mb.rows["edges"]["dropped"] == {**ma.rows["edges"]["dropped"], "null_cited": 0}
    assert mb.rows["edges"]["read"] == ma.rows["edges"]["read"] - unresolved
    assert mb.earliest_public_date == ma.earliest_public_date


def test_manifest_names_openalex_and_counts_records(world: World) -> None:
    m = world.openalex_snapshot.manifest
    assert source_name(m) == "openalex" and source_label(m) == "OpenAlex" and source_label(world.s2ag_snapshot.manifest) == "S2AG"
    assert m.synthetic and m.release_id == world.s2ag.release_ids[-1]
    folder = open_works(world.openalex)
    src = m.source
    assert src["records_read"] == folder.listed_records
    # the world's releases changed records (superseded) and dropped papers (merged)
    assert src["superseded"] > 0 and src["merged"] > 0
    assert src["works"] == src["records_read"] - src["superseded"] - src["merged"] == m.rows["papers"]["read"]
    assert 0 < src["type_preprint"]["kept"] <= src["type_preprint"]["works"]
    assert set(src["preprint_identifiers"]) == {"arxiv", "arxiv_doi", "biorxiv", "preprints"}
    assert {i["path"] for i in m.inputs} == {p.relpath for p in folder.parts} | {p.relative_to(world.openalex).as_posix() for p in folder.merged}


@pytest.mark.slow
def test_both_forms_give_the_same_pools(world: World) -> None:
    pools = {}
    for snap in (world.s2ag_snapshot, world.openalex_snapshot):
        pruned = prune_snapshot(snap, (4, 8))
        build_path_pools(snap, (4, 8), 40, 11, pruned=pruned)
        pools[snap.path] = {k: pq.read_table(pool_file(snap.path, k)) for k in (4, 8)}
        assert {k: r.n_kept for k, r in pruned.items()}
    a, b = pools.values()
    for k in (4, 8):
        assert a[k].num_rows > 0 and a[k].equals(b[k]), k


@pytest.mark.parametrize("layout", ["works", "parquet"])
def test_every_layout_reads_the_same(world: World, tmp_path: Path, layout: str) -> None:
    folder = convert_demo_releases(world.s2ag, tmp_path / layout, layout=layout, shard_rows=1000)  # type: ignore[arg-type]
    assert open_works(folder).layout == layout
    snap = Snapshot.open(ingest_openalex(folder, CUTOFF, tmp_path / "snap"))
    assert snap.manifest.snapshot_hash == world.openalex_snapshot.manifest.snapshot_hash
    assert snap.manifest.rows == world.openalex_snapshot.manifest.rows


def _ingest(tmp_path: Path, partitions: dict, merged: tuple[str, ...] = ()) -> Snapshot:
    folder = write_folder(tmp_path / "oa", partitions, merged=merged)
    return Snapshot.open(ingest_openalex(folder, CUTOFF, tmp_path / "snap"))


def _loc(url: str | None = None, pdf: str | None = None) -> dict:
    return {"landing_page_url": url, "pdf_url": pdf, "source": None}


def test_preprint_guard_reads_location_identifiers(tmp_path: Path) -> None:
    doi = "https://doi.org/10.1000/journal.1"
    works = [
        work(1, doi=doi, locations=[_loc(doi), _loc("https://www.biorxiv.org/content/10.1101/2025.11.03.123456v2")]),  # bioRxiv page
        work(2, locations=[_loc("https://www.medrxiv.org/content/10.1101/2026.04.20.999999v1.full")]),  # medRxiv after the cutoff
        work(3, locations=[_loc(None, "https://arxiv.org/pdf/2512.01234v3.pdf")]),  # arXiv PDF link, December 2025
        work(4, locations=[_loc("http://arxiv.org/abs/hep-th/0101001")]),  # old-style arXiv id, January 2001
        work(5, locations=[_loc("https://doi.org/10.48550/arXiv.2604.00001")]),  # arXiv DOI, April 2026: stays
        work(6, locations=[_loc("https://www.preprints.org/manuscript/202602.0101/v1")]),  # Preprints.org page, February 2026
        work(7, locations=[_loc("https://doi.org/10.20944/preprints202511.0001.v1")]),  # Preprints.org DOI link
        work(8, locations=[_loc("https://arxiv.org/abs/2113.00001")]),  # no such month: ignored as a source
        work(9, locations=[_loc("https://arxiv.org/abs/2601.00002"), _loc("https://www.biorxiv.org/content/10.1101/2025.12.30.1v1")]),
        work(10, publication_date=None, created_date="2026-05-01"),  # created_date is never a publication date
        work(11, publication_date="2026-05", publication_year=2026),
        work(12, title=None, display_name="Only a display name"),
    ]
    snap = _ingest(tmp_path, {"2026-06-01": works})
    rows = snap.manifest.rows["papers"]
    assert rows["preprint_before_cutoff_by_source"] == {"arxiv": 2, "biorxiv": 2, "preprints": 2}  # 3,4 | 1,9 | 6,7
    assert rows["dropped"]["no_publication_date"] == 1 and rows["dropped"]["invalid_publication_date"] == 1
    kept = {r["corpusid"]: r for r in pq.read_table(snap.papers_path).to_pylist()}
    assert sorted(kept) == [2, 5, 8, 12]
    assert kept[5]["arxiv_id"] == "2604.00001" and kept[5]["earliest_public_date"] == dt.date(2026, 4, 1)
    assert kept[2]["earliest_public_date"] == dt.date(2026, 4, 20)
    assert kept[8]["arxiv_id"] == "2113.00001" and kept[8]["earliest_public_date"] == dt.date(2026, 5, 1)
    assert kept[12]["title"] == "Only a display name"
    assert set(rows["dropped"]) == set(PAPER_DROP_REASONS)


def test_newest_record_wins_and_merged_works_go(tmp_path: Path) -> None:
    old = [work(1, title="Old title", referenced_works=["https://openalex.org/W2"]), work(2), work(3)]
    new = [work(1, title="New title", referenced_works=["https://openalex.org/W3"], updated_date="2026-07-01T00:00:00")]
    snap = _ingest(tmp_path, {"2026-06-01": old, "2026-07-01": new}, merged=("W3",))
    src = snap.manifest.source
    assert (src["records_read"], src["superseded"], src["merged"], src["works"]) == (4, 1, 1, 2)
    papers = pq.read_table(snap.papers_path).to_pylist()
    assert [(p["corpusid"], p["title"]) for p in papers] == [(1, "New title"), (2, "Work number 2")]
    # the newest record cites W3, which was merged away: no edge, counted as an ineligible end
    assert pq.read_table(snap.edges_path).num_rows == 0
    assert snap.manifest.rows["edges"]["dropped"]["endpoint_not_eligible"] == 1


def test_manifest_urls_relative_to_the_manifest(tmp_path: Path) -> None:
    import json

    folder = write_folder(tmp_path / "oa", {"2026-06-01": [work(1), work(2)]}, layout="jsonl")
    manifest = folder / "data" / "jsonl" / "manifest.json"
    doc = json.loads(manifest.read_text(encoding="utf-8"))
    for entry in doc["works"]["entries"]:
        entry["url"] = entry["url"].removeprefix("s3://openalex/data/jsonl/")  # works/updated_date=…/part_0000.gz
    manifest.write_text(json.dumps(doc, indent=2), encoding="utf-8")
    parts = open_works(folder).parts
    assert [p.relpath for p in parts] == ["data/jsonl/works/updated_date=2026-06-01/part_0000.gz"]
    assert Snapshot.open(ingest_openalex(folder, CUTOFF, tmp_path / "snap")).manifest.rows["papers"]["kept"] == 2


def test_parquet_without_a_retired_column(tmp_path: Path) -> None:
    import duckdb

    folder = write_folder(tmp_path / "oa", {"2026-06-01": [work(1, concepts=[{"display_name": "Biology", "level": 0}]), work(2)]}, layout="parquet")
    part = next((folder / "data" / "parquet" / "works").rglob("*.parquet"))
    # write_folder wrote gzip JSON under the Parquet name: make it real Parquet without `concepts`
    raw = part.with_suffix(".json.gz")
    part.rename(raw)
    duckdb.sql(f"COPY (SELECT * EXCLUDE (concepts) FROM read_json('{raw}')) TO '{part}' (FORMAT parquet)")
    raw.unlink()
    write_manifest(folder, "parquet", [(part.relative_to(folder).as_posix(), 2)])
    snap = Snapshot.open(ingest_openalex(folder, CUTOFF, tmp_path / "snap"))
    assert pq.read_table(snap.papers_path).column("fields_of_study").to_pylist() == [[], []]
