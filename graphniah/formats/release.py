"""``release.json``, ``diff.json`` and ``openalex.json``: what a release or diff folder says about itself.

A release folder (``<root>/releases/<release_id>/``) or a diff folder (``<root>/diffs/<from>_to_<to>/``)
holds gzip shards per dataset and, when this project wrote it, a descriptor: :class:`ReleaseDescriptor`
(``release.json``) or :class:`DiffDescriptor` (``diff.json``). Two writers make them:
``graphniah s2ag download``/``diffs`` (``graphniah.ingest.s2ag.api``), which writes the descriptor last
so that it marks a complete download, and the demo generator (``graphniah.ingest.demo_release``),
which marks its releases ``synthetic``. The ingest reader takes the release id (or the from/to ids)
from it; a folder fetched with S2's own scripts has none (the id then comes from an option or from the
folder's name). Each writer sets its own fields; a descriptor is written with exactly the fields its
writer set (:func:`write_descriptor`), as indented, key-sorted JSON.

An OpenAlex folder written by this project (``graphniah openalex fetch``, or the demo world in
OpenAlex form) holds :class:`OpenAlexDescriptor` (``openalex.json``) for the same purpose.

**Format.** Version 1, without a ``format_version`` field (the object as first written). A descriptor
that is not a JSON object, lacks its ids, or does not validate is an error naming the file.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, TypeVar

from pydantic import Field, ValidationError

from graphniah.atomic import read_json, write_json
from graphniah.errors import GraphNIAHError, validation_detail
from graphniah.formats.base import Format, Frozen

__all__ = [
    "DIFF_FILE",
    "RELEASE_FILE",
    "DiffDescriptor",
    "OpenAlexDescriptor",
    "ReleaseDescriptor",
    "read_diff_descriptor",
    "read_openalex_descriptor",
    "read_release_descriptor",
    "write_descriptor",
]

#: The descriptor of a release folder, and of a diff folder.
RELEASE_FILE = "release.json"
DIFF_FILE = "diff.json"


class _Descriptor(Frozen):
    """The fields both descriptors share; every field but the ids is set by one writer only."""

    synthetic: bool = False  # a demo release (the generator), never real S2AG data
    # graphniah s2ag download / diffs
    source: str | None = None  # "s2ag-datasets-api"
    api_base: str | None = None  # the API's base URL, without credentials
    #: per dataset, the download's ``{"description", "files"}`` (a release) or ``{"update_files",
    #: "delete_files"}`` (a diff), each file ``{"name", "bytes"}``; or the demo generator's shards
    datasets: dict[str, dict[str, Any]] | None = None
    missing_datasets: tuple[str, ...] | None = None  # optional datasets the release did not offer
    downloaded_at: str | None = None  # ISO time, UTC
    graphniah_version: str | None = None
    # the demo generator
    note: str | None = None
    generator: str | None = None
    generator_version: str | None = None
    seed: int | None = None
    format: str | None = None  # the S2AG record format rendered: "current" or "legacy"


class ReleaseDescriptor(_Descriptor):
    """``release.json``."""

    release_id: str = Field(min_length=1)
    # the demo generator
    world_version: int | None = None  # the version of the synthetic world (absent: made before it was recorded)
    papers: int | None = None  # papers in this release
    papers_newest_release: int | None = None
    releases_in_set: tuple[str, ...] | None = None
    cutoff_used_for_design: str | None = None


class DiffDescriptor(_Descriptor):
    """``diff.json``: one step between consecutive releases."""

    from_release: str = Field(min_length=1)
    to_release: str = Field(min_length=1)


class OpenAlexDescriptor(Frozen):
    """``openalex.json``: an OpenAlex folder's release id (the API fetch, or the synthetic demo world)."""

    release_id: str = Field(min_length=1)
    synthetic: bool = False
    generator_version: str | None = None
    # graphniah openalex fetch
    source: str | None = None  # "openalex-api"
    filter: str | None = None  # the works filter fetched
    fetched: str | None = None  # the partition date (ISO) the fetch stands for
    # the demo world in OpenAlex form
    note: str | None = None
    format: str | None = None
    layout: str | None = None  # "jsonl" or "parquet"
    generator: str | None = None
    seed: int | None = None
    world_version: int | None = None
    papers_newest_release: int | None = None
    partitions: tuple[str, ...] | None = None
    works_records: int | None = None
    merged: int | None = None  # works merged away (listed under merged_ids)


D = TypeVar("D", bound=Frozen)

RELEASE_FORMAT = Format("release descriptor", 1)
DIFF_FORMAT = Format("diff descriptor", 1)
OPENALEX_FORMAT = Format("OpenAlex descriptor", 1)


def _read(model: type[D], form: Format, path: Path, ids: tuple[str, ...]) -> D:
    """``path`` as ``model``; its ids are checked first, so a descriptor without one says which."""
    try:
        obj = read_json(path)
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise GraphNIAHError(f"{path} is not valid JSON: {e}") from None
    if not isinstance(obj, dict):
        raise GraphNIAHError(f"{path} must hold a JSON object, not {type(obj).__name__}")
    for key in ids:
        value = obj.get(key)
        if not isinstance(value, str) or not value:
            raise GraphNIAHError(f"{path}: field {key!r} must be a non-empty string, got {value!r}")
    try:
        return model.model_validate(form.to_current(obj, str(path)))
    except ValidationError as err:
        raise GraphNIAHError(f"{path}: not a valid {form.what} ({validation_detail(err)})") from None


def read_release_descriptor(path: str | os.PathLike[str]) -> ReleaseDescriptor:
    """The ``release.json`` at ``path``; an error naming the file when it is not one."""
    return _read(ReleaseDescriptor, RELEASE_FORMAT, Path(path), ("release_id",))


def read_diff_descriptor(path: str | os.PathLike[str]) -> DiffDescriptor:
    """The ``diff.json`` at ``path``; an error naming the file when it is not one."""
    return _read(DiffDescriptor, DIFF_FORMAT, Path(path), ("from_release", "to_release"))


def read_openalex_descriptor(path: str | os.PathLike[str]) -> OpenAlexDescriptor:
    """The ``openalex.json`` at ``path``; an error naming the file when it is not one."""
    return _read(OpenAlexDescriptor, OPENALEX_FORMAT, Path(path), ("release_id",))


def write_descriptor(path: str | os.PathLike[str], descriptor: ReleaseDescriptor | DiffDescriptor | OpenAlexDescriptor) -> None:
    """Write ``descriptor`` atomically with the fields its writer set, as indented, key-sorted JSON."""
    write_json(path, descriptor.model_dump(mode="json", exclude_unset=True))
