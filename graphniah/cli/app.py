"""The typer application object; command modules attach their commands to it.

Help is drawn by click's plain formatter (``rich_markup_mode=None``): rich's help formatter costs
more to import than typer itself, and ``graphniah --help`` should answer at once.
"""

from __future__ import annotations

from typing import Any

import typer
import typer.core
from typer._click.core import Context  # typer's vendored click, whose Command this overrides
from typer.core import TyperOption

#: ``graphniah --help`` lists the commands by pipeline stage, in the order a month is made.
SECTIONS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("Data: releases and snapshots", ("s2ag", "openalex", "demo-release", "ingest", "store", "refresh")),
    ("Graph: pruning and path pools", ("prune", "paths", "select-alpha")),
    ("Examples: text, sampling and suites", ("corpora", "tokenize", "sample", "build", "verify", "show", "export")),
    ("Models: running and shortcuts", ("models", "serve", "run", "batches", "baselines")),
    ("Results: scores, reports and the viewer", ("score", "report", "power", "view")),
    ("The whole pipeline", ("demo", "version")),
)


class Group(typer.core.TyperGroup):
    """typer's group whose ``--help`` flag defaults to False and whose help groups commands by stage.

    typer turns a flag that was not given into ``None`` and then coerces that ``None`` through a
    pydantic adapter it builds on first use; the group's own ``--help`` is such a flag on every
    ``graphniah CMD`` call, so each start would import pydantic for nothing.
    """

    def get_help_option(self, ctx: Context) -> TyperOption | None:
        option = super().get_help_option(ctx)
        if option is not None:
            option.default = False
        return option

    def format_commands(self, ctx: Context, formatter: Any) -> None:
        """One help section per stage (:data:`SECTIONS`); a command no section names goes under "Other"."""
        listed = {name for _, names in SECTIONS for name in names}
        sections = [*SECTIONS, ("Other", tuple(n for n in self.list_commands(ctx) if n not in listed))]
        width = formatter.width - 6 - max(map(len, self.commands), default=0)
        for title, names in sections:
            rows = [(n, self.commands[n].get_short_help_str(width)) for n in names
                    if n in self.commands and not self.commands[n].hidden]
            if rows:
                with formatter.section(title):
                    formatter.write_dl(rows)


app = typer.Typer(
    name="graphniah",
    cls=Group,
    help="GraphNIAH: a self-renewing long-context reasoning benchmark from the S2AG citation graph.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
    rich_markup_mode=None,
)


@app.command()
def version() -> None:
    """Print the package version."""
    from graphniah import __version__

    typer.echo(__version__)


@app.callback()
def _root() -> None:
    """GraphNIAH: a self-renewing long-context reasoning benchmark from the S2AG citation graph."""
