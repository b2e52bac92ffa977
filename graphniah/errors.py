"""The project's error type: every failure a user can cause says what is wrong and where."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the CLI imports this module before anything needs pydantic
    from pydantic import ValidationError


class GraphNIAHError(Exception):
    """A problem with the user's input or environment, reported without a traceback by the CLI."""


def validation_detail(err: ValidationError, default: str = "record") -> str:
    """``"field.path: message"`` of a pydantic error's first problem, for one-line errors."""
    first = err.errors()[0]
    return f"{'.'.join(map(str, first['loc'])) or default}: {first['msg']}"
