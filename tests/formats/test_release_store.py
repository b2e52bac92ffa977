"""The release store's state: read through its model, a state of another schema version refused by name."""

from __future__ import annotations

import json

import pytest

from graphniah.errors import GraphNIAHError
from graphniah.formats.release_store import STORE_STATE_FORMAT, StoreState
from graphniah.ingest.s2ag.limits import Limits
from graphniah.ingest.s2ag.store import ReleaseStore
from tests.ingest.s2ag.release_kit import citation, paper, venue, write_release

INPUT = {"dataset": "papers", "role": "release", "path": "papers/part-0.jsonl.gz", "size": 10, "sha256": "ab" * 32}
BASE = {"release_id": "2026-10-06", "synthetic": False, "path": "/r", "inputs": [INPUT], "loaded_at": "2026-10-07T00:00:00+00:00"}


def _put_state(store: ReleaseStore, obj: object) -> None:
    store.connection.execute("DELETE FROM store_meta WHERE key = 'state'")
    store.connection.execute("INSERT INTO store_meta VALUES ('state', ?)", [json.dumps(obj)])


def test_a_loaded_store_keeps_its_state_in_the_model_and_json_it_always_had(tmp_path):
    release = write_release(tmp_path / "releases", "2026-10-06", [paper(1, "A study"), paper(2, "Another study")],
                            [citation(1, 2)], [venue("pv-1", "Venue")], shards=1)
    store = ReleaseStore.open(tmp_path / "store.duckdb", Limits.resolve())
    store.load_release(release)
    state = store.state
    assert isinstance(state, StoreState) and state.release_id == "2026-10-06" and state.diffs == ()
    raw = json.loads(store.connection.execute("SELECT value FROM store_meta WHERE key = 'state'").fetchone()[0])
    assert raw["schema_version"] == 2 and sorted(raw) == ["base", "diffs", "schema_version"]
    assert [i["dataset"] for i in raw["base"]["inputs"]] == [i.dataset for i in state.base.inputs]
    assert state.all_inputs()[0]["origin"] == "2026-10-06"


@pytest.mark.parametrize("version", [1, 3, "2"])
def test_a_state_of_another_schema_version_names_the_store_and_the_version(tmp_path, version):
    store = ReleaseStore.open(tmp_path / "store.duckdb", Limits.resolve())
    _put_state(store, {"schema_version": version, "base": BASE, "diffs": []})
    with pytest.raises(GraphNIAHError, match=rf"release store {tmp_path / 'store.duckdb'}: release store state "
                                              rf"schema_version {version!r} is not supported \(this graphniah reads version 2\)"):
        _ = store.state


def test_a_state_that_does_not_validate_names_the_field():
    bad = {"schema_version": 2, "base": BASE | {"inputs": [INPUT | {"size": -1}]}, "diffs": []}
    with pytest.raises(GraphNIAHError, match=r"^store X: not a valid release store state \(.*size.*\); delete the store"):
        STORE_STATE_FORMAT.read_text(StoreState, json.dumps(bad), "store X")
    ok = STORE_STATE_FORMAT.read_text(StoreState, json.dumps({"schema_version": 2, "base": BASE, "diffs": []}), "store X")
    assert ok.base.release_id_from == "descriptor"  # a field added within the version reads as its default
