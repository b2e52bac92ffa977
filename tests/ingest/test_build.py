"""graphniah ingest: eligibility and edge rules, manifest, determinism, atomicity, bad input, CLI."""

from __future__ import annotations

import datetime as dt
import gzip
import hashlib
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

import graphniah.ingest.build as ingest_mod
from graphniah import __version__
from graphniah.cli import app
from graphniah.errors import GraphNIAHError
from graphniah.formats.snapshot import EDGES_SCHEMA, PAPERS_SCHEMA, Snapshot
from graphniah.ingest.build import EDGE_DROP_REASONS, PAPER_DROP_REASONS, ingest_release, table_content_hash
from graphniah.ingest.s2ag.limits import MIN_MEMORY_LIMIT, Limits
from tests.ingest.s2ag.release_kit import citation, paper, venue, write_release, write_shard

CUTOFF = dt.date(2026, 4, 1)


def quirky_release(root: Path, release_id: str = "2026-10-06", *, shards: int = 3) -> Path:
    """A release with every S2AG quirk docs/architecture.md lists, in both record formats."""
    papers = [
        paper(10, "Graph search in long contexts", arxiv="2604.00010", doi="10.1/ten", venue="NeurIPS", journal="J Ten"),
        paper(11, "  Padded   title\t", date="2026-04-01", journal="Journal of Eleven"),  # on the cutoff day
        paper(12, "Venue only from publication-venues", venue_id="pv-1", journal=None),
        paper(13, "Legacy format paper", legacy=True, journal=None, authors=(("77", "B. Legacy"), (None, "No Id"))),
        paper(14, "A < b > c is an inequality, not markup", date="2026-12-31"),
        paper(15, "Duplicated row"),
        paper(15, "Duplicated row"),
        paper(20, "Year only", date=None, year=2026),  # no_publication_date
        paper(21, "Before the cutoff", date="2026-03-31"),  # before_cutoff
        paper(22, "   "),  # empty_title
        paper(23, None) | {"title": None},  # empty_title (null)
        paper(24, "Energy of <mml:math><mml:mi>x</mml:mi></mml:math> states"),  # mathml_title
        paper(25, "Bold <b>claim</b>"),  # kept, rendered "Bold claim"
        paper(26, "Bad date", date="2026-04"),  # invalid_publication_date
        paper(27, "No id") | {"corpusid": None},  # missing_corpusid
        paper(28, "<i>Drosophila</i> wing discs"),  # kept, cleaned
        paper(29, "CO<sub>2</sub> capture &amp; storage"),  # kept, cleaned (tag and entity)
        paper(30, "Vec<T> is not a tag"),  # kept as is
        paper(31, "<i> </i>"),  # empty_title once the tags are gone
        paper(32, "Escaped &lt;mml:math&gt;&lt;mml:mi&gt;x&lt;/mml:mi&gt;&lt;/mml:math&gt;"),  # mathml_title
        paper(33, '<math xmlns="http://www.w3.org/1998/Math/MathML"><mi>k</mi></math>-means'),  # mathml_title
    ]
    citations = [
        citation(10, 11),
        citation(11, 10),
        citation(12, 10, legacy=True),
        citation(13, 14),
        citation(10, 11, citationid=999),  # duplicate pair under another citationid
        citation(15, 10),
        citation(10, 10),  # self_loop
        citation(10, None),  # null_cited
        citation(None, 10, citationid=5),  # null_citing
        citation(10, 20),  # endpoint_not_eligible (no date)
        citation(21, 10),  # endpoint_not_eligible (before cutoff)
        citation(10, 424242),  # endpoint_not_eligible (unknown paper)
        citation(25, 10),  # kept: a cleaned title keeps the paper and its edges
        citation(32, 10),  # endpoint_not_eligible (MathML title)
    ]
    return write_release(root, release_id, papers, citations, [venue("pv-1", "Proceedings of Venue One"), venue("pv-2", "")], shards=shards)


def _table(path: Path) -> list[dict]:
    return pq.read_table(path).to_pylist()


def test_eligibility_and_edge_rules(tmp_path: Path) -> None:
    out = ingest_release(quirky_release(tmp_path), CUTOFF, tmp_path / "snap")
    papers = {r["corpusid"]: r for r in _table(out / "papers.parquet")}
    assert list(papers) == [10, 11, 12, 13, 14, 15, 25, 28, 29, 30]  # sorted by corpusid, one row per paper
    assert papers[10] == {
        "corpusid": 10,
        "title": "Graph search in long contexts",
        "authors": [{"id": "1001", "name": "Ada Lovelace"}],
        "venue": "NeurIPS",
        "journal": "J Ten",
        "publication_date": dt.date(2026, 5, 1),
        "year": 2026,
        "arxiv_id": "2604.00010",
        "doi": "10.1/ten",
        "earliest_public_date": dt.date(2026, 4, 1),  # arXiv month 2604 (graphniah.ingest.s2ag.preprints)
        "fields_of_study": ["Computer Science"],  # the s2fieldsofstudy categories (release_kit gives one)
    }
    assert papers[11]["title"] == "Padded   title" and papers[11]["venue"] == "Journal of Eleven"  # venue "" → journal name
    assert papers[12]["venue"] == "Proceedings of Venue One" and papers[12]["journal"] is None  # → publication venue name
    assert papers[13]["authors"] == [{"id": "77", "name": "B. Legacy"}, {"id": None, "name": "No Id"}]
    assert papers[13]["venue"] is None and papers[13]["arxiv_id"] is None
    assert [papers[i]["title"] for i in (14, 25, 28, 29, 30)] == [
        "A < b > c is an inequality, not markup",
        "Bold claim",
        "Drosophila wing discs",
        "CO2 capture & storage",
        "Vec<T> is not a tag",
    ]

    edges = [(r["citing"], r["cited"]) for r in _table(out / "edges.parquet")]
    assert edges == [(10, 11), (11, 10), (12, 10), (13, 14), (15, 10), (25, 10)]

    rows = Snapshot.open(out).manifest["rows"]
    assert rows["papers"] == {
        "read": 21,
        "kept": 10,
        "dropped": {
            "missing_corpusid": 1,
            "duplicate_corpusid": 1,
            "no_publication_date": 1,
            "invalid_publication_date": 1,
            "before_cutoff": 1,
            "preprint_before_cutoff": 0,  # test_preprint_guard drops some
            "empty_title": 3,
            "mathml_title": 3,
        },
        "titles_cleaned": 3,  # 25, 28, 29 (11 is only trimmed, 30 has no tag)
        "preprint_before_cutoff_by_source": {"arxiv": 0, "biorxiv": 0, "preprints": 0},
    }
    assert rows["edges"] == {
        "read": 14,
        "kept": 6,
        "dropped": {"null_citing": 1, "null_cited": 1, "self_loop": 1, "endpoint_not_eligible": 4, "duplicate": 1},
    }
    assert set(rows["papers"]["dropped"]) == set(PAPER_DROP_REASONS) and set(rows["edges"]["dropped"]) == set(EDGE_DROP_REASONS)


def test_schemas_manifest_and_input_hashes(tmp_path: Path) -> None:
    rdir = quirky_release(tmp_path)
    out = ingest_release(rdir, CUTOFF, tmp_path / "snap")
    assert pq.read_schema(out / "papers.parquet").equals(PAPERS_SCHEMA)
    assert pq.read_schema(out / "edges.parquet").equals(EDGES_SCHEMA)
    m = Snapshot.open(out).manifest
    assert (m["release_id"], m["cutoff"], m["synthetic"], m["package_version"]) == ("2026-10-06", "2026-04-01", True, __version__)
    assert dt.datetime.fromisoformat(m["created_at"]).tzinfo is not None
    assert len(m["snapshot_hash"]) == 64
    files = sorted(p for p in rdir.rglob("*.gz"))
    assert sorted(i["path"] for i in m["inputs"]) == sorted(p.relative_to(rdir).as_posix() for p in files)
    for item in m["inputs"]:
        f = rdir / item["path"]
        assert item["size"] == f.stat().st_size and item["sha256"] == hashlib.sha256(f.read_bytes()).hexdigest()
    assert m["files"]["papers.parquet"]["rows"] == 10 and m["files"]["edges.parquet"]["rows"] == 6
    assert sorted(p.name for p in out.iterdir()) == ["edges.parquet", "manifest.json", "papers.parquet"]


def test_snapshot_hash_depends_on_content_not_on_sharding(tmp_path: Path) -> None:
    a = ingest_release(quirky_release(tmp_path / "a", shards=1), CUTOFF, tmp_path / "sa")
    b = ingest_release(quirky_release(tmp_path / "b", shards=4), CUTOFF, tmp_path / "sb")
    ha, hb = (Snapshot.open(p).content_hash for p in (a, b))
    assert ha == hb
    assert pq.read_table(a / "papers.parquet").equals(pq.read_table(b / "papers.parquet"))
    c = ingest_release(quirky_release(tmp_path / "c"), dt.date(2026, 5, 1), tmp_path / "sc")  # drops paper 11
    assert Snapshot.open(c).content_hash != ha


def test_rerun_refuses_or_replaces_atomically(tmp_path: Path) -> None:
    rdir = quirky_release(tmp_path)
    out = ingest_release(rdir, CUTOFF, tmp_path / "snap")
    before = (out / "manifest.json").read_bytes()
    with pytest.raises(GraphNIAHError, match=r"snap already exists; pass --replace"):
        ingest_release(rdir, CUTOFF, out)
    assert (out / "manifest.json").read_bytes() == before
    ingest_release(rdir, dt.date(2026, 5, 1), out, replace=True)
    m = Snapshot.open(out).manifest
    # paper 11 (2026-04-01) is before the new cutoff; paper 10 (2026-05-01) too, as its arXiv id 2604.00010 is from April
    assert m["cutoff"] == "2026-05-01" and m["rows"]["papers"]["kept"] == 8
    assert m["rows"]["papers"]["preprint_before_cutoff_by_source"] == {"arxiv": 1, "biorxiv": 0, "preprints": 0}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["releases", "snap"]  # no temp or old folder left


def test_interrupted_ingest_leaves_no_visible_snapshot(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    rdir = quirky_release(tmp_path)
    out = tmp_path / "snaps" / "cutoff=2026-04-01"
    seen: list[list[str]] = []

    def crash(target: Path, obj: object) -> None:  # fails after both Parquet files were written
        seen.append(sorted(p.name for p in Path(target).parent.iterdir()))
        raise KeyboardInterrupt

    monkeypatch.setattr(ingest_mod, "write_snapshot_manifest", crash)
    with pytest.raises(KeyboardInterrupt):
        ingest_release(rdir, CUTOFF, out)
    assert seen == [["edges.parquet", "papers.parquet"]]
    assert list((tmp_path / "snaps").iterdir()) == []

    monkeypatch.undo()
    ingest_release(rdir, CUTOFF, out)
    good = (out / "manifest.json").read_bytes()
    monkeypatch.setattr(ingest_mod, "write_snapshot_manifest", crash)
    with pytest.raises(KeyboardInterrupt):
        ingest_release(rdir, dt.date(2026, 5, 1), out, replace=True)
    assert (out / "manifest.json").read_bytes() == good  # the old snapshot is untouched
    assert sorted(p.name for p in (tmp_path / "snaps").iterdir()) == ["cutoff=2026-04-01"]


def test_bad_inputs_give_clear_errors_and_no_snapshot(tmp_path: Path) -> None:
    rdir = quirky_release(tmp_path)
    out = tmp_path / "snap"
    with pytest.raises(GraphNIAHError, match=r"cutoff '2026-13-01' is not a date"):
        ingest_release(rdir, "2026-13-01", out)  # type: ignore[arg-type]
    shard = sorted((rdir / "citations").iterdir())[1]
    blob = shard.read_bytes()
    shard.write_bytes(blob[: len(blob) - 3])
    with pytest.raises(GraphNIAHError, match=rf"{shard.name}: truncated gzip file: .* at byte offset {len(blob) - 3:,}"):
        ingest_release(rdir, CUTOFF, out)
    write_shard(shard, [citation(1, 2), "not json at all"])
    with pytest.raises(GraphNIAHError, match=rf"{shard.name}, line 2: not valid JSON"):
        ingest_release(rdir, CUTOFF, out)
    empty = write_release(tmp_path, "empty", [], [])
    with pytest.raises(GraphNIAHError, match=r"release .*empty is empty: its papers/ shards hold no records"):
        ingest_release(empty, CUTOFF, out)
    with pytest.raises(GraphNIAHError, match=r"has no papers/ dataset folder"):
        ingest_release(_without(empty, "papers"), CUTOFF, out)
    assert not out.exists() and sorted(p.name for p in tmp_path.iterdir()) == ["releases"]


def _without(rdir: Path, dataset: str) -> Path:
    for f in (rdir / dataset).iterdir():
        f.unlink()
    (rdir / dataset).rmdir()
    return rdir


def test_cli_ingest_summary_and_errors(tmp_path: Path) -> None:
    rdir = quirky_release(tmp_path)
    out = tmp_path / "snap"
    r = CliRunner().invoke(app, ["ingest", "--release", str(rdir), "--cutoff", "2026-04-01", "--out", str(out)])
    assert r.exit_code == 0, r.stdout
    assert "SYNTHETIC" in r.stdout and "mathml_title" in r.stdout and "kept" in r.stdout and "3 kept titles rendered" in r.stdout
    assert "preprint guard: 0 papers dropped as public before the cutoff (arxiv 0, biorxiv 0, preprints 0); earliest public date of a kept paper 2026-04-01" in r.stdout
    assert json.loads((out / "manifest.json").read_text())["rows"]["edges"]["kept"] == 6
    # The real entry point prints a GraphNIAHError as one line and exits 2.
    for args, message in (
        (["--cutoff", "2026-04-01", "--out", str(out)], "already exists"),
        (["--cutoff", "April 1", "--out", str(tmp_path / "other")], "'April 1' is not a date"),
    ):
        r = subprocess.run([sys.executable, "-c", "from graphniah.cli import main; main()", "ingest", "--release", str(rdir), *args], capture_output=True, text=True, timeout=120)
        assert r.returncode == 2 and message in r.stderr and "Traceback" not in r.stderr


def test_table_content_hash_is_canonical() -> None:
    rows = [
        {"corpusid": 1, "title": "A", "authors": [{"id": "1", "name": "X"}], "venue": None, "journal": "J", "publication_date": dt.date(2026, 5, 1), "year": 2026, "arxiv_id": None, "doi": None},
        {"corpusid": 2, "title": "", "authors": [], "venue": "V", "journal": None, "publication_date": dt.date(2026, 6, 1), "year": None, "arxiv_id": "2606.1", "doi": "d"},
        {"corpusid": 3, "title": "BC", "authors": [{"id": None, "name": "Y"}, {"id": "2", "name": ""}], "venue": None, "journal": None,
         "publication_date": None, "year": 2026, "arxiv_id": None, "doi": None},
    ]
    table = pa.Table.from_pylist(rows, schema=PAPERS_SCHEMA)
    h = table_content_hash(table)
    # Chunking and slicing do not matter.
    rechunked = pa.Table.from_batches([table.slice(0, 1).to_batches()[0], table.slice(1).to_batches()[0]])
    assert rechunked.column(0).num_chunks == 2 and table_content_hash(rechunked) == h
    assert table_content_hash(pa.concat_tables([table.slice(2), table]).slice(1)) == h
    # Any change of content does, including null vs empty and moving a character between rows.
    for i, key, value in ((1, "title", None), (0, "title", "AB"), (2, "title", "C"), (0, "authors", [{"id": "1", "name": "X "}]), (1, "year", 0), (0, "venue", "")):
        changed = [dict(r) for r in rows]
        changed[i][key] = value
        assert table_content_hash(pa.Table.from_pylist(changed, schema=PAPERS_SCHEMA)) != h, (i, key, value)
    moved = [dict(r) for r in rows]
    moved[0]["title"], moved[2]["title"] = "AB", "C"
    assert table_content_hash(pa.Table.from_pylist(moved, schema=PAPERS_SCHEMA)) != h


@pytest.mark.slow
def test_ingest_under_a_memory_limit_smaller_than_the_release(tmp_path: Path) -> None:
    """With the smallest --memory-limit, DuckDB's share is far below the release's size: it spills
    to disk, completes, and writes exactly the snapshot of an unlimited run."""
    rng = np.random.default_rng(7)
    n = 100_000
    words = np.array(["graph", "citation", "reachability", "context", "search", "needle", "model", "<i>E. coli</i>", "CO<sub>2</sub>"])
    filler = " ".join(["long-context reasoning over citation graphs"] * 22)  # ~1 kB titles
    drawn, months = rng.choice(words, size=(n, 3)), rng.integers(1, 13, size=n)
    papers = [paper(i + 1, f"{' '.join(drawn[i])} {i} {filler}", date=f"2026-{months[i]:02d}-15") for i in range(n)]
    citations = [citation(int(a), int(b)) for a, b in rng.integers(1, n + 1, size=(2 * n, 2))]
    rdir = write_release(tmp_path, "2026-10-06", papers, citations, shards=4, level=1)
    limits = Limits.resolve(f"{MIN_MEMORY_LIMIT}B")  # one thread: the share holds one JSON reader
    raw = sum(len(gzip.decompress(f.read_bytes())) for f in rdir.rglob("*.gz"))
    assert raw > limits.duckdb_memory  # the release does not fit in DuckDB's share

    small = Snapshot.open(ingest_release(rdir, CUTOFF, tmp_path / "small", limits=limits))
    big = Snapshot.open(ingest_release(rdir, CUTOFF, tmp_path / "big", limits=Limits.resolve("8GB")))
    res = small.manifest["resources"]
    assert res["memory_limit"] == MIN_MEMORY_LIMIT and res["duckdb_memory_limit"] == limits.duckdb_memory
    assert res["spilled_bytes_at_stage_ends"] > 0 and big.manifest["resources"]["spilled_bytes_at_stage_ends"] == 0
    assert small.content_hash == big.content_hash and small.manifest["rows"] == big.manifest["rows"]
    for name in ("papers.parquet", "edges.parquet"):
        assert pq.read_table(small.path / name).equals(pq.read_table(big.path / name))
    assert small.manifest["rows"]["papers"]["titles_cleaned"] > 0


def test_memory_limit_option_is_checked() -> None:
    assert Limits.resolve("4GB").memory == 4 * 10**9 and Limits.resolve("1.5GiB").memory == 3 * 2**29
    assert Limits.resolve("4GB", threads=3).threads == 3 and Limits.resolve().threads >= 1
    assert Limits.resolve("512MB").threads == 1  # the default thread count fits DuckDB's share
    assert 0 < Limits.resolve("4GB").duckdb_memory < 4 * 10**9
    for bad, message in (("lots", "is not a size"), ("64MB", "below the minimum of 512MB"), ("4 parsecs", "is not a size")):
        with pytest.raises(GraphNIAHError, match=message):
            Limits.resolve(bad)


def test_duckdb_out_of_memory_names_the_limit(tmp_path: Path) -> None:
    """A query that cannot spill (one list of 40M values) under the smallest budget: DuckDB's own
    out-of-memory error becomes a GraphNIAHError naming --memory-limit, DuckDB's share and the
    threads, and the spill folder is removed."""
    limits = Limits.resolve(f"{MIN_MEMORY_LIMIT}B")
    with pytest.raises(GraphNIAHError, match=r"DuckDB ran out of memory within --memory-limit 512 MB \(DuckDB's share 128 MB, 1 threads\): .*raise --memory-limit"):
        with ingest_mod.scratch_duckdb(tmp_path, limits) as con:
            con.execute("SELECT list(i) FROM range(40000000) t(i)").fetchall()
    assert list(tmp_path.iterdir()) == []


def test_spill_folder_with_a_quote_in_its_name(tmp_path: Path) -> None:
    """Limits.configure quotes the spill folder as an SQL string literal (a ' in a path is legal)."""
    folder = tmp_path / "it's spill"
    with ingest_mod.scratch_duckdb(folder, Limits.resolve("1GB")) as con:
        (spill,) = con.execute("SELECT current_setting('temp_directory')").fetchall()[0]
    assert Path(spill).parent == folder and Path(spill).name.startswith(".duckdb-spill.")


def test_the_demo_snapshot_drops_pre_cutoff_preprints(demo_snapshot: Snapshot) -> None:
    """The demo release has preprints that predate the cutoff (docs/demo-release.md): the guard
    drops some from every source, the manifest counts them, and no kept paper was public before
    the cutoff."""
    from graphniah.ingest.s2ag.preprints import SOURCES

    m = demo_snapshot.manifest
    rows = m.rows["papers"]
    by_source = rows["preprint_before_cutoff_by_source"]
    assert set(by_source) == set(SOURCES) and all(by_source[s] > 0 for s in SOURCES), by_source
    assert rows["dropped"]["preprint_before_cutoff"] == sum(by_source.values())
    t = pq.read_table(demo_snapshot.papers_path, columns=["publication_date", "earliest_public_date", "arxiv_id", "doi"])
    epd, pub = t["earliest_public_date"], t["publication_date"]
    assert epd.null_count == 0 and pc.min(epd).as_py() >= m.cutoff and pc.all(pc.less_equal(epd, pub)).as_py()
    assert m.earliest_public_date is not None and m.earliest_public_date.min == pc.min(epd).as_py() >= m.cutoff
    # kept papers with preprints remain (their preprint is on or after the cutoff), some earlier than their publication
    assert pc.sum(pc.less(epd, pub)).as_py() > 0 and t["arxiv_id"].null_count < t.num_rows
