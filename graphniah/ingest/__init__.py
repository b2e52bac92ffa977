"""Ingest stage: S2AG releases (downloaded, user-supplied or the synthetic demo) become a snapshot.

Takes an S2AG release folder, a release store moved forward by diffs (``s2ag``), an OpenAlex works
folder (``openalex``: a snapshot sync or a fetched window, no key needed), or the embedded demo
release in either form (``demo_release``); gives a snapshot folder for one cutoff — ``papers.parquet`` and
``edges.parquet`` of the eligible post-cutoff papers and their citations, plus ``manifest.json``
with input hashes, drop counts and the content hash (their format is ``graphniah.formats.snapshot``).
``build`` is the DuckDB query that turns raw JSON lines into those tables.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from graphniah.lazy import attribute

if TYPE_CHECKING:
    from graphniah.ingest.build import ingest_openalex, ingest_release, snapshot_from_store
    from graphniah.ingest.demo_release import DemoReleaseSet, write_demo_releases
    from graphniah.ingest.demo_release.openalex import write_openalex_demo
    from graphniah.ingest.openalex.api import fetch_works
    from graphniah.ingest.openalex.layout import open_works
    from graphniah.ingest.s2ag.limits import Limits
    from graphniah.ingest.s2ag.store import ReleaseStore

# Where each public name lives; loaded on first access (DuckDB and pyarrow only when a name is used).
_HOMES = {
    **dict.fromkeys(["ingest_openalex", "ingest_release", "snapshot_from_store"], "graphniah.ingest.build"),
    **dict.fromkeys(["DemoReleaseSet", "write_demo_releases"], "graphniah.ingest.demo_release"),
    "write_openalex_demo": "graphniah.ingest.demo_release.openalex",
    "fetch_works": "graphniah.ingest.openalex.api",
    "open_works": "graphniah.ingest.openalex.layout",
    "Limits": "graphniah.ingest.s2ag.limits",
    "ReleaseStore": "graphniah.ingest.s2ag.store",
}

__all__ = [*_HOMES]  # the public names are the map's keys


def __getattr__(name: str) -> Any:
    return attribute(__name__, _HOMES, name)
