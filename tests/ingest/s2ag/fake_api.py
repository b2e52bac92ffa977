"""A fake S2AG Datasets API: a real HTTP server on 127.0.0.1 that serves a local release folder.

It speaks the same endpoints as ``api.semanticscholar.org/datasets/v1`` and hands out
"pre-signed" file links (an expiry time, a token and an HMAC signature in the query string) that
it serves itself, honouring ``Range`` and ``If-Range``. Faults are injected on request so the
downloader's recovery paths run against real sockets: 429 storms with ``Retry-After``, 5xx
answers, links that expire after a time or after first use (403), a connection cut after K
bytes of a file, a ``Content-Length`` that overstates the body, and a server that ignores
``Range``. Every request is logged (never the key) so tests can prove what was fetched twice.

The served folder uses the project's release layout (``releases/<id>/<dataset>/*.gz`` and
``diffs/<from>_to_<to>/<dataset>/{update_files,delete_files}/*.gz``); it is only read.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import re
import secrets
import socket
import threading
import time
import urllib.parse
from collections.abc import Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import MappingProxyType, TracebackType
from typing import Any, Literal, Self

__all__ = ["FakeS2AG", "Faults", "LoggedRequest"]

API_PREFIX = "/datasets/v1"
FILE_PREFIX = "/s3/"
_RANGE = re.compile(r"^bytes=(\d*)-(\d*)$")
_CHUNK = 64 * 1024


def _frozen_map(m: Mapping[str, int]) -> Mapping[str, int]:
    return MappingProxyType(dict(m))


@dataclass(frozen=True)
class Faults:
    """Fault injection knobs; file keys are paths relative to the served folder
    (e.g. ``releases/2026-10-06/papers/part-000.gz``).

    - ``too_many_requests``: the first N requests (API or file) answer 429.
    - ``retry_after``: the ``Retry-After`` value sent with each 429 (``None``: no header; a string,
      e.g. an HTTP-date, is sent as it is).
    - ``server_errors``: after the 429s, the next N requests answer 503.
    - ``fault_scope``: which requests the two counters above apply to: "all", "api" or "files".
    - ``link_ttl_s``: links expire this many seconds after they were issued (403 afterwards).
    - ``single_use_links``: a link serves one request; the next use answers 403.
    - ``cut_after``: file → K; the first response that reaches byte K of that file sends bytes up
      to K and then drops the connection (once per file).
    - ``overstate_length``: file → X; every response for that file announces X more bytes than
      it sends (``Content-Length`` and the ``Content-Range`` total), then closes.
    - ``ignore_range``: answer range requests with the whole file (200).
    """

    too_many_requests: int = 0
    retry_after: float | str | None = 0
    server_errors: int = 0
    fault_scope: Literal["all", "api", "files"] = "all"
    link_ttl_s: float | None = None
    single_use_links: bool = False
    cut_after: Mapping[str, int] = field(default_factory=dict)
    overstate_length: Mapping[str, int] = field(default_factory=dict)
    ignore_range: bool = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "cut_after", _frozen_map(self.cut_after))
        object.__setattr__(self, "overstate_length", _frozen_map(self.overstate_length))


@dataclass(frozen=True)
class LoggedRequest:
    """One request as the server saw it. ``key`` is "ok", "missing" or "wrong" for API requests
    (or "" when the server needs no key), and "sent" or "" for file requests, which need none and
    should never carry one; the key itself is never stored. ``file`` is the served file's relative path,
    ``first_byte`` the offset its body started at and ``body_bytes`` how many bytes the server
    set out to send (the real body, not the overstated length). Entries are logged before the
    answer goes out, so a client that has its answer finds the request in the log."""

    method: str
    path: str
    kind: str  # "api" or "file"
    status: int
    key: str = ""
    file: str | None = None
    range: str | None = None
    first_byte: int | None = None
    body_bytes: int = 0


@dataclass
class _Link:
    file: str
    issued: float
    uses: int = 0


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False
    allow_reuse_address = True


class FakeS2AG:
    """``with FakeS2AG(root, api_key=..., faults=Faults(...)) as srv:`` → ``srv.base_url``."""

    def __init__(self, root: Path, *, api_key: str | None = None, faults: Faults | None = None) -> None:
        self.root = Path(root)
        self.faults = faults or Faults()
        self._api_key = api_key
        self._secret = secrets.token_bytes(16)
        self._lock = threading.Lock()
        self._log: list[LoggedRequest] = []
        self._links: dict[str, _Link] = {}
        self._throttle_left = self.faults.too_many_requests
        self._errors_left = self.faults.server_errors
        self._cuts_left = dict(self.faults.cut_after)
        self._httpd: _Server | None = None
        self._thread: threading.Thread | None = None

    def __repr__(self) -> str:
        return f"FakeS2AG(root={str(self.root)!r}, running={self._httpd is not None})"

    # ---- lifecycle

    def start(self) -> Self:
        fake: FakeS2AG = self  # annotated: inside the class below, mypy would read Self as Handler

        class Handler(_Handler):
            server_state = fake

        self._httpd = _Server(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.02}, name="fake-s2ag", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, et: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None) -> None:
        self.stop()

    @property
    def origin(self) -> str:
        if self._httpd is None:
            raise RuntimeError("the fake S2AG server is not running")
        return f"http://127.0.0.1:{self._httpd.server_address[1]}"

    @property
    def base_url(self) -> str:
        return self.origin + API_PREFIX

    # ---- request log and links

    @property
    def requests(self) -> tuple[LoggedRequest, ...]:
        with self._lock:
            return tuple(self._log)

    def clear_log(self) -> None:
        with self._lock:
            self._log.clear()

    def _record(self, entry: LoggedRequest) -> None:
        with self._lock:
            self._log.append(entry)

    def expire_links(self) -> None:
        """Expire every link issued so far (as if a long pause had passed)."""
        with self._lock:
            for link in self._links.values():
                link.issued = float("-inf")

    def _sign(self, file: str, token: str, expires: int) -> str:
        return hmac.new(self._secret, f"{file}|{token}|{expires}".encode(), hashlib.sha256).hexdigest()

    def _issue(self, file: str) -> str:
        token = secrets.token_hex(8)
        now = time.time()
        ttl = self.faults.link_ttl_s
        expires = int(now + (ttl if ttl is not None else 3600)) + 1
        with self._lock:
            self._links[token] = _Link(file, now)
        query = urllib.parse.urlencode(
            {"X-Expires": expires, "X-Token": token, "X-Signature": self._sign(file, token, expires)}
        )
        return f"{self.origin}{FILE_PREFIX}{urllib.parse.quote(file)}?{query}"

    def _check_link(self, file: str, query: Mapping[str, list[str]]) -> str | None:
        """None if the link is valid now (and count its use), else the reason it is refused."""
        try:
            token, expires, sig = query["X-Token"][0], int(query["X-Expires"][0]), query["X-Signature"][0]
        except (KeyError, IndexError, ValueError):
            return "missing signature"
        if not hmac.compare_digest(sig, self._sign(file, token, expires)):
            return "bad signature"
        with self._lock:
            link = self._links.get(token)
            if link is None or link.file != file:
                return "unknown link"
            ttl = self.faults.link_ttl_s
            if ttl is not None and time.time() > link.issued + ttl:
                return "Request has expired"
            if link.issued == float("-inf"):
                return "Request has expired"
            if self.faults.single_use_links and link.uses > 0:
                return "Request has expired"
            link.uses += 1
        return None

    def _take_fault(self, scope: Literal["api", "files"]) -> int | None:
        """429 or 503 while the injected counters last (for requests in the fault scope)."""
        if self.faults.fault_scope not in ("all", scope):
            return None
        with self._lock:
            if self._throttle_left > 0:
                self._throttle_left -= 1
                return 429
            if self._errors_left > 0:
                self._errors_left -= 1
                return 503
        return None

    def _take_cut(self, file: str, first: int, last: int) -> int | None:
        """Byte offset to cut this response at, if a cut is armed for a byte it carries."""
        with self._lock:
            k = self._cuts_left.get(file)
            if k is not None and first <= k <= last:
                del self._cuts_left[file]
                return k
        return None

    # ---- the served folder

    def release_ids(self) -> list[str]:
        rel = self.root / "releases"
        if not rel.is_dir():
            return []
        return sorted(p.name for p in rel.iterdir() if (p / "release.json").is_file())

    def _resolve(self, release_id: str) -> str | None:
        ids = self.release_ids()
        if release_id == "latest":
            return ids[-1] if ids else None
        return release_id if release_id in ids else None

    def _steps(self) -> dict[str, tuple[str, Path]]:
        """from_release → (to_release, folder) for every diff folder with a diff.json."""
        out: dict[str, tuple[str, Path]] = {}
        diffs = self.root / "diffs"
        if diffs.is_dir():
            for p in sorted(diffs.iterdir()):
                if (p / "diff.json").is_file():
                    meta = json.loads((p / "diff.json").read_text(encoding="utf-8"))
                    out[meta["from_release"]] = (meta["to_release"], p)
        return out

    def _links_for(self, folder: Path) -> list[str]:
        if not folder.is_dir():
            return []
        return [self._issue(p.relative_to(self.root).as_posix()) for p in sorted(folder.glob("*.gz"))]

    def api(self, parts: list[str]) -> tuple[int, Any]:
        """Answer one API path (split on "/", after the prefix) with (status, JSON body)."""
        match parts:
            case ["release"] | ["release", ""]:
                return 200, self.release_ids()
            case ["release", rid]:
                resolved = self._resolve(rid)
                if resolved is None:
                    return 404, {"message": f"release {rid} not found"}
                folder = self.root / "releases" / resolved
                datasets = [
                    {"name": p.name, "description": f"{p.name} (fake S2AG)", "README": f"{p.name} shards"}
                    for p in sorted(folder.iterdir())
                    if p.is_dir()
                ]
                return 200, {"release_id": resolved, "README": "served by graphniah's fake S2AG API", "datasets": datasets}
            case ["release", rid, "dataset", name]:
                resolved = self._resolve(rid)
                folder = self.root / "releases" / (resolved or "") / name
                if resolved is None or not folder.is_dir():
                    return 404, {"message": f"dataset {name} of release {rid} not found"}
                return 200, {
                    "name": name,
                    "description": f"{name} (fake S2AG)",
                    "README": f"{name} shards",
                    "files": self._links_for(folder),
                }
            case ["diffs", start, "to", end, name]:
                end_id = self._resolve(end)
                if self._resolve(start) is None or end_id is None:
                    return 404, {"message": f"no release {start} or {end}"}
                if not (self.root / "releases" / end_id / name).is_dir():
                    return 404, {"message": f"dataset {name} not found"}
                steps, here, table = [], start, self._steps()
                while here != end_id:
                    if here not in table:
                        return 404, {"message": f"no diff chain from {start} to {end_id}"}
                    to, folder = table[here]
                    steps.append(
                        {
                            "from_release": here,
                            "to_release": to,
                            "update_files": self._links_for(folder / name / "update_files"),
                            "delete_files": self._links_for(folder / name / "delete_files"),
                        }
                    )
                    here = to
                return 200, {"dataset": name, "start_release": start, "end_release": end_id, "diffs": steps}
        return 404, {"message": "no such endpoint"}


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_state: FakeS2AG

    def setup(self) -> None:
        super().setup()
        # Headers and body go out in separate writes; without TCP_NODELAY, Nagle's algorithm
        # meets the client's delayed ACK and every keep-alive answer stalls for ~40 ms.
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def log_message(self, format: str, *args: Any) -> None:  # quiet: tests read .requests
        pass

    def _send(self, status: int, body: bytes, headers: Mapping[str, str], entry: LoggedRequest) -> None:
        """Log the request, then answer it (logging first means a client that has its answer
        always finds it in the log)."""
        self.server_state._record(entry)
        self.send_response(status)
        self.send_header("Content-Length", str(len(body)))
        for k, v in headers.items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(body)

    def _fault_headers(self, status: int) -> dict[str, str]:
        ra = self.server_state.faults.retry_after
        if status != 429 or ra is None:
            return {}
        return {"Retry-After": ra if isinstance(ra, str) else f"{ra:g}"}

    def do_GET(self) -> None:  # http.server's naming
        srv = self.server_state
        url = urllib.parse.urlsplit(self.path)
        path = url.path
        if path.startswith(FILE_PREFIX):
            self._serve_file(urllib.parse.unquote(path[len(FILE_PREFIX) :]), urllib.parse.parse_qs(url.query))
            return
        if not path.startswith(API_PREFIX + "/"):
            self._send(404, b"{}", {"Content-Type": "application/json"}, LoggedRequest("GET", path, "api", 404))
            return
        presented = self.headers.get("x-api-key")
        if srv._api_key is None:
            key = ""
        elif presented is None:
            key = "missing"
        else:
            key = "ok" if hmac.compare_digest(presented.encode(), srv._api_key.encode()) else "wrong"
        fault = srv._take_fault("api")
        if fault is not None:
            status, body = fault, {"message": "Too Many Requests" if fault == 429 else "Service Unavailable"}
        elif key == "missing":
            status, body = 401, {"message": "Unauthorized"}
        elif key == "wrong":
            status, body = 403, {"message": "Forbidden"}
        else:
            status, body = srv.api(path[len(API_PREFIX) + 1 :].split("/"))
        data = json.dumps(body).encode()
        headers = {"Content-Type": "application/json", **self._fault_headers(status)}
        self._send(status, data, headers, LoggedRequest("GET", path, "api", status, key=key, body_bytes=len(data)))

    def _carried_key(self) -> str:
        return "sent" if self.headers.get("x-api-key") is not None else ""

    def _refuse(self, status: int, rel: str, reason: str, extra: Mapping[str, str] | None = None) -> None:
        code = "AccessDenied" if status == 403 else str(status)
        body = f"<Error><Code>{code}</Code><Message>{reason}</Message></Error>".encode()
        entry = LoggedRequest(
            "GET", FILE_PREFIX + rel, "file", status, key=self._carried_key(), file=rel, range=self.headers.get("range")
        )
        self._send(status, body, {"Content-Type": "application/xml", **(extra or {})}, entry)

    def _range_start(self, range_header: str | None, etag: str) -> int | None:
        """The first byte an honoured ``Range: bytes=N-`` asks for (None: send the whole file)."""
        if not range_header or self.server_state.faults.ignore_range:
            return None
        if_range = self.headers.get("if-range")
        m = _RANGE.match(range_header.strip())
        if m and m.group(1) and (if_range is None or if_range == etag):
            return int(m.group(1))
        return None

    def _send_bytes(self, path: Path, first: int, stop: int) -> None:
        """Write bytes ``first..stop-1`` of ``path``; a client hanging up ends the body quietly."""
        sent = 0
        try:
            with open(path, "rb") as f:
                f.seek(first)
                while first + sent < stop:
                    chunk = f.read(min(_CHUNK, stop - first - sent))
                    if not chunk:
                        break
                    self.wfile.write(chunk)
                    sent += len(chunk)
        except (BrokenPipeError, ConnectionResetError):
            pass

    def _serve_file(self, rel: str, query: Mapping[str, list[str]]) -> None:
        srv = self.server_state
        fault = srv._take_fault("files")
        if fault is not None:
            self._refuse(fault, rel, "SlowDown", self._fault_headers(fault))
            return
        reason = srv._check_link(rel, query)
        if reason is not None:
            self._refuse(403, rel, reason)
            return
        path = (srv.root / rel).resolve()
        if not path.is_file() or srv.root.resolve() not in path.parents:
            self._refuse(404, rel, "NoSuchKey")
            return
        size = path.stat().st_size
        etag = '"' + hashlib.sha256(f"{rel}:{size}:{path.stat().st_mtime_ns}".encode()).hexdigest()[:32] + '"'
        extra = srv.faults.overstate_length.get(rel, 0)
        range_header = self.headers.get("range")
        asked = self._range_start(range_header, etag)
        first, partial = (0, False) if asked is None else (asked, True)
        if partial and first >= size:
            self._refuse(416, rel, "InvalidRange", {"Content-Range": f"bytes */{size}"})
            return
        announced_total = size + extra
        self.send_response(206 if partial else 200)
        self.send_header("Content-Type", "application/octet-stream")
        self.send_header("Content-Length", str(announced_total - first))
        self.send_header("ETag", etag)
        self.send_header("Accept-Ranges", "bytes")
        if partial:
            self.send_header("Content-Range", f"bytes {first}-{announced_total - 1}/{announced_total}")
        self.end_headers()
        cut = srv._take_cut(rel, first, size - 1)
        stop = cut if cut is not None else size
        status = 206 if partial else 200
        srv._record(
            LoggedRequest(
                "GET",
                FILE_PREFIX + rel,
                "file",
                status,
                key=self._carried_key(),
                file=rel,
                range=range_header,
                first_byte=first,
                body_bytes=stop - first,
            )
        )
        self._send_bytes(path, first, stop)
        if cut is not None or extra:
            # The body is shorter than announced: drop the connection so the client sees it end.
            self.close_connection = True
            with contextlib.suppress(OSError):
                self.wfile.flush()
                self.connection.shutdown(socket.SHUT_RDWR)
