"""The snapshot on disk: its folder layout and the Parquet schemas every stage agrees on.

A snapshot is ``<root>/<release>/cutoff=<YYYY-MM-DD>/`` holding

- ``papers.parquet``   one row per eligible paper (schema ``PAPERS_SCHEMA``),
- ``edges.parquet``    one row per citation between two eligible papers (``EDGES_SCHEMA``):
                       de-duplicated, no self-loops, ``citing`` cites ``cited``,
- ``manifest.json``    what it was made from (release, cutoff, input hashes, row counts),
- ``pruned/depth=K.parquet`` and ``paths/depth=K.parquet`` written by the graph stage.
"""

from __future__ import annotations

import datetime as dt
import functools
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa

from graphniah.errors import GraphNIAHError
from graphniah.io import read_json

AUTHOR_TYPE = pa.struct([("id", pa.string()), ("name", pa.string())])

PAPERS_SCHEMA = pa.schema(
    [
        ("corpusid", pa.int64()),
        ("title", pa.string()),
        ("authors", pa.list_(AUTHOR_TYPE)),
        ("venue", pa.string()),
        ("journal", pa.string()),
        ("publication_date", pa.date32()),
        ("year", pa.int32()),
        ("arxiv_id", pa.string()),
        ("doi", pa.string()),
    ]
)

EDGES_SCHEMA = pa.schema([("citing", pa.int64()), ("cited", pa.int64())])

PAPERS_FILE = "papers.parquet"
EDGES_FILE = "edges.parquet"
MANIFEST_FILE = "manifest.json"


def parse_cutoff(value: str) -> dt.date:
    """Parse a ``YYYY-MM-DD`` cutoff, with an error that names the bad value."""
    try:
        return dt.date.fromisoformat(value)
    except (TypeError, ValueError):
        raise GraphNIAHError(f"cutoff {value!r} is not a date in YYYY-MM-DD form (e.g. 2026-04-01)") from None


def snapshot_dir(root: str | Path, release: str, cutoff: dt.date) -> Path:
    return Path(root) / release / f"cutoff={cutoff.isoformat()}"


@dataclass(frozen=True)
class Snapshot:
    """A finished snapshot folder (it has a manifest, so it was completely written)."""

    path: Path

    @classmethod
    def open(cls, path: str | Path) -> Snapshot:
        p = Path(path)
        if not (p / MANIFEST_FILE).is_file():
            raise GraphNIAHError(f"{p} is not a snapshot folder (no {MANIFEST_FILE}); run `graphniah ingest` or `make refresh`")
        return cls(p)

    @property
    def papers_path(self) -> Path:
        return self.path / PAPERS_FILE

    @property
    def edges_path(self) -> Path:
        return self.path / EDGES_FILE

    @functools.cached_property
    def manifest(self) -> dict:
        return read_json(self.path / MANIFEST_FILE)

    @property
    def content_hash(self) -> str:
        """The hash later stages record as their input: the manifest's ``snapshot_hash``."""
        return self.manifest["snapshot_hash"]


def find_snapshot_by_hash(root: str | Path, snapshot_hash: str) -> Snapshot:
    """The snapshot under ``root`` whose manifest has ``snapshot_hash`` (what recipes record)."""
    for manifest in sorted(Path(root).glob(f"*/cutoff=*/{MANIFEST_FILE}")):
        if read_json(manifest).get("snapshot_hash") == snapshot_hash:
            return Snapshot(manifest.parent)
    raise GraphNIAHError(f"no snapshot with hash {snapshot_hash[:12]} under {root}/")


def newest_snapshot(root: str | Path = "snapshots") -> Snapshot:
    """The most recently created complete snapshot under ``root``."""
    root = Path(root)
    found = [p.parent for p in root.glob(f"*/cutoff=*/{MANIFEST_FILE}")]
    if not found:
        raise GraphNIAHError(f"no snapshot under {root}/; run `make refresh` first")
    return Snapshot(max(found, key=lambda p: (read_json(p / MANIFEST_FILE).get("created_at", ""), str(p))))
