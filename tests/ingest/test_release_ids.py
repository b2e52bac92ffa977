"""Release folders without release.json / diff.json (fetched with S2's own scripts): where the id comes from."""

from __future__ import annotations

import datetime as dt
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from graphniah.cli import app
from graphniah.errors import GraphNIAHError
from graphniah.formats.snapshot import Snapshot
from graphniah.ingest.build import ingest_release, snapshot_from_store
from graphniah.ingest.s2ag.layout import ID_FROM_DESCRIPTOR, ID_FROM_FOLDER_NAME, ID_FROM_OPTION, read_diff_info, read_release_info
from graphniah.ingest.s2ag.store import ReleaseStore
from tests.ingest.s2ag.release_kit import citation, paper, write_diff, write_release

CUTOFF = dt.date(2026, 4, 1)
PAPERS = [paper(1, "First"), paper(2, "Second"), paper(3, "Third", date="2026-02-01")]
CITATIONS = [citation(1, 2), citation(2, 3)]


def _undescribed(folder: Path, descriptor: str, target: Path) -> Path:
    """``folder`` without its descriptor file, moved to ``target`` (as S2's own scripts leave it)."""
    (folder / descriptor).unlink()
    folder.rename(target)
    return target


def bare_release(root: Path, name: str) -> Path:
    """A hand-made release as S2's download scripts leave it: dataset folders of shards, nothing else."""
    return _undescribed(write_release(root, "tmp", PAPERS, CITATIONS), "release.json", root / name)


def test_release_without_descriptor_ingests_with_release_id_or_folder_name(tmp_path: Path) -> None:
    downloads = bare_release(tmp_path, "my-download")
    by_option = Snapshot.open(ingest_release(downloads, CUTOFF, tmp_path / "a", release_id="2026-11-25")).manifest
    assert by_option["release_id"] == "2026-11-25" and by_option["source"]["release_id_from"] == ID_FROM_OPTION
    assert by_option["synthetic"] is False and by_option["rows"]["papers"]["kept"] == 2 and by_option["rows"]["edges"]["kept"] == 1

    named = bare_release(tmp_path / "r", "2026-11-25")
    by_name = Snapshot.open(ingest_release(named, CUTOFF, tmp_path / "b")).manifest
    assert by_name["release_id"] == "2026-11-25" and by_name["source"]["release_id_from"] == ID_FROM_FOLDER_NAME
    assert by_name["snapshot_hash"] == by_option["snapshot_hash"]

    with_descriptor = write_release(tmp_path / "d", "2026-11-25", PAPERS, CITATIONS)
    m = Snapshot.open(ingest_release(with_descriptor, CUTOFF, tmp_path / "c", release_id="2026-11-25")).manifest
    assert m["source"]["release_id_from"] == ID_FROM_DESCRIPTOR and m["snapshot_hash"] == by_option["snapshot_hash"]


def test_release_id_that_cannot_be_determined_fails_clearly(tmp_path: Path) -> None:
    downloads = bare_release(tmp_path, "my-download")
    with pytest.raises(GraphNIAHError, match=r"cannot tell which S2AG release .*my-download holds: it has no release.json and its name 'my-download' is not a release id .* pass --release-id"):
        ingest_release(downloads, CUTOFF, tmp_path / "snap")
    (tmp_path / "2026-13-45").mkdir()  # shaped like a date, but not one
    with pytest.raises(GraphNIAHError, match=r"'2026-13-45' is not a release id"):
        read_release_info(tmp_path / "2026-13-45")
    with pytest.raises(GraphNIAHError, match=r"--release-id 'a/b' is not a usable release id"):
        read_release_info(downloads, "a/b")
    described = write_release(tmp_path / "d", "2026-10-06", PAPERS, CITATIONS)
    with pytest.raises(GraphNIAHError, match=r"--release-id 2026-11-25 contradicts .*release.json, which names release 2026-10-06"):
        ingest_release(described, CUTOFF, tmp_path / "snap", release_id="2026-11-25")
    # A download of ours that stopped half-way (no marker, a .part file) is never taken for a release.
    partial = bare_release(tmp_path / "p", "2026-11-25")
    (partial / "citations" / "part-009.jsonl.gz.part").write_bytes(b"\x1f\x8b")
    with pytest.raises(GraphNIAHError, match=r"looks like an unfinished download: .*part-009.jsonl.gz.part"):
        ingest_release(partial, CUTOFF, tmp_path / "snap")
    assert not (tmp_path / "snap").exists()


def test_cli_ingest_release_id(tmp_path: Path) -> None:
    downloads = bare_release(tmp_path, "downloads")
    base = [sys.executable, "-c", "from graphniah.cli import main; main()", "ingest", "--release", str(downloads), "--cutoff", "2026-04-01"]
    r = subprocess.run([*base, "--out", str(tmp_path / "x")], capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and "pass --release-id" in r.stderr and "Traceback" not in r.stderr
    r = CliRunner().invoke(app, ["ingest", "--release", str(downloads), "--cutoff", "2026-04-01", "--out", str(tmp_path / "s"), "--release-id", "2026-11-25"])
    assert r.exit_code == 0, r.stdout
    assert "S2AG release 2026-11-25" in r.stdout and Snapshot.open(tmp_path / "s").manifest["release_id"] == "2026-11-25"


def _bare_diff(root: Path, name: str) -> Path:
    ddir = write_diff(root, "2026-11-18", "2026-11-25", {"papers": [paper(4, "Fourth")], "citations": [citation(4, 1)]}, {"papers": [{"corpusid": 2}]})
    return _undescribed(ddir, "diff.json", root / name)


def test_diff_without_descriptor_applies_with_options_or_folder_name(tmp_path: Path) -> None:
    base = bare_release(tmp_path, "2026-11-18")
    plain = _bare_diff(tmp_path / "a", "step")
    named = _bare_diff(tmp_path / "b", "2026-11-18_to_2026-11-25")
    with pytest.raises(GraphNIAHError, match=r"cannot tell which releases diff .*step goes between: .* pass --from-release FROM --to-release TO"):
        read_diff_info(plain)
    with pytest.raises(GraphNIAHError, match=r"pass both --from-release and --to-release"):
        read_diff_info(plain, "2026-11-18")
    assert read_diff_info(named).release_ids_from == ID_FROM_FOLDER_NAME
    described = write_diff(tmp_path / "c", "2026-11-18", "2026-11-25", {}, {})
    with pytest.raises(GraphNIAHError, match=r"contradict .*diff.json, which says 2026-11-18 → 2026-11-25"):
        read_diff_info(described, "2026-11-18", "2026-12-02")

    snaps = []
    for i, (diff, ids) in enumerate(((plain, ("2026-11-18", "2026-11-25")), (named, (None, None)))):
        with ReleaseStore.open(tmp_path / f"store{i}.duckdb") as store:
            store.load_release(base)
            store.apply_diff(diff, *ids)
            assert store.release_id == "2026-11-25"
            snaps.append(Snapshot.open(snapshot_from_store(store, CUTOFF, tmp_path / f"snap{i}")).manifest)
    assert snaps[0]["snapshot_hash"] == snaps[1]["snapshot_hash"]
    assert snaps[0]["rows"]["papers"]["kept"] == 2  # 1 and the new 4; 2 was deleted
    assert snaps[0]["source"]["base_release"]["release_id_from"] == ID_FROM_FOLDER_NAME
    assert [d["release_ids_from"] for d in snaps[0]["source"]["diffs"]] == [ID_FROM_OPTION]
    assert [d["release_ids_from"] for d in snaps[1]["source"]["diffs"]] == [ID_FROM_FOLDER_NAME]


def test_store_cli_release_ids(tmp_path: Path) -> None:
    downloads = bare_release(tmp_path, "downloads")
    plain = _bare_diff(tmp_path / "a", "step")
    store = str(tmp_path / "store.duckdb")
    runner = CliRunner()
    r = runner.invoke(app, ["store", "load", "--store", store, "--release", str(downloads)])
    assert isinstance(r.exception, GraphNIAHError) and "pass --release-id" in str(r.exception)
    r = runner.invoke(app, ["store", "load", "--store", store, "--release", str(downloads), "--release-id", "2026-11-18", "--memory-limit", "1GB"])
    assert r.exit_code == 0, r.stdout
    r = runner.invoke(app, ["store", "apply-diff", "--store", store, "--diff", str(plain), "--diff", str(plain), "--from-release", "2026-11-18", "--to-release", "2026-11-25"])
    assert isinstance(r.exception, GraphNIAHError) and "one diff folder" in str(r.exception)
    r = runner.invoke(app, ["store", "apply-diff", "--store", store, "--diff", str(plain), "--from-release", "2026-11-18", "--to-release", "2026-11-25"])
    assert r.exit_code == 0 and "2026-11-18 → 2026-11-25" in r.stdout
    status = runner.invoke(app, ["store", "status", "--store", store]).stdout
    assert "id from option" in status and "ids from option" in status


def test_real_sample_release_ingests_by_folder_name(tmp_path: Path, s2ag_samples: Path) -> None:
    """The real 2022 sample files, laid out as S2's scripts leave them (no descriptor)."""
    rdir = tmp_path / "2022-05-10"
    shutil.copytree(s2ag_samples / "release-2022-samples", rdir, ignore=shutil.ignore_patterns("*.txt"))
    m = Snapshot.open(ingest_release(rdir, dt.date(1900, 1, 1), tmp_path / "snap")).manifest
    assert (m["release_id"], m["source"]["release_id_from"], m["synthetic"]) == ("2022-05-10", ID_FROM_FOLDER_NAME, False)
    assert m["rows"]["papers"]["read"] == 100 and json.loads(json.dumps(m["inputs"]))
