"""A snapshot's tables are checked against its manifest before anything reads them: a table cut
short, bit-flipped, swapped or emptied is one line naming the file, "changed or damaged after it was
written" and the command that builds the snapshot again, never a pyarrow traceback."""

from __future__ import annotations

import datetime as dt
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from graphniah.errors import GraphNIAHError
from graphniah.formats.snapshot import EDGES_FILE, PAPERS_FILE, Snapshot
from graphniah.graph.citation_graph import CitationGraph
from tests.graph.synthetic import preferential_attachment, write_snapshot

CUTOFF = dt.date(2026, 4, 1)


@pytest.fixture(scope="module")
def ingested(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A snapshot as ``graphniah ingest`` writes it (its manifest records each table's sha256 and size)."""
    from graphniah.ingest.build import ingest_release
    from graphniah.ingest.demo_release.generate import write_demo_releases

    root = tmp_path_factory.mktemp("snapshot")
    rs = write_demo_releases(root / "release", papers=3000, seed=5, releases=1)
    return ingest_release(rs.release_dir(rs.release_ids[-1]), CUTOFF, root / "snap")


def _copy(snap: Path, tmp_path: Path) -> Snapshot:
    dest = tmp_path / "snap"
    shutil.copytree(snap, dest)
    return Snapshot.open(dest)


def _damage(path: Path, how: str, other: Path) -> None:
    data = path.read_bytes()
    if how == "truncated":
        path.write_bytes(data[: len(data) // 2])
    elif how == "bit-flipped":  # same size: only the hash can tell
        flipped = bytearray(data)
        flipped[len(data) // 3] ^= 0x10
        path.write_bytes(bytes(flipped))
    elif how == "swapped":
        path.write_bytes(other.read_bytes())
    else:  # emptied
        path.write_bytes(b"")


@pytest.mark.parametrize("how", ["truncated", "bit-flipped", "swapped", "emptied"])
@pytest.mark.parametrize("name", [PAPERS_FILE, EDGES_FILE])
def test_a_damaged_table_is_one_line_naming_it_and_the_ingest_that_rebuilds_it(ingested, tmp_path, name, how):
    snap = _copy(ingested, tmp_path)
    assert CitationGraph.load(snap).n > 0  # intact: read as ever
    other = snap.path / (EDGES_FILE if name == PAPERS_FILE else PAPERS_FILE)
    _damage(snap.path / name, how, other)
    rebuild = f"graphniah ingest --release {snap.manifest.source['release_dir']} --cutoff 2026-04-01 --out {snap.path} --replace"
    with pytest.raises(GraphNIAHError) as err:
        CitationGraph.load(Snapshot.open(snap.path))
    message = str(err.value)
    assert message.startswith(f"{snap.path / name} was changed or damaged after it was written (")
    assert message.endswith(f"); rebuild it with `{rebuild}`") and "\n" not in message
    if how == "bit-flipped":
        assert "(its sha256 differs from the one recorded)" in message


def test_graphniah_sample_on_a_truncated_papers_table_prints_one_line(ingested, tmp_path):
    """What a user met in issue 31: a pyarrow traceback ("Parquet magic bytes not found") in ``graphniah sample``."""
    snap = _copy(ingested, tmp_path)
    papers = snap.path / PAPERS_FILE
    papers.write_bytes(papers.read_bytes()[:-100])
    r = subprocess.run([str(Path(sys.executable).parent / "graphniah"), "sample", "--task", "yesno", "--depth", "4",
                        "--snapshot", str(snap.path), "--out", str(tmp_path / "ex.jsonl")],
                       capture_output=True, text=True, timeout=300, check=False, env={**os.environ, "COLUMNS": "400"})
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert r.stderr.strip().startswith(f"error: {papers} was changed or damaged after it was written (")
    assert "rebuild it with `graphniah ingest" in r.stderr and len(r.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "ex.jsonl").exists()


@pytest.mark.parametrize("cut", [0, 4, 100, -1])
def test_a_snapshot_whose_manifest_records_no_hash_is_checked_for_parquet_ends(tmp_path, cut):
    """Manifests that record no table hashes (as the synthetic test snapshots, or hand-made ones) are
    read as before, and a table cut short is still one line rather than pyarrow's error."""
    citing, cited = preferential_attachment(300, 2, np.random.default_rng(1))
    snap = Snapshot.open(write_snapshot(tmp_path / "s" / "cutoff=2026-04-01", 300, citing, cited))
    assert snap.manifest.files == {} and CitationGraph.load(snap).n == 300
    edges = snap.path / EDGES_FILE
    data = edges.read_bytes()
    edges.write_bytes(data[:cut])
    with pytest.raises(GraphNIAHError) as err:
        CitationGraph.load(Snapshot.open(snap.path))
    assert str(err.value) == (f"{edges} was changed or damaged after it was written (not a complete Parquet file); "
                              f"rebuild it with `graphniah refresh --cutoff 2026-04-01 --root {tmp_path}`")


def test_a_refresh_rebuilds_a_snapshot_whose_table_is_damaged(tmp_path):
    """The command the error names does rebuild: refresh does not keep a snapshot whose table changed."""
    from graphniah.refresh import refresh

    first = refresh(CUTOFF, tmp_path, demo=True, demo_papers=2000, depths=(4,), pool_size=5).snapshot
    papers = first.path / PAPERS_FILE
    good = papers.read_bytes()
    papers.write_bytes(good[: len(good) // 2])
    again = refresh(CUTOFF, tmp_path, demo=True, demo_papers=2000, depths=(4,), pool_size=5).snapshot
    assert again.path == first.path and (again.path / PAPERS_FILE).read_bytes() == good
    again.check_tables()
