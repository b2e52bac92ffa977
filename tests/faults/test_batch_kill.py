"""``graphniah run --batch`` killed with SIGKILL at the dangerous moments of a batch, then resumed:
between the upload and the creation, after the provider created the batch but before the runner
heard of it, between the creation and the first poll, and while the results download. Each time
the fake service (graphniah.run.serve.batches) counts every example submitted exactly once, and the
journal holds exactly one answer per example; for the OpenAI-compatible flow, Anthropic's Message Batches and
Gemini batch mode. ``bench/batch.py`` kills at random moments."""

from __future__ import annotations

import multiprocessing as mp
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest
import yaml

from graphniah.formats.journal import read_batches
from graphniah.layout import journal_file
from graphniah.run import read_journal, run_suite
from graphniah.run.batch.options import BatchOptions
from graphniah.run.client import litellm_module
from graphniah.run.runner import RunSummary
from graphniah.run.serve.batches import BatchFaults, BatchServer
from tests.run.helpers import DemoSuite, demo_suite, fast_options, local_entry


@pytest.fixture(scope="module")
def suite(tmp_path_factory: pytest.TempPathFactory) -> DemoSuite:
    return demo_suite(tmp_path_factory)


def _cli(argv: list[str]) -> None:
    """``graphniah <argv>`` in a forked process (LiteLLM already imported by the parent, so it starts at once)."""
    from graphniah.cli import main

    sys.argv = ["graphniah", *argv]
    try:
        main()
    finally:
        os._exit(0)


class _Runner:
    """``graphniah run --batch`` in a process of its own: exec'd (a real start) or forked from this one."""

    def __init__(self, suite: DemoSuite, url: str, runs: Path, poll_s: float, fresh: bool, registry: Path | None = None,
                 model: str = "local-oracle"):
        argv = ["run", "--model", model, "--batch", "--examples", str(suite.path), "--api-base", url, "--runs",
                str(runs), "--snapshots", str(suite.snapshots), "--poll-interval", str(poll_s), "--batch-size", "10",
                "--no-progress", *(["--registry", str(registry)] if registry is not None else [])]
        if fresh:
            self.proc: subprocess.Popen[bytes] | None = subprocess.Popen(
                [sys.executable, "-c", "from graphniah.cli import main; main()", *argv],
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            self.child = None
        else:
            litellm_module()
            self.proc = None
            self.child = mp.get_context("fork").Process(target=_cli, args=(argv,))
            self.child.start()

    def kill(self) -> None:
        if self.proc is not None:
            self.proc.send_signal(signal.SIGKILL)
            assert self.proc.wait(30) == -signal.SIGKILL
            return
        assert self.child is not None and self.child.pid is not None
        os.kill(self.child.pid, signal.SIGKILL)
        self.child.join(30)
        assert self.child.exitcode == -signal.SIGKILL


def _wait(what: str, done, timeout: float = 240.0) -> None:
    deadline = time.monotonic() + timeout
    while not done():
        assert time.monotonic() < deadline, f"the runner never reached {what}"
        time.sleep(0.02)


def _events(jpath: Path) -> list[str]:
    return [b.event for b in read_batches(jpath)] if jpath.exists() else []


@pytest.mark.slow
@pytest.mark.parametrize("moment", ["create-before", "create-after", "first-poll", "content"])
def test_a_batch_run_killed_at_each_dangerous_moment_submits_and_answers_every_example_once(suite, tmp_path, moment):
    ids = {e.id for e in suite.examples}
    runs = tmp_path / "runs"
    jpath = journal_file(runs, "demo", "local-oracle")
    pause = None if moment == "first-poll" else moment
    faults = BatchFaults(polls_to_complete=2, pause=pause)  # type: ignore[arg-type]  # the three pause points
    with BatchServer("oracle", faults=faults) as srv:
        # One moment with a real start of the command; the others fork it from this process (no import to wait for).
        proc = _Runner(suite, srv.url, runs, poll_s=0.05 if pause == "content" else 30.0, fresh=moment == "create-before")
        try:
            if pause is None:  # created and journaled; the runner polled once and sleeps 30 s before the next poll
                _wait("the first poll", lambda: "polled" in _events(jpath))
            else:
                _wait(f"the {moment} pause", srv.paused.is_set)
        finally:
            proc.kill()
        srv.release()
        before = _events(jpath)
        assert before.count("intent") >= 1 and "collected" not in before
        if moment == "create-before":
            assert "uploaded" in before and "created" not in before and sum(srv.submitted.values()) == 0
        if moment == "create-after":
            assert "created" not in before and sum(srv.submitted.values()) == 10  # made, but the runner never heard
        s = run_suite(local_entry(api_base=srv.url), suite.path, runs_root=runs, snapshots_root=suite.snapshots,
                      options=fast_options(batch=BatchOptions(poll_s=0.02, max_requests=10)))
        assert isinstance(s, RunSummary) and s.failed == 0
        assert srv.submitted == Counter(dict.fromkeys(ids, 1))  # never submitted twice: never paid twice
        assert srv.answered == Counter(dict.fromkeys(ids, 1))
    recs = read_journal(jpath)
    assert Counter(r.example_id for r in recs if r.status == "ok") == Counter(dict.fromkeys(ids, 1))
    assert all(r.correct and r.batch_id for r in recs)
    batches = read_batches(jpath)
    created = [b.batch_id for b in batches if b.event == "created"]
    assert len(created) == len(set(created)) == 2  # 16 examples in batches of 10: two batches, each created once
    assert jpath.read_bytes().endswith(b"\n")


def _claude(url: str):
    return local_entry(name="claude-oracle", litellm_model="anthropic/claude-oracle", api_key_env="ANTHROPIC_API_KEY",
                       api_base=url)


def _gemini(url: str):
    # A model LiteLLM's map gives a system instruction (the oracle reads the question there).
    return local_entry(name="gemini-oracle", litellm_model="gemini/gemini-3.1-pro-preview", api_key_env="GEMINI_API_KEY",
                       api_base=url)


def _killed_and_resumed(suite: DemoSuite, tmp_path: Path, entry, key: str, moment: str) -> None:
    """Run ``entry`` (a native batch provider: no upload) with --batch, SIGKILL it at ``moment``, resume, check once-only."""
    ids = {e.id for e in suite.examples}
    runs = tmp_path / "runs"
    jpath = journal_file(runs, "demo", entry.name)
    pause = None if moment == "first-poll" else moment
    faults = BatchFaults(polls_to_complete=2, pause=pause)  # type: ignore[arg-type]  # the pause points
    with BatchServer("oracle", faults=faults, api_key=key) as srv:
        entry = entry.model_copy(update={"api_base": srv.url})
        registry = tmp_path / "models.yaml"
        registry.write_text(yaml.safe_dump({"models": {entry.name: entry.model_dump(mode="json", exclude={"name"})}}))
        proc = _Runner(suite, srv.url, runs, poll_s=0.05 if pause == "content" else 30.0, fresh=False, registry=registry,
                       model=entry.name)
        try:
            if pause is None:
                _wait("the first poll", lambda: "polled" in _events(jpath))
            else:
                _wait(f"the {moment} pause", srv.paused.is_set)
        finally:
            proc.kill()
        srv.release()
        before = _events(jpath)
        assert before.count("intent") >= 1 and "collected" not in before and "uploaded" not in before
        if moment == "create-after":
            assert "created" not in before and sum(srv.submitted.values()) == 10  # made, but the runner never heard
        s = run_suite(entry, suite.path, runs_root=runs, snapshots_root=suite.snapshots,
                      options=fast_options(batch=BatchOptions(poll_s=0.02, max_requests=10)))
        assert isinstance(s, RunSummary) and s.failed == 0
        assert srv.submitted == Counter(dict.fromkeys(ids, 1))  # never submitted twice: never paid twice
        assert srv.answered == Counter(dict.fromkeys(ids, 1))
    recs = read_journal(jpath)
    assert Counter(r.example_id for r in recs if r.status == "ok") == Counter(dict.fromkeys(ids, 1))
    assert all(r.correct and r.batch_id for r in recs)
    created = [b.batch_id for b in read_batches(jpath) if b.event == "created"]
    assert len(created) == len(set(created)) == 2
    assert key not in jpath.read_text()


@pytest.mark.slow
@pytest.mark.parametrize("moment", ["create-after", "first-poll", "content"])
def test_an_anthropic_batch_run_killed_at_each_dangerous_moment_submits_and_answers_every_example_once(
        suite, tmp_path, monkeypatch, moment):
    """Anthropic's Message Batches: no upload, and a batch carries no tag, so after a kill between the
    creation and the journal line the run finds its batch by size, age and (once ended) its custom ids."""
    key = "sk-ant-kill-test-0a1b2c3d4e5f"
    monkeypatch.setenv("ANTHROPIC_API_KEY", key)
    _killed_and_resumed(suite, tmp_path, _claude("http://127.0.0.1:9"), key, moment)


@pytest.mark.slow
@pytest.mark.parametrize("moment", ["create-after", "first-poll", "content"])
def test_a_gemini_batch_run_killed_at_each_dangerous_moment_submits_and_answers_every_example_once(
        suite, tmp_path, monkeypatch, moment):
    """Gemini batch mode: no upload; after a kill between the creation and the journal line the run finds
    its batch by the display name carrying the journal key; a kill while a done batch's results travel
    (they come in the poll's reply) is followed by a poll that reads them again."""
    key = "AIzaSy-kill-test-0a1b2c3d4e5f6a7b8c9d"
    monkeypatch.setenv("GEMINI_API_KEY", key)
    _killed_and_resumed(suite, tmp_path, _gemini("http://127.0.0.1:9"), key, moment)
