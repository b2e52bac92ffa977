"""The on-disk layout of raw S2AG release and diff folders: dataset names, release ids, shard lists.

Layout (shared with the demo generator and the API downloader)::

    <release_dir>/release.json                 {"release_id": ..., "synthetic": ...} (optional; graphniah.formats.release)
    <release_dir>/<dataset>/*.gz               gzip JSON-lines shards, any file names
    <diff_dir>/diff.json                       {"from_release": ..., "to_release": ..., "synthetic": ...} (optional)
    <diff_dir>/<dataset>/update_files/*.gz     complete new records (upserted by primary key)
    <diff_dir>/<dataset>/delete_files/*.gz     objects holding at least the primary key

The descriptors are written by this project's downloader and demo generator. A release fetched
with S2's own scripts has only the dataset folders: its id then comes from an option or from the
folder name (``read_release_info``, ``read_diff_info``). The shards are read by
:mod:`graphniah.ingest.s2ag.read`, with the queries of :mod:`graphniah.ingest.s2ag.sql`.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from graphniah.errors import GraphNIAHError
from graphniah.formats.release import DIFF_FILE, RELEASE_FILE, read_diff_descriptor, read_release_descriptor

PAPERS = "papers"
CITATIONS = "citations"
VENUES = "publication-venues"
AUTHORS = "authors"
DATASETS = (PAPERS, CITATIONS, VENUES, AUTHORS)
REQUIRED_DATASETS = (PAPERS, CITATIONS)
# Datasets the snapshot needs (authors are embedded in paper records, so the authors dataset is not read).
READ_DATASETS = (PAPERS, CITATIONS, VENUES)
UPDATE_FILES = "update_files"
DELETE_FILES = "delete_files"

Role = Literal["release", "update", "delete"]


# Where a release id came from (recorded in manifests and the store's provenance).
ID_FROM_DESCRIPTOR = "descriptor"  # release.json / diff.json written by this project's downloader
ID_FROM_OPTION = "option"  # --release-id, --from-release/--to-release (release_id=, from_release=/to_release=)
ID_FROM_FOLDER_NAME = "folder_name"  # the folder is named like a release id (or <from>_to_<to>)

# S2AG release ids are dates; a folder named like one (``2026-11-25``) names its release.
_RELEASE_ID_NAME = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
_DIFF_NAME = re.compile(r"(?P<a>[0-9]{4}-[0-9]{2}-[0-9]{2})_to_(?P<b>[0-9]{4}-[0-9]{2}-[0-9]{2})")
# Ids given as options end up in folder names (snapshots/<release>/…): no separators or spaces.
_SAFE_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")


@dataclass(frozen=True)
class ReleaseInfo:
    """A release folder's id, whether it is synthetic, and where the id came from (``ID_FROM_*``)."""

    release_id: str
    synthetic: bool
    path: Path
    release_id_from: str = ID_FROM_DESCRIPTOR


@dataclass(frozen=True)
class DiffInfo:
    """A diff folder (one step between consecutive releases): from/to ids and where they came from."""

    from_release: str
    to_release: str
    synthetic: bool
    path: Path
    release_ids_from: str = ID_FROM_DESCRIPTOR

    @property
    def name(self) -> str:
        return f"{self.from_release}_to_{self.to_release}"


def _is_date_id(name: str) -> bool:
    if not _RELEASE_ID_NAME.fullmatch(name):
        return False
    try:
        dt.date.fromisoformat(name)
    except ValueError:
        return False
    return True


def _option_id(value: str, option: str) -> str:
    if not _SAFE_ID.fullmatch(value):
        raise GraphNIAHError(f"{option} {value!r} is not a usable release id: use letters, digits, '.', '_' or '-' (e.g. 2026-11-25)")
    return value


def _require_dir(folder: Path, what: str) -> None:
    if not folder.is_dir():
        raise GraphNIAHError(f"{what} folder {folder} does not exist")


def _refuse_unfinished_download(folder: Path, pattern: str, marker: str) -> None:
    """Without a descriptor, a folder holding a downloader's ``.part`` files is a download that
    stopped half-way (``graphniah s2ag download`` writes the descriptor last): never read it."""
    part = next(iter(sorted(folder.glob(pattern))), None)
    if part is not None:
        raise GraphNIAHError(
            f"{folder} looks like an unfinished download: it has no {marker} but holds the partial file {part}; "
            "run the download again to finish it (`graphniah s2ag download` / `graphniah s2ag diffs`)"
        )


def read_release_info(release_dir: Path, release_id: str | None = None) -> ReleaseInfo:
    """The id of a release folder: from its ``release.json`` (this project's downloader and demo
    generator write one), else from ``release_id`` (``--release-id``), else from the folder's name
    when that is a release id (``2026-11-25``) — a release fetched with S2's own scripts is just
    the dataset folders. A ``release_id`` that contradicts ``release.json`` is an error; so is a
    folder whose id cannot be determined (the message says which option to pass). Releases
    without a descriptor are real S2AG data (``synthetic`` False).
    """
    release_dir = Path(release_dir)
    _require_dir(release_dir, "release")
    path = release_dir / RELEASE_FILE
    if path.is_file():
        desc = read_release_descriptor(path)
        rid = desc.release_id
        if release_id is not None and release_id != rid:
            raise GraphNIAHError(f"--release-id {release_id} contradicts {path}, which names release {rid}; drop the option or fix the folder")
        return ReleaseInfo(rid, desc.synthetic, release_dir, ID_FROM_DESCRIPTOR)
    _refuse_unfinished_download(release_dir, "*/*.part", RELEASE_FILE)
    if release_id is not None:
        return ReleaseInfo(_option_id(release_id, "--release-id"), False, release_dir, ID_FROM_OPTION)
    name = release_dir.resolve().name
    if _is_date_id(name):
        return ReleaseInfo(name, False, release_dir, ID_FROM_FOLDER_NAME)
    raise GraphNIAHError(
        f"cannot tell which S2AG release {release_dir} holds: it has no {RELEASE_FILE} and its name "
        f"{name!r} is not a release id (a date such as 2026-11-25); pass --release-id "
        "RELEASE_ID (release_id=...), or rename the folder to its release id"
    )


def read_diff_info(diff_dir: Path, from_release: str | None = None, to_release: str | None = None) -> DiffInfo:
    """The from/to ids of a diff folder: from its ``diff.json``, else from ``from_release`` and
    ``to_release`` (``--from-release/--to-release``, both), else from a folder named
    ``<from>_to_<to>`` with two release ids; otherwise an error that names the options.
    """
    diff_dir = Path(diff_dir)
    _require_dir(diff_dir, "diff")
    given = (from_release, to_release)
    if (from_release is None) != (to_release is None):
        raise GraphNIAHError(f"diff {diff_dir}: pass both --from-release and --to-release (got only {'--from-release' if from_release else '--to-release'})")
    path = diff_dir / DIFF_FILE
    if path.is_file():
        diff = read_diff_descriptor(path)
        ids = (diff.from_release, diff.to_release)
        if from_release is not None and given != ids:
            raise GraphNIAHError(f"--from-release/--to-release {from_release} → {to_release} contradict {path}, which says {ids[0]} → {ids[1]}")
        return DiffInfo(*ids, diff.synthetic, diff_dir, ID_FROM_DESCRIPTOR)
    _refuse_unfinished_download(diff_dir, "*/*/*.part", DIFF_FILE)
    if from_release is not None and to_release is not None:
        a, b = _option_id(from_release, "--from-release"), _option_id(to_release, "--to-release")
        how = ID_FROM_OPTION
    elif (m := _DIFF_NAME.fullmatch(diff_dir.resolve().name)) and _is_date_id(m["a"]) and _is_date_id(m["b"]):
        a, b, how = m["a"], m["b"], ID_FROM_FOLDER_NAME
    else:
        raise GraphNIAHError(
            f"cannot tell which releases diff {diff_dir} goes between: it has no {DIFF_FILE} and its name "
            f"{diff_dir.resolve().name!r} is not <from>_to_<to> (e.g. 2026-11-18_to_2026-11-25); pass --from-release "
            "FROM --to-release TO (from_release=..., to_release=...)"
        )
    if a == b:
        raise GraphNIAHError(f"diff {diff_dir} goes from release {a} to itself; check --from-release/--to-release")
    return DiffInfo(a, b, False, diff_dir, how)


def shard_files(folder: Path) -> tuple[Path, ...]:
    """The gzip shards of one dataset folder, in name order (``*.gz`` covers ``*.jsonl.gz`` too).

    Hidden files (``.name``, e.g. a downloader's temporary file) are not shards.
    """
    return tuple(sorted(p for p in Path(folder).glob("*.gz") if p.is_file() and not p.name.startswith(".")))


@dataclass(frozen=True)
class Source:
    """One input shard: which dataset it belongs to, its role, and its path relative to its folder."""

    dataset: str
    role: Role
    path: Path
    relpath: str


@dataclass(frozen=True)
class InputFile:
    """A verified input shard as recorded in manifests: relative path, size in bytes, sha256."""

    dataset: str
    role: Role
    path: str
    size: int
    sha256: str

    def to_json(self) -> dict[str, Any]:
        return {"dataset": self.dataset, "role": self.role, "path": self.path, "size": self.size, "sha256": self.sha256}


def release_sources(release_dir: Path) -> dict[str, tuple[Source, ...]]:
    """Shards of each dataset the snapshot reads; ``papers`` and ``citations`` must be present and non-empty."""
    release_dir = Path(release_dir)
    out: dict[str, tuple[Source, ...]] = {}
    for ds in READ_DATASETS:
        folder = release_dir / ds
        if not folder.is_dir():
            if ds in REQUIRED_DATASETS:
                raise GraphNIAHError(f"release {release_dir} has no {ds}/ dataset folder (expected {folder}/*.gz)")
            out[ds] = ()
            continue
        files = shard_files(folder)
        if not files and ds in REQUIRED_DATASETS:
            raise GraphNIAHError(f"release {release_dir} is empty: {folder}/ holds no .gz shard files")
        out[ds] = tuple(Source(ds, "release", p, p.relative_to(release_dir).as_posix()) for p in files)
    return out


def diff_sources(diff_dir: Path) -> dict[tuple[str, Role], tuple[Source, ...]]:
    """Update and delete shards per dataset of a diff folder.

    ``papers/`` and ``citations/`` must exist (a missing one means an incomplete download); their
    ``update_files/`` or ``delete_files/`` sub-folders may be absent or empty (nothing changed).
    """
    diff_dir = Path(diff_dir)
    out: dict[tuple[str, Role], tuple[Source, ...]] = {}
    for ds in READ_DATASETS:
        folder = diff_dir / ds
        if not folder.is_dir() and ds in REQUIRED_DATASETS:
            raise GraphNIAHError(f"diff {diff_dir} has no {ds}/ dataset folder (expected {folder}/{UPDATE_FILES}/ and {DELETE_FILES}/)")
        roles: tuple[tuple[Role, str], ...] = (("update", UPDATE_FILES), ("delete", DELETE_FILES))
        for role, sub in roles:
            files = shard_files(folder / sub) if (folder / sub).is_dir() else ()
            out[(ds, role)] = tuple(Source(ds, role, p, p.relative_to(diff_dir).as_posix()) for p in files)
    return out
