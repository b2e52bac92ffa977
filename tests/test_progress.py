"""The progress interface: the no-op default, the recorder, ``step`` and the CLI's rich drawing."""

from __future__ import annotations

import io

import pytest
from rich.console import Console

from graphniah.cli.progress import RichProgress
from graphniah.progress import NO_PROGRESS, Progress, step
from tests.progress_log import ProgressLog


def test_implementations_satisfy_the_protocol() -> None:
    for p in (NO_PROGRESS, ProgressLog(), RichProgress(Console(file=io.StringIO()))):
        assert isinstance(p, Progress)


def test_log_records_steps_and_a_new_start_ends_the_open_step() -> None:
    log = ProgressLog()
    log.start(3, "a")
    log.advance()
    log.advance(2)
    log.note("half way")
    log.start(None, "b")  # steps do not nest: "a" ends here
    log.advance(5)
    log.done()
    log.advance()  # nothing open: ignored
    assert [(s.label, s.total, s.advanced, s.ended) for s in log.steps] == [("a", 3, 3, True), ("b", None, 5, True)]
    assert log.notes == ["half way"]


def test_step_ends_on_error() -> None:
    log = ProgressLog()
    with pytest.raises(RuntimeError), step(log, 2, "failing"):
        log.advance()
        raise RuntimeError("boom")
    assert log.steps[0].ended and log.steps[0].advanced == 1


def test_rich_progress_counts_and_prints_notes() -> None:
    out = io.StringIO()
    with RichProgress(Console(file=out, width=100), units="bytes") as bar:
        bar.start(10, "file-1.gz")
        bar.advance(4)
        bar.advance(6)
        bar.done()
        bar.start(0, "file-2.gz")  # checked, nothing fetched
        bar.note("retrying in 1.00 s")
    assert (bar.steps, bar.units) == (2, 10)  # the open step is ended on exit
    assert "retrying in 1.00 s" in out.getvalue()
