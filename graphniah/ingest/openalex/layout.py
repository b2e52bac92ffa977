"""Where the works of an OpenAlex snapshot folder are, checked against the folder's manifest.

Two layouts are read (``docs/openalex.md``), found under the folder given (the one ``aws s3 sync
s3://openalex DIR`` fills, holding ``data/``):

- **older**: ``data/works/updated_date=YYYY-MM-DD/part_NNN.gz`` with ``data/works/manifest``, a
  Redshift manifest (``{"entries": [{"url": …, "meta": {"content_length": …, "record_count": …}}]}``);
- **newer**: ``data/jsonl/works/updated_date=…/part_NNNN.gz`` with ``data/jsonl/manifest.json``
  (every entity's files; only the works are read), or, where only that copy is present,
  ``data/parquet/works/…/*.parquet`` with ``data/parquet/manifest.json``.

Only the files the manifest lists are read (OpenAlex writes the manifest last, so a listed file is
complete), each must exist with the listed size, and every listed work file must lie in an
``updated_date=`` partition, whose date decides which of several records of one work wins.
Works removed or merged since are listed in ``merged_ids/works/*.csv.gz`` (under ``data/`` or,
in the newer bucket, ``legacy-data/``). ``openalex.json``, written by ``graphniah openalex fetch``
and the demo generator, names the release and says whether it is synthetic; without it the
release id is ``openalex-<newest partition date>``.
"""

from __future__ import annotations

import datetime as dt
import json
import re
import urllib.parse
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from graphniah.errors import GraphNIAHError
from graphniah.formats.release import read_openalex_descriptor

Layout = Literal["works", "jsonl", "parquet"]

DESCRIPTOR = "openalex.json"
OLD_MANIFEST = Path("data/works/manifest")
JSONL_MANIFEST = Path("data/jsonl/manifest.json")
PARQUET_MANIFEST = Path("data/parquet/manifest.json")
MERGED_FOLDERS = (Path("data/merged_ids/works"), Path("legacy-data/merged_ids/works"), Path("merged_ids/works"))
_PARTITION = re.compile(r"/works/updated_date=([0-9]{4}-[0-9]{2}-[0-9]{2})/[^/]+$")


@dataclass(frozen=True)
class Part:
    """One listed works file: where it is, its partition date, and what the manifest says of it."""

    path: Path
    relpath: str
    updated: dt.date
    listed_bytes: int | None
    listed_records: int | None


@dataclass(frozen=True)
class WorksFolder:
    """An OpenAlex snapshot folder: its layout, manifest, works files (oldest partition first),
    merged-id files, release id and where that id came from, and whether it is synthetic."""

    root: Path
    layout: Layout
    manifest: Path
    parts: tuple[Part, ...]
    merged: tuple[Path, ...]
    release_id: str
    release_id_from: str
    synthetic: bool

    @property
    def listed_records(self) -> int | None:
        """The manifest's record count of all works files (None when an entry gives none)."""
        counts = [p.listed_records for p in self.parts]
        return None if any(c is None for c in counts) else sum(c for c in counts if c is not None)

    def partitions(self) -> list[tuple[dt.date, tuple[Part, ...]]]:
        """The parts grouped by partition date, oldest first."""
        dates = sorted({p.updated for p in self.parts})
        return [(d, tuple(p for p in self.parts if p.updated == d)) for d in dates]


def _line_of(text: str, needle: str) -> int:
    at = text.find(needle)
    return text.count("\n", 0, at) + 1 if at >= 0 else 1


def _entries(obj: Any) -> Iterator[dict[str, Any]]:
    """Every object with a string ``url`` anywhere in a manifest (the Redshift ``entries`` list, or
    the newer combined manifest's lists per entity)."""
    if isinstance(obj, dict):
        if isinstance(obj.get("url"), str):
            yield obj
        for v in obj.values():
            yield from _entries(v)
    elif isinstance(obj, list):
        for v in obj:
            yield from _entries(v)


def _local_path(root: Path, url: str) -> str:
    """The path inside ``root`` of a manifest URL (``s3://openalex/data/…`` → ``data/…``; a relative URL stays)."""
    parts = urllib.parse.urlsplit(url)
    path = parts.path if parts.scheme else url
    return path.lstrip("/")


def _scheme(url: str) -> str:
    """The scheme of a manifest URL (``s3``, ``https``), or "" for a path."""
    return urllib.parse.urlsplit(url).scheme


def _int_or_none(v: Any) -> int | None:
    return v if isinstance(v, int) and not isinstance(v, bool) else None


def _read_manifest(root: Path, manifest: Path, layout: Layout) -> tuple[Part, ...]:
    try:
        text = manifest.read_text(encoding="utf-8")
        obj = json.loads(text)
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise GraphNIAHError(f"{manifest}: not a readable JSON manifest ({e})") from None
    suffix = ".parquet" if layout == "parquet" else ".gz"
    parts: list[Part] = []
    seen: set[str] = set()
    for entry in _entries(obj):
        url = entry["url"]
        rel = _local_path(root, url)
        if "/works/" not in f"/{rel}" or rel in seen:
            continue
        seen.add(rel)
        line = _line_of(text, url)
        m = _PARTITION.search("/" + rel)
        if m is None or not rel.endswith(suffix):
            raise GraphNIAHError(f"{manifest}, line {line}: works file {url} is not a {suffix} file in an updated_date=YYYY-MM-DD partition")
        try:
            updated = dt.date.fromisoformat(m.group(1))
        except ValueError:
            raise GraphNIAHError(f"{manifest}, line {line}: {url} names a partition date that does not exist") from None
        path = root / rel
        if not _scheme(url) and not path.is_file() and (manifest.parent / rel).is_file():
            rel = (manifest.parent / rel).relative_to(root).as_posix()  # a URL relative to the manifest's folder
            path = root / rel
        meta: dict[str, Any] = entry["meta"] if isinstance(entry.get("meta"), dict) else {}
        listed_bytes, listed_records = _int_or_none(meta.get("content_length")), _int_or_none(meta.get("record_count"))
        if not path.is_file():
            raise GraphNIAHError(f"{manifest}, line {line}: lists {url}, but {path} does not exist (download it, or sync the folder again)")
        size = path.stat().st_size
        if listed_bytes is not None and size != listed_bytes:
            raise GraphNIAHError(f"{manifest}, line {line}: {path} has {size:,} bytes, the manifest says {listed_bytes:,} (an incomplete download: fetch it again)")
        parts.append(Part(path, rel, updated, listed_bytes, listed_records))
    if not parts:
        raise GraphNIAHError(f"{manifest} lists no works files (expected entries such as s3://openalex/data/works/updated_date=2026-01-01/part_000.gz)")
    return tuple(sorted(parts, key=lambda p: (p.updated, p.relpath)))


def _find_manifest(root: Path) -> tuple[Layout, Path]:
    layouts: tuple[tuple[Layout, Path], ...] = (("jsonl", JSONL_MANIFEST), ("parquet", PARQUET_MANIFEST), ("works", OLD_MANIFEST))
    for layout, rel in layouts:
        if (root / rel).is_file():
            return layout, root / rel
    for rel, data in ((JSONL_MANIFEST, "data/jsonl/works"), (PARQUET_MANIFEST, "data/parquet/works"), (OLD_MANIFEST, "data/works")):
        if (root / data).is_dir():
            raise GraphNIAHError(
                f"{root / data} has no manifest: {root / rel} is missing (OpenAlex writes it last, so the folder is an "
                "unfinished download or sync: run it again)"
            )
    raise GraphNIAHError(
        f"{root} is not an OpenAlex snapshot folder: found neither {OLD_MANIFEST} (older layout) nor {JSONL_MANIFEST} "
        f"or {PARQUET_MANIFEST} (newer layout) under it"
    )


def open_works(root: str | Path, release_id: str | None = None) -> WorksFolder:
    """The works files of an OpenAlex snapshot folder, checked against its manifest (module docstring).

    Parameters
    ----------
    root : path
        The folder that holds ``data/`` (what ``aws s3 sync s3://openalex DIR`` or
        ``graphniah openalex fetch --out DIR`` fills).
    release_id : str, optional
        The release id when the folder has no ``openalex.json``; it must agree with one that has.

    Returns
    -------
    WorksFolder

    Raises
    ------
    GraphNIAHError
        A missing or unreadable manifest, a listed file that is missing or of another size, a
        works file outside an ``updated_date=`` partition (each error names the manifest and line).
    """
    root = Path(root)
    if not root.is_dir():
        raise GraphNIAHError(f"OpenAlex folder {root} does not exist")
    layout, manifest = _find_manifest(root)
    parts = _read_manifest(root, manifest, layout)
    merged = tuple(sorted(p for rel in MERGED_FOLDERS if (root / rel).is_dir() for p in (root / rel).glob("*.csv.gz")))
    synthetic, rid, rid_from = False, None, "newest_partition"
    if (root / DESCRIPTOR).is_file():
        desc = read_openalex_descriptor(root / DESCRIPTOR)
        if release_id is not None and release_id != desc.release_id:
            raise GraphNIAHError(f"--release-id {release_id} contradicts {root / DESCRIPTOR}, which names release {desc.release_id}")
        synthetic, rid, rid_from = desc.synthetic, desc.release_id, "descriptor"
    elif release_id is not None:
        rid, rid_from = release_id, "option"
    if rid is None:
        rid = f"openalex-{parts[-1].updated.isoformat()}"
    if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]*", rid):
        raise GraphNIAHError(f"release id {rid!r} is not usable in a folder name: use letters, digits, '.', '_' or '-'")
    return WorksFolder(root, layout, manifest, parts, merged, rid, rid_from, synthetic)


# ---------------------------------------------------------------------------------------------
# Writing the layout (graphniah openalex fetch, the demo in OpenAlex form)
# ---------------------------------------------------------------------------------------------

_WORKS_DIR: dict[str, str] = {"works": "data/works", "jsonl": "data/jsonl/works", "parquet": "data/parquet/works"}
_MANIFEST_OF: dict[str, Path] = {"works": OLD_MANIFEST, "jsonl": JSONL_MANIFEST, "parquet": PARQUET_MANIFEST}
BUCKET = "s3://openalex/"


def works_file(layout: Layout, updated: dt.date, index: int) -> str:
    """The path (inside the folder) of works file ``index`` of a partition, named as OpenAlex names them."""
    name = f"part_{index:03d}.gz" if layout == "works" else f"part_{index:04d}.{'parquet' if layout == 'parquet' else 'gz'}"
    return f"{_WORKS_DIR[layout]}/updated_date={updated.isoformat()}/{name}"


def write_manifest(root: Path, layout: Layout, files: list[tuple[str, int]]) -> Path:
    """Write the manifest of ``files`` ((path inside ``root``, records) each) in ``layout``'s form
    and place (the older layout's Redshift manifest; the newer combined one keyed by entity).
    Written atomically and last, so a folder with a manifest is complete. Returns its path."""
    from graphniah.atomic import write_json

    sizes = [(root / rel).stat().st_size for rel, _ in files]
    entries = [{"url": BUCKET + rel, "meta": {"content_length": size, "record_count": n}} for (rel, n), size in zip(files, sizes, strict=True)]
    meta = {"content_length": sum(sizes), "record_count": sum(n for _, n in files)}
    body: dict[str, Any] = {"entries": entries, "meta": meta}
    path = root / _MANIFEST_OF[layout]
    path.parent.mkdir(parents=True, exist_ok=True)
    write_json(path, body if layout == "works" else {"works": body})
    return path
