"""The project's error type: every failure a user can cause says what is wrong and where."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the CLI imports this module before anything needs pydantic
    from pydantic import ValidationError


class GraphNIAHError(Exception):
    """A problem with the user's input or environment, reported without a traceback by the CLI."""


def yaml_detail(err: Exception) -> str:
    """One line for a YAML parse error (PyYAML's own text spans several lines, with a caret under
    the spot): ``line L, column C: problem``."""
    mark = getattr(err, "problem_mark", None)
    problem = getattr(err, "problem", None) or str(err)
    where = f"line {mark.line + 1}, column {mark.column + 1}: " if mark is not None else ""
    return where + " ".join(str(problem).split())


def validation_detail(err: ValidationError, default: str = "record") -> str:
    """``"field.path: message"`` of a pydantic error's first problem, for one-line errors."""
    first = err.errors()[0]
    return f"{'.'.join(map(str, first['loc'])) or default}: {first['msg']}"
