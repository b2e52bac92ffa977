"""``graphniah openalex fetch``: one publication-date window of OpenAlex works, paged by cursor.

The works API (no key needed; ``mailto`` joins the polite pool) is paged with ``cursor=*`` and
each answer's ``meta.next_cursor`` until it is null. The works are written in the newer
snapshot layout (``graphniah.ingest.openalex.layout``), so ``graphniah ingest --source openalex``
reads a fetched folder as it reads OpenAlex's own::

    <out>/data/jsonl/works/updated_date=<fetch date>/part_NNNN.gz   gzip JSON lines, PART_RECORDS works each
    <out>/data/jsonl/manifest.json                                   written last: the folder is complete
    <out>/openalex.json                                              release id, window, "synthetic": false
    <out>/.fetch-state.json                                          the cursor after the last part written

**Resuming.** After each part is written (atomically), the state file records the part and the
cursor that follows it; a fetch that stops (killed, network down, retries exhausted) starts again
from that cursor, rewriting at most the one part it had not recorded. OpenAlex cursors encode the
position itself, so a saved cursor stays valid.

**Updates.** A later fetch into the same folder (a new day, or another window) writes a new
partition dated that day; the manifest then lists every partition, and the ingest keeps the
newest record of each work, as for OpenAlex's own snapshot.

**Retries.** 429, 5xx and connection errors are retried with the shared policy
(``graphniah.retry``: exponential backoff with jitter, at least what ``Retry-After`` asks); other
answers are errors. Messages name URLs without their query (``redact_url``), so the e-mail given
as ``mailto`` never reaches a log.
"""

from __future__ import annotations

import datetime as dt
import gzip
import json
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import numpy as np
from pydantic import ValidationError

from graphniah import __version__
from graphniah.atomic import atomic_write_bytes, read_json, write_json
from graphniah.errors import GraphNIAHError
from graphniah.formats import Frozen
from graphniah.formats.release import OpenAlexDescriptor, write_descriptor
from graphniah.ingest.openalex.layout import DESCRIPTOR, JSONL_MANIFEST, open_works, works_file, write_manifest
from graphniah.ingest.s2ag.api import redact_url
from graphniah.progress import NO_PROGRESS, Progress
from graphniah.retry import RetryPolicy, retry_after_from_headers

DEFAULT_BASE = "https://api.openalex.org"
STATE_FILE = ".fetch-state.json"
PER_PAGE = 200  # the API's largest page
PART_RECORDS = 10_000
# Only the fields the ingest maps (docs/openalex.md): a fraction of a full work's bytes.
SELECT = ("id", "doi", "title", "display_name", "publication_date", "publication_year", "type", "primary_location",
          "locations", "authorships", "topics", "concepts", "referenced_works", "updated_date")
_MAX_WAIT_S = 120.0


class FetchedPart(Frozen):
    """A works file of the folder: its path inside it and its number of works."""

    path: str
    records: int


class FetchState(Frozen):
    """``.fetch-state.json``: the window, the partition being written, the parts written so far, the
    cursor that follows them (None once the last page was read) and the earlier partitions kept."""

    format_version: int = 1
    filter: str
    partition: dt.date
    cursor: str | None
    pages: int
    parts: tuple[FetchedPart, ...]
    kept: tuple[FetchedPart, ...]
    done: bool


@dataclass(frozen=True)
class FetchResult:
    """What a fetch did: the folder, the works in its new partition, the pages read by this call,
    and whether it resumed an interrupted fetch or found the work already done."""

    root: Path
    partition: dt.date
    records: int
    pages_read: int
    resumed: bool
    already_done: bool


def works_filter(from_date: dt.date, to_date: dt.date) -> str:
    """The API filter of a publication-date window (both ends included)."""
    if to_date < from_date:
        raise GraphNIAHError(f"--to-publication-date {to_date} is before --from-publication-date {from_date}")
    return f"from_publication_date:{from_date.isoformat()},to_publication_date:{to_date.isoformat()}"


def _load_state(path: Path) -> FetchState | None:
    if not path.is_file():
        return None
    try:
        return FetchState.model_validate(read_json(path))
    except (OSError, ValueError, ValidationError) as e:
        raise GraphNIAHError(f"{path}: not a fetch state this version reads ({str(e).splitlines()[0]}); remove it to fetch again from the start") from None


class _Pager:
    """GET one works page with the shared retry policy."""

    def __init__(self, base_url: str, mailto: str | None, retry: RetryPolicy, timeout_s: float, rng: np.random.Generator, progress: Progress) -> None:
        self.url = base_url.rstrip("/") + "/works"
        self.mailto = mailto
        self.retry = retry
        self.rng = rng
        self.progress = progress
        self.client = httpx.Client(headers={"user-agent": f"graphniah/{__version__}", "accept": "application/json"}, timeout=timeout_s)

    def close(self) -> None:
        self.client.close()

    def page(self, filter_: str, cursor: str) -> tuple[list[dict[str, Any]], str | None]:
        params = {"filter": filter_, "per-page": str(PER_PAGE), "cursor": cursor, "select": ",".join(SELECT)}
        if self.mailto:
            params["mailto"] = self.mailto
        shown = redact_url(self.url)
        failures = 0
        while True:
            reason, wait = None, None
            try:
                r = self.client.get(self.url, params=params)
            except httpx.TransportError as e:
                reason = type(e).__name__
            else:
                if r.status_code == 429 or 500 <= r.status_code <= 599:
                    reason, wait = f"HTTP {r.status_code}", retry_after_from_headers(r.headers)
                elif r.status_code != 200:
                    raise GraphNIAHError(f"GET {shown} answered HTTP {r.status_code}: {_message(r)}")
                else:
                    return _results(r, shown)
            failures += 1
            if failures > self.retry.max_retries:
                raise GraphNIAHError(f"GET {shown} failed {failures} times in a row (last: {reason}); gave up after "
                                     f"{self.retry.max_retries} retries: run the fetch again to resume from its last part")
            delay = self.retry.delay(failures - 1, wait, self.rng)
            self.progress.note(f"GET {shown}: {reason}; retry {failures}/{self.retry.max_retries} in {delay:.2f} s")
            time.sleep(delay)


def _message(r: httpx.Response) -> str:
    try:
        body = r.json()
    except ValueError:
        return r.text[:200]
    return str(body.get("message") or body.get("error") or body)[:200] if isinstance(body, dict) else str(body)[:200]


def _results(r: httpx.Response, shown: str) -> tuple[list[dict[str, Any]], str | None]:
    try:
        body = r.json()
        results, cursor = body["results"], body["meta"].get("next_cursor")
    except (ValueError, KeyError, TypeError, AttributeError):
        raise GraphNIAHError(f"GET {shown} did not return a works page (JSON with meta.next_cursor and results)") from None
    if not isinstance(results, list) or not (cursor is None or isinstance(cursor, str)):
        raise GraphNIAHError(f"GET {shown} did not return a works page (results must be a list, meta.next_cursor a string or null)")
    return results, cursor


def fetch_works(
    out: str | Path,
    from_date: dt.date,
    to_date: dt.date,
    *,
    mailto: str | None = None,
    base_url: str = DEFAULT_BASE,
    part_records: int = PART_RECORDS,
    max_retries: int = 6,
    backoff_s: float = 1.0,
    timeout_s: float = 60.0,
    today: dt.date | None = None,
    progress: Progress = NO_PROGRESS,
    rng: np.random.Generator | None = None,
) -> FetchResult:
    """Fetch the works published between ``from_date`` and ``to_date`` into ``out`` (module docstring).

    Parameters
    ----------
    out : path
        The folder (created if needed); a folder fetched before gets a new partition.
    from_date, to_date : datetime.date
        The publication-date window, both ends included.
    mailto : str, optional
        An e-mail address for OpenAlex's polite pool (sent as a parameter, never written or logged).
    base_url : str
        The API (a local fake in tests).
    part_records : int
        Works per file, and so how much a resumed fetch may read again.
    max_retries, backoff_s, timeout_s
        Retries per page (429, 5xx, connection errors), the first backoff, the timeout per request.
    today : datetime.date, optional
        The partition date of a new fetch (default: today, UTC).
    progress, rng
        Progress lines; the generator of the retry jitter.

    Returns
    -------
    FetchResult
    """
    out = Path(out)
    if part_records < 1:
        raise GraphNIAHError(f"part_records must be positive, got {part_records}")
    filter_ = works_filter(from_date, to_date)
    today = today or dt.datetime.now(dt.UTC).date()
    state_path = out / STATE_FILE
    state = _load_state(state_path)
    if state is not None and state.done and state.filter == filter_ and state.partition == today:
        progress.note(f"{out}: the works of {from_date} to {to_date} were fetched today already")
        return FetchResult(out, state.partition, sum(p.records for p in state.parts), 0, False, True)
    resumed = state is not None and not state.done
    if state is not None and not state.done and state.filter != filter_:
        raise GraphNIAHError(f"{out} holds an unfinished fetch of another window ({state.filter}); finish it with its own dates, or fetch into another folder")
    if state is None or state.done:
        kept = tuple(FetchedPart(path=p.relpath, records=p.listed_records or 0) for p in _listed(out) if p.updated != today)
        state = FetchState(filter=filter_, partition=today, cursor="*", pages=0, parts=(), kept=kept, done=False)
        out.mkdir(parents=True, exist_ok=True)
        write_json(state_path, state.to_json())
    else:
        progress.note(f"resuming the fetch of {out} after {len(state.parts)} parts ({sum(p.records for p in state.parts):,} works)")
    retry = RetryPolicy(max_attempts=max_retries + 1, base_s=min(backoff_s, _MAX_WAIT_S), cap_s=_MAX_WAIT_S, max_retry_after_s=_MAX_WAIT_S)
    pager = _Pager(base_url, mailto, retry, timeout_s, rng if rng is not None else np.random.default_rng(), progress)
    pages_read = 0
    try:
        buffer: list[str] = []
        cursor, since = state.cursor, 0
        while cursor is not None:
            results, cursor = pager.page(filter_, cursor)
            pages_read, since = pages_read + 1, since + 1
            buffer += [json.dumps(w, ensure_ascii=False, separators=(",", ":")) for w in results]
            if not results:
                cursor = None
            if len(buffer) >= part_records or cursor is None:
                state = _write_part(out, state, buffer, cursor, since)
                buffer, since = [], 0
                progress.note(f"{sum(p.records for p in state.parts):,} works in {len(state.parts)} parts")
    finally:
        pager.close()
    files = [(p.path, p.records) for p in (*state.kept, *state.parts)]
    write_descriptor(out / DESCRIPTOR, OpenAlexDescriptor(
        release_id=f"openalex-{state.partition.isoformat()}", synthetic=False, source="openalex-api", filter=filter_,
        fetched=state.partition.isoformat(), generator_version=__version__))
    write_manifest(out, "jsonl", files)
    state = state.model_copy(update={"done": True})
    write_json(state_path, state.to_json())
    return FetchResult(out, state.partition, sum(p.records for p in state.parts), pages_read, resumed, False)


def _listed(out: Path) -> tuple[Any, ...]:
    """The works files a complete earlier fetch (or sync) of ``out`` lists in its manifest."""
    if not (out / JSONL_MANIFEST).is_file():
        return ()
    return open_works(out).parts


def _write_part(out: Path, state: FetchState, lines: list[str], cursor: str | None, pages: int) -> FetchState:
    """Write the next part (atomically; an empty page run writes none) and then the state that records it."""
    parts = state.parts
    if lines:
        rel = works_file("jsonl", state.partition, len(parts))
        path = out / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_bytes(path, gzip.compress(("\n".join(lines) + "\n").encode("utf-8"), compresslevel=6, mtime=0))
        parts = (*parts, FetchedPart(path=rel, records=len(lines)))
    new = state.model_copy(update={"parts": parts, "cursor": cursor, "pages": state.pages + pages})
    write_json(out / STATE_FILE, new.to_json())
    return new
