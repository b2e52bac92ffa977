"""Pruned sets and path pools on disk: their Parquet schemas and the manifests beside them.

Under a snapshot folder (paths: :func:`graphniah.layout.pruned_file`, :func:`~graphniah.layout.pool_file`):

    pruned/depth=K.parquet   column ``corpusid`` (ascending): the papers kept for depth K
    pruned/depth=K.json      :class:`PrunedManifest`: snapshot hash, depth, removal counts per rule
    paths/depth=K.parquet    column ``path``: list<int64> of 3K-2 corpus ids per row
    paths/depth=K.json       :class:`PoolManifest`: snapshot hash, seed, parameters, attempts, rejects

**Format.** Both manifests carry ``format_version`` 3: version 3 added ``bytes``, the size of the
Parquet file beside the ``sha256`` both versions record. Version 2 is upgraded on reading (the size
unknown: the hash alone is checked), and so is version 1 (written before versions existed, the same
object as 2 without the field); any other version is an error
that says to rebuild (``graphniah prune``/``graphniah paths``, or ``make refresh``). The graph stage
(:mod:`graphniah.graph.store`) writes these files; the sampling stage reads them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal, TypeVar

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.parquet as pq

from graphniah import layout
from graphniah.atomic import check_artifact, write_json
from graphniah.errors import GraphNIAHError
from graphniah.formats.base import Format, Frozen, add_version
from graphniah.formats.snapshot import Snapshot

__all__ = [
    "POOL_SCHEMA",
    "PRUNED_SCHEMA",
    "GraphManifest",
    "PoolManifest",
    "PrunedManifest",
    "read_checked_manifest",
    "read_graph_manifest",
    "read_pool",
    "read_pruned",
    "write_graph_manifest",
]

PRUNED_SCHEMA = pa.schema([("corpusid", pa.int64())])
POOL_SCHEMA = pa.schema([("path", pa.list_(pa.int64()))])


class GraphManifest(Frozen):
    """What the manifests of pruned sets and path pools share: the snapshot they were made from,
    the file they describe (by sha256), the package that wrote them."""

    format_version: Literal[3] = 3
    snapshot: str
    snapshot_hash: str
    synthetic: bool
    package_version: str
    created_at: str
    sha256: str
    bytes: int | None = None  # None in version 2 manifests (written before sizes were recorded)


class PrunedManifest(GraphManifest):
    """``pruned/depth=K.json``: the removal counts of one pruning (``PruneResult.summary``)."""

    kind: Literal["graphniah.pruned"] = "graphniah.pruned"
    depth: int
    path_length: int
    papers_total: int
    papers_excluded_metadata_or_not_allowed: int
    papers_in: int
    papers_kept: int
    removed_small_components: int
    removed_by_bound: int
    seconds: float | None = None


class PoolManifest(GraphManifest):
    """``paths/depth=K.json``: how a path pool was sampled and what sampling saw."""

    kind: Literal["graphniah.path_pool"] = "graphniah.path_pool"
    depth: int
    path_length: int
    path_kind: str | None = None  # absent in pools written before induced paths: never reused
    seed: int
    rng: str
    requested: int
    found: int
    complete: bool
    parameters: dict[str, int]
    stats: dict[str, Any]
    pruning: dict[str, int] | None = None


M = TypeVar("M", bound=GraphManifest)

_FORMATS: dict[type[GraphManifest], Format] = {
    model: Format(what, 3, {1: add_version(2), 2: add_version(3)}, hint=f"rebuild it with graphniah {cmd} (or make refresh)")
    for model, what, cmd in ((PrunedManifest, "pruned-set manifest", "prune"), (PoolManifest, "path pool manifest", "paths"))
}


def read_graph_manifest(model: type[M], path: Path) -> M:
    """A pruned-set or pool manifest through its model; errors name the file and say how to rebuild."""
    return _FORMATS[model].read_file(model, path)


def write_graph_manifest(path: Path, manifest: GraphManifest) -> None:
    write_json(path, manifest.model_dump(mode="json", exclude_none=True))


def read_checked_manifest(snapshot: Snapshot, parquet: Path, what: str, model: type[M]) -> M:
    """The manifest of ``parquet`` if both are complete and made from this snapshot, else an error that
    names the file and the command (``what``) that rebuilds it."""
    man = layout.graph_manifest(parquet)
    if not man.is_file() or not parquet.is_file():
        raise GraphNIAHError(f"{parquet} (or its manifest) does not exist: run `graphniah {what} --snapshot {snapshot.path}`")
    m = read_graph_manifest(model, man)
    if m.snapshot_hash != snapshot.content_hash:
        raise GraphNIAHError(f"{parquet} was made from another snapshot (hash {m.snapshot_hash!r}); rebuild it with `graphniah {what}`")
    check_artifact(parquet, m.sha256, m.bytes, f"graphniah {what} --snapshot {snapshot.path}")
    return m


def read_pruned(snapshot: Snapshot, depth: int) -> npt.NDArray[np.int64]:
    """Corpus ids kept for ``depth`` (checked against the snapshot hash and the file's sha256)."""
    target = layout.pruned_file(snapshot.path, depth)
    read_checked_manifest(snapshot, target, "prune", PrunedManifest)
    return np.asarray(pq.read_table(target, columns=["corpusid"]).column("corpusid"), dtype=np.int64)


def read_pool(snapshot: Snapshot, depth: int) -> tuple[PoolManifest, npt.NDArray[np.int64]]:
    """The pool of ``depth``: its manifest and its paths as corpus ids, one row per path (checked against
    the snapshot hash and the file's sha256; every path must have the manifest's length)."""
    target = layout.pool_file(snapshot.path, depth)
    m = read_checked_manifest(snapshot, target, "paths", PoolManifest)
    length = m.path_length
    col = pq.read_table(target, columns=["path"]).column("path").combine_chunks()
    values = np.asarray(col.flatten(), dtype=np.int64)
    if values.size != len(col) * length or np.any(np.diff(np.asarray(col.offsets)) != length):
        raise GraphNIAHError(f"{target}: every path must have {length} papers")
    return m, values.reshape(len(col), length)
