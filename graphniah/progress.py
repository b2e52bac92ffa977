"""The one progress interface: the library reports to a :class:`Progress`, the CLI draws it.

Long library functions (refresh, pruning and path pools, building examples or suites, model runs,
S2AG downloads, select-alpha) take ``progress: Progress = NO_PROGRESS`` and call

- ``start(total, label)`` when a counted step begins (``total`` may be ``None`` when unknown),
- ``advance(n)`` as units finish (examples, calls, bytes, ...),
- ``done()`` when the step ends (also after an error, so a bar never outlives its step), and
- ``note(message)`` for a line worth telling the user (what is being reused, a retry, a warning).

Steps do not nest: ``start`` while a step is open ends that step first. The library itself never
prints; ``NO_PROGRESS`` ignores everything and ``graphniah.cli.progress.RichProgress`` draws rich
bars (the tests record the calls with ``tests/progress_log.py``).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Protocol, runtime_checkable

__all__ = ["NO_PROGRESS", "NoProgress", "Progress", "step"]


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


@contextlib.contextmanager
def step(progress: Progress, total: int | None, label: str) -> Iterator[Progress]:
    """``start`` on entry and ``done`` on exit, errors included."""
    progress.start(total, label)
    try:
        yield progress
    finally:
        progress.done()
