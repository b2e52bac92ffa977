"""``graphniah-manifest.json``: what a dataset folder holds and the hashes that prove it unchanged.

Format: ``format_version`` 2, read through :data:`DATASET_MANIFEST_FORMAT` (``graphniah.formats``), so
a manifest of another version is refused by name, never misread. Version 2 is the first whose data
files hold examples of format version 3 (the ``list`` task; ``stats`` with ``evidence_tokens`` and
``hops_needed``); a version-1 folder's Parquet schema is not this one and cannot be upgraded in
place, so it is refused with the hint to export the suite again. The manifest lists every other file
of the folder (the card and the Parquet files) with its size and sha256, and the sha256 of the examples file the dataset was exported from. It is written last,
inside the staging folder that is renamed into place, so a folder with a manifest is complete.
:func:`check_files` is the tamper check: a file whose bytes changed, a missing file, or a file the
manifest does not list (an extra ``data/*.parquet`` would silently join the ``all`` config) is
reported by name. The manifest holds no timestamps and no local paths, so exporting the same
examples twice writes the same bytes.
"""

from __future__ import annotations

import datetime as dt
import json
import os
from pathlib import Path
from typing import Any, Literal

from pydantic import Field

from graphniah.atomic import artifact_problem, sha256_file
from graphniah.errors import GraphNIAHError
from graphniah.formats import Format, Frozen
from graphniah.layout import DATASET_CARD as CARD_FILE
from graphniah.layout import DATASET_DATA_DIR as DATA_DIR
from graphniah.layout import DATASET_MANIFEST as MANIFEST_FILE


class FileEntry(Frozen):
    """One file of the folder, by its path relative to the folder (POSIX separators)."""

    path: str
    bytes: int = Field(ge=0)
    sha256: str
    rows: int | None = None  # Parquet files: their number of examples
    task: str | None = None  # Parquet files: the task of their rows


class SourceExamples(Frozen):
    """The examples file the dataset was exported from (a rebuild from the rows has this hash)."""

    file: str  # its name only: a path would differ between machines
    bytes: int = Field(ge=0)
    sha256: str
    count: int = Field(ge=1)
    #: sha256 of the examples serialised by the ``Example`` model, one line each: what rebuilding the
    #: file from the rows gives. Equal to ``sha256`` for a file graphniah wrote with the same model.
    canonical_sha256: str


class SnapshotInfo(Frozen):
    """A snapshot the examples were sampled from: the facts the cutoff guard and the card need."""

    snapshot_hash: str
    release_id: str
    cutoff: dt.date
    synthetic: bool
    source: str = "s2ag"  # the snapshot's data source (``graphniah.formats.snapshot.source_name``): s2ag or openalex


class DatasetManifest(Frozen):
    """``graphniah-manifest.json``. Format: ``format_version`` 2 (version 1 is refused: see the module docstring)."""

    format_version: Literal[2] = 2
    suite: str
    examples: SourceExamples
    snapshots: tuple[SnapshotInfo, ...]
    synthetic: bool
    generator_versions: tuple[str, ...]
    seeds: tuple[int, ...]
    tasks: dict[str, int]
    files: tuple[FileEntry, ...]
    suite_manifest: dict[str, Any] | None = None  # the suite manifest (``graphniah build``), snapshot path cut to release/cutoff

    @property
    def cutoffs(self) -> dict[str, dt.date]:
        """``{snapshot_hash: cutoff}``: what ``graphniah.run.check_cutoff`` takes."""
        return {s.snapshot_hash: s.cutoff for s in self.snapshots}

    def data_files(self) -> list[FileEntry]:
        return [f for f in self.files if f.path.startswith(f"{DATA_DIR}/")]


def file_entry(root: Path, path: Path, sha256: str | None = None, **extra: Any) -> FileEntry:
    """The entry of ``path`` (under ``root``); ``sha256`` when the file's writer already hashed it."""
    return FileEntry(path=path.relative_to(root).as_posix(), bytes=path.stat().st_size, sha256=sha256 or sha256_file(path), **extra)


def manifest_json(manifest: DatasetManifest) -> str:
    """Indented, key-sorted JSON with a final newline (stable bytes for identical content)."""
    return json.dumps(manifest.model_dump(mode="json"), indent=2, sort_keys=True, ensure_ascii=False) + "\n"


DATASET_MANIFEST_FORMAT = Format("dataset manifest", 2, hint="export the suite again with graphniah export")


def read_manifest(folder: str | os.PathLike[str]) -> DatasetManifest:
    """The manifest of a dataset folder; a folder without a valid one is not a GraphNIAH dataset."""
    path = Path(folder) / MANIFEST_FILE
    if not path.is_file():
        raise GraphNIAHError(f"{folder} is not a GraphNIAH dataset folder: it has no {MANIFEST_FILE} (graphniah export writes one)")
    return DATASET_MANIFEST_FORMAT.read_file(DatasetManifest, path)


def check_files(folder: str | os.PathLike[str], manifest: DatasetManifest | None = None) -> list[str]:
    """Problems with the folder's files against its manifest (empty when every byte is as exported).

    Every listed file is hashed in full (a changed byte anywhere is found, whatever its size), and
    the folder is walked for files the manifest does not list. Hidden files and folders (``.git``,
    ``.cache`` of a hub checkout) are not part of the dataset and are skipped, and so is Python's
    bytecode cache (``__pycache__``: lm-eval imports the ``lm_eval/utils.py`` of the folder).
    """
    root = Path(folder)
    manifest = manifest or read_manifest(root)
    problems = []
    listed = {f.path for f in manifest.files} | {MANIFEST_FILE}
    for f in manifest.files:
        p = root / f.path
        if not p.is_file():
            problems.append(f"{f.path}: missing")
        elif (problem := artifact_problem(p, f.sha256, f.bytes)) is not None:
            problems.append(f"{f.path}: changed or damaged after it was written ({problem})")
    for p in sorted(root.rglob("*")):
        rel = p.relative_to(root)
        if p.is_file() and not any(part.startswith(".") or part == "__pycache__" for part in rel.parts) and rel.as_posix() not in listed:
            problems.append(f"{rel.as_posix()}: not listed in the manifest")
    return problems


def require_intact(folder: str | os.PathLike[str], manifest: DatasetManifest | None = None) -> DatasetManifest:
    """The manifest, after :func:`check_files` found nothing; otherwise an error listing every problem."""
    manifest = manifest or read_manifest(folder)
    problems = check_files(folder, manifest)
    if problems:
        raise GraphNIAHError(f"dataset {folder} does not match its manifest: " + "; ".join(problems)
                             + f"; export it again with `graphniah export --suite {manifest.suite} --out {folder}`")
    return manifest


__all__ = [
    "CARD_FILE",
    "DatasetManifest",
    "FileEntry",
    "SnapshotInfo",
    "SourceExamples",
    "check_files",
    "file_entry",
    "manifest_json",
    "read_manifest",
    "require_intact",
]
