"""A pytest plugin that prints the CPU seconds of each test's set-up, call and teardown.

``--durations`` gives wall-clock seconds, which on a shared machine say more about the load than about
the test, and which hide the work a test does in subprocesses on the other core. This plugin adds up
the CPU time (user + system) of the pytest process and of the child processes it waited for during
each phase (``getrusage``: a child counts once it has been waited for, so a server started in a
fixture counts where it is stopped). Used for docs/speed.md's ``make test`` section::

    PYTHONPATH=bench nice -n 10 .venv/bin/python -m pytest tests/faults/test_kill.py -q -n 0 -p pytest_cpu

Run it without xdist (``-n 0``) for the table: under xdist the phases run in the workers, which do
not report here. ``PYTEST_CPU_OUT=<file>`` also writes every row to that file; under xdist each worker
writes its own rows to ``<file>.<worker>`` (with each phase's start, seconds since the worker began),
which shows how the work units fall on the workers and when each worker ends.
"""

from __future__ import annotations

import os
import resource
import time
from collections.abc import Iterator
from dataclasses import dataclass

import pytest


@dataclass(frozen=True)
class Row:
    """One phase of one test: CPU of this process and of its waited-for children, and wall-clock seconds."""

    phase: str
    nodeid: str
    own: float
    children: float
    wall: float
    start: float = 0.0  # seconds since the process loaded this plugin

    def line(self) -> str:
        return (f"{self.own + self.children:8.2f} cpu {self.own:7.2f} own {self.children:7.2f} children "
                f"{self.wall:7.2f} wall  {self.phase:8s} {self.nodeid}")


_ROWS: list[Row] = []
_T0 = time.perf_counter()


def _cpu() -> tuple[float, float]:
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime, kids.ru_utime + kids.ru_stime


def _measure(phase: str, item: pytest.Item) -> Iterator[None]:
    (own, kids), start = _cpu(), time.perf_counter()
    try:
        yield  # a failing phase raises here, and is counted all the same
    finally:
        own2, kids2 = _cpu()
        _ROWS.append(Row(phase, item.nodeid, own2 - own, kids2 - kids, time.perf_counter() - start, start - _T0))


def pytest_sessionfinish(session: pytest.Session) -> None:
    """Under xdist, each worker writes its rows in the order run, with their start times."""
    worker, out = os.environ.get("PYTEST_XDIST_WORKER"), os.environ.get("PYTEST_CPU_OUT")
    if worker and out:
        own, kids = _cpu()
        with open(f"{out}.{worker}", "w", encoding="utf-8") as f:
            f.write("".join(f"{r.start:8.2f} start {r.line()}\n" for r in _ROWS))
            f.write(f"{time.perf_counter() - _T0:8.2f} end: {own:.2f} s CPU in the worker, {kids:.2f} s in its children\n")


@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item: pytest.Item) -> Iterator[None]:
    return (yield from _measure("setup", item))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Iterator[None]:
    return (yield from _measure("call", item))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item: pytest.Item) -> Iterator[None]:
    return (yield from _measure("teardown", item))


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    rows = sorted(_ROWS, key=lambda r: -(r.own + r.children))
    own, kids = _cpu()
    total = f"session: {own:.2f} s CPU in pytest, {kids:.2f} s in its children"
    terminalreporter.write_sep("=", "CPU seconds per phase (pytest_cpu), largest 30")
    for row in rows[:30]:
        terminalreporter.write_line(row.line())
    terminalreporter.write_line(total)
    out = os.environ.get("PYTEST_CPU_OUT")
    if out:
        with open(out, "w", encoding="utf-8") as f:
            f.write("".join(r.line() + "\n" for r in rows) + total + "\n")
