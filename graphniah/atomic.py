"""Atomic file and folder writes, content hashes, and small JSON helpers.

Every artifact of the pipeline is written to a temporary sibling and renamed into place, so a
reader never sees a half-written file: on POSIX, ``os.replace`` within one file system is atomic.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import hashlib
import json
import os
import re
import shutil
import stat
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal

from graphniah.errors import GraphNIAHError

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


# ---- artifacts checked before they are trusted ----------------------------------------------------

# The files this process found intact, by identity and stat: a file is hashed once per process
# however many readers open it, and a file replaced or rewritten since (new inode, size or mtime)
# is hashed again.
_INTACT: set[tuple[int, int, int, int, str]] = set()
_PARQUET_MAGIC = b"PAR1"


def damaged(path: str | os.PathLike[str], rebuild: str, detail: str = "") -> GraphNIAHError:
    """The one-line error for an artifact whose bytes are not those its writer recorded."""
    return GraphNIAHError(f"{path} was changed or damaged after it was written{f' ({detail})' if detail else ''}; "
                          f"rebuild it with `{rebuild}`")


def check_artifact(path: str | os.PathLike[str], sha256: str | None, size: int | None, rebuild: str, *,
                   parquet: bool = False) -> Path:
    """Check that ``path`` holds the bytes its manifest records before anything trusts it.

    Parameters
    ----------
    path : path-like
        The artifact (a Parquet table, an examples file, a pool...).
    sha256, size : str or None, int or None
        What the manifest beside it records; None for a manifest written before it recorded them.
    rebuild : str
        The command that writes the artifact again, named in the error.
    parquet : bool
        The file is Parquet: without a recorded hash, its magic bytes at both ends are checked, so
        a file cut short is one line here instead of pyarrow's traceback.

    Returns
    -------
    Path
        ``path``, intact.

    Notes
    -----
    A problem (:func:`artifact_problem`) raises :class:`GraphNIAHError`, one line naming the file,
    "changed or damaged after it was written" and ``rebuild``.
    """
    problem = artifact_problem(path, sha256, size, parquet=parquet)
    if problem is not None:
        raise damaged(path, rebuild, problem)
    return Path(path)


def artifact_problem(path: str | os.PathLike[str], sha256: str | None, size: int | None, *, parquet: bool = False) -> str | None:
    """What is wrong with ``path`` against the ``sha256`` and ``size`` recorded of it, or None.

    Notes
    -----
    The hash is taken once per process per file (kept by device, inode, size and modification
    time), so every reader may ask before each read at the cost of a ``stat``; a file replaced or
    rewritten since is hashed again. With no hash recorded, a ``parquet`` file is checked for its
    magic bytes at both ends and a footer that fits.
    """
    p = Path(path)
    try:
        st = p.stat()
    except OSError as e:
        return e.strerror or "cannot be read"
    if not stat.S_ISREG(st.st_mode):
        return "not a regular file"
    if size is not None and st.st_size != size:
        return f"{st.st_size:,} bytes, {size:,} recorded"
    key = (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, sha256 or "")
    if key in _INTACT:
        return None
    try:
        if sha256 is not None and sha256_file(p) != sha256:
            return "its sha256 differs from the one recorded"
        if sha256 is None and parquet and not _parquet_ends_fit(p, st.st_size):
            return "not a complete Parquet file"
    except OSError as e:
        return e.strerror or "cannot be read"
    _INTACT.add(key)
    return None


def _parquet_ends_fit(p: Path, size: int) -> bool:
    """A Parquet file starts and ends with ``PAR1``, and its footer length fits in the file."""
    if size < 12:
        return False
    with open(p, "rb") as f:
        head = f.read(4)
        f.seek(size - 8)
        tail = f.read(8)
    return head == _PARQUET_MAGIC and tail[4:] == _PARQUET_MAGIC and int.from_bytes(tail[:4], "little") + 12 <= size


# ---- output paths checked before any work ---------------------------------------------------------

# File systems that hold no ordinary files (kernel views, devices, control groups).
_SPECIAL_FS = frozenset({"proc", "sysfs", "devtmpfs", "devpts", "cgroup", "cgroup2", "debugfs", "tracefs", "securityfs",
                         "pstore", "bpf", "configfs", "fusectl", "mqueue", "binfmt_misc", "efivarfs", "nsfs", "autofs",
                         "rpc_pipefs", "hugetlbfs"})


def _unescape_mount(field: str) -> str:
    return re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), field)


def _file_system(folder: Path) -> str | None:
    """The type of the file system ``folder`` lies on, from ``/proc/self/mountinfo`` (None elsewhere)."""
    try:
        with open("/proc/self/mountinfo", encoding="utf-8", errors="replace") as f:
            lines = f.read().splitlines()
    except OSError:
        return None
    where = os.path.realpath(folder)
    best, kind = "", None
    for line in lines:
        fields = line.split()
        if "-" not in fields or len(fields) < 5:
            continue
        mount = _unescape_mount(fields[4])
        under = where == mount or where.startswith(mount.rstrip("/") + "/")
        if under and len(mount) >= len(best):  # the last of equal mounts is the one on top
            best, kind = mount, fields[fields.index("-") + 1]
    return kind


def check_output(path: str | os.PathLike[str], kind: Literal["file", "folder"], option: str = "--out") -> Path:
    """Check that ``path`` can be written as a ``kind`` before a command does any work.

    Parameters
    ----------
    path : path-like
        Where the command will write (missing folders on the way are created by the writer).
    kind : {"file", "folder"}
        What it writes there.
    option : str
        The option that named ``path``, for the error.

    Returns
    -------
    Path
        ``path``.

    Notes
    -----
    Refused, each with one :class:`GraphNIAHError` line naming the path and the reason: a path
    under a regular file, a name that exists as the other kind (or as a device, socket, pipe), a
    nearest existing folder that this process may not write in, or one on a read-only or special
    file system (``/proc``, ``/sys``...). Nothing is created, so a refused command leaves no
    temporary or lock file behind.
    """
    p = Path(path)
    where = f"{option} {p}" if option else str(p)
    _check_existing(p, kind, where)
    parent = p.parent  # named as the user gave it ("F", not "/home/.../F")
    while not os.path.lexists(parent) and parent != parent.parent:
        parent = parent.parent
    _check_writable_folder(parent, where, f"cannot write {p}{f' ({option})' if option else ''}")
    return p


def _check_existing(path: Path, kind: Literal["file", "folder"], where: str) -> None:
    """What is at ``path`` already, if anything, can be replaced by a ``kind``."""
    try:
        st = path.stat()
    except (FileNotFoundError, NotADirectoryError):  # nothing there (or a file on the way: see the parent)
        if os.path.islink(path):
            raise GraphNIAHError(f"{where}: is a broken symbolic link") from None
        return
    except OSError as e:
        raise GraphNIAHError(f"{where}: cannot be written ({e.strerror})") from None
    if kind == "folder" and not stat.S_ISDIR(st.st_mode):
        raise GraphNIAHError(f"{where}: exists and is not a folder")
    if kind == "file" and stat.S_ISDIR(st.st_mode):
        raise GraphNIAHError(f"{where}: is a folder, not a file")
    if kind == "file" and not stat.S_ISREG(st.st_mode):
        raise GraphNIAHError(f"{where}: exists and is not a regular file")


def _check_writable_folder(parent: Path, where: str, refused: str) -> None:
    """``parent``, the nearest existing folder on the way to an output, takes new files. A folder the
    disk refuses gives ``refused`` and the cause as a refused write does (:func:`disk_error`)."""
    if not parent.is_dir():
        raise GraphNIAHError(f"{where}: {parent} is a file, not a folder")
    fs = _file_system(parent)
    if fs in _SPECIAL_FS:
        raise GraphNIAHError(f"{where}: {parent} is on a {fs} file system, which cannot hold ordinary files")
    try:
        read_only = bool(os.statvfs(parent).f_flag & os.ST_RDONLY)
    except OSError:
        read_only = False
    if read_only:
        raise GraphNIAHError(f"{refused}: {os.strerror(errno.EROFS)} ({parent})")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise GraphNIAHError(f"{refused}: {os.strerror(errno.EACCES)} ({parent})")


# Writes the disk refuses: full, over quota, read-only, not permitted.
_DISK_ERRNOS = (errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EACCES, errno.EPERM, errno.EFBIG)


def disk_error(exc: BaseException, path: str | os.PathLike[str] | None = None) -> GraphNIAHError | None:
    """The one-line error for a write the disk refused (``No space left on device``, ``Read-only file
    system``, ``Permission denied``, …), naming the path: ``path`` (the output being written) if
    given, else the exception's own file name.
    None for any other exception. Arrow and DuckDB report the C error only in their message, so the
    cause is also looked for there."""
    code = exc.errno if isinstance(exc, OSError) and exc.errno in _DISK_ERRNOS else None
    text = str(exc)
    if code is None:
        code = next((c for c in _DISK_ERRNOS if os.strerror(c) in text), None)
    if code is None:
        return None
    name = path if path is not None else exc.filename if isinstance(exc, OSError) and exc.filename else None
    quoted = re.search(r'"(/[^"]+)"', text)  # DuckDB: Could not write file "/path/...": ...
    where = name if name is not None else (quoted.group(1) if quoted else "a file")
    return GraphNIAHError(f"cannot write {where}: {os.strerror(code)}")


def temp_prefix(name: str) -> str:
    """Prefix of a temporary sibling of ``name``: it carries this process's id, so that a later run
    can tell the leftovers of a killed process (see :func:`remove_stale_temps`) from live ones."""
    return f".{name}.{os.getpid()}."


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's live process
        return True
    return True


def remove_stale_temps(folder: str | os.PathLike[str], name: str) -> list[Path]:
    """Remove the temporary siblings of ``name`` in ``folder`` (``.<name>.<pid>.…``) whose process is
    gone: a run killed by SIGKILL or a power cut cannot clean up after itself, so the next one does.
    Those of live processes (a concurrent run) are kept. Returns what was removed."""
    # mkstemp/mkdtemp's random part is 8 characters of [a-z0-9_]: that keeps the siblings of a target
    # named like "<name>.5" out of the pattern.
    pattern = re.compile(rf"^\.{re.escape(name)}\.(\d+)\.(?:[a-z0-9_]{{8}}.*\.tmp|(old))$")
    removed: list[Path] = []
    with contextlib.suppress(FileNotFoundError):
        for entry in os.scandir(folder):
            m = pattern.match(entry.name)
            if m is None or int(m.group(1)) == os.getpid() or _alive(int(m.group(1))):
                continue
            path = Path(entry.path)
            if m.group(2) and not (Path(folder) / name).exists():
                # Killed between atomic_dir's two renames: the complete old folder goes back in place.
                os.replace(path, Path(folder) / name)
            elif entry.is_dir(follow_symlinks=False):
                shutil.rmtree(path, ignore_errors=True)
            else:
                path.unlink(missing_ok=True)
            removed.append(path)
    return removed


@contextlib.contextmanager
def output_lock(target: str | os.PathLike[str], lock: str | os.PathLike[str] | None = None) -> Iterator[Path]:
    """Hold the exclusive right to write ``target`` for the block, or fail at once naming who holds it.

    The lock is an ``flock`` on ``lock`` (default ``.<name>.lock`` beside ``target``), which also
    holds the holder's pid. A second process given the same output gets a one-line error naming the
    output and that pid instead of interleaving its writes with the first's. The kernel drops the
    lock when its holder dies, even by SIGKILL, so a killed run never blocks the next one; the
    file itself stays (removing it would let two processes lock two different files).
    """
    target = Path(target)
    lock_path = Path(lock) if lock is not None else target.with_name(f".{target.name}.lock")
    lock_path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        holder = _lock_holder(fd)
        os.close(fd)
        raise GraphNIAHError(f"{target} is being written by another process (pid {holder}, lock {lock_path}); "
                             "wait for it to finish or stop it") from None
    try:
        with contextlib.suppress(OSError):  # a full disk: the lock holds all the same, only without its pid
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        yield lock_path
    finally:
        os.close(fd)  # releases the flock


def flock_holder(path: str | os.PathLike[str]) -> str:
    """The pid holding an ``flock`` on ``path``, from Linux's ``/proc/locks`` ("unknown" elsewhere)."""
    try:
        st = os.stat(path)
        with open("/proc/locks", encoding="ascii", errors="replace") as f:
            lines = f.read().splitlines()
    except OSError:
        return "unknown"
    for line in lines:
        fields = line.split()  # "1: FLOCK  ADVISORY  WRITE 1234 08:01:5678 0 EOF"
        if len(fields) >= 6 and fields[1] == "FLOCK" and fields[5].rsplit(":", 1)[-1] == str(st.st_ino):
            return fields[4]
    return "unknown"


def _lock_holder(fd: int) -> str:
    """The pid a lock file holds (its holder writes it right after locking, so wait a moment for it)."""
    for _ in range(20):
        text = os.pread(fd, 32, 0).decode("ascii", errors="replace").strip()
        if text:
            return text
        time.sleep(0.05)
    return "unknown"


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
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        remove_stale_temps(target.parent, target.name)
        fd, tmp = tempfile.mkstemp(prefix=temp_prefix(target.name), suffix=suffix + ".tmp", dir=target.parent)
    except OSError as e:
        raise (disk_error(e, target) or e) from None
    os.fchmod(fd, 0o666 & ~_umask())  # mkstemp makes 0600; give the file the usual permissions
    os.close(fd)
    tmp_path = Path(tmp)
    try:
        yield tmp_path
        with open(tmp_path, "rb+") as f:
            os.fsync(f.fileno())
        os.replace(tmp_path, target)
        _fsync_dir(target.parent)
    except BaseException as e:
        tmp_path.unlink(missing_ok=True)
        refused = disk_error(e, target)
        if refused is not None:
            raise refused from None
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
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        remove_stale_temps(target.parent, target.name)
        tmp = Path(tempfile.mkdtemp(prefix=temp_prefix(target.name), suffix=".tmp", dir=target.parent))
    except OSError as e:
        raise (disk_error(e, target) or e) from None
    try:
        yield tmp
        for p in tmp.rglob("*"):
            if p.is_file():
                with open(p, "rb") as f:
                    os.fsync(f.fileno())
        if target.exists():
            old = target.with_name(f"{temp_prefix(target.name)}old")
            os.replace(target, old)
            os.replace(tmp, target)
            shutil.rmtree(old, ignore_errors=True)
        else:
            os.replace(tmp, target)
        _fsync_dir(target.parent)
    except BaseException as e:
        shutil.rmtree(tmp, ignore_errors=True)
        refused = disk_error(e, target)
        if refused is not None:
            raise refused from None
        raise
