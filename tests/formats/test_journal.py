"""The journal: durable appends, torn-tail recovery, the single-writer lock, done/failed sets."""

from __future__ import annotations

import multiprocessing as mp
import os

import pytest

from graphniah.errors import GraphNIAHError
from graphniah.formats.journal import Journal, RunRecord, done_ids, failed_ids, read_journal


def rec(eid: str, status: str = "ok", settings: str = "h1", **kw) -> RunRecord:
    return RunRecord(example_id=eid, model="m", settings_hash=settings, status=status, task="yesno", answer="YES",
                     attempts=1, finished_at="2026-11-01T00:00:00+00:00", **kw)


def test_append_and_read_back(tmp_path):
    p = tmp_path / "s" / "m.jsonl"
    with Journal(p) as j:
        assert j.records == () and j.recovery.dropped_bytes == 0
        j.append([rec("a"), rec("b", "failed")])
        j.append([rec("c", response="x\n\\answer{YES}")])
    lines = p.read_bytes().split(b"\n")
    assert len(lines) == 4 and lines[-1] == b""  # three complete lines, newline-terminated
    again = read_journal(p)
    assert [r.example_id for r in again] == ["a", "b", "c"]
    assert again[2].response == "x\n\\answer{YES}"  # newlines inside a field stay inside one line


def test_torn_last_line_is_dropped_and_truncated(tmp_path):
    p = tmp_path / "m.jsonl"
    with Journal(p) as j:
        j.append([rec("a"), rec("b")])
    whole = p.read_bytes()
    partial = rec("c").model_dump_json().encode()[:37]  # a write cut short by kill -9
    p.write_bytes(whole + partial)
    assert [r.example_id for r in read_journal(p)] == ["a", "b"]  # readers ignore the tail, change nothing
    assert p.read_bytes().endswith(partial)
    with Journal(p) as j:
        assert j.recovery.dropped_bytes == len(partial)
        assert [r.example_id for r in j.records] == ["a", "b"]
        assert p.read_bytes() == whole  # truncated away before anything is appended
        j.append([rec("c")])
    assert [r.example_id for r in read_journal(p)] == ["a", "b", "c"]


def test_damaged_complete_line_is_an_error_naming_the_line(tmp_path):
    p = tmp_path / "m.jsonl"
    with Journal(p) as j:
        j.append([rec("a")])
    with open(p, "ab") as f:
        f.write(b'{"example_id": "b"}\n')
    with pytest.raises(GraphNIAHError, match=r"m\.jsonl:2: not a valid run record"):
        Journal(p)
    with pytest.raises(GraphNIAHError, match=r":2:"):
        read_journal(p)


def _try_open(path, q):  # runs in a child process
    try:
        Journal(path)
        q.put("opened")
    except GraphNIAHError as err:
        q.put(str(err))


def test_one_writer_at_a_time(tmp_path):
    p = tmp_path / "m.jsonl"
    ctx = mp.get_context("fork")
    with Journal(p):
        q = ctx.Queue()
        child = ctx.Process(target=_try_open, args=(p, q))
        child.start()
        child.join(10)
        assert "another runner is writing" in q.get(timeout=5)
    q = ctx.Queue()
    child = ctx.Process(target=_try_open, args=(p, q))
    child.start()
    child.join(10)
    assert q.get(timeout=5) == "opened"  # the lock is released on close


def test_lock_dies_with_a_killed_process(tmp_path):
    p = tmp_path / "m.jsonl"
    ctx = mp.get_context("fork")
    r, w = os.pipe()

    def hold():
        Journal(p)
        os.write(w, b"1")
        os.kill(os.getpid(), 9)

    child = ctx.Process(target=hold)
    child.start()
    assert os.read(r, 1) == b"1"
    child.join(10)
    assert child.exitcode == -9
    with Journal(p) as j:  # would raise if the dead process still held the lock
        assert j.records == ()


def test_done_and_failed_sets_are_per_settings():
    records = [rec("a"), rec("b", "failed"), rec("b"), rec("c", "failed"), rec("d", settings="h2"),
               rec("e", "failed", settings="h2")]
    assert done_ids(records, "h1") == {"a", "b"}
    assert failed_ids(records, "h1") == {"c"}  # b failed once, then succeeded
    assert done_ids(records, "h2") == {"d"}
    assert failed_ids(records, "h2") == {"e"}


def test_spend_is_the_larger_known_figure():
    assert rec("a").spent_usd == 0.0
    assert rec("a", cost_usd=0.0, cost_usd_registry=5.0).spent_usd == 5.0  # a stale LiteLLM price cannot hide spend
    assert rec("a", cost_usd=2.0, cost_usd_registry=None).spent_usd == 2.0
    assert rec("a", cost_usd=3.0, cost_usd_registry=1.0).spent_usd == 3.0


def _batch(event: str, key: str = "k1", **kw):
    from graphniah.formats.journal import BatchRecord

    return BatchRecord(event=event, key=key, model="m", settings_hash="h1", at="2026-11-01T00:00:00+00:00", **kw)


def test_batch_lines_share_the_journal_with_run_records_and_read_apart(tmp_path):
    from graphniah.formats.journal import BatchCounts, read_batches

    p = tmp_path / "m.jsonl"
    steps = [_batch("intent", custom_ids=("a", "b"), provider="openai", estimate_usd=0.5), _batch("uploaded", file_id="file-1"),
             _batch("created", batch_id="batch_1", status="validating"),
             _batch("polled", batch_id="batch_1", status="completed", counts=BatchCounts(total=2, completed=2, failed=0))]
    with Journal(p) as j:
        j.append(steps)
        j.append([rec("a", batch_id="batch_1"), rec("b", batch_id="batch_1"), _batch("collected", batch_id="batch_1")])
    lines = p.read_text().splitlines()
    assert [line.startswith('{"format_version":4,"kind":"batch",') for line in lines] == [True] * 4 + [False, False, True]
    assert [(r.example_id, r.batch_id) for r in read_journal(p)] == [("a", "batch_1"), ("b", "batch_1")]
    assert read_batches(p) == [*steps, _batch("collected", batch_id="batch_1")]
    with Journal(p) as j:
        assert [r.example_id for r in j.records] == ["a", "b"]
        assert [b.event for b in j.batches] == ["intent", "uploaded", "created", "polled", "collected"]


def test_a_damaged_batch_line_is_an_error_naming_the_line(tmp_path):
    p = tmp_path / "m.jsonl"
    good = _batch("intent").model_dump_json()
    p.write_text(rec("a").model_dump_json() + "\n" + good.replace('"event":"intent"', '"event":"launched"') + "\n")
    with pytest.raises(GraphNIAHError, match=r"m\.jsonl:2: not a valid run record \(event:"):
        read_journal(p)
    p.write_text(good.replace('"format_version":4', '"format_version":5') + "\n")
    with pytest.raises(GraphNIAHError, match=r"m\.jsonl:1: run record format_version 5 is not supported .* newer graphniah"):
        read_journal(p)
