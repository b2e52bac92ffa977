"""The release store: loading, diffs in order, atomicity, and ingest(N+1) == store(N) + diff(N→N+1)."""

from __future__ import annotations

import datetime as dt
import itertools
import json
import shutil
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner, Result

import graphniah.ingest.s2ag.store as store_mod
from graphniah.cli import app
from graphniah.errors import GraphNIAHError
from graphniah.formats.snapshot import Snapshot
from graphniah.ingest.build import ingest_release, snapshot_from_store
from graphniah.ingest.s2ag.store import ReleaseStore
from tests.ingest.s2ag.release_kit import citation, paper, venue, write_diff, write_release, write_shard

CUTOFF = dt.date(2026, 4, 1)


def assert_same_snapshot(a: Path, b: Path) -> None:
    """Row for row: the same Parquet tables and the same content hash."""
    for name in ("papers.parquet", "edges.parquet"):
        ta, tb = pq.read_table(a / name), pq.read_table(b / name)
        assert ta.num_rows == tb.num_rows and ta.equals(tb), name
    assert Snapshot.open(a).content_hash == Snapshot.open(b).content_hash


def _state(store: ReleaseStore) -> dict[str, list]:
    con = store.connection
    return {t: con.execute(f"SELECT * FROM {t} ORDER BY ALL").fetchall() for t in ("papers", "citations", "venues")}


# --------------------------------------------------------------------------------------------
# Hand-built consecutive releases
# --------------------------------------------------------------------------------------------


def _release_pair(root: Path, *, legacy: bool = False) -> tuple[Path, Path, Path]:
    """Releases r1 and r2 and the diff r1→r2 exercising every kind of change."""
    p1 = {i: paper(i, f"Study {i} of citation graphs", legacy=legacy) for i in range(1, 13)}
    p1[5] = paper(5, "Old paper", date="2025-01-01", legacy=legacy)
    p1[6] = paper(6, "Will get markup", legacy=legacy)
    p1[7] = paper(7, "Waiting for a date", date=None, year=2026, legacy=legacy)
    p1[8] = paper(8, "Venue changes", venue_id="pv-1", journal=None, legacy=legacy)
    pairs1 = [(1, 2), (2, 3), (3, 4), (4, 1), (5, 1), (7, 2), (8, 1), (9, 10), (10, 11), (11, 12), (1, None), (12, 9)]
    c1 = [citation(a, b, legacy=legacy) for a, b in pairs1]
    v1 = [venue("pv-1", "Old Venue Name")]

    p2 = dict(p1)
    p2[2] = paper(2, "Study 2 of citation graphs, revised", legacy=legacy)  # changed record
    p2[6] = paper(6, "Now with <mml:math><mml:mi>x</mml:mi></mml:math>", legacy=legacy)  # becomes ineligible (MathML)
    p2[9] = paper(9, "Study 9 of <i>citation</i> graphs", legacy=legacy)  # stays, rendered without the tags
    p2[7] = paper(7, "Waiting for a date", date="2026-06-01", legacy=legacy)  # becomes eligible
    p2[13] = paper(13, "A new paper", date="2026-09-30", legacy=legacy)  # inserted
    del p2[11]  # deleted (its citations go too)
    pairs2 = [p for p in pairs1 if 11 not in p and p != (3, 4)] + [(13, 1), (13, 7), (6, 1)]
    c2 = [citation(a, b, legacy=legacy) for a, b in pairs2]
    v2 = [venue("pv-1", "New Venue Name")]

    r1 = write_release(root, "2026-10-06", list(p1.values()), c1, v1, shards=2)
    # r2 has identical duplicate rows across shards (as real releases do) and other shard names.
    r2 = write_release(root, "2026-10-13", [*p2.values(), p2[3]], [*c2, c2[0]], v2, shards=3)

    def cit_key(a: int, b: int | None) -> dict:
        c = citation(a, b, legacy=legacy)
        return {k: c[k] for k in ("citationid", "citingcorpusid", "citedcorpusid") if k in c}

    updates = {
        "papers": [p2[2], p2[6], p2[7], p2[9], p2[13]],
        "citations": [citation(a, b, legacy=legacy) for a, b in [(13, 1), (13, 7), (6, 1)]],
        "publication-venues": v2,
    }
    deletes = {"papers": [{"corpusid": 11}], "citations": [cit_key(a, b) for a, b in [(10, 11), (11, 12), (3, 4)]]}
    diff = write_diff(root, "2026-10-06", "2026-10-13", updates, deletes)
    return r1, r2, diff


@pytest.mark.parametrize("legacy", [False, True], ids=["current-format", "legacy-format"])
def test_diff_equivalence_on_hand_built_releases(tmp_path: Path, legacy: bool) -> None:
    r1, r2, diff = _release_pair(tmp_path, legacy=legacy)
    full = ingest_release(r2, CUTOFF, tmp_path / "full")
    with ReleaseStore.open(tmp_path / "store.duckdb") as store:
        store.load_release(r1)
        assert_same_snapshot(ingest_release(r1, CUTOFF, tmp_path / "full1"), snapshot_from_store(store, CUTOFF, tmp_path / "inc1"))
        store.apply_diff(diff)
        assert store.release_id == "2026-10-13"
        inc = snapshot_from_store(store, CUTOFF, tmp_path / "inc")
    assert_same_snapshot(full, inc)
    papers = {r["corpusid"]: r for r in pq.read_table(inc / "papers.parquet").to_pylist()}
    assert 7 in papers and 13 in papers and 6 not in papers and 11 not in papers
    assert papers[2]["title"].endswith("revised") and papers[8]["venue"] == "New Venue Name"
    assert papers[9]["title"] == "Study 9 of citation graphs"
    edges = {(r["citing"], r["cited"]) for r in pq.read_table(inc / "edges.parquet").to_pylist()}
    assert (3, 4) not in edges and (13, 7) in edges and (7, 2) in edges and (6, 1) not in edges
    m = Snapshot.open(inc).manifest
    assert m["release_id"] == "2026-10-13" and m["source"]["type"] == "store"
    assert m["rows"]["papers"]["titles_cleaned"] == 1 and m["rows"]["papers"]["dropped"]["mathml_title"] == 1
    assert m["source"]["base_release"]["release_id"] == "2026-10-06"
    assert [(d["from_release"], d["to_release"]) for d in m["source"]["diffs"]] == [("2026-10-06", "2026-10-13")]
    assert {i["origin"] for i in m["inputs"]} == {"2026-10-06", "2026-10-06_to_2026-10-13"}


def test_conflicting_duplicates_resolve_the_same_way_in_both_paths(tmp_path: Path) -> None:
    """Rows sharing a primary key but differing in content: both paths keep the same one."""
    papers = [
        paper(1, "Zeta title"), paper(1, "Alpha title", date="2020-01-01"),  # kept: "Alpha…" (then before_cutoff)
        paper(2, "Beta"), paper(2, "Beta", date="2026-07-01"),  # same title: the earlier date sorts first
        paper(3, "Gamma"), paper(4, "Delta"),
    ]
    citations = [
        citation(3, 4, legacy=True), citation(3, 4, legacy=True),  # legacy pair key, twice
        citation(3, None, legacy=True), citation(3, None, legacy=True),
        citation(4, 2, citationid=7), citation(4, 2, citationid=7),
    ]
    rdir = write_release(tmp_path, "2026-10-06", papers, citations, shards=3)
    full = ingest_release(rdir, CUTOFF, tmp_path / "full")
    with ReleaseStore.open(tmp_path / "store.duckdb") as store:
        store.load_release(rdir)
        assert store.counts() == {"papers": 4, "citations": 3, "publication-venues": 0}
        # The store keeps the row that sorts first by content, the ingest drops the others.
        assert store.connection.execute("SELECT title FROM papers WHERE corpusid = 1").fetchall() == [("Alpha title",)]
        inc = snapshot_from_store(store, CUTOFF, tmp_path / "inc")
    assert_same_snapshot(full, inc)
    kept = {r["corpusid"]: r for r in pq.read_table(full / "papers.parquet").to_pylist()}
    assert sorted(kept) == [2, 3, 4] and kept[2]["publication_date"] == dt.date(2026, 5, 1)
    assert [(r["citing"], r["cited"]) for r in pq.read_table(full / "edges.parquet").to_pylist()] == [(3, 4), (4, 2)]
    rows = Snapshot.open(full).manifest["rows"]
    assert rows["papers"]["dropped"]["duplicate_corpusid"] == 2 and rows["papers"]["dropped"]["before_cutoff"] == 1


def test_store_persists_and_refuses_out_of_order_diffs(tmp_path: Path) -> None:
    r1, _, diff = _release_pair(tmp_path)
    path = tmp_path / "s" / "store.duckdb"
    with ReleaseStore.open(path) as store:
        assert store.release_id is None
        with pytest.raises(GraphNIAHError, match=r"is empty: load release 2026-10-06 before applying diff"):
            store.apply_diff(diff)
        with pytest.raises(GraphNIAHError, match=r"store .* is empty; load a release first"):
            snapshot_from_store(store, CUTOFF, tmp_path / "x")
        store.load_release(r1)
    with ReleaseStore.open(path) as store:  # reopened: contents and release id survived
        assert store.release_id == "2026-10-06" and store.counts()["papers"] == 12
        store.apply_diff(diff)
    with ReleaseStore.open(path) as store:
        assert store.release_id == "2026-10-13"
        state = store.state
        store.apply_diff(diff)  # the diff it applied last, again (a rerun killed past its commit): nothing changes
        assert store.state == state
        other = tmp_path / "elsewhere" / diff.name
        shutil.copytree(diff, other)
        with pytest.raises(GraphNIAHError, match=r"goes from release 2026-10-06 to 2026-10-13, but the store .* holds release 2026-10-13"):
            store.apply_diff(other)


def test_failed_diff_changes_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    r1, _, diff = _release_pair(tmp_path)
    with ReleaseStore.open(tmp_path / "store.duckdb") as store:
        store.load_release(r1)
        before = _state(store)
        # 1. A damaged delete file (read after the updates were already applied in the transaction).
        delete_file = diff / "citations" / "delete_files" / "deletes-000.gz"
        good = delete_file.read_bytes()
        delete_file.write_bytes(good[:-5])
        with pytest.raises(GraphNIAHError, match=r"deletes-000.gz: truncated gzip file"):
            store.apply_diff(diff)
        assert store.release_id == "2026-10-06" and _state(store) == before
        # 2. A crash after all data changes, just before the release id is written.
        delete_file.write_bytes(good)

        def crash(self: ReleaseStore, state: object) -> None:
            raise KeyboardInterrupt

        monkeypatch.setattr(store_mod.ReleaseStore, "_write_state", crash)
        with pytest.raises(KeyboardInterrupt):
            store.apply_diff(diff)
        monkeypatch.undo()
        assert store.release_id == "2026-10-06" and _state(store) == before
        # 3. A delete record without its key.
        write_shard(diff / "papers" / "delete_files" / "deletes-000.gz", [{"title": "no key"}])
        with pytest.raises(GraphNIAHError, match=r"1 record\(s\) in papers/delete_files lack the primary key \(corpusid\)"):
            store.apply_diff(diff)
        assert _state(store) == before
        # 4. A failed full load keeps the old release.
        empty = write_release(tmp_path, "empty", [], [])
        with pytest.raises(GraphNIAHError, match=r"is empty"):
            store.load_release(empty)
        assert store.release_id == "2026-10-06" and _state(store) == before


def test_real_2024_diff_rows_apply_as_update_file(tmp_path: Path, s2ag_samples: Path) -> None:
    """The real current-format citations diff file is read as a diff update file, every row."""
    base = tmp_path / "releases" / "2022-samples"
    for ds in ("papers", "citations", "publication-venues"):
        (base / ds).mkdir(parents=True)
        for f in (s2ag_samples / "release-2022-samples" / ds).glob("*.gz"):
            (base / ds / f.name).symlink_to(f)
    (base / "release.json").write_text(json.dumps({"release_id": "2022-samples", "synthetic": False}))
    ddir = write_diff(tmp_path, "2022-samples", "2024-06-25", {}, {}, synthetic=False)
    (ddir / "citations" / "update_files").mkdir(parents=True)
    (ddir / "citations" / "update_files" / "update_files-000.gz").symlink_to(s2ag_samples / "diff-2024-06-25-citations" / "update_files-000.gz")
    with ReleaseStore.open(tmp_path / "store.duckdb") as store:
        store.load_release(base)
        assert store.counts() == {"papers": 100, "citations": 100, "publication-venues": 100}
        store.apply_diff(ddir)
        assert store.counts()["citations"] == 120
        ids = store.connection.execute("SELECT count(DISTINCT citationid) FROM citations WHERE citationid IS NOT NULL").fetchall()
        assert ids == [(20,)]
        snap = snapshot_from_store(store, dt.date(1900, 1, 1), tmp_path / "snap")
    m = Snapshot.open(snap).manifest
    assert m["synthetic"] is False and m["rows"]["papers"]["read"] == 100 and m["rows"]["edges"]["read"] == 120
    # The same sample release ingested directly: every row read and classified.
    direct = Snapshot.open(ingest_release(base, dt.date(1900, 1, 1), tmp_path / "direct")).manifest
    assert direct["rows"]["papers"]["read"] == 100 and direct["rows"]["edges"]["read"] == 100
    assert direct["rows"]["papers"]["dropped"]["no_publication_date"] == 65


def test_store_cli(tmp_path: Path) -> None:
    r1, r2, diff = _release_pair(tmp_path)
    store = str(tmp_path / "store.duckdb")
    runner = CliRunner()

    def cli(*args: str) -> Result:
        return runner.invoke(app, ["store", *args])

    assert cli("load", "--store", store, "--release", str(r1)).exit_code == 0
    r = cli("apply-diff", "--store", store, "--diff", str(diff))
    assert r.exit_code == 0 and "2026-10-06 → 2026-10-13" in r.stdout
    r = cli("apply-diff", "--store", store, "--diff", str(diff))  # the same command again: done already
    assert r.exit_code == 0 and "already applied" in r.stdout
    other = tmp_path / "elsewhere" / diff.name
    shutil.copytree(diff, other)
    r = cli("apply-diff", "--store", store, "--diff", str(other))
    assert isinstance(r.exception, GraphNIAHError) and "apply the diffs in order" in str(r.exception)
    r = cli("snapshot", "--store", store, "--cutoff", "2026-04-01", "--out", str(tmp_path / "inc"))
    assert r.exit_code == 0, r.stdout
    assert "release 2026-10-13" in cli("status", "--store", store).stdout
    assert_same_snapshot(ingest_release(r2, CUTOFF, tmp_path / "full"), tmp_path / "inc")


# --------------------------------------------------------------------------------------------
# Demo releases (the demo generator's consecutive releases and diffs)
# --------------------------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("legacy", [False, True], ids=["current-format", "legacy-format"])
def test_diff_equivalence_on_demo_releases(tmp_path: Path, legacy: bool) -> None:
    from graphniah.ingest.demo_release import write_demo_releases

    rs = write_demo_releases(tmp_path / "demo", papers=5000, seed=1, releases=3, legacy_format=legacy)
    ids = list(rs.release_ids)
    assert len(ids) == 3
    with ReleaseStore.open(tmp_path / "store.duckdb") as store:
        store.load_release(rs.release_dir(ids[0]))
        for a, b in itertools.pairwise(ids):
            store.apply_diff(rs.diff_dir(a, b))
            assert store.release_id == b
            inc = snapshot_from_store(store, CUTOFF, tmp_path / f"inc-{b}")
            full = ingest_release(rs.release_dir(b), CUTOFF, tmp_path / f"full-{b}")
            assert_same_snapshot(full, inc)
            rows = Snapshot.open(full).manifest["rows"]
            assert rows["papers"]["kept"] > 100 and rows["edges"]["kept"] > 100
            assert Snapshot.open(inc).manifest["synthetic"] is True


@pytest.mark.parametrize("how", ["truncated", "bit-flipped"])
def test_a_damaged_store_is_one_line_naming_it(tmp_path: Path, how: str) -> None:
    """DuckDB checksums the blocks it reads: a store cut short, or with a block changed, is one line
    naming the file and how to build it again, not a DuckDB traceback."""
    r1, _, _ = _release_pair(tmp_path)
    path = tmp_path / "s" / "store.duckdb"
    with ReleaseStore.open(path) as store:
        store.load_release(r1)
    data = bytearray(path.read_bytes())
    if how == "truncated":
        data = data[: len(data) * 2 // 3]
    else:
        for at in range(len(data) // 4, len(data), 4096):  # a byte in every block past the header
            data[at] ^= 0x5A
    path.write_bytes(bytes(data))
    with pytest.raises(GraphNIAHError) as err, ReleaseStore.open(path) as store:
        snapshot_from_store(store, CUTOFF, tmp_path / "snap")
    assert str(err.value).startswith(f"{path} was changed or damaged after it was written (")
    assert str(err.value).endswith(f"; rebuild it with `graphniah store load --store {path} --release RELEASE_DIR (or graphniah refresh)`")
    assert not (tmp_path / "snap").exists()


def test_closing_a_store_leaves_no_spill_folder(tmp_path: Path) -> None:
    """DuckDB's spill folder (``store.duckdb.tmp``) is scratch: it does not outlive the connection."""
    path = tmp_path / "store.duckdb"
    with ReleaseStore.open(path) as store:
        assert store.path == path
        assert path.with_name("store.duckdb.tmp").is_dir()  # DuckDB may spill here while the store is open
    assert sorted(p.name for p in tmp_path.iterdir()) == ["store.duckdb"]
