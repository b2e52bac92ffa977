"""One small demo world in both forms (S2AG releases and an OpenAlex works folder) with the snapshot
of each, built once per test run, and a helper that writes hand-made OpenAlex folders."""

from __future__ import annotations

import datetime as dt
import gzip
import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from graphniah.formats.snapshot import Snapshot
from graphniah.ingest.build import ingest_openalex, ingest_release
from graphniah.ingest.demo_release import DemoReleaseSet, write_demo_releases
from graphniah.ingest.demo_release.openalex import convert_demo_releases
from graphniah.ingest.openalex.layout import Layout, open_works, works_file, write_manifest

CUTOFF = dt.date(2026, 4, 1)


@dataclass(frozen=True)
class World:
    root: Path
    s2ag: DemoReleaseSet
    openalex: Path
    s2ag_snapshot: Snapshot
    openalex_snapshot: Snapshot


@pytest.fixture(scope="session")
def world(tmp_path_factory: pytest.TempPathFactory) -> World:
    root = tmp_path_factory.mktemp("openalex-world")
    rs = write_demo_releases(root / "s2ag", papers=3000, seed=3, releases=3, shard_rows=1000)
    convert_demo_releases(rs, root / "openalex", shard_rows=1000)
    s2 = ingest_release(rs.release_dir(rs.release_ids[-1]), CUTOFF, root / "snap-s2ag")
    oa = ingest_openalex(root / "openalex", CUTOFF, root / "snap-openalex")
    return World(root, rs, root / "openalex", Snapshot.open(s2), Snapshot.open(oa))


def write_folder(root: Path, partitions: dict[str, Iterable[dict[str, Any] | str]], layout: Layout = "works",
                 merged: Iterable[str] = ()) -> Path:
    """An OpenAlex folder of hand-made records: one works file per partition date (records as
    objects, or raw lines), the manifest, and the merged ids (``W…``) in one file."""
    files = []
    for date, records in partitions.items():
        rel = works_file(layout, dt.date.fromisoformat(date), 0)
        lines = [r if isinstance(r, str) else json.dumps(r) for r in records]
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_bytes(gzip.compress(("\n".join(lines) + "\n").encode(), mtime=0))
        files.append((rel, len(lines)))
    write_manifest(root, layout, files)
    merged = list(merged)
    if merged:
        path = root / "data" / "merged_ids" / "works" / "2026-06-01.csv.gz"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(gzip.compress(("merge_date,id,merge_into_id\n" + "".join(f"2026-06-01,{w},W1\n" for w in merged)).encode()))
    return root


def work(n: int, **fields: Any) -> dict[str, Any]:
    """A minimal OpenAlex work ``W<n>`` published 2026-05-01, with ``fields`` set on top."""
    base: dict[str, Any] = {"id": f"https://openalex.org/W{n}", "doi": None, "title": f"Work number {n}", "display_name": f"Work number {n}",
                            "publication_date": "2026-05-01", "publication_year": 2026, "type": "article", "primary_location": None,
                            "locations": [], "authorships": [], "topics": [], "concepts": [], "referenced_works": [],
                            "updated_date": "2026-06-01T00:00:00", "created_date": "2020-01-01"}
    return base | fields


@pytest.fixture(scope="session")
def served(world: World) -> list[dict[str, Any]]:
    """The works of the demo world as the API would hold them: the newest record of each, merged ones gone."""
    folder = open_works(world.openalex)
    works: dict[str, dict[str, Any]] = {}
    for part in folder.parts:  # oldest partition first
        with gzip.open(part.path, "rt", encoding="utf-8") as f:
            works.update((w["id"], w) for w in map(json.loads, f))
    for merged in folder.merged:
        for line in gzip.decompress(merged.read_bytes()).decode().splitlines()[1:]:
            works.pop("https://openalex.org/" + line.split(",")[1], None)
    return list(works.values())
