"""The snapshot on disk: its folder layout and the Parquet schemas every stage agrees on.

A snapshot is ``<root>/<release>/cutoff=<YYYY-MM-DD>/`` holding

- ``papers.parquet``   one row per eligible paper (schema ``PAPERS_SCHEMA``),
- ``edges.parquet``    one row per citation between two eligible papers (``EDGES_SCHEMA``):
                       de-duplicated, no self-loops, ``citing`` cites ``cited``,
- ``manifest.json``    what it was made from (release, cutoff, input hashes, row counts):
                       one :class:`SnapshotManifest`,
- ``pruned/depth=K.parquet`` and ``paths/depth=K.parquet`` written by the graph stage.

Every stage reads the two tables through :func:`read_papers` and :func:`read_edges`, which check the
file against the manifest and its columns against the schema (``LATER_PAPER_COLUMNS``: the columns
a snapshot built before them lacks).

**Manifest format.** ``format_version`` 3. Version 3 added the ``earliest_public_date`` column of
``papers.parquet`` (``graphniah.ingest.s2ag.preprints``: a paper is as old as its earliest public
version) and the manifest's ``earliest_public_date`` range of the kept papers. Versions 1 and 2
are upgraded on reading to a manifest whose ``earliest_public_date`` is None: such a snapshot was
built without the preprint guard, so its papers may have been public before the cutoff and the
runner's knowledge-cutoff guard refuses it (rebuild it). Version 1 (written before this field
existed) carried ``"format": 1`` and is otherwise version 2. A manifest that does
not validate (an older layout, a damaged file) is an error that says to rebuild the snapshot with
``graphniah refresh``. The fields the pipeline reads are typed; the descriptive sections (source,
inputs, row counts, eligibility rules, timings, resources) are recorded as the builder wrote them.
"""

from __future__ import annotations

import datetime as dt
import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import pyarrow as pa
import pyarrow.parquet as pq

from graphniah.atomic import check_artifact, write_json
from graphniah.errors import GraphNIAHError
from graphniah.formats.base import Format, Frozen, add_version
from graphniah.layout import SNAPSHOT_MANIFEST, SNAPSHOTS_ROOT, snapshot_manifests

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
        # the earliest of the arXiv month, the preprint DOI's date and the publication date
        ("earliest_public_date", pa.date32()),
        # the S2 fields of study (s2fieldsofstudy categories, distinct, sorted; [] when the release has none);
        # snapshots built before the column existed lack it and read as "no field known"
        ("fields_of_study", pa.list_(pa.string())),
    ]
)

EDGES_SCHEMA = pa.schema([("citing", pa.int64()), ("cited", pa.int64())])

#: Columns of ``papers.parquet`` that snapshots built before them lack: :func:`read_papers` leaves
#: them out of such a snapshot's table (readers treat a missing one as "not known").
LATER_PAPER_COLUMNS = ("earliest_public_date", "fields_of_study")

PAPERS_FILE = "papers.parquet"
EDGES_FILE = "edges.parquet"
MANIFEST_FILE = SNAPSHOT_MANIFEST


class EarliestPublicDates(Frozen):
    """The range of the kept papers' ``earliest_public_date`` (both None when no paper is kept)."""

    min: dt.date | None
    max: dt.date | None


class SnapshotManifest(Frozen):
    """``manifest.json`` of a snapshot folder (written by :mod:`graphniah.ingest.build`).

    ``earliest_public_date`` is None only for a snapshot built before the preprint guard (format 1 or 2).
    """

    format_version: Literal[3] = 3
    release_id: str
    cutoff: dt.date
    synthetic: bool
    source: dict[str, Any]
    inputs: list[dict[str, Any]]
    rows: dict[str, dict[str, Any]]
    earliest_public_date: EarliestPublicDates | None = None
    eligibility: dict[str, Any]
    files: dict[str, Any]
    snapshot_hash: str
    package_version: str
    duckdb_version: str
    created_at: str
    timings: dict[str, Any] | None = None
    resources: dict[str, Any] | None = None

    # Read access by key, as in ``manifest.json``: the values are the JSON ones (the cutoff as its
    # ISO string).
    def __getitem__(self, key: str) -> Any:
        if key not in type(self).model_fields:
            raise KeyError(key)
        value = getattr(self, key)
        return value.isoformat() if isinstance(value, dt.date) else value

    def get(self, key: str, default: Any = None) -> Any:
        value = self[key] if key in type(self).model_fields else None
        return default if value is None else value


#: What each data source is called in messages, cards and reports, by the manifest's ``source.name``
#: (``graphniah.ingest.build`` writes ``openalex``; S2AG manifests carry no name).
SOURCE_LABELS = {"s2ag": "S2AG", "openalex": "OpenAlex"}


def source_name(manifest: SnapshotManifest) -> str:
    """The data source of a snapshot: its manifest's ``source.name``, else ``s2ag``."""
    name = manifest.source.get("name")
    return name if isinstance(name, str) and name else "s2ag"


def source_label(manifest: SnapshotManifest) -> str:
    """The source's name as printed (``SOURCE_LABELS``): ``S2AG`` or ``OpenAlex``."""
    return SOURCE_LABELS.get(source_name(manifest), source_name(manifest))


def _upgrade_v1(obj: dict[str, Any]) -> dict[str, Any]:
    # Version 1 said ``"format": 1``; any other value of that field is left for validation to refuse.
    legacy = {k: v for k, v in obj.items() if not (k == "format" and v == 1)}
    return {"format_version": 2} | legacy


SNAPSHOT_MANIFEST_FORMAT = Format("snapshot manifest", 3, {1: _upgrade_v1, 2: add_version(3)},
                                  hint="rebuild the snapshot with graphniah refresh (or graphniah ingest --replace)")


def read_snapshot_manifest(path: str | Path) -> SnapshotManifest:
    """A snapshot's ``manifest.json`` through :class:`SnapshotManifest`; errors name the file and say how to rebuild."""
    return SNAPSHOT_MANIFEST_FORMAT.read_file(SnapshotManifest, path)


def write_snapshot_manifest(path: str | Path, manifest: SnapshotManifest | Mapping[str, Any]) -> SnapshotManifest:
    """Validate ``manifest`` through :class:`SnapshotManifest` and write it atomically."""
    m = manifest if isinstance(manifest, SnapshotManifest) else SnapshotManifest.model_validate(dict(manifest))
    write_json(path, m.model_dump(mode="json"))
    return m


def parse_cutoff(value: str) -> dt.date:
    """Parse a ``YYYY-MM-DD`` cutoff, with an error that names the bad value."""
    try:
        return dt.date.fromisoformat(value)
    except (TypeError, ValueError):
        raise GraphNIAHError(f"cutoff {value!r} is not a date in YYYY-MM-DD form (e.g. 2026-04-01)") from None


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
        """``papers.parquet``, checked against the manifest's sha256 and size before it is trusted."""
        return self._checked(PAPERS_FILE)

    @property
    def edges_path(self) -> Path:
        """``edges.parquet``, checked against the manifest's sha256 and size before it is trusted."""
        return self._checked(EDGES_FILE)

    def check_tables(self) -> None:
        """Check both tables against the manifest (:meth:`papers_path`, :meth:`edges_path`)."""
        for name in (PAPERS_FILE, EDGES_FILE):
            self._checked(name)

    def _checked(self, name: str) -> Path:
        """``<snapshot>/<name>`` through :func:`graphniah.atomic.check_artifact` (hashed once per process);
        a manifest that records no hash gets the Parquet check of the file's ends."""
        entry = self.manifest.files.get(name)
        entry = entry if isinstance(entry, dict) else {}
        sha, size = entry.get("sha256"), entry.get("bytes")
        return check_artifact(self.path / name, sha if isinstance(sha, str) else None, size if type(size) is int else None,
                              self.rebuild_command, parquet=True)

    @property
    def rebuild_command(self) -> str:
        """The command that writes this snapshot again: the ingest of its release folder, else the refresh."""
        m = self.manifest
        if m.source.get("type") in ("release", "openalex") and m.source.get("release_dir"):
            flag = " --source openalex" if m.source["type"] == "openalex" else ""
            return f"graphniah ingest{flag} --release {m.source['release_dir']} --cutoff {m.cutoff.isoformat()} --out {self.path} --replace"
        return f"graphniah refresh --cutoff {m.cutoff.isoformat()} --root {self.path.parent.parent}"

    @functools.cached_property
    def manifest(self) -> SnapshotManifest:
        return read_snapshot_manifest(self.path / MANIFEST_FILE)

    @property
    def content_hash(self) -> str:
        """The hash later stages record as their input: the manifest's ``snapshot_hash``."""
        return self.manifest.snapshot_hash


def read_papers(snapshot: Snapshot, columns: Sequence[str] | None = None) -> pa.Table:
    """A snapshot's ``papers.parquet``, its columns checked against :data:`PAPERS_SCHEMA`.

    Parameters
    ----------
    snapshot : Snapshot
        The snapshot; its table is checked against the manifest first (:attr:`Snapshot.papers_path`).
    columns : sequence of str, optional
        The columns to read, in this order. Default: every column of the schema, except the
        :data:`LATER_PAPER_COLUMNS` a snapshot built before them lacks.

    Returns
    -------
    pyarrow.Table
        One row per paper, in the file's order (ingest writes them by corpus id), with the schema's
        types.

    Raises
    ------
    GraphNIAHError
        When a column of the file has another type than the schema's, or a column asked for (or
        one every snapshot has) is missing; the message names the file and the command that
        rebuilds the snapshot.
    """
    return _read_table(snapshot, snapshot.papers_path, PAPERS_SCHEMA, columns, LATER_PAPER_COLUMNS)


def read_edges(snapshot: Snapshot, columns: Sequence[str] | None = None) -> pa.Table:
    """A snapshot's ``edges.parquet``, its columns checked against :data:`EDGES_SCHEMA`.

    Parameters
    ----------
    snapshot : Snapshot
        The snapshot; its table is checked against the manifest first (:attr:`Snapshot.edges_path`).
    columns : sequence of str, optional
        The columns to read, in this order (default: ``citing``, ``cited``).

    Returns
    -------
    pyarrow.Table
        One row per citation (``citing`` cites ``cited``), in the file's order.

    Raises
    ------
    GraphNIAHError
        As :func:`read_papers`.
    """
    return _read_table(snapshot, snapshot.edges_path, EDGES_SCHEMA, columns, ())


def _read_table(snapshot: Snapshot, path: Path, schema: pa.Schema, columns: Sequence[str] | None,
                later: Sequence[str]) -> pa.Table:
    """``path`` read through ``pq.ParquetFile`` (one file: no dataset machinery), after its footer's
    schema is checked against ``schema``: the values come back as written, so a reader gets exactly
    the types the file holds, which the check makes the schema's."""
    file = pq.ParquetFile(path)
    found = file.schema_arrow
    rebuild = f"rebuild it with `{snapshot.rebuild_command}`"
    for want in schema:
        i = found.get_field_index(want.name)
        if i >= 0 and not found.field(i).type.equals(want.type):
            raise GraphNIAHError(f"{path} does not have the snapshot schema: column {want.name!r} is {found.field(i).type}, "
                                 f"not {want.type}; {rebuild}")
        if i < 0 and want.name not in later:
            raise GraphNIAHError(f"{path} does not have the snapshot schema: it has no column {want.name!r}; {rebuild}")
    if columns is None:
        columns = [name for name in schema.names if name in found.names]
    unknown = [c for c in columns if c not in schema.names]
    if unknown:
        raise GraphNIAHError(f"{', '.join(map(repr, unknown))} is no column of the snapshot's {path.name} (columns: {', '.join(schema.names)})")
    absent = [c for c in columns if c not in found.names]
    if absent:
        raise GraphNIAHError(f"{path} has no column {', '.join(map(repr, absent))}: the snapshot was built before it existed; {rebuild}")
    return file.read(columns=list(columns))


def find_snapshot_by_hash(root: str | Path, snapshot_hash: str) -> Snapshot:
    """The snapshot under ``root`` whose manifest has ``snapshot_hash`` (what recipes record)."""
    for manifest in snapshot_manifests(root):
        if read_snapshot_manifest(manifest).snapshot_hash == snapshot_hash:
            return Snapshot(manifest.parent)
    raise GraphNIAHError(f"no snapshot with hash {snapshot_hash[:12]} under {root}/")


def snapshot_at_or_under(root: str | Path, snapshot_hash: str) -> Snapshot:
    """The snapshot with ``snapshot_hash``: ``root`` itself when it is that snapshot's folder (what a
    user passes as ``--snapshots`` for one snapshot), else the one under it (:func:`find_snapshot_by_hash`)."""
    root = Path(root)
    if (root / MANIFEST_FILE).is_file() and Snapshot(root).content_hash == snapshot_hash:
        return Snapshot(root)
    return find_snapshot_by_hash(root, snapshot_hash)


def newest_snapshot(root: str | Path = SNAPSHOTS_ROOT) -> Snapshot:
    """The most recently created complete snapshot under ``root``."""
    root = Path(root)
    found = [p.parent for p in snapshot_manifests(root)]
    if not found:
        raise GraphNIAHError(f"no snapshot under {root}/; run `make refresh` first")
    return Snapshot(max(found, key=lambda p: (read_snapshot_manifest(p / MANIFEST_FILE).created_at, str(p))))
