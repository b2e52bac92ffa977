"""Small demo release sets shared by the demo-release tests (generated once per session)."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from graphniah.ingest.demo_release import DemoReleaseSet, write_demo_releases


def read_dataset(folder: Path) -> list[tuple[str, dict]]:
    """Every record of a dataset folder as (shard name, record), in file order."""
    out = []
    for shard in sorted(folder.glob("*.gz")):
        with gzip.open(shard, "rt", encoding="utf-8") as f:
            out.extend((shard.name, json.loads(line)) for line in f)
    return out


@pytest.fixture(scope="session")
def current_set(tmp_path_factory) -> DemoReleaseSet:
    return write_demo_releases(tmp_path_factory.mktemp("demo") / "cur", papers=4000, seed=7, releases=3, shard_rows=1500)


@pytest.fixture(scope="session")
def legacy_set(tmp_path_factory) -> DemoReleaseSet:
    return write_demo_releases(tmp_path_factory.mktemp("demo") / "leg", papers=4000, seed=7, releases=2, legacy_format=True, shard_rows=1500)
