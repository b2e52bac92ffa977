"""The CLI's drawing of :class:`graphniah.progress.Progress`: one rich bar per step, notes above it."""

from __future__ import annotations

from types import TracebackType

from rich.console import Console
from rich.progress import (
    BarColumn,
    DownloadColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
    TransferSpeedColumn,
)

from graphniah.cli.console import rich_console


class RichProgress:
    """A :class:`graphniah.progress.Progress` drawn with rich on ``console`` (stderr by default).

    ``units="bytes"`` shows sizes and transfer speed instead of counts. A finished step's bar is
    removed, so a run of thousands of steps (files of a release) stays readable; ``steps`` and
    ``units`` count what was reported, for the command's closing line. Use as a context manager.
    """

    def __init__(self, console: Console | None = None, *, units: str = "items") -> None:
        self.console = console or rich_console(stderr=True)
        columns: list[ProgressColumn] = [TextColumn("{task.description}", markup=False), BarColumn()]
        if units == "bytes":
            columns += [DownloadColumn(), TransferSpeedColumn(), TimeRemainingColumn()]
        else:
            columns += [MofNCompleteColumn(), TimeElapsedColumn(), TimeRemainingColumn()]
        self._bars = Progress(*columns, console=self.console, transient=False)
        self._task: TaskID | None = None
        self.steps = 0
        self.units = 0

    def __enter__(self) -> RichProgress:
        self._bars.start()
        return self

    def __exit__(self, et: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None) -> None:
        self.done()
        self._bars.stop()

    def start(self, total: int | None, label: str) -> None:
        self.done()
        self._task = self._bars.add_task(label, total=total)

    def advance(self, n: int = 1) -> None:
        self.units += n
        if self._task is not None:
            self._bars.advance(self._task, n)

    def done(self) -> None:
        if self._task is not None:
            self._bars.remove_task(self._task)
            self._task = None
            self.steps += 1

    def note(self, message: str) -> None:
        self.console.print(message, markup=False, highlight=False, soft_wrap=True)
