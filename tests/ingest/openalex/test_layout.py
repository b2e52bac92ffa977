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
