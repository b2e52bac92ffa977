"""``graphniah run --batch`` against the fake batch service on 127.0.0.1 (graphniah.run.serve.batches):
answers, scores, retries of failed and expired lines, limits, budget at the batch price, restarts,
status and reuse. The kills are in tests/faults/test_batch_kill.py."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections import Counter

import pytest
from typer.testing import CliRunner

from graphniah.cli import app
from graphniah.errors import GraphNIAHError
from graphniah.formats.examples import index_examples
from graphniah.formats.journal import BatchRecord, Journal, read_batches
from graphniah.layout import journal_file
from graphniah.progress import NO_PROGRESS
from graphniah.report import build_report, load_suite
from graphniah.run import RetryPolicy, read_journal, run_suite
from graphniah.run.batch.options import BatchOptions, Limits
from graphniah.run.batch.send import BatchRun
from graphniah.run.batch.status import in_flight
from graphniah.run.failures import Redactor
from graphniah.run.plan import make_plan
from graphniah.run.runner import RunSummary
from graphniah.run.serve.batches import BatchFaults, BatchServer
from graphniah.run.serve.policies import PolicyServer
from graphniah.scoring import score_records
from tests.run.helpers import fast_options, local_entry

FAST = BatchOptions(poll_s=0.02)


def run(entry, suite, runs, batch=FAST, path=None, **opts) -> RunSummary:
    out = run_suite(entry, path or suite.path, runs_root=runs, snapshots_root=suite.snapshots,
                    options=fast_options(batch=batch, **opts))
    assert isinstance(out, RunSummary)
    return out


def records(runs, model="local-oracle", suite="demo"):
    return read_journal(journal_file(runs, suite, model))


def intents(runs, model="local-oracle", suite="demo") -> list[BatchRecord]:
    return [b for b in read_batches(journal_file(runs, suite, model)) if b.event == "intent"]


def test_a_batched_run_scores_example_by_example_as_direct_calls(suite, tmp_path):
    ids = {e.id for e in suite.examples}
    for policy in ("oracle", "always-no"):
        with PolicyServer(policy) as direct, BatchServer(policy) as batched:
            run(local_entry(f"local-{policy}", api_base=direct.url), suite, tmp_path / "direct", batch=None)
            s = run(local_entry(f"local-{policy}", api_base=batched.url), suite, tmp_path / "batch")
            assert (s.sent, s.ok, s.failed, s.unsent) == (16, 16, 0, 0)
            assert batched.submitted == Counter(dict.fromkeys(ids, 1)) == batched.answered
        d = {r.example_id: r for r in records(tmp_path / "direct", f"local-{policy}")}
        b = {r.example_id: r for r in records(tmp_path / "batch", f"local-{policy}")}
        assert set(d) == set(b) == ids
        for i in ids:
            assert (b[i].extracted, b[i].correct, b[i].response) == (d[i].extracted, d[i].correct, d[i].response)
            assert d[i].batch_id is None and d[i].service_tier == "standard"
            assert b[i].batch_id is not None and b[i].service_tier == "batch" and b[i].attempts == 1
        assert score_records(list(b.values())).overall == score_records(list(d.values())).overall
    truth = {e.id: e.answer for e in suite.examples}
    oracle = records(tmp_path / "batch")
    assert all(r.correct and r.extracted == truth[r.example_id] for r in oracle)  # the oracle reads every answer
    no = records(tmp_path / "batch", "local-always-no")
    assert sum(r.correct for r in no) == sum(1 for e in suite.examples if e.answer == "NO")
    # The report's cost table says which answers came through a batch.
    for mode, batched in (("batch", "16"), ("direct", "0")):
        cost = build_report(load_suite("demo", runs_root=tmp_path / mode, examples_root=suite.path.parent)).table("cost")
        col = cost.header.index("Batched")
        assert [row[col].text for row in cost.rows[:-1]] == [batched, batched]


def test_failed_and_expired_lines_are_sent_again_alone_and_answered_once(suite, tmp_path):
    ids = [e.id for e in suite.examples]
    fail = frozenset(ids[:2])  # in the first batch of 8
    faults = BatchFaults(polls_to_complete=2, fail_first=fail, expire=frozenset({2}), rate_limit_creates=2)
    with BatchServer("oracle", faults=faults) as srv:
        s = run(local_entry(api_base=srv.url), suite, tmp_path / "runs", batch=BatchOptions(poll_s=0.02, max_requests=8))
        expired = set(ids[8:])
        assert srv.submitted == Counter({i: 2 if i in fail or i in expired else 1 for i in ids})
        assert srv.answered == Counter(dict.fromkeys(ids, 1))
    assert (s.ok, s.failed) == (16, 0)
    sent = [set(b.custom_ids) for b in intents(tmp_path / "runs")]
    assert sent == [set(ids[:8]), expired, set(fail), expired] or sent == [set(ids[:8]), expired, expired, set(fail)]
    assert [b.attempt for b in intents(tmp_path / "runs")] == [1, 1, 2, 2]
    recs = {r.example_id: r for r in records(tmp_path / "runs")}
    assert len(records(tmp_path / "runs")) == 16 and all(r.correct for r in recs.values())
    for i in ids:
        again = i in fail or i in expired
        assert recs[i].attempts == (2 if again else 1)
        kinds = [e.kind for e in recs[i].errors]
        assert kinds == (["server_error"] if i in fail else ["timeout"] if i in expired else [])


def test_lines_that_fail_on_the_last_attempt_are_journaled_as_failed_calls(suite, tmp_path):
    ids = [e.id for e in suite.examples]
    with BatchServer("oracle", faults=BatchFaults(fail_first=frozenset(ids[:3]))) as srv:
        s = run(local_entry(api_base=srv.url), suite, tmp_path / "runs", retry=RetryPolicy(max_attempts=1))
        assert srv.submitted == Counter(dict.fromkeys(ids, 1))
    assert (s.ok, s.failed) == (13, 3)
    failed = [r for r in records(tmp_path / "runs") if r.status == "failed"]
    assert sorted(r.example_id for r in failed) == sorted(ids[:3])
    assert all(r.errors[0].status == 500 and r.batch_id is None for r in failed)


def test_batches_keep_the_request_limit(suite, tmp_path):
    with BatchServer("oracle") as srv:
        run(local_entry(api_base=srv.url), suite, tmp_path / "runs", batch=BatchOptions(poll_s=0.02, max_requests=5))
    assert [len(b.custom_ids) for b in intents(tmp_path / "runs")] == [5, 5, 5, 1]


def test_split_keeps_requests_and_bytes_per_batch():
    from graphniah.run.batch.lines import split

    lines = [(f"e{i}", b"x" * n + b"\n") for i, n in enumerate([3, 3, 3, 9, 1, 1, 1, 1])]
    groups = list(split(lines, Limits(max_requests=3, max_bytes=10)))
    assert [[c for c, _ in g] for g in groups] == [["e0", "e1"], ["e2"], ["e3"], ["e4", "e5", "e6"], ["e7"]]
    with pytest.raises(GraphNIAHError, match="e3: its batch request takes 10 bytes, more than a batch file may hold"):
        list(split(lines, Limits(max_requests=3, max_bytes=9)))


def test_answers_are_priced_at_half_the_standard_price_and_the_budget_counts_so(suite, tmp_path):
    entry_of = lambda url: local_entry(api_base=url, price={"standard": {"input": 1.0, "output": 2.0}})
    with BatchServer("oracle") as srv:
        s = run(entry_of(srv.url), suite, tmp_path / "runs")
        assert s.ok == 16
    for r in records(tmp_path / "runs"):
        assert r.usage is not None
        assert r.cost_usd_registry == pytest.approx((r.usage.prompt_tokens * 1.0 + r.usage.completion_tokens * 2.0) / 2e6)
    # The budget reserves each batch's estimate at the batch price: half the direct estimate at the standard price.
    refs = index_examples(suite.path)
    direct = make_plan(entry_of("http://127.0.0.1:9/v1"), refs, tmp_path / "x.jsonl", [], fast_options()).estimate.per_example
    budget = sum(direct[r.id] / 2 for r in refs[:4]) * 1.0001
    assert budget < sum(direct[r.id] for r in refs[:4]) / 2 + sum(direct[r.id] for r in refs[4:5]) / 2
    with BatchServer("oracle") as srv:
        s = run(entry_of(srv.url), suite, tmp_path / "budget", batch=BatchOptions(poll_s=0.02, max_requests=4),
                budget_usd=budget)
        assert sum(srv.submitted.values()) == 4
    assert (s.ok, s.unsent, s.stopped_by) == (4, 12, "budget")


def test_a_server_restart_in_the_middle_loses_no_batch(suite, tmp_path):
    ids = {e.id for e in suite.examples}
    state = tmp_path / "state"
    first = BatchServer("oracle", state_dir=state, faults=BatchFaults(polls_to_complete=4)).start()
    port = first.port
    out: dict[str, RunSummary] = {}
    runner = threading.Thread(target=lambda: out.setdefault("s", run(
        local_entry(api_base=first.url), suite, tmp_path / "runs", batch=BatchOptions(poll_s=0.1),
        retry=RetryPolicy(max_attempts=30, base_s=0.05, cap_s=0.2))))
    runner.start()
    deadline = time.monotonic() + 60
    while not first.submitted and time.monotonic() < deadline:
        time.sleep(0.02)
    first.stop()  # created, not finished: its state is on disk
    time.sleep(0.3)
    with BatchServer("oracle", state_dir=state, faults=BatchFaults(polls_to_complete=4), port=port) as second:
        runner.join(120)
        assert not runner.is_alive()
        assert second.submitted == Counter(dict.fromkeys(ids, 1)) == second.answered
    assert out["s"].ok == 16 and len(records(tmp_path / "runs")) == 16


def test_status_lists_batches_in_flight_and_a_rerun_collects_them(suite, tmp_path):
    runs = tmp_path / "runs"
    with BatchServer("oracle", faults=BatchFaults(polls_to_complete=2)) as srv:
        entry = local_entry(api_base=srv.url)
        jpath = journal_file(runs, "demo", entry.name)
        refs = index_examples(suite.path)
        with Journal(jpath) as journal:  # submit without polling: what a Ctrl-C after the submission leaves
            plan = make_plan(entry, refs, jpath, journal.records, fast_options())
            BatchRun(plan, journal, fast_options(), BatchOptions(max_requests=10), Redactor([]), NO_PROGRESS).submit(plan.to_send, 1)
        left = in_flight(runs)
        assert [(b.suite, b.model, b.requests, b.status) for b in left] == [("demo", entry.name, 10, "validating"),
                                                                              ("demo", entry.name, 6, "validating")]
        assert all(b.batch_id is not None and 0 <= b.age_s < 600 for b in left)
        shown = CliRunner().invoke(app, ["batches", "--runs", str(runs)], env={"COLUMNS": "300"})
        assert shown.exit_code == 0, shown.output
        assert "2 batch(es) in flight" in shown.output and left[0].batch_id in shown.output
        s = run(entry, suite, runs)
        assert (s.sent, s.ok) == (16, 16) and srv.submitted == Counter(dict.fromkeys((r.id for r in refs), 1))
    assert in_flight(runs) == []
    assert "no batch in flight" in CliRunner().invoke(app, ["batches", "--runs", str(runs)]).output


def test_a_batched_answer_is_reused_by_another_suite(suite, tmp_path):
    other = tmp_path / "other.jsonl"
    other.write_bytes(suite.path.read_bytes())
    with BatchServer("oracle") as srv:
        entry = local_entry(api_base=srv.url)
        run(entry, suite, tmp_path / "runs")
        s = run(entry, suite, tmp_path / "runs", path=other)
        assert (s.sent, s.reused) == (0, 16)
        assert sum(srv.submitted.values()) == 16
    reused = records(tmp_path / "runs", suite="other")
    assert len(reused) == 16 and all(r.batch_id is not None and r.reused_from for r in reused)


def test_a_provider_without_a_batch_api_here_is_refused(suite, tmp_path):
    entry = local_entry(litellm_model="mistral/local-oracle", api_base="http://127.0.0.1:9/v1")
    with pytest.raises(GraphNIAHError, match=r"cannot be run with --batch: batches are sent to OpenAI-compatible"):
        run(entry, suite, tmp_path / "runs")


# clock_nanosleep, the system call of time.sleep, by machine (Linux's /proc/<pid>/syscall names it by number)
_NANOSLEEP = {"x86_64": "230", "aarch64": "115"}


def _wait_until_asleep(proc: subprocess.Popen[bytes], seconds: float) -> None:
    """Return once the main thread of ``proc`` sleeps in ``time.sleep`` (the runner's wait for its next
    poll), so that the test's Ctrl-C lands where a user's would; on a machine whose /proc does not say,
    after one second."""
    import platform
    from pathlib import Path

    call = _NANOSLEEP.get(platform.machine())
    deadline = time.monotonic() + seconds
    while call is not None and time.monotonic() < deadline and proc.poll() is None:
        try:
            if Path(f"/proc/{proc.pid}/syscall").read_text().split()[:1] == [call]:
                return
        except OSError:
            break
        time.sleep(0.02)
    time.sleep(1.0)


@pytest.mark.slow
def test_ctrl_c_leaves_the_batches_running_and_says_how_to_collect_them(suite, tmp_path):
    runs = tmp_path / "runs"
    jpath = journal_file(runs, "demo", "local-oracle")
    with BatchServer("oracle", faults=BatchFaults(polls_to_complete=2)) as srv:
        # Started as a terminal starts it: Ctrl-C raises KeyboardInterrupt. A test run in the background of a
        # shell without job control (`make test &`, nohup, many CI runners) ignores SIGINT, and a child
        # inherits an ignored signal: the runner then slept through the Ctrl-C and the test timed out.
        child = "import signal; signal.signal(signal.SIGINT, signal.default_int_handler); from graphniah.cli import main; main()"
        cmd = [sys.executable, "-c", child, "run", "--model", "local-oracle", "--batch",
               "--examples", str(suite.path), "--api-base", srv.url, "--runs", str(runs), "--snapshots", str(suite.snapshots),
               "--poll-interval", "60", "--batch-size", "10", "--no-progress"]
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env={**os.environ, "COLUMNS": "300"})
        deadline = time.monotonic() + 240
        while not (jpath.exists() and sum(b.event == "polled" for b in read_batches(jpath)) == 2):
            assert time.monotonic() < deadline and proc.poll() is None, "the runner never polled its two batches"
            time.sleep(0.05)
        _wait_until_asleep(proc, 30)
        proc.send_signal(signal.SIGINT)  # while it waits for the next poll
        out, err = proc.communicate(timeout=60)
        assert proc.returncode == 130, err.decode()
        said = " ".join((out + err).decode().split())
        assert "2 batch(es) of local-oracle left running at the provider (16 request(s))" in said
        assert "the same command collects them" in said and "graphniah batches" in said
        assert len(in_flight(runs)) == 2 and sum(srv.submitted.values()) == 16
        s = run(local_entry(api_base=srv.url), suite, runs)
        assert s.ok == 16 and srv.submitted == Counter(dict.fromkeys((e.id for e in suite.examples), 1))


def test_batch_true_in_the_registry_sends_batches_without_the_option(suite, tmp_path):
    with BatchServer("oracle") as srv:
        s = run(local_entry(api_base=srv.url, batch=True), suite, tmp_path / "runs", batch=None)
        assert s.ok == 16 and sum(srv.submitted.values()) == 16
    assert all(r.batch_id is not None and r.service_tier == "batch" for r in records(tmp_path / "runs"))
    assert local_entry(batch=True).settings_hash == local_entry().settings_hash  # batching does not change answers
