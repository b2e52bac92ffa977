"""Atomic file and folder writes, content hashes, and small JSON helpers.

Every artifact of the pipeline is written to a temporary sibling and renamed into place, so a
reader never sees a half-written file: on POSIX, ``os.replace`` within one file system is atomic.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

_CHUNK = 1 << 20


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def sha256_file(path: str | os.PathLike[str]) -> str:
    """Hex sha256 of a file's bytes, read in 1 MiB chunks."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while chunk := f.read(_CHUNK):
            h.update(chunk)
    return h.hexdigest()


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _fsync_dir(path: Path) -> None:
    with contextlib.suppress(OSError):
        fd = os.open(path, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


@contextlib.contextmanager
def atomic_path(target: str | os.PathLike[str], suffix: str = "") -> Iterator[Path]:
    """Yield a temporary path next to ``target``; on success fsync it and rename it over ``target``.

    On an exception the temporary file is removed and ``target`` is left as it was.
    """
    target = Path(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=suffix + ".tmp", dir=target.parent)
    os.fchmod(fd, 0o666 & ~_umask())  # mkstemp makes 0600; give the file the usual permissions
    os.close(fd)
    tmp_path = Path(tmp)
    try:
        yield tmp_path
        with open(tmp_path, "rb+") as f:
            os.fsync(f.fileno())
        os.replace(tmp_path, target)
        _fsync_dir(target.parent)
    except BaseException:
        tmp_path.unlink(missing_ok=True)
        raise


def atomic_write_bytes(target: str | os.PathLike[str], data: bytes) -> None:
    with atomic_path(target) as tmp:
        tmp.write_bytes(data)


def atomic_write_text(target: str | os.PathLike[str], text: str) -> None:
    atomic_write_bytes(target, text.encode("utf-8"))


def write_in_staging(target: str | os.PathLike[str], data: bytes | str) -> None:
    """Plain write of a file inside a folder being built by :func:`atomic_dir`.

    The folder is fsynced and renamed into place as a whole, so a per-file temp-and-rename
    (``atomic_write_*``) there would only sync every file twice.
    """
    target = Path(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)


def canonical_json(obj: object) -> str:
    """Deterministic JSON (sorted keys, no spaces): the form that hashes are taken over."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)


def write_json(target: str | os.PathLike[str], obj: object) -> None:
    """Write ``obj`` as indented JSON atomically."""
    atomic_write_text(target, json.dumps(obj, indent=2, sort_keys=True, ensure_ascii=False, default=str) + "\n")


def read_json(path: str | os.PathLike[str]) -> Any:
    """The parsed JSON document (``Any``, as ``json.load`` gives it: its shape is the caller's schema to check)."""
    with open(path, encoding="utf-8") as f:
        return json.load(f)


@contextlib.contextmanager
def atomic_dir(target: str | os.PathLike[str], replace: bool = False) -> Iterator[Path]:
    """Yield a fresh temporary folder next to ``target``; on success rename it to ``target``.

    If ``target`` exists, ``replace=False`` raises ``FileExistsError`` before any work is done;
    ``replace=True`` swaps the new folder in and removes the old one only afterwards, so at every
    moment ``target`` is either the complete old folder or the complete new one (never a mix).
    A failed run leaves no folder behind except the untouched old ``target``.
    """
    target = Path(target)
    if target.exists() and not replace:
        raise FileExistsError(f"{target} already exists (pass replace=True / --replace to rebuild it)")
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent))
    try:
        yield tmp
        for p in tmp.rglob("*"):
            if p.is_file():
                with open(p, "rb") as f:
                    os.fsync(f.fileno())
        if target.exists():
            old = target.with_name(f".{target.name}.old.{os.getpid()}")
            os.replace(target, old)
            os.replace(tmp, target)
            shutil.rmtree(old, ignore_errors=True)
        else:
            os.replace(tmp, target)
        _fsync_dir(target.parent)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
