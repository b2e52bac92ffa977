"""The one progress interface: the library reports to a :class:`Progress`, the CLI draws it.

Long library functions (refresh, pruning and path pools, building examples or suites, model runs,
S2AG downloads, select-alpha) take ``progress: Progress = NO_PROGRESS`` and call

- ``start(total, label)`` when a counted step begins (``total`` may be ``None`` when unknown),
- ``advance(n)`` as units finish (examples, calls, bytes, ...),
- ``done()`` when the step ends (also after an error, so a bar never outlives its step), and
- ``note(message)`` for a line worth telling the user (what is being reused, a retry, a warning).

Steps do not nest: ``start`` while a step is open ends that step first. The library itself never
prints; ``NO_PROGRESS`` ignores everything, :class:`ProgressLog` records the calls (tests and
callers that want the lines), and ``graphniah.cli.progress.RichProgress`` draws rich bars.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

__all__ = ["NO_PROGRESS", "NoProgress", "Progress", "ProgressLog", "ProgressStep", "step"]


@runtime_checkable
class Progress(Protocol):
    def start(self, total: int | None, label: str) -> None:
        """A counted step begins: ``total`` units (``None``: not known yet) described by ``label``."""

    def advance(self, n: int = 1) -> None:
        """``n`` more units of the current step are finished."""

    def done(self) -> None:
        """The current step ended (finished or abandoned)."""

    def note(self, message: str) -> None:
        """A line for the user."""


class NoProgress:
    """Reports nowhere (the library's default)."""

    def start(self, total: int | None, label: str) -> None:
        pass

    def advance(self, n: int = 1) -> None:
        pass

    def done(self) -> None:
        pass

    def note(self, message: str) -> None:
        pass


NO_PROGRESS: Progress = NoProgress()


@dataclass
class ProgressStep:
    """One step as :class:`ProgressLog` saw it (mutable: it is filled in as the step runs)."""

    label: str
    total: int | None
    advanced: int = 0
    ended: bool = False


@dataclass
class ProgressLog:
    """Records every call: ``notes`` (the lines) and ``steps`` (one :class:`ProgressStep` per start)."""

    notes: list[str] = field(default_factory=list)
    steps: list[ProgressStep] = field(default_factory=list)

    def start(self, total: int | None, label: str) -> None:
        self.done()
        self.steps.append(ProgressStep(label, total))

    def advance(self, n: int = 1) -> None:
        if self.steps and not self.steps[-1].ended:
            self.steps[-1].advanced += n

    def done(self) -> None:
        if self.steps:
            self.steps[-1].ended = True

    def note(self, message: str) -> None:
        self.notes.append(message)


@contextlib.contextmanager
def step(progress: Progress, total: int | None, label: str) -> Iterator[Progress]:
    """``start`` on entry and ``done`` on exit, errors included."""
    progress.start(total, label)
    try:
        yield progress
    finally:
        progress.done()
