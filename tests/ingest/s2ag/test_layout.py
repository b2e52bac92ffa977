"""Release and diff folders: shard names, and errors that name the missing piece."""

from __future__ import annotations

from pathlib import Path

import pytest

from graphniah.errors import GraphNIAHError
from graphniah.ingest.s2ag.layout import CITATIONS, PAPERS, VENUES, diff_sources, read_release_info, release_sources, shard_files
from tests.ingest.s2ag.release_kit import citation, paper, write_release, write_shard


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
