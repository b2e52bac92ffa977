"""What a suite manifest records of its examples file, read without the suite's models.

Every reader of an examples file checks it first against the sha256 and size its suite manifest
records (``examples_file``, suite manifest format 4 on). That check lives here, beside the suite
manifest's :class:`~graphniah.formats.base.Format`, so that the examples module reads it without
importing the suite module (which imports the examples module for its recipes). The manifest's
model and its versions are described in :mod:`graphniah.formats.suites`.
"""

from __future__ import annotations

import os
from pathlib import Path

from pydantic import ValidationError

from graphniah.errors import GraphNIAHError, validation_detail
from graphniah.formats.base import ArtifactHash, Format, add_version

__all__ = ["SUITE_MANIFEST_FORMAT", "recorded_examples_file"]

SUITE_MANIFEST_FORMAT = Format("suite manifest", 4, {1: add_version(2), 2: add_version(3), 3: add_version(4)},
                               hint="build the suite again with graphniah build", seal_key="content_sha256")


# The examples-file records of the suite manifests this process has read, by the manifest's stat.
_RECORDED: dict[tuple[str, int, int, int, int], tuple[ArtifactHash, str] | None] = {}


def recorded_examples_file(manifest: Path) -> tuple[ArtifactHash, str] | None:
    """What the suite manifest ``manifest`` records of its examples file, and the command that builds
    it again; None when there is no manifest or it records nothing (format 3 and older).

    Only the fields needed are taken from the JSON (a suite manifest holds every example's recipe,
    which a reader of the examples file does not need validated); a manifest is read once per process
    while it is unchanged. One that is not JSON, or records a malformed hash, is an error naming it.
    """
    try:
        st = os.stat(manifest)
    except OSError:
        return None
    key = (str(manifest), st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)
    if key not in _RECORDED:
        obj = SUITE_MANIFEST_FORMAT.parse_json(Path(manifest).read_bytes(), str(manifest))
        rec, spec = obj.get("examples_file"), obj.get("suite")
        name = spec.get("name") if isinstance(spec, dict) else None
        try:
            recorded = None if rec is None else ArtifactHash.model_validate(rec)
        except ValidationError as err:
            raise GraphNIAHError(f"{manifest}: not a valid suite manifest (examples_file: {validation_detail(err)}); "
                                 f"{SUITE_MANIFEST_FORMAT.hint}") from None
        rebuild = f"graphniah build --suite {name} --seed {obj.get('seed')} --out {Path(manifest).parent}"
        _RECORDED[key] = None if recorded is None else (recorded, rebuild)
    return _RECORDED[key]
