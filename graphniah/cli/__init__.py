"""The ``graphniah`` command line: a thin layer over library functions.

Each pipeline stage keeps its commands in its own module below; importing them registers the
commands on ``app``. Errors the user can fix (``GraphNIAHError``) print one clear line and exit 2.
Command modules import their library (and rich) inside the command function, so drawing the help
loads only typer (tests/cli/test_startup.py).
"""

from __future__ import annotations

import copy
import sys
from typing import NoReturn

import typer
from typer.main import get_command_name
from typer.models import CommandInfo

from graphniah.cli import (  # noqa: F401  (registers commands)
    baselines,
    batches,
    build,
    corpora,
    dataset,
    demo,
    examples,
    graph,
    ingest,
    openalex,
    power,
    refresh,
    report,
    run,
    s2ag,
    tokenize,
    view,
)
from graphniah.cli.app import app
from graphniah.cli.console import rich_console
from graphniah.errors import GraphNIAHError

__all__ = ["app", "main"]


def _name(command: CommandInfo) -> str:
    return command.name or get_command_name(command.callback.__name__ if command.callback else "")


def _listed(command: CommandInfo) -> CommandInfo:
    """The command as a help listing shows it: its name and docstring, and no parameters to build."""

    def stand_in() -> None:
        raise AssertionError(f"the listing's stand-in for {_name(command)} was called")

    stand_in.__doc__ = command.callback.__doc__ if command.callback else None
    out = copy.copy(command)
    out.name, out.callback = _name(command), stand_in
    return out


def _listing(t: typer.Typer) -> typer.Typer:
    """``t`` with every command (in its groups too) replaced by its listing (:func:`_listed`)."""
    out = copy.copy(t)
    out.registered_commands = [_listed(c) for c in t.registered_commands]
    out.registered_groups = [copy.copy(g) for g in t.registered_groups]
    for g in out.registered_groups:
        assert g.typer_instance is not None  # add_typer always sets it
        g.typer_instance = _listing(g.typer_instance)
    return out


def _command_app(args: list[str]) -> typer.Typer:
    """``app`` holding only the command ``args`` starts with, when it names one.

    typer builds the click object of every registered command at each start, which costs about as
    much as importing typer; ``graphniah CMD`` needs only CMD's, and its help, usage line and errors
    read the same. A call that names no command (none given, or an option first) can only print the
    help or a usage error, so it gets :func:`_listing` of the app. An unknown name gets the whole app,
    whose error lists the real commands.
    """
    name = args[0] if args else ""
    if not name or name.startswith("-"):
        return _listing(app)
    commands = [c for c in app.registered_commands if _name(c) == name]
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
        _fail(e)
    except Exception as e:  # a write the disk refused (full, read-only, no permission) is one line too
        from graphniah.atomic import disk_error

        refused = disk_error(e)
        if refused is None:
            raise
        _fail(refused)


def _fail(e: GraphNIAHError) -> NoReturn:
    console = rich_console(stderr=True)
    console.print("[bold red]error:[/] ", end="")
    console.print(str(e), markup=False, highlight=False, soft_wrap=True)  # one line, however long
    sys.exit(2)
