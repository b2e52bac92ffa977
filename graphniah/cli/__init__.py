"""The ``graphniah`` command line: a thin layer over library functions.

Each pipeline stage keeps its commands in its own module below; importing them registers the
commands on ``app``. Errors the user can fix (``GraphNIAHError``) print one clear line and exit 2.
Command modules import their library (and rich) inside the command function, so drawing the help
loads only typer (tests/cli/test_startup.py).
"""

from __future__ import annotations

import copy
import sys

import typer
from typer.main import get_command_name

from graphniah.cli import baselines, build, corpora, dataset, demo, examples, graph, ingest, refresh, report, run, s2ag, view  # noqa: F401  (registers commands)
from graphniah.cli.app import app
from graphniah.errors import GraphNIAHError

__all__ = ["app", "main"]


def _command_app(args: list[str]) -> typer.Typer:
    """``app`` holding only the command ``args`` starts with, when it names one.

    typer builds the click object of every registered command at each start, which costs about as
    much as importing typer; ``graphniah CMD`` needs only CMD's, and its help, usage line and errors
    read the same. Anything else (no command, an option first, an unknown name) gets the whole app.
    """
    name = args[0] if args else ""
    commands = [c for c in app.registered_commands
                if (c.name or get_command_name(c.callback.__name__ if c.callback else "")) == name]
    groups = [g for g in app.registered_groups if g.name == name]
    if not commands and not groups:
        return app
    narrowed = copy.copy(app)
    narrowed.registered_commands = commands
    narrowed.registered_groups = groups
    return narrowed


def main() -> None:
    try:
        _command_app(sys.argv[1:])()
    except GraphNIAHError as e:
        from rich.console import Console

        console = Console(stderr=True)
        console.print("[bold red]error:[/] ", end="")
        console.print(str(e), markup=False, highlight=False, soft_wrap=True)  # one line, however long
        sys.exit(2)
