"""Client for the Semantic Scholar Academic Graph (S2AG) Datasets API, with a resumable downloader.

The API hands out short-lived pre-signed S3 links to multi-gigabyte gzip shards. Downloads of
that size fail in ordinary ways — rate limits (429), server hiccups (5xx), a link that expires
half-way (403), a connection that drops mid-file — and a monthly refresh must survive all of
them without fetching a byte twice. So every file is streamed to ``<name>.part``, resumed with
``Range: bytes=N-``, checked against the size the server announced, and only then renamed into
place; a folder counts as complete only once its marker (``release.json`` / ``diff.json``) is
written, after all its files. The on-disk layout is the one ingest reads::

    <root>/releases/<release_id>/release.json
    <root>/releases/<release_id>/<dataset>/<name>.gz
    <root>/diffs/<from>_to_<to>/diff.json
    <root>/diffs/<from>_to_<to>/<dataset>/{update_files,delete_files}/<name>.gz

Secrets: the API key travels only in the ``x-api-key`` header of API calls (never to the file
host, never through a redirect), and pre-signed URLs carry credentials in their query string, so
every message this module produces names URLs by scheme, host and path only (``redact_url``).
"""

from __future__ import annotations

import hashlib
import logging
import os
import re
import time
import urllib.parse
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from types import TracebackType
from typing import Any, Self, TypeVar

import httpx
import numpy as np
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from graphniah import __version__
from graphniah.atomic import _fsync_dir, read_json, write_json
from graphniah.errors import GraphNIAHError
from graphniah.formats.release import (
    DIFF_FILE,
    RELEASE_FILE,
    DiffDescriptor,
    ReleaseDescriptor,
    read_diff_descriptor,
    read_release_descriptor,
    write_descriptor,
)
from graphniah.ingest.s2ag.layout import DATASETS, REQUIRED_DATASETS
from graphniah.progress import NO_PROGRESS, Progress
from graphniah.retry import RetryPolicy, retry_after_from_headers

__all__ = [
    "DEFAULT_BASE",
    "DEFAULT_DATASETS",
    "OPTIONAL_DATASETS",
    "DatasetFiles",
    "DatasetSummary",
    "DiffList",
    "DiffStep",
    "NotFoundError",
    "ReleaseInfo",
    "S2AGClient",
    "local_names",
    "redact_url",
]

DEFAULT_BASE = "https://api.semanticscholar.org/datasets/v1"
DEFAULT_DATASETS: tuple[str, ...] = DATASETS
# Ingest can do without these two, and older releases may lack them: a missing optional dataset
# is recorded in the marker file instead of failing the whole download.
OPTIONAL_DATASETS = frozenset(DATASETS) - frozenset(REQUIRED_DATASETS)
SOURCE = "s2ag-datasets-api"

_MAX_WAIT_S = 120.0  # no single back-off wait (even a server-requested one) is longer than this
_ID = re.compile(r"^[0-9A-Za-z][0-9A-Za-z._-]*$")
_UNSAFE_NAME_CHARS = re.compile(r"[^0-9A-Za-z._-]")
_CONTENT_RANGE = re.compile(r"^\s*bytes\s+(?:(\d+)-(\d+)|\*)/(\d+|\*)\s*$", re.IGNORECASE)

log = logging.getLogger("graphniah.ingest.s2ag")


# ----------------------------------------------------------------------------- API records


class _Record(BaseModel):
    model_config = ConfigDict(frozen=True, extra="ignore", populate_by_name=True)


_M = TypeVar("_M", bound=_Record)
_D = TypeVar("_D", ReleaseDescriptor, DiffDescriptor)


class DatasetSummary(_Record):
    """One dataset as listed in a release."""

    name: str
    description: str = ""
    readme: str = Field("", alias="README")


class ReleaseInfo(_Record):
    """``GET /release/{id}``: the release and the datasets it contains."""

    release_id: str
    readme: str = Field("", alias="README")
    datasets: tuple[DatasetSummary, ...] = ()


class DatasetFiles(_Record):
    """``GET /release/{id}/dataset/{name}``: pre-signed links to the dataset's shards."""

    name: str
    description: str = ""
    readme: str = Field("", alias="README")
    files: tuple[str, ...] = ()


class DiffStep(_Record):
    """One consecutive release step of a diff chain."""

    from_release: str
    to_release: str
    update_files: tuple[str, ...] = ()
    delete_files: tuple[str, ...] = ()


class DiffList(_Record):
    """``GET /diffs/{start}/to/{end}/{name}``: the steps from ``start`` to ``end``, in order."""

    dataset: str
    start_release: str
    end_release: str
    diffs: tuple[DiffStep, ...] = ()


class NotFoundError(GraphNIAHError):
    """The API answered 404: no such release, dataset or diff chain."""


@dataclass(frozen=True)
class _Downloaded:
    name: str
    bytes: int


# ----------------------------------------------------------------------------- helpers


def redact_url(url: str) -> str:
    """``scheme://host[:port]/path`` of ``url``: no query, fragment or user info.

    Pre-signed links carry their credentials in the query string, so this is the only form of a
    URL that may appear in a message, log line or file.
    """
    p = urllib.parse.urlsplit(str(url))
    host = p.hostname or ""
    if ":" in host:  # IPv6 literal
        host = f"[{host}]"
    netloc = f"{host}:{p.port}" if p.port is not None else host
    return urllib.parse.urlunsplit((p.scheme, netloc, p.path, "", ""))


def _base_name(url: str) -> str:
    segment = urllib.parse.unquote(urllib.parse.urlsplit(url).path.rsplit("/", 1)[-1])
    name = _UNSAFE_NAME_CHARS.sub("_", segment).lstrip(".")
    if not name or name in {"gz", ".gz"}:
        name = "file"
    return name if name.endswith(".gz") else name + ".gz"


def local_names(urls: Iterable[str]) -> dict[str, str]:
    """Map each file URL of one listing to a local file name, in listing order.

    The name is the last path segment (query string dropped, unsafe characters replaced, ``.gz``
    appended when missing, since readers glob ``*.gz``). Segments that occur more than once in the
    listing get a short hash of their full URL path appended. The result depends only on the URL
    paths, so a fresh listing with new pre-signed query strings maps every file to the same name —
    which is what lets a download resume after its link expired. A path listed twice is one file.
    """
    by_path: dict[str, str] = {}
    for url in urls:
        by_path.setdefault(urllib.parse.urlsplit(url).path, url)
    bases = {path: _base_name(url) for path, url in by_path.items()}
    counts = Counter(bases.values())
    out: dict[str, str] = {}
    for path, url in by_path.items():
        name = bases[path]
        if counts[name] > 1:
            name = f"{name[:-3]}-{hashlib.sha256(path.encode()).hexdigest()[:10]}.gz"
        out[name] = url
    # Distinct paths give distinct hashes (barring a sha256 collision), and a hashed name
    # "<stem>-<hex10>.gz" can only clash with an unhashed one if the listing itself contains that
    # exact name; the check below turns that into an error instead of a silent overwrite.
    if len(out) != len(by_path):
        raise GraphNIAHError(f"file listing maps two files to one local name: {sorted(bases.values())}")
    return out


def _check_id(value: str, what: str) -> str:
    if not _ID.match(value) or ".." in value:
        raise GraphNIAHError(f"invalid {what} {value!r}: expected letters, digits, '.', '_' or '-'")
    return value


def _check_datasets(datasets: Sequence[str]) -> tuple[str, ...]:
    if isinstance(datasets, str):
        datasets = (datasets,)
    out = tuple(dict.fromkeys(_check_id(d, "dataset name") for d in datasets))
    if not out:
        raise GraphNIAHError("no dataset requested")
    return out


def _retry_after_s(response: httpx.Response) -> float | None:
    """Seconds the server asked us to wait (``Retry-After`` as a number or an HTTP date)."""
    return retry_after_from_headers(response.headers, datetime.now(UTC))


def _is_transient(status: int) -> bool:
    return status == 429 or 500 <= status <= 599


def _describe(exc: BaseException) -> str:
    """Exception type and message; httpx transport messages carry no URL, header or key."""
    text = str(exc).strip()
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


@dataclass(frozen=True)
class _PartState:
    """What the server first said about a file being resumed (kept next to the ``.part``).

    Persisting the announced total is what lets a later run — or a later response in this run —
    notice that the server now tells a different story about the same file (truncated body,
    replaced object) instead of accepting a short file as complete.
    """

    total: int
    etag: str | None

    @classmethod
    def load(cls, path: Path) -> _PartState | None:
        try:
            data = read_json(path)
            return cls(total=int(data["total"]), etag=data.get("etag"))
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def save(self, path: Path) -> None:
        write_json(path, {"total": self.total, "etag": self.etag})


class _Backoff:
    """The shared :class:`~graphniah.retry.RetryPolicy` applied to one operation.

    ``fail`` is called after each failed attempt: it sleeps the policy's delay (exponential with
    jitter, at least what ``Retry-After`` asked for, both capped at ``_MAX_WAIT_S``); after
    ``max_retries`` waits it raises instead.
    """

    def __init__(self, client: S2AGClient, what: str) -> None:
        self._client = client
        self._what = what
        self.failures = 0

    def reset(self) -> None:
        self.failures = 0

    def fail(self, reason: str, retry_after: float | None = None) -> None:
        c = self._client
        self.failures += 1
        if self.failures > c.max_retries:
            raise GraphNIAHError(
                f"{self._what} failed {self.failures} times in a row (last: {reason}); "
                f"gave up after {c.max_retries} retries"
            )
        delay = c.retry.delay(self.failures - 1, retry_after, c._rng)
        c._note(f"{self._what}: {reason}; retry {self.failures}/{c.max_retries} in {delay:.2f} s")
        time.sleep(delay)


# ----------------------------------------------------------------------------- file listings


class _LinkBook:
    """The current pre-signed link of every file in one listing, by local file name.

    Links expire; ``refresh`` asks the API for a fresh listing and swaps the links in. Names are
    derived from URL paths only (``local_names``), so a file keeps its name across refreshes.
    """

    def __init__(self, urls: Sequence[str], fetch: Callable[[], Sequence[str]], what: str) -> None:
        self._fetch = fetch
        self._what = what
        self._urls = local_names(urls)

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(self._urls)

    def url(self, name: str) -> str:
        return self._urls[name]

    def refresh(self, name: str) -> None:
        fresh = local_names(self._fetch())
        if name not in fresh:
            raise GraphNIAHError(f"{self._what}: file {name} is missing from the fresh file list")
        self._urls.update(fresh)


# ----------------------------------------------------------------------------- client


class S2AGClient:
    """S2AG Datasets API client: release and diff listings plus resumable downloads.

    ``max_retries`` bounds the retries of any one request (429, 5xx, connection errors) and the
    link refreshes of any one file that makes no progress; ``backoff_s`` is the first back-off
    wait. ``rng`` only jitters the waits. Use as a context manager (or call ``close``).
    """

    def __init__(
        self,
        api_key: str | None,
        base_url: str = DEFAULT_BASE,
        *,
        max_retries: int = 6,
        backoff_s: float = 1.0,
        timeout_s: float = 60.0,
        progress: Progress = NO_PROGRESS,
        rng: np.random.Generator | None = None,
    ) -> None:
        if max_retries < 0 or backoff_s < 0 or timeout_s <= 0:
            raise GraphNIAHError("max_retries and backoff_s must be >= 0 and timeout_s > 0")
        parts = urllib.parse.urlsplit(base_url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise GraphNIAHError(f"--api-base must be an http(s) URL with a host, got {redact_url(base_url)!r}")
        self.base_url = base_url.rstrip("/")
        self.max_retries = max_retries
        self.backoff_s = backoff_s
        self.retry = RetryPolicy(max_attempts=max_retries + 1, base_s=min(backoff_s, _MAX_WAIT_S), cap_s=_MAX_WAIT_S,
                                 max_retry_after_s=_MAX_WAIT_S)
        self.timeout_s = timeout_s
        self._key = api_key or None
        self._progress = progress
        self._rng = rng if rng is not None else np.random.default_rng()
        user_agent = f"graphniah/{__version__}"
        headers = {"user-agent": user_agent, "accept": "application/json"}
        if self._key is not None:
            headers["x-api-key"] = self._key
        # No redirects on the API client: httpx drops Authorization on a cross-host redirect but
        # not a custom header like x-api-key, so following one could hand the key to a stranger.
        self._api = httpx.Client(headers=headers, timeout=timeout_s, follow_redirects=False)
        # File links are pre-signed: they need no key, so this client never carries one.
        self._files = httpx.Client(
            headers={"user-agent": user_agent, "accept-encoding": "identity"},
            timeout=timeout_s,
            follow_redirects=True,
        )

    def __repr__(self) -> str:
        return f"S2AGClient(base_url={self.base_url!r}, key={'set' if self._key else 'unset'})"

    def __enter__(self) -> Self:
        return self

    def __exit__(self, et: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None) -> None:
        self.close()

    def close(self) -> None:
        self._api.close()
        self._files.close()

    # ---- messages

    def _note(self, text: str) -> None:
        log.info("%s", text)
        self._progress.note(text)

    # ---- API calls

    def _get_json(self, path: str) -> Any:
        url = self.base_url + path
        shown = redact_url(url)
        backoff = _Backoff(self, f"GET {shown}")
        while True:
            try:
                r = self._api.get(url)
            except httpx.TransportError as e:
                backoff.fail(_describe(e))
                continue
            if _is_transient(r.status_code):
                backoff.fail(f"HTTP {r.status_code}", _retry_after_s(r))
                continue
            if r.status_code in (401, 403):
                hint = "set S2_API_KEY to a valid key" if self._key is None else "check the key in S2_API_KEY"
                raise GraphNIAHError(f"the S2AG API refused GET {shown} (HTTP {r.status_code}); {hint}")
            if r.status_code == 404:
                raise NotFoundError(f"the S2AG API has no {shown} (HTTP 404)")
            if r.status_code != 200:
                raise GraphNIAHError(f"GET {shown} answered HTTP {r.status_code}")
            try:
                return r.json()
            except ValueError:
                raise GraphNIAHError(f"GET {shown} did not return JSON") from None

    def _get_model(self, path: str, model: type[_M]) -> _M:
        data = self._get_json(path)
        try:
            return model.model_validate(data)
        except ValidationError as e:
            # Field locations only: the offending values may be pre-signed links.
            where = ", ".join(".".join(map(str, err["loc"])) or "(top)" for err in e.errors())
            raise GraphNIAHError(
                f"unexpected {model.__name__} from {redact_url(self.base_url + path)}: bad fields {where}"
            ) from None

    def releases(self) -> list[str]:
        """Release ids, oldest first."""
        data = self._get_json("/release/")
        if not isinstance(data, list) or not all(isinstance(x, str) for x in data):
            raise GraphNIAHError(f"unexpected release list from {redact_url(self.base_url)}/release/")
        return list(data)

    def release(self, release_id: str) -> ReleaseInfo:
        """The release's metadata and dataset list (``latest`` is accepted)."""
        return self._get_model(f"/release/{_check_id(release_id, 'release id')}", ReleaseInfo)

    def latest_release(self) -> str:
        return _check_id(self.release("latest").release_id, "release id")

    def dataset(self, release_id: str, name: str) -> DatasetFiles:
        """The dataset's description and fresh pre-signed file links."""
        rid, ds = _check_id(release_id, "release id"), _check_id(name, "dataset name")
        return self._get_model(f"/release/{rid}/dataset/{ds}", DatasetFiles)

    def diffs(self, start: str, end: str, name: str) -> DiffList:
        """The diff steps of one dataset from release ``start`` to ``end`` (fresh links)."""
        s, e, ds = _check_id(start, "release id"), _check_id(end, "release id"), _check_id(name, "dataset name")
        return self._get_model(f"/diffs/{s}/to/{e}/{ds}", DiffList)

    # ---- downloads

    def download_release(
        self, release_id: str, root: Path, datasets: Sequence[str] = DEFAULT_DATASETS
    ) -> Path:
        """Download a release to ``root/releases/<id>/``; returns that folder.

        Resumable and idempotent: finished files are kept, partial ones resumed, and once
        ``release.json`` (written last) covers the requested datasets nothing is fetched at all.
        """
        wanted = _check_datasets(datasets)
        rid = self.latest_release() if release_id == "latest" else _check_id(release_id, "release id")
        folder = Path(root) / "releases" / rid
        complete, previous = _reopen(folder / RELEASE_FILE, wanted, read_release_descriptor)
        if complete:
            return folder
        info = self.release(rid)
        if info.release_id != rid:
            raise GraphNIAHError(f"asked the S2AG API for release {rid} but got {info.release_id}")
        available = {d.name: d for d in info.datasets}
        done: dict[str, Any] = dict(previous.datasets or {}) if previous else {}
        missing = set(previous.missing_datasets or ()) if previous else set()
        for name in wanted:
            if name not in available:
                if name not in OPTIONAL_DATASETS:
                    raise GraphNIAHError(
                        f"release {rid} has no dataset {name!r} (it has: {', '.join(sorted(available)) or 'none'})"
                    )
                self._note(f"release {rid} has no optional dataset {name}; skipped")
                missing.add(name)
                continue
            listing = self.dataset(rid, name)
            def fresh_links(n: str = name) -> Sequence[str]:
                return self.dataset(rid, n).files

            book = _LinkBook(listing.files, fresh_links, f"release {rid} dataset {name}")
            files = self._download_all(book, folder / name, f"{rid}/{name}")
            done[name] = {"description": available[name].description, "files": _file_rows(files)}
            missing.discard(name)
        write_descriptor(folder / RELEASE_FILE, ReleaseDescriptor(
            release_id=rid,
            synthetic=False,
            source=SOURCE,
            api_base=redact_url(self.base_url),
            datasets=done,
            missing_datasets=tuple(sorted(missing)),
            downloaded_at=datetime.now(UTC).isoformat(timespec="seconds"),
            graphniah_version=__version__,
        ))
        return folder

    def download_diffs(
        self, start: str, end: str, root: Path, datasets: Sequence[str] = DEFAULT_DATASETS
    ) -> list[Path]:
        """Download the diffs from release ``start`` to ``end`` (``latest`` accepted).

        Writes one folder ``root/diffs/<from>_to_<to>/`` per consecutive step, ``diff.json`` last,
        and returns the step folders in the order they must be applied. Resumable like
        ``download_release``; a step whose ``diff.json`` covers the datasets is not touched.
        """
        wanted = _check_datasets(datasets)
        start = _check_id(start, "release id")
        end = self.latest_release() if end == "latest" else _check_id(end, "release id")
        if start == end:
            return []
        lists: dict[str, DiffList] = {}
        missing: set[str] = set()
        for name in wanted:
            try:
                lists[name] = self.diffs(start, end, name)
            except NotFoundError:
                if name not in OPTIONAL_DATASETS:
                    raise
                self._note(f"no diffs of optional dataset {name} from {start} to {end}; skipped")
                missing.add(name)
        if not lists:
            raise GraphNIAHError(f"no diffs from {start} to {end} for any of {', '.join(wanted)}")
        steps = _diff_chain(lists, start, end)
        folders: list[Path] = []
        for i, (frm, to) in enumerate(steps):
            folder = Path(root) / "diffs" / f"{_check_id(frm, 'release id')}_to_{_check_id(to, 'release id')}"
            folders.append(folder)
            complete, previous = _reopen(folder / DIFF_FILE, wanted, read_diff_descriptor)
            if complete:
                continue
            done: dict[str, Any] = dict(previous.datasets or {}) if previous else {}
            for name, listing in lists.items():
                step = listing.diffs[i]
                entry: dict[str, Any] = {}
                for kind in ("update_files", "delete_files"):
                    def fresh_step_links(n: str = name, k: str = kind, f: str = frm, t: str = to) -> Sequence[str]:
                        return _step_files(self.diffs(start, end, n), f, t, k)

                    book = _LinkBook(getattr(step, kind), fresh_step_links, f"diff {frm} to {to} dataset {name} {kind}")
                    files = self._download_all(book, folder / name / kind, f"{frm}_to_{to}/{name}/{kind}")
                    entry[kind] = _file_rows(files)
                done[name] = entry
            step_missing = sorted((missing | set(previous.missing_datasets or () if previous else ())) - set(done))
            write_descriptor(folder / DIFF_FILE, DiffDescriptor(
                from_release=frm,
                to_release=to,
                synthetic=False,
                source=SOURCE,
                api_base=redact_url(self.base_url),
                datasets=done,
                missing_datasets=tuple(step_missing),
                downloaded_at=datetime.now(UTC).isoformat(timespec="seconds"),
                graphniah_version=__version__,
            ))
        return folders

    def _download_all(self, book: _LinkBook, dest: Path, label: str) -> list[_Downloaded]:
        """Download every file of ``book`` into ``dest``; refuse stray shards already there."""
        dest.mkdir(parents=True, exist_ok=True)
        listed = set(book.names)
        stray = sorted(p.name for p in dest.glob("*.gz") if p.name not in listed)
        if stray:
            raise GraphNIAHError(
                f"{dest} holds files the API does not list ({', '.join(stray[:5])}); "
                "readers would ingest them too — remove them or use another --root"
            )
        return [_Downloaded(name, self._download_file(book, name, dest, f"{label}/{name}")) for name in book.names]

    def _download_file(self, book: _LinkBook, name: str, dest: Path, label: str) -> int:
        """Fetch one file to ``dest/name`` through ``name.part``; returns its size in bytes."""
        final = dest / name
        if final.exists():
            self._progress.start(0, label)  # a file checked, nothing to fetch
            self._progress.done()
            return final.stat().st_size
        return _FileTransfer(self, book, name, dest, label).run()

    @staticmethod
    def _response_extent(r: httpx.Response, shown: str, label: str) -> tuple[int, int]:
        """(first byte offset, total file size) of a 200 or 206 response, from its headers."""
        if r.status_code == 206:
            m = _CONTENT_RANGE.match(r.headers.get("content-range", ""))
            if not m or m.group(1) is None or m.group(3) == "*":
                raise GraphNIAHError(f"{label}: {shown} sent a partial answer without a usable Content-Range")
            start, last, total = int(m.group(1)), int(m.group(2)), int(m.group(3))
            length = r.headers.get("content-length")
            if last >= total or (length is not None and int(length) != last - start + 1):
                raise GraphNIAHError(f"{label}: {shown} sent an inconsistent Content-Range / Content-Length")
            if last != total - 1:
                raise GraphNIAHError(f"{label}: {shown} answered an open range with bytes {start}-{last} of {total}")
            return start, total
        length = r.headers.get("content-length")
        if length is None or not length.strip().isdigit():
            raise GraphNIAHError(f"{label}: {shown} sent no Content-Length, so its size cannot be checked")
        return 0, int(length)


# ----------------------------------------------------------------------------- one file's transfer


@dataclass(frozen=True)
class _PassOutcome:
    """What one request for the rest of a file asks of the loop that drives it."""

    expired: bool = False  # the link answered 403: refresh it
    retry: tuple[str, float | None] | None = None  # (reason, Retry-After) to back off
    complete: bool = False  # every byte is already in the ``.part``: only the rename is left


class _FileTransfer:
    """One file's resumable download: ``<name>.part`` grows pass by pass, then is renamed into place.

    Loop invariant: ``part`` holds a prefix of the file and ``state`` (when set) the total the
    server first announced for it. Each pass asks only for the bytes after that prefix, so a
    cut connection or an expired link costs one request, never a re-download. The file is
    renamed into place only when the prefix length equals the announced total. The loop ends:
    a pass either grows the prefix past its high-water mark (which happens at most ``total``
    times) or counts against a bounded budget (``max_retries`` back-offs or link refreshes).
    """

    def __init__(self, client: S2AGClient, book: _LinkBook, name: str, dest: Path, label: str) -> None:
        self._client = client
        self._book = book
        self._name = name
        self._dest = dest
        self._label = label
        self._part = dest / (name + ".part")
        self._state_path = dest / (name + ".part.json")
        self._state = _PartState.load(self._state_path) if self._part.exists() else None
        if not self._part.exists():
            self._state_path.unlink(missing_ok=True)
        self._transient = _Backoff(client, f"download of {label}")
        self._refreshes = 0
        self._high_water = _size(self._part)
        self._opened = False  # one progress step per file: its bytes still to fetch, across every response

    def run(self) -> int:
        """Drive passes until the prefix is the whole file; rename it and return its size."""
        while True:
            state = self._state
            offset = _size(self._part)
            if state is not None and offset == state.total:
                return self._finish(state)
            if state is not None and offset > state.total:
                self._client._note(f"{self._label}: partial file is longer than the file; starting over")
                self._restart()
                continue
            url = self._book.url(self._name)
            shown = redact_url(url)
            outcome = self._request(url, shown, offset)
            if not outcome.complete:
                self._account(outcome, shown)

    def _restart(self) -> None:
        self._part.unlink(missing_ok=True)
        self._state_path.unlink(missing_ok=True)
        self._state = None

    def _request(self, url: str, shown: str, offset: int) -> _PassOutcome:
        """One GET for the bytes after ``offset``, appended to the ``.part`` as they arrive."""
        headers = {}
        if offset > 0:
            headers["range"] = f"bytes={offset}-"
            if self._state is not None and self._state.etag:
                headers["if-range"] = self._state.etag
        try:
            with self._client._files.stream("GET", url, headers=headers) as r:
                return self._answer(r, shown, offset)
        except httpx.TransportError as e:
            return _PassOutcome(retry=(f"{_describe(e)} at byte {_size(self._part)} of {shown}", None))

    def _answer(self, r: httpx.Response, shown: str, offset: int) -> _PassOutcome:
        status = r.status_code
        if status == 403:
            return _PassOutcome(expired=True)
        if _is_transient(status):
            return _PassOutcome(retry=(f"HTTP {status} from {shown}", _retry_after_s(r)))
        if status == 416:
            return self._range_rejected(r, shown, offset)
        if status in (200, 206):
            self._receive(r, shown, offset)
            return _PassOutcome()
        raise GraphNIAHError(f"{self._label}: {shown} answered HTTP {status}")

    def _range_rejected(self, r: httpx.Response, shown: str, offset: int) -> _PassOutcome:
        """HTTP 416: either the prefix is already the whole file, or the resume starts over."""
        state = self._state
        total = _range_total(r.headers.get("content-range"))
        if state is not None and total is not None and total != state.total:
            raise _inconsistent(self._label, shown, state.total, total, self._part)
        if total is not None and offset == total:
            self._state = _PartState(total, state.etag if state else None)
            return _PassOutcome(complete=True)  # the previous run got every byte but did not rename
        self._client._note(f"{self._label}: server rejected the resume range; starting over")
        self._restart()
        return _PassOutcome(retry=(f"HTTP 416 from {shown}", None))

    def _receive(self, r: httpx.Response, shown: str, offset: int) -> None:
        """HTTP 200/206: check the extent against the prefix and the announced total, then append the body."""
        start, total = S2AGClient._response_extent(r, shown, self._label)
        if start not in (0, offset):
            raise GraphNIAHError(f"{self._label}: asked {shown} for bytes from {offset} but got bytes from {start}")
        if start == offset and offset > 0 and self._state is not None and total != self._state.total:
            raise _inconsistent(self._label, shown, self._state.total, total, self._part)
        if start == 0:
            if offset > 0:
                self._client._note(f"{self._label}: server sent the whole file instead of a range; starting over")
            self._restart()
        etag = r.headers.get("etag")
        if self._state is None or self._state != _PartState(total, etag):
            self._state = _PartState(total, etag)
            self._state.save(self._state_path)
        if not self._opened:
            self._client._progress.start(total - start, self._label)
            self._opened = True
        with open(self._part, "ab") as f:
            # No chunk size: httpx would hold bytes back to fill a chunk, and the
            # bytes held back when a connection drops would be lost to the resume.
            for chunk in r.iter_raw():
                f.write(chunk)
                self._client._progress.advance(len(chunk))
            f.flush()
            os.fsync(f.fileno())

    def _account(self, outcome: _PassOutcome, shown: str) -> None:
        """Charge a pass that did not finish the file to the budgets; progress resets them."""
        c = self._client
        size = _size(self._part)
        if size > self._high_water:  # progress: the retry and refresh budgets start afresh
            self._high_water, self._refreshes = size, 0
            self._transient.reset()
        state = self._state
        if outcome.expired:
            self._refreshes += 1
            if self._refreshes > c.max_retries:
                raise GraphNIAHError(f"{self._label}: {shown} still answers 403 after {c.max_retries} fresh file lists")
            c._note(f"{self._label}: link expired (HTTP 403); asking the API for fresh links")
            self._book.refresh(self._name)
        elif outcome.retry is not None:
            self._transient.fail(*outcome.retry)
        elif state is not None and size > state.total:
            self._restart()
            raise GraphNIAHError(f"{self._label}: {shown} sent more bytes than the {state.total} it announced")
        elif state is not None and size < state.total:
            self._transient.fail(f"body of {shown} ended at byte {size} of {state.total}")

    def _finish(self, state: _PartState) -> int:
        os.replace(self._part, self._dest / self._name)
        self._state_path.unlink(missing_ok=True)
        _fsync_dir(self._dest)
        if not self._opened:
            self._client._progress.start(0, self._label)  # complete from an earlier run but not yet renamed
        self._client._progress.done()
        return state.total


# ----------------------------------------------------------------------------- module helpers


def _size(path: Path) -> int:
    return path.stat().st_size if path.exists() else 0


def _range_total(content_range: str | None) -> int | None:
    m = _CONTENT_RANGE.match(content_range or "")
    return int(m.group(3)) if m and m.group(3) != "*" else None


def _inconsistent(label: str, shown: str, before: int, now: int, part: Path) -> GraphNIAHError:
    return GraphNIAHError(
        f"{label}: {shown} first announced {before} bytes but now reports {now}; the download is "
        f"inconsistent (truncated body or replaced file) — delete {part} to start over"
    )


def _file_rows(files: Sequence[_Downloaded]) -> list[dict[str, Any]]:
    return [{"name": f.name, "bytes": f.bytes} for f in files]


def _reopen(marker: Path, wanted: Sequence[str], read: Callable[[Path], _D]) -> tuple[bool, _D | None]:
    """Decide whether a folder is already complete for ``wanted``.

    Returns ``(True, old marker)`` when the marker (read by ``read``) covers every wanted dataset
    (downloaded or recorded as missing). Otherwise returns ``(False, old marker or None)`` after
    deleting the marker, so the folder stops counting as complete while new files are added to it.
    """
    if not marker.exists():
        return False, None
    try:
        previous = read(marker)
    except GraphNIAHError as e:
        raise GraphNIAHError(f"{e}; remove it to download again") from None
    if previous.synthetic:
        raise GraphNIAHError(f"{marker.parent} holds a synthetic (demo) release; download into another --root")
    covered = set(previous.datasets or {}) | set(previous.missing_datasets or ())
    if set(wanted) <= covered:
        return True, previous
    marker.unlink()
    return False, previous


def _step_files(listing: DiffList, frm: str, to: str, kind: str) -> tuple[str, ...]:
    for step in listing.diffs:
        if (step.from_release, step.to_release) == (frm, to):
            return tuple(getattr(step, kind))
    raise GraphNIAHError(f"the fresh diff list of {listing.dataset} no longer has the step {frm} to {to}")


def _diff_chain(lists: dict[str, DiffList], start: str, end: str) -> list[tuple[str, str]]:
    """The (from, to) steps shared by every dataset's diff list, checked to chain start → end."""
    chains = {name: [(s.from_release, s.to_release) for s in lst.diffs] for name, lst in lists.items()}
    first_name, chain = next(iter(chains.items()))
    for name, other in chains.items():
        if other != chain:
            raise GraphNIAHError(
                f"the diffs of {name} ({_fmt_chain(other)}) and {first_name} ({_fmt_chain(chain)}) "
                f"take different steps from {start} to {end}"
            )
    if not chain:
        raise GraphNIAHError(f"the S2AG API listed no diffs from {start} to {end}")
    expected_from = start
    for frm, to in chain:
        if frm != expected_from:
            raise GraphNIAHError(f"the diffs from {start} to {end} do not chain: {_fmt_chain(chain)}")
        expected_from = to
    if expected_from != end:
        raise GraphNIAHError(f"the diffs from {start} stop at {expected_from}, not at {end}")
    return chain


def _fmt_chain(chain: Sequence[tuple[str, str]]) -> str:
    return ", ".join(f"{a}→{b}" for a, b in chain) or "no steps"
