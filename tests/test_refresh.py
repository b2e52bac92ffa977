"""`make refresh` with an API key: the whole release the first time, then only the diffs."""

from __future__ import annotations

import datetime as dt
import json
import shutil

import pytest

from graphniah.formats.snapshot import Snapshot
from graphniah.ingest.build import ingest_release
from graphniah.ingest.demo_release import write_demo_releases
from graphniah.refresh import refresh
from tests.ingest.s2ag.fake_api import FakeS2AG
from tests.progress_log import ProgressLog
from tests.secret_scan import assert_secret_absent

KEY = "s2-test-KEY-7f3a9c"
CUTOFF = dt.date(2026, 4, 1)


@pytest.mark.slow
def test_refresh_downloads_once_then_applies_only_diffs(tmp_path) -> None:
    rs = write_demo_releases(tmp_path / "served", papers=12_000, seed=4, releases=3)
    ids = rs.release_ids
    only_first = tmp_path / "served-first"
    shutil.copytree(rs.release_dir(ids[0]), only_first / "releases" / ids[0])
    root = tmp_path / "snapshots"
    reported = ProgressLog()
    logs = reported.notes
    kw = dict(api_key=KEY, depths=(4,), pool_size=20, progress=reported)

    with FakeS2AG(only_first, api_key=KEY) as srv:  # the API knows one release: download it whole
        first = refresh(CUTOFF, root, api_base=srv.base_url, **kw)
    assert first.source == "s2ag" and first.release_id == ids[0] and first.diffs_applied == ()
    assert first.pools == {4: 20}

    with FakeS2AG(rs.root, api_key=KEY) as srv:  # two releases later: only the diffs are fetched
        srv.clear_log()
        second = refresh(CUTOFF, root, api_base=srv.base_url, **kw)
        fetched = [r.path for r in srv.requests]
    assert second.release_id == ids[-1] and len(second.diffs_applied) == 2
    assert not any("/dataset/" in p for p in fetched), "no full release is downloaded again"
    direct = Snapshot.open(ingest_release(rs.release_dir(ids[-1]), CUTOFF, tmp_path / "direct"))
    assert second.snapshot.content_hash == direct.content_hash  # incremental == full, row for row
    assert second.snapshot.path.parent.name == ids[-1]

    with FakeS2AG(rs.root, api_key=KEY) as srv:  # up to date: nothing to apply, snapshot kept
        third = refresh(CUTOFF, root, api_base=srv.base_url, **kw)
    assert third.diffs_applied == () and third.snapshot.content_hash == direct.content_hash
    assert any("up to date" in line for line in logs)

    assert_secret_absent(root, KEY)  # no file holds the key, decoded (gzip, Parquet, DuckDB store) or not
    assert not any(KEY in line for line in logs)
    # the steps the library reported: pruning and pools per refresh, one step per downloaded file
    labels = [s.label for s in reported.steps]
    assert labels.count("pruning") == 3 and labels.count("path pools") == 3
    assert all(s.ended for s in reported.steps)
    assert any(s.label.endswith(".gz") and s.advanced > 0 for s in reported.steps)

    # a snapshot built before the preprint guard (manifest format 2) is rebuilt, not reused
    manifest = third.snapshot.path / "manifest.json"
    old = {k: v for k, v in json.loads(manifest.read_text()).items() if k != "earliest_public_date"} | {"format_version": 2}
    manifest.write_text(json.dumps(old))
    assert Snapshot.open(third.snapshot.path).manifest.earliest_public_date is None
    logs.clear()
    with FakeS2AG(rs.root, api_key=KEY) as srv:
        fourth = refresh(CUTOFF, root, api_base=srv.base_url, **kw)
    assert not any("up to date" in line for line in logs) and fourth.snapshot.content_hash == direct.content_hash
    assert fourth.snapshot.manifest.earliest_public_date is not None


def test_a_demo_release_of_another_world_version_is_generated_again(tmp_path) -> None:
    """A demo release whose release.json lacks this code's world_version (made before preprints)
    is generated again; one with it is reused."""
    from graphniah.ingest.demo_release.world import WORLD_VERSION
    from graphniah.refresh import _demo_releases

    log = ProgressLog()
    rs, fresh = _demo_releases(tmp_path, 3000, 5, log)
    assert fresh and rs.manifest(rs.release_ids[-1]).world_version == WORLD_VERSION
    assert _demo_releases(tmp_path, 3000, 5, log)[1] is False
    newest = rs.release_dir(rs.release_ids[-1]) / "release.json"
    newest.write_text(json.dumps({k: v for k, v in json.loads(newest.read_text()).items() if k != "world_version"}))
    assert _demo_releases(tmp_path, 3000, 5, log)[1] is True
    assert any("made with other settings" in line for line in log.notes)


def test_a_snapshot_whose_manifest_does_not_read_is_rebuilt(tmp_path):
    """The manifest is read through SnapshotManifest: a damaged one (or one of an unknown version) means rebuild."""
    from types import SimpleNamespace

    from graphniah.formats.release_store import LoadedRelease, StoreState
    from graphniah.refresh import _snapshot_current

    state = StoreState(base=LoadedRelease(release_id="r1", synthetic=True, path="/r", inputs=(), loaded_at="t"), diffs=())
    store = SimpleNamespace(state=state)
    assert _snapshot_current(tmp_path, store) is False  # no manifest
    (tmp_path / "manifest.json").write_text("{not json")
    assert _snapshot_current(tmp_path, store) is False
    (tmp_path / "manifest.json").write_text('{"format_version": 99}')
    assert _snapshot_current(tmp_path, store) is False
