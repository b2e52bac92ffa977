"""Which manifest of an OpenAlex folder is read, and what its record counts check (issue 40's second audit).

Folders written by hand (``tests.ingest.openalex.conftest.write_folder``); the expected values follow
from ``docs/openalex.md``: the newer JSON lines copy is read where it is present, the Parquet copy only
where it is the only newer one; a manifest's record count is checked only when every entry gives one."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from graphniah.errors import GraphNIAHError
from graphniah.formats.snapshot import Snapshot
from graphniah.ingest.build import ingest_openalex
from graphniah.ingest.openalex.layout import JSONL_MANIFEST, OLD_MANIFEST, PARQUET_MANIFEST, open_works
from tests.ingest.openalex.conftest import CUTOFF, work, write_folder


def test_the_json_lines_copy_is_read_before_the_parquet_and_the_older_ones(tmp_path: Path) -> None:
    root = tmp_path / "oa"
    write_folder(root, {"2026-06-01": [work(1)]}, layout="works")
    write_folder(root, {"2026-06-01": [work(1)]}, layout="parquet")  # its manifest is all this test reads of it
    assert (open_works(root).layout, open_works(root).manifest) == ("parquet", root / PARQUET_MANIFEST)
    write_folder(root, {"2026-06-01": [work(1)]}, layout="jsonl")
    folder = open_works(root)
    assert (folder.layout, folder.manifest) == ("jsonl", root / JSONL_MANIFEST)
    assert [p.relpath for p in folder.parts] == ["data/jsonl/works/updated_date=2026-06-01/part_0000.gz"]


def test_a_manifest_that_gives_some_record_counts_only_is_not_checked_against_their_sum(tmp_path: Path) -> None:
    root = write_folder(tmp_path / "oa", {"2026-06-01": [work(1), work(2)], "2026-06-02": [work(3)]})
    manifest = root / OLD_MANIFEST
    body = json.loads(manifest.read_text())
    del body["entries"][1]["meta"]["record_count"]  # an entry that gives its size only
    manifest.write_text(json.dumps(body))
    folder = open_works(root)
    assert [p.listed_records for p in folder.parts] == [2, None] and folder.listed_records is None
    snap = Snapshot.open(ingest_openalex(root, CUTOFF, tmp_path / "snap"))
    assert snap.manifest.source["records_read"] == 3
    assert sorted(pq.read_table(snap.papers_path, columns=["corpusid"]).column("corpusid").to_pylist()) == [1, 2, 3]


@pytest.mark.parametrize("rid", ["../elsewhere", "a/b", ".hidden", "-flag", "with space"])
def test_a_release_id_that_cannot_name_a_folder_is_refused(tmp_path: Path, rid: str) -> None:
    """The release id names the snapshot's folder: letters, digits, '.', '_' and '-', starting with a letter or digit."""
    root = write_folder(tmp_path / "oa", {"2026-06-01": [work(1)]})
    assert open_works(root, release_id="openalex-2026.06_01").release_id == "openalex-2026.06_01"
    with pytest.raises(GraphNIAHError, match=f"release id {rid!r} is not usable in a folder name"):
        open_works(root, release_id=rid)


# ---- the contracts, one by one (after the third audit) ---------------------------------------------


def _gz(path: Path, records: list[dict]) -> tuple[str, int]:
    import gzip

    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(gzip.compress(("".join(json.dumps(r) + "\n" for r in records)).encode(), mtime=0))
    return path.as_posix(), len(records)


def test_works_files_are_named_as_openalex_names_them() -> None:
    import datetime as dt

    from graphniah.ingest.openalex.layout import works_file

    day = dt.date(2026, 6, 1)
    assert works_file("works", day, 7) == "data/works/updated_date=2026-06-01/part_007.gz"
    assert works_file("jsonl", day, 7) == "data/jsonl/works/updated_date=2026-06-01/part_0007.gz"
    assert works_file("parquet", day, 12) == "data/parquet/works/updated_date=2026-06-01/part_0012.parquet"


@pytest.mark.parametrize(("layout", "manifest"), [("works", OLD_MANIFEST), ("jsonl", JSONL_MANIFEST), ("parquet", PARQUET_MANIFEST)])
def test_write_manifest_lists_each_file_with_its_size_and_records(tmp_path: Path, layout: str, manifest: Path) -> None:
    from graphniah.ingest.openalex.layout import write_manifest

    rels = ["a/works/updated_date=2026-06-01/x.gz", "a/works/updated_date=2026-06-02/y.gz"]
    (tmp_path / "a").mkdir()
    for rel, size in zip(rels, (5, 11), strict=True):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_bytes(b"x" * size)
    path = write_manifest(tmp_path, layout, [(rels[0], 3), (rels[1], 4)])  # type: ignore[arg-type]
    assert path == tmp_path / manifest
    body = {"entries": [{"url": f"s3://openalex/{rels[0]}", "meta": {"content_length": 5, "record_count": 3}},
                        {"url": f"s3://openalex/{rels[1]}", "meta": {"content_length": 11, "record_count": 4}}],
            "meta": {"content_length": 16, "record_count": 7}}
    assert json.loads(path.read_text()) == (body if layout == "works" else {"works": body})


def test_the_parts_are_sorted_by_date_then_path_and_grouped_oldest_first(tmp_path: Path) -> None:
    import datetime as dt

    from graphniah.ingest.openalex.layout import write_manifest

    root = tmp_path / "oa"
    files = [_gz(root / f"data/works/updated_date={d}/part_{i:03d}.gz", [work(n)]) for d, i, n in
             (("2026-07-01", 0, 1), ("2026-06-01", 1, 2), ("2026-06-01", 0, 3))]
    write_manifest(root, "works", [(Path(p).relative_to(root).as_posix(), n) for p, n in files])
    folder = open_works(root)
    assert [p.relpath for p in folder.parts] == ["data/works/updated_date=2026-06-01/part_000.gz", "data/works/updated_date=2026-06-01/part_001.gz",
                                                 "data/works/updated_date=2026-07-01/part_000.gz"]
    first = folder.parts[0]
    assert (first.path, first.updated, first.listed_records, first.listed_bytes) == (
        root / first.relpath, dt.date(2026, 6, 1), 1, (root / first.relpath).stat().st_size)
    assert [(d.isoformat(), [p.relpath[-12:] for p in ps]) for d, ps in folder.partitions()] == [
        ("2026-06-01", ["/part_000.gz", "/part_001.gz"]), ("2026-07-01", ["/part_000.gz"])]
    assert folder.listed_records == 3 and (folder.root, folder.layout, folder.synthetic) == (root, "works", False)


def test_a_combined_manifest_is_read_for_its_works_only_and_a_meta_of_the_wrong_type_is_no_count(tmp_path: Path) -> None:
    root = write_folder(tmp_path / "oa", {"2026-06-01": [work(1)]}, layout="jsonl")
    manifest = root / JSONL_MANIFEST
    doc = json.loads(manifest.read_text())
    doc["authors"] = {"entries": [{"url": "s3://openalex/data/jsonl/authors/updated_date=2026-06-01/part_0000.gz",
                                   "meta": {"content_length": 1, "record_count": 1}}]}  # not downloaded: never looked at
    doc["works"]["entries"][0]["meta"] = {"content_length": True, "record_count": "1"}
    manifest.write_text(json.dumps(doc))
    (part,) = open_works(root).parts
    assert (part.relpath, part.listed_bytes, part.listed_records) == ("data/jsonl/works/updated_date=2026-06-01/part_0000.gz", None, None)


def _refused(root: Path) -> str:
    with pytest.raises(GraphNIAHError) as err:
        open_works(root)
    return str(err.value)


def test_each_bad_manifest_entry_is_refused_naming_the_manifest_and_line(tmp_path: Path) -> None:
    root = write_folder(tmp_path / "oa", {"2026-06-01": [work(1)]})
    manifest = root / OLD_MANIFEST
    good = json.loads(manifest.read_text())

    def entry(url: str, **meta: int) -> None:
        doc = {"entries": [*good["entries"], {"url": url, "meta": meta}]}
        manifest.write_text(json.dumps(doc, indent=2))

    entry("s3://openalex/data/works/part_001.gz")
    assert _refused(root) == (f"{manifest}, line 11: works file s3://openalex/data/works/part_001.gz is not a .gz file in an "
                              "updated_date=YYYY-MM-DD partition")
    entry("s3://openalex/data/works/updated_date=2026-06-01/part_001.parquet")
    assert _refused(root).endswith("part_001.parquet is not a .gz file in an updated_date=YYYY-MM-DD partition")
    entry("s3://openalex/data/works/updated_date=2026-02-30/part_000.gz")
    assert _refused(root) == f"{manifest}, line 11: s3://openalex/data/works/updated_date=2026-02-30/part_000.gz names a partition date that does not exist"
    size = (root / good["entries"][0]["url"].removeprefix("s3://openalex/")).stat().st_size
    for listed in (size + 1, size - 1):
        good["entries"][0]["meta"]["content_length"] = listed
        manifest.write_text(json.dumps(good, indent=2))
        assert _refused(root) == (f"{manifest}, line 8: {root}/data/works/updated_date=2026-06-01/part_000.gz has {size:,} bytes, "
                                  f"the manifest says {listed:,} (an incomplete download: fetch it again)")
    manifest.write_text(json.dumps({"entries": [{"url": "s3://openalex/data/authors/x.gz"}]}))
    assert _refused(root) == (f"{manifest} lists no works files (expected entries such as "
                              "s3://openalex/data/works/updated_date=2026-01-01/part_000.gz)")
    manifest.write_text("{not json")
    assert _refused(root).startswith(f"{manifest}: not a readable JSON manifest (")


def test_a_parquet_manifest_takes_parquet_files_only(tmp_path: Path) -> None:
    root = write_folder(tmp_path / "oa", {"2026-06-01": [work(1)]}, layout="parquet")
    assert open_works(root).parts[0].relpath.endswith("/part_0000.parquet")
    manifest = root / PARQUET_MANIFEST
    doc = json.loads(manifest.read_text())
    doc["works"]["entries"][0]["url"] = doc["works"]["entries"][0]["url"].replace(".parquet", ".gz")
    manifest.write_text(json.dumps(doc))
    assert "is not a .parquet file in an updated_date=YYYY-MM-DD partition" in _refused(root)


def test_a_folder_that_is_missing_or_holds_no_openalex_data_is_refused(tmp_path: Path) -> None:
    assert _refused(tmp_path / "nowhere") == f"OpenAlex folder {tmp_path / 'nowhere'} does not exist"
    (tmp_path / "a-file").write_text("x")
    assert _refused(tmp_path / "a-file") == f"OpenAlex folder {tmp_path / 'a-file'} does not exist"
    (tmp_path / "empty").mkdir()
    assert _refused(tmp_path / "empty") == (
        f"{tmp_path / 'empty'} is not an OpenAlex snapshot folder: found neither {OLD_MANIFEST} (older layout) nor "
        f"{JSONL_MANIFEST} or {PARQUET_MANIFEST} (newer layout) under it")
    for data, manifest in (("data/parquet/works", PARQUET_MANIFEST), ("data/jsonl/works", JSONL_MANIFEST)):
        (tmp_path / "half" / data).mkdir(parents=True)
        assert _refused(tmp_path / "half") == (
            f"{tmp_path / 'half' / data} has no manifest: {tmp_path / 'half' / manifest} is missing (OpenAlex writes it last, so "
            "the folder is an unfinished download or sync: run it again)")


def test_merged_ids_are_the_csv_gz_files_of_every_merged_folder_sorted(tmp_path: Path) -> None:
    root = write_folder(tmp_path / "oa", {"2026-06-01": [work(1)]})
    names = ["data/merged_ids/works/2026-06-03.csv.gz", "legacy-data/merged_ids/works/2026-06-01.csv.gz",
             "merged_ids/works/2026-06-02.csv.gz", "data/merged_ids/authors/2026-06-01.csv.gz",
             "data/merged_ids/works/notes.csv", "data/merged_ids/works/old.txt.gz"]
    for n in names:
        (root / n).parent.mkdir(parents=True, exist_ok=True)
        (root / n).write_bytes(b"")
    assert open_works(root).merged == tuple(sorted(root / n for n in names[:3]))


def test_a_release_id_given_without_a_descriptor_is_taken_from_the_option(tmp_path: Path) -> None:
    root = write_folder(tmp_path / "oa", {"2026-06-01": [work(1)], "2026-05-01": [work(2)]})
    given = open_works(root, release_id="r1")
    assert (given.release_id, given.release_id_from, given.synthetic) == ("r1", "option", False)
    assert (open_works(root).release_id, open_works(root).release_id_from) == ("openalex-2026-06-01", "newest_partition")
