"""gzip checks: every real sample passes; damage is an error naming the file and the exact byte offset."""

from __future__ import annotations

import gzip
import re
from pathlib import Path

import duckdb
import pytest

from graphniah.errors import GraphNIAHError
from graphniah.ingest.s2ag.integrity import verify_gzip
from graphniah.ingest.s2ag.sql import papers_sql
from tests.ingest.s2ag.release_kit import paper, write_shard


def test_every_real_sample_file_passes_the_gzip_check(s2ag_samples: Path) -> None:
    files = sorted(s2ag_samples.rglob("*.gz"))
    assert len(files) >= 8
    for f in files:
        size, digest = verify_gzip(f)
        assert size == f.stat().st_size and re.fullmatch(r"[0-9a-f]{64}", digest)


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
