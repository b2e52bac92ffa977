"""The release store's state: which S2AG release a store holds and every file it was built from.

The release store (:mod:`graphniah.ingest.s2ag.store`) keeps one :class:`StoreState` as JSON in its
``store_meta`` table (key ``state``), written in the same transaction as the rows it describes. The
snapshot built from a store records :meth:`StoreState.all_inputs`, which is how ``refresh`` tells
whether a snapshot is current.

**Format.** Versioned by its ``schema_version`` field, which also versions the store's tables:
currently 2 (papers keep ``fields_of_study``). A state of another version — version 1 included,
whose tables lack that column — is an error naming the store and saying to load a release again.
Fields added within a version have defaults, so a state written before them reads as those defaults.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from graphniah.formats.base import Format, Frozen

__all__ = ["ID_FROM_DESCRIPTOR", "STORE_STATE_FORMAT", "AppliedDiff", "LoadedRelease", "StoreState", "StoredInput"]

#: Where a release id came from when the release folder's own descriptor (release.json/diff.json) gave it.
ID_FROM_DESCRIPTOR = "descriptor"


class StoredInput(Frozen):
    """One verified input shard: its dataset, role, relative path, size in bytes and sha256."""

    dataset: str
    role: Literal["release", "update", "delete"]
    path: str
    size: int = Field(ge=0)
    sha256: str


class LoadedRelease(Frozen):
    """The full release a store was loaded from."""

    release_id: str
    synthetic: bool
    path: str
    inputs: tuple[StoredInput, ...]
    loaded_at: str
    release_id_from: str = ID_FROM_DESCRIPTOR  # read.ID_FROM_*: release.json, option or folder name


class AppliedDiff(Frozen):
    """One diff applied to a store."""

    from_release: str
    to_release: str
    synthetic: bool
    path: str
    inputs: tuple[StoredInput, ...]
    applied_at: str
    release_ids_from: str = ID_FROM_DESCRIPTOR  # read.ID_FROM_*: diff.json, options or folder name


class StoreState(Frozen):
    """What the store holds: its current release id and how it got there."""

    schema_version: Literal[2] = 2
    base: LoadedRelease
    diffs: tuple[AppliedDiff, ...]

    @property
    def release_id(self) -> str:
        return self.diffs[-1].to_release if self.diffs else self.base.release_id

    @property
    def synthetic(self) -> bool:
        return self.base.synthetic or any(d.synthetic for d in self.diffs)

    def all_inputs(self) -> list[dict[str, Any]]:
        """Every file the current contents were built from (base release first, then each diff)."""
        out = [dict(i.to_json(), origin=self.base.release_id) for i in self.base.inputs]
        for d in self.diffs:
            out += [dict(i.to_json(), origin=f"{d.from_release}_to_{d.to_release}") for i in d.inputs]
        return out


STORE_STATE_FORMAT = Format("release store state", 2, hint="delete the store and load a release again",
                            version_key="schema_version")
