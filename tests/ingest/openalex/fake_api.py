"""A fake OpenAlex works API: a real HTTP server on 127.0.0.1, built on the fake S2AG server.

It serves ``GET /works?filter=from_publication_date:…,to_publication_date:…&per-page=N&cursor=C
&select=…`` from a list of work records, paged by an opaque cursor (the offset, base64-encoded)
like OpenAlex's: the last page with works still carries a cursor, the next answer is empty with
``next_cursor: null``. Faults come from the S2AG fake's ``Faults`` (429 with ``Retry-After``, 503),
plus ``interrupt_after``: once that many pages were served, every request answers 503 until
``resume()`` (a network outage that outlasts the client's retries), and ``page_delay_s``. Every request is logged with
its cursor.
"""

from __future__ import annotations

import base64
import json
import threading
import time
import urllib.parse
from pathlib import Path
from typing import Any, Self

from tests.ingest.s2ag.fake_api import FakeS2AG, Faults, LoggedRequest, _Handler, _Server

__all__ = ["FakeOpenAlex", "Faults"]


def _cursor(offset: int) -> str:
    return base64.b64encode(json.dumps({"offset": offset}).encode()).decode()


def _offset(cursor: str) -> int | None:
    if cursor == "*":
        return 0
    try:
        return int(json.loads(base64.b64decode(cursor))["offset"])
    except (ValueError, KeyError, TypeError):
        return None


class FakeOpenAlex(FakeS2AG):
    """``with FakeOpenAlex(works, faults=Faults(...)) as srv:`` → ``srv.base_url``; ``srv.cursors``
    lists the cursor of every works request that was answered 200."""

    def __init__(self, works: list[dict[str, Any]], *, faults: Faults | None = None, interrupt_after: int | None = None,
                 page_delay_s: float = 0.0) -> None:
        super().__init__(Path("."), faults=faults)
        self.page_delay_s = page_delay_s
        self.works = sorted(works, key=lambda w: w["id"])
        self.interrupt_after = interrupt_after
        self.cursors: list[str] = []
        self.params: list[dict[str, str]] = []
        self._pages = 0
        self._page_lock = threading.Lock()

    def start(self) -> Self:
        fake = self

        class Handler(_WorksHandler):
            server_state = fake

        self._httpd = _Server(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.02}, name="fake-openalex", daemon=True)
        self._thread.start()
        return self

    @property
    def base_url(self) -> str:
        return self.origin

    def resume(self) -> None:
        """End the outage of ``interrupt_after``."""
        self.interrupt_after = None

    def answer(self, query: dict[str, str]) -> tuple[int, Any]:
        """(status, body) of one works request (after ``page_delay_s``: a slow server)."""
        time.sleep(self.page_delay_s)
        with self._page_lock:
            if self.interrupt_after is not None and self._pages >= self.interrupt_after:
                return 503, {"error": "Service Unavailable"}
            offset = _offset(query.get("cursor", ""))
            if offset is None:
                return 400, {"error": "Invalid query parameters error.", "message": "cursor is not valid"}
            bounds = dict(part.split(":", 1) for part in query.get("filter", "").split(",") if ":" in part)
            lo, hi = bounds.get("from_publication_date", ""), bounds.get("to_publication_date", "9999")
            works = [w for w in self.works if w.get("publication_date") and lo <= w["publication_date"] <= hi]
            per_page = int(query.get("per-page", "25"))
            page = works[offset : offset + per_page]
            fields = query.get("select")
            if fields:
                keep = fields.split(",")
                page = [{k: w.get(k) for k in keep} for w in page]
            self._pages += 1
            self.cursors.append(query.get("cursor", ""))
            self.params.append(dict(query))
            nxt = _cursor(offset + per_page) if page else None
            return 200, {"meta": {"count": len(works), "per_page": per_page, "next_cursor": nxt}, "results": page}


class _WorksHandler(_Handler):
    server_state: FakeOpenAlex  # type: ignore[assignment]  # the OpenAlex fake, a FakeS2AG

    def do_GET(self) -> None:  # http.server's naming
        srv = self.server_state
        url = urllib.parse.urlsplit(self.path)
        query = {k: v[0] for k, v in urllib.parse.parse_qs(url.query).items()}
        fault = srv._take_fault("api")
        if url.path != "/works":
            status, body = 404, {"error": "no such endpoint"}
        elif fault is not None:
            status, body = fault, {"error": "Too Many Requests" if fault == 429 else "Service Unavailable"}
        else:
            status, body = srv.answer(query)
        data = json.dumps(body).encode()
        self._send(status, data, {"Content-Type": "application/json", **self._fault_headers(status)},
                   LoggedRequest("GET", url.path, "api", status, body_bytes=len(data)))
