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
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from graphniah.errors import GraphNIAHError
from graphniah.formats.snapshot import EDGES_FILE, PAPERS_FILE, Snapshot, read_edges, read_papers
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


# ---- reading the tables through the snapshot schema ------------------------------------------------

PAPER_COLUMNS = ["corpusid", "title", "authors", "venue", "journal", "publication_date", "year", "arxiv_id", "doi",
                 "earliest_public_date", "fields_of_study"]


def test_the_demo_snapshot_reads_with_the_schema_columns_as_pyarrow_reads_the_files(demo_snapshot):
    papers = read_papers(demo_snapshot)
    assert papers.column_names == PAPER_COLUMNS
    assert papers.num_rows == demo_snapshot.manifest.rows["papers"]["kept"] > 1000
    types = {f.name: f.type for f in papers.schema}
    assert types["corpusid"] == pa.int64() and types["title"] == pa.string() and types["year"] == pa.int32()
    assert types["publication_date"] == types["earliest_public_date"] == pa.date32()
    assert types["authors"] == pa.list_(pa.struct([("id", pa.string()), ("name", pa.string())]))
    assert types["fields_of_study"] == pa.list_(pa.string())
    assert papers.equals(pq.read_table(demo_snapshot.path / "papers.parquet"))  # values and types as written
    some = read_papers(demo_snapshot, ["title", "corpusid"])
    assert some.column_names == ["title", "corpusid"] and some.column("title").equals(papers.column("title"))
    edges = read_edges(demo_snapshot)
    assert edges.column_names == ["citing", "cited"] and edges.num_rows == demo_snapshot.manifest.rows["edges"]["kept"]
    assert edges.schema.field("citing").type == edges.schema.field("cited").type == pa.int64()
    assert edges.equals(pq.read_table(demo_snapshot.path / "edges.parquet"))
    assert read_edges(demo_snapshot, ["cited"]).column_names == ["cited"]


@pytest.fixture
def small(tmp_path) -> Snapshot:
    """A hand-made snapshot (its manifest records no hashes, so a rewritten table is read, not refused)."""
    citing, cited = preferential_attachment(50, 2, np.random.default_rng(3))
    return Snapshot.open(write_snapshot(tmp_path / "s" / "cutoff=2026-04-01", 50, citing, cited))


def _rewrite(path: Path, change) -> None:
    pq.write_table(change(pq.read_table(path)), path)


def _refresh_hint(snap: Snapshot) -> str:
    return f"; rebuild it with `graphniah refresh --cutoff 2026-04-01 --root {snap.path.parent.parent}`"


def test_a_papers_column_of_another_type_is_one_line_naming_the_file(small):
    papers = small.path / PAPERS_FILE
    _rewrite(papers, lambda t: t.set_column(t.schema.get_field_index("year"), "year", t.column("year").cast(pa.string())))
    expected = f"{papers} does not have the snapshot schema: column 'year' is string, not int32" + _refresh_hint(small)
    with pytest.raises(GraphNIAHError) as err:
        read_papers(small, ["corpusid"])  # the whole file's schema is checked, not only the columns read
    assert str(err.value) == expected
    with pytest.raises(GraphNIAHError) as err:  # every reader goes through it: here the graph's
        CitationGraph.load(Snapshot.open(small.path))
    assert str(err.value) == expected


def test_an_edges_column_of_another_type_or_a_missing_column_is_refused(small):
    edges, papers = small.path / EDGES_FILE, small.path / PAPERS_FILE
    _rewrite(edges, lambda t: t.set_column(1, "cited", t.column("cited").cast(pa.string())))
    with pytest.raises(GraphNIAHError) as err:
        read_edges(small)
    assert str(err.value) == f"{edges} does not have the snapshot schema: column 'cited' is string, not int64" + _refresh_hint(small)
    _rewrite(papers, lambda t: t.drop_columns(["authors"]))
    with pytest.raises(GraphNIAHError) as err:
        read_papers(small)
    assert str(err.value) == f"{papers} does not have the snapshot schema: it has no column 'authors'" + _refresh_hint(small)


def test_a_snapshot_built_before_the_later_columns_reads_without_them(small):
    papers = small.path / PAPERS_FILE
    _rewrite(papers, lambda t: t.drop_columns(["earliest_public_date", "fields_of_study"]))
    assert read_papers(small).column_names == PAPER_COLUMNS[:-2]
    with pytest.raises(GraphNIAHError) as err:
        read_papers(small, ["corpusid", "fields_of_study"])
    assert str(err.value) == (f"{papers} has no column 'fields_of_study': the snapshot was built before it existed"
                              + _refresh_hint(small))
    with pytest.raises(GraphNIAHError, match=r"'abstract' is no column of the snapshot's papers\.parquet"):
        read_papers(small, ["corpusid", "abstract"])
