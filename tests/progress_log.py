"""A :class:`graphniah.progress.Progress` that records every call, for tests that check what a step reported."""

from __future__ import annotations

from dataclasses import dataclass, field


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
