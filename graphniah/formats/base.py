"""What every file format of :mod:`graphniah.formats` shares: the typed record's base (:class:`Frozen`),
the versioned format with its upgrades and seal (:class:`Format`), and a file's recorded hash
(:class:`ArtifactHash`).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, ValidationError

from graphniah.atomic import canonical_json, sha256_bytes
from graphniah.errors import GraphNIAHError, validation_detail

__all__ = ["ArtifactHash", "Format", "Frozen", "Upgrade", "add_version"]

class Frozen(BaseModel):
    """The base of every typed record: immutable, and an unknown field is an error (never ignored)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    def to_json(self) -> dict[str, Any]:
        """The record as plain JSON values (dates as ISO strings, tuples as lists)."""
        return self.model_dump(mode="json")


class ArtifactHash(Frozen):
    """What a manifest records of a file beside it, so a reader can check it before trusting it
    (:func:`graphniah.atomic.check_artifact`): its sha256 and its size in bytes."""

    sha256: str
    bytes: int


Upgrade = Callable[[dict[str, Any]], dict[str, Any]]
M = TypeVar("M", bound=BaseModel)


class Format:
    """One versioned file format: its name, the version written today, and upgrades of older ones.

    ``upgrades[v]`` turns a parsed object of version ``v`` into one of version ``v + 1`` (the chain
    is applied until ``current``); it is given a copy and returns the object with ``format_version``
    set. ``hint`` is appended to the error for a version that cannot be read (what to do about it).
    ``version_key`` names the version field of a format that calls it something else (the release
    store's state says ``schema_version``). ``seal_key`` names a field that holds the sha256 of the
    rest of the object (:meth:`seal`): a file that holds one is checked against it before anything
    else, so a changed byte that still parses is not read as data; the seal is then dropped (the
    model has no field for it).
    """

    def __init__(self, what: str, current: int, upgrades: Mapping[int, Upgrade] | None = None, hint: str = "",
                 version_key: str = "format_version", seal_key: str | None = None):
        self.what = what
        self.current = current
        self.upgrades = dict(upgrades or {})
        self.hint = hint
        self.version_key = version_key
        self.seal_key = seal_key

    def seal(self, obj: Mapping[str, Any]) -> dict[str, Any]:
        """``obj`` with its seal: the sha256 of its canonical JSON without the seal field."""
        assert self.seal_key is not None
        rest = {k: v for k, v in obj.items() if k != self.seal_key}
        return rest | {self.seal_key: _sha256_json(rest)}

    def _unsealed(self, obj: Any, where: str) -> Any:
        """``obj`` without its seal, after checking it (an object without one is returned as it is)."""
        if self.seal_key is None or not isinstance(obj, dict) or self.seal_key not in obj:
            return obj
        rest = {k: v for k, v in obj.items() if k != self.seal_key}
        if obj[self.seal_key] != _sha256_json(rest):
            raise GraphNIAHError(f"{where} was changed or damaged after it was written (its {self.seal_key} differs "
                                 f"from its content){f'; {self.hint}' if self.hint else ''}")
        return rest

    @property
    def readable(self) -> tuple[int, ...]:
        """The versions this code reads: the current one and every one with an upgrade chain to it."""
        out = [self.current]
        v = self.current - 1
        while v in self.upgrades:
            out.append(v)
            v -= 1
        return tuple(sorted(out))

    def version_of(self, obj: Mapping[str, Any]) -> Any:
        return obj.get(self.version_key, 1)

    def to_current(self, obj: Any, where: str) -> dict[str, Any]:
        """``obj`` (a parsed JSON value) as an object of the current version, or a clear error."""
        if not isinstance(obj, dict):
            raise GraphNIAHError(f"{where}: a {self.what} must be a JSON object, found {type(obj).__name__}")
        found = self.version_of(obj)
        if found == self.current:
            return obj
        if type(found) is not int or found not in self.readable:
            versions = ", ".join(map(str, self.readable))
            newer = type(found) is int and found > self.current
            raise GraphNIAHError(
                f"{where}: {self.what} {self.version_key} {found!r} is not supported (this graphniah reads version"
                f"{'s' if len(self.readable) > 1 else ''} {versions})"
                + ("; it was written by a newer graphniah, upgrade the package" if newer else "")
                + (f"; {self.hint}" if self.hint and not newer else "")
            )
        out = dict(obj)
        for v in range(found, self.current):
            out = self.upgrades[v](out)
        return out

    def fast_prefix(self) -> bytes:
        """How a compact JSON line of the current version starts when ``format_version`` is the model's
        first field: such a line can go straight to ``model_validate_json`` (no second parse)."""
        return b'{"format_version":%d,' % self.current

    def parse_json(self, text: str | bytes, where: str) -> dict[str, Any]:
        """Parse one JSON document (a file or one line) and bring it to the current version."""
        try:
            obj = json.loads(text)
        except json.JSONDecodeError as err:
            raise GraphNIAHError(f"{where}: not JSON ({err.msg} at line {err.lineno} column {err.colno})") from None
        except UnicodeDecodeError as err:  # json.loads of bytes decodes them first
            raise GraphNIAHError(f"{where}: not UTF-8 ({err.reason} at byte {err.start})") from None
        return self.to_current(self._unsealed(obj, where), where)

    def read_file(self, model: type[M], path: str | os.PathLike[str]) -> M:
        """A whole JSON file of this format as ``model``; every problem is a ``GraphNIAHError`` naming the
        file (and, for a shape that does not validate, the field and what to do: ``hint``)."""
        p = Path(path)
        try:
            text = p.read_bytes()
        except OSError as err:
            raise GraphNIAHError(f"cannot read {self.what} {p}: {err.strerror}") from None
        return self.read_text(model, text, str(p))

    def read_text(self, model: type[M], text: str | bytes, where: str) -> M:
        """One JSON document of this format (a file's text, a line, a database cell) as ``model``;
        every problem is a ``GraphNIAHError`` starting with ``where``."""
        try:
            return model.model_validate(self.parse_json(text, where))
        except ValidationError as err:
            raise GraphNIAHError(f"{where}: not a valid {self.what} ({validation_detail(err)})"
                                 + (f"; {self.hint}" if self.hint else "")) from None


def _sha256_json(obj: object) -> str:
    """sha256 of ``obj`` as canonical JSON (sorted keys, no spaces): what a seal is taken over."""
    return sha256_bytes(canonical_json(obj).encode())


def add_version(version: int) -> Upgrade:
    """The upgrade of a format whose next version only adds the ``format_version`` field."""

    def upgrade(obj: dict[str, Any]) -> dict[str, Any]:
        return {"format_version": version} | {k: v for k, v in obj.items() if k != "format_version"}

    return upgrade
