"""``graphniah openalex fetch`` against a fake OpenAlex API on 127.0.0.1: cursor paging, resuming
from the saved cursor after an interruption, 429 with Retry-After, 5xx; what it writes ingests
to the very snapshot of the works it was served."""

from __future__ import annotations

import datetime as dt
import gzip
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from graphniah.atomic import read_json
from graphniah.errors import GraphNIAHError
from graphniah.formats.snapshot import Snapshot
from graphniah.ingest.build import ingest_openalex
from graphniah.ingest.openalex.api import PER_PAGE, SELECT, STATE_FILE, FetchState, fetch_works
from graphniah.ingest.openalex.layout import open_works
from tests.conftest import REPO
from tests.ingest.openalex.conftest import CUTOFF, World, work
from tests.ingest.openalex.fake_api import FakeOpenAlex, Faults

END = dt.date(2026, 12, 31)
MAIL = "someone.private@example.org"
FAST: dict[str, Any] = {"backoff_s": 0.001, "timeout_s": 10.0}


def _fetch(srv: FakeOpenAlex, out: Path, **kw: Any) -> Any:
    return fetch_works(out, CUTOFF, END, base_url=srv.base_url, **(FAST | kw))


def test_fetch_pages_by_cursor_and_ingests_to_the_same_snapshot(world: World, served: list[dict[str, Any]], tmp_path: Path) -> None:
    with FakeOpenAlex(served) as srv:
        result = _fetch(srv, tmp_path / "f", mailto=MAIL, part_records=1000)
    in_window = [w for w in served if w["publication_date"] and str(CUTOFF) <= w["publication_date"] <= str(END)]
    assert result.records == len(in_window) > 1000 and not result.resumed
    assert result.pages_read == -(-len(in_window) // PER_PAGE) + 1  # the last answer is empty, with no cursor
    assert srv.cursors[0] == "*" and len(set(srv.cursors)) == len(srv.cursors)
    first = srv.params[0]
    assert first["filter"] == f"from_publication_date:{CUTOFF},to_publication_date:{END}"
    assert first["per-page"] == str(PER_PAGE) and first["select"] == ",".join(SELECT) and first["mailto"] == MAIL
    # the e-mail reaches no file of the folder
    assert all(MAIL.encode() not in p.read_bytes() for p in (tmp_path / "f").rglob("*") if p.is_file() and p.suffix != ".gz")
    assert all(MAIL not in gzip.decompress(p.read_bytes()).decode() for p in (tmp_path / "f").rglob("*.gz"))
    snap = Snapshot.open(ingest_openalex(tmp_path / "f", CUTOFF, tmp_path / "snap"))
    # every eligible paper of the world was published in the window: same papers, same edges
    assert snap.manifest.files["papers.parquet"]["content_sha256"] == world.openalex_snapshot.manifest.files["papers.parquet"]["content_sha256"]
    assert snap.manifest.files["edges.parquet"]["content_sha256"] == world.openalex_snapshot.manifest.files["edges.parquet"]["content_sha256"]
    assert not snap.manifest.synthetic and snap.manifest.source["name"] == "openalex"


def test_resumes_from_its_saved_cursor_after_an_interruption(world: World, served: list[dict[str, Any]], tmp_path: Path) -> None:
    out = tmp_path / "f"
    with FakeOpenAlex(served, interrupt_after=5) as srv:
        with pytest.raises(GraphNIAHError, match="gave up after 1 retries: run the fetch again to resume"):
            _fetch(srv, out, part_records=2 * PER_PAGE, max_retries=1)
        state = FetchState.model_validate(read_json(out / STATE_FILE))
        assert len(state.parts) == 2 and state.cursor is not None and not state.done  # 4 pages recorded, the 5th was not
        with pytest.raises(GraphNIAHError, match="has no manifest"):  # an unfinished fetch is never read
            ingest_openalex(out, CUTOFF, tmp_path / "snap")
        srv.resume()
        result = _fetch(srv, out, part_records=2 * PER_PAGE)
        assert result.resumed
        # the second run starts at the saved cursor: only page 5 is read twice
        assert srv.cursors[5] == state.cursor and srv.cursors.count("*") == 1
        assert len(srv.cursors) == result.pages_read + 5
    with FakeOpenAlex(served) as clean:
        whole = _fetch(clean, tmp_path / "whole", part_records=2 * PER_PAGE)
    assert result.records == whole.records
    a = Snapshot.open(ingest_openalex(out, CUTOFF, tmp_path / "a")).manifest
    b = Snapshot.open(ingest_openalex(tmp_path / "whole", CUTOFF, tmp_path / "b")).manifest
    assert a.snapshot_hash == b.snapshot_hash
    # fetched already today: nothing is asked again
    with FakeOpenAlex(served) as again:
        assert _fetch(again, out).already_done and again.requests == ()


def test_429_waits_for_retry_after(tmp_path: Path) -> None:
    works = [work(n) for n in range(1, 11)]
    with FakeOpenAlex(works, faults=Faults(too_many_requests=2, retry_after=0.25)) as srv:
        t0 = time.perf_counter()
        result = _fetch(srv, tmp_path / "f")
        elapsed = time.perf_counter() - t0
        statuses = [r.status for r in srv.requests]
    assert result.records == 10
    assert statuses[:2] == [429, 429] and statuses[2:] == [200, 200]
    assert elapsed >= 0.5  # both waits honoured Retry-After, far above the 1 ms backoff


def test_5xx_is_retried_then_given_up(tmp_path: Path) -> None:
    works = [work(n) for n in range(1, 11)]
    with FakeOpenAlex(works, faults=Faults(server_errors=3)) as srv:
        assert _fetch(srv, tmp_path / "f").records == 10
        assert [r.status for r in srv.requests][:3] == [503, 503, 503]
    with FakeOpenAlex(works, faults=Faults(server_errors=10)) as srv:
        base = srv.base_url
        with pytest.raises(GraphNIAHError) as e:
            _fetch(srv, tmp_path / "g", max_retries=2, mailto=MAIL)
    assert "failed 3 times in a row (last: HTTP 503)" in str(e.value) and f"GET {base}/works " in str(e.value)
    assert MAIL not in str(e.value) and "?" not in str(e.value)


def test_a_later_fetch_adds_a_partition_whose_records_win(tmp_path: Path) -> None:
    out = tmp_path / "f"
    with FakeOpenAlex([work(1, title="First"), work(2)]) as srv:
        fetch_works(out, CUTOFF, END, base_url=srv.base_url, today=dt.date(2026, 6, 1), **FAST)
    with FakeOpenAlex([work(1, title="Corrected"), work(3)]) as srv:
        fetch_works(out, CUTOFF, END, base_url=srv.base_url, today=dt.date(2026, 7, 1), **FAST)
    folder = open_works(out)
    assert [p.updated for p in folder.parts] == [dt.date(2026, 6, 1), dt.date(2026, 7, 1)]
    assert folder.release_id == "openalex-2026-07-01"
    snap = Snapshot.open(ingest_openalex(out, CUTOFF, tmp_path / "snap"))
    assert snap.manifest.source["superseded"] == 1
    import pyarrow.parquet as pq

    assert pq.read_table(snap.papers_path).column("title").to_pylist() == ["Corrected", "Work number 2", "Work number 3"]


@pytest.mark.slow
def test_a_killed_fetch_resumes_and_nothing_half_written_is_read(served: list[dict[str, Any]], tmp_path: Path) -> None:
    out = tmp_path / "f"
    code = (f"import datetime as dt; from graphniah.ingest.openalex.api import fetch_works; "
            f"fetch_works({str(out)!r}, dt.date.fromisoformat({str(CUTOFF)!r}), dt.date.fromisoformat({str(END)!r}), "
            f"base_url={{url!r}}, part_records={PER_PAGE}, backoff_s=0.001)")
    with FakeOpenAlex(served, page_delay_s=0.05) as srv:
        proc = subprocess.Popen([sys.executable, "-c", code.format(url=srv.base_url)], cwd=REPO)
        try:
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline and proc.poll() is None:
                state = out / STATE_FILE
                if state.is_file() and len(FetchState.model_validate(read_json(state)).parts) >= 3:
                    break
                time.sleep(0.02)
        finally:
            proc.kill()  # SIGKILL: no cleanup runs in the fetcher
            proc.wait()
        assert proc.returncode == -signal.SIGKILL
        with pytest.raises(GraphNIAHError, match="has no manifest"):
            ingest_openalex(out, CUTOFF, tmp_path / "never")
        result = _fetch(srv, out, part_records=PER_PAGE)
    assert result.resumed
    with FakeOpenAlex(served) as clean:
        _fetch(clean, tmp_path / "whole", part_records=PER_PAGE)
    listed = {p.relpath for p in open_works(out).parts}
    assert listed == {p.relpath for p in open_works(tmp_path / "whole").parts}
    a = Snapshot.open(ingest_openalex(out, CUTOFF, tmp_path / "a")).manifest
    b = Snapshot.open(ingest_openalex(tmp_path / "whole", CUTOFF, tmp_path / "b")).manifest
    assert a.snapshot_hash == b.snapshot_hash and a.rows == b.rows
