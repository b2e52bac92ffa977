"""The command line's rich consoles, sized for where their output goes.

On a terminal a console takes the terminal's width, as rich does. Anywhere else (output piped to a
file or another program, a CI log: ``make demo > log``) rich would assume 80 columns and wrap table
cells in the middle of a word; there a console is as wide as no line reaches, so a table takes the
width its content needs and a line of text stays one line. ``COLUMNS``, when set, wins (rich reads it).
"""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # rich is imported when a console is made, not when the help is drawn
    from rich.console import Console

__all__ = ["PIPE_WIDTH", "rich_console"]

#: The width of a console whose stream is not a terminal: wider than any line the commands print.
PIPE_WIDTH = 10_000


def rich_console(*, stderr: bool = False, **kwargs: Any) -> Console:
    """A rich console on standard output (or ``stderr``), as wide as its stream needs.

    Parameters
    ----------
    stderr : bool
        Write to standard error instead of standard output.
    **kwargs
        Passed on to :class:`rich.console.Console` (``soft_wrap``, ...).

    Returns
    -------
    Console
        The terminal's width on a terminal or with ``COLUMNS`` set; else :data:`PIPE_WIDTH`, so no cell of a
        table is cut and wrapped.
    """
    from rich.console import Console

    stream = sys.stderr if stderr else sys.stdout
    piped = not (hasattr(stream, "isatty") and stream.isatty()) and not os.environ.get("COLUMNS")
    return Console(stderr=stderr, width=PIPE_WIDTH if piped else None, **kwargs)
