"""kill -9 of the runner at random moments, then resume: no finished call lost, none duplicated."""

from __future__ import annotations

import multiprocessing as mp
import os
import signal
import subprocess
import sys
import time
from collections import Counter

import numpy as np
import pytest

from graphniah.formats.examples import write_examples
from graphniah.layout import journal_file
from graphniah.run import read_journal, run_suite
from graphniah.run.client import litellm_module
from graphniah.run.models import ModelEntry
from tests.run.helpers import fast_options, local_entry
from tests.run.serve.faulty import Faults, FaultServer


def _child_run(entry_json: str, examples: str, runs: str, snapshots: str) -> None:
    """A forked runner process (LiteLLM already imported by the parent, so it starts at once)."""
    entry = ModelEntry.model_validate_json(entry_json)
    run_suite(entry, examples, runs_root=runs, snapshots_root=snapshots, options=fast_options(concurrency=4))
    os._exit(0)


def _wait_for_requests(srv: FaultServer, more_than: int, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while srv.stats.requests <= more_than:
        assert time.monotonic() < deadline, "the runner never sent a request"
        time.sleep(0.01)


def _ok_counts(path) -> Counter:
    return Counter(r.example_id for r in read_journal(path) if r.status == "ok")


@pytest.mark.slow
def test_kill_9_at_random_moments_then_resume(suite, tmp_path):
    rng = np.random.default_rng(20261129)
    # 32 examples (each demo example under two ids) so that a run lasts long enough to be cut.
    exs = [e.model_copy(update={"id": f"{e.id}-{k}"}) for k in range(2) for e in suite.examples]
    examples = tmp_path / "crash.jsonl"
    write_examples(examples, exs)
    runs = tmp_path / "runs"
    jpath = journal_file(runs, "crash", "local-oracle")
    all_ids = {e.id for e in exs}
    litellm_module()  # import once here so forked runners do not pay for it
    ctx = mp.get_context("fork")
    cut_short = 0
    with FaultServer("oracle", faults=Faults(latency_s=0.15)) as srv:
        entry = local_entry(api_base=srv.url)
        # Round 1: the real command line in its own process.
        cmd = [sys.executable, "-c", "from graphniah.cli import main; main()", "run", "--model", "local-oracle",
               "--examples", str(examples), "--api-base", srv.url, "--runs", str(runs), "--snapshots", str(suite.snapshots),
               "--concurrency", "4", "--no-progress"]
        seen = srv.stats.requests
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        _wait_for_requests(srv, seen)
        time.sleep(float(rng.uniform(0.05, 0.6)))
        proc.send_signal(signal.SIGKILL)
        assert proc.wait(30) == -signal.SIGKILL
        # Rounds 2-5: forked runners, killed at random moments.
        for _ in range(4):
            done = _ok_counts(jpath)
            assert max(done.values(), default=1) == 1  # never a duplicate, after any kill
            if set(done) == all_ids:
                break
            cut_short += 1
            seen = srv.stats.requests
            child = ctx.Process(target=_child_run, args=(entry.model_dump_json(), str(examples), str(runs), str(suite.snapshots)))
            child.start()
            _wait_for_requests(srv, seen)
            time.sleep(float(rng.uniform(0.0, 0.5)))
            os.kill(child.pid, signal.SIGKILL)
            child.join(30)
            assert child.exitcode == -signal.SIGKILL
        before = _ok_counts(jpath)
        assert 0 < len(before) < len(all_ids)  # the kills really interrupted runs
        s = run_suite(entry, examples, runs_root=runs, snapshots_root=suite.snapshots, options=fast_options(concurrency=4))
        assert s.sent == len(all_ids) - len(before)  # only the missing examples are sent
    assert cut_short >= 1
    recs = read_journal(jpath)
    ok = Counter(r.example_id for r in recs if r.status == "ok")
    assert set(ok) == all_ids and set(ok.values()) == {1}  # exactly one successful record per example
    assert all(r.correct for r in recs)
    assert jpath.read_bytes().endswith(b"\n")  # valid JSONL: no partial line left behind
