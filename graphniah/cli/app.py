"""The typer application object; command modules attach their commands to it.

Help is drawn by click's plain formatter (``rich_markup_mode=None``): rich's help formatter costs
more to import than typer itself, and ``graphniah --help`` should answer at once.
"""

from __future__ import annotations

import typer
import typer.core
from typer._click.core import Context  # typer's vendored click, whose Command this overrides
from typer.core import TyperOption


class Group(typer.core.TyperGroup):
    """typer's group whose ``--help`` flag defaults to False.

    typer turns a flag that was not given into ``None`` and then coerces that ``None`` through a
    pydantic adapter it builds on first use; the group's own ``--help`` is such a flag on every
    ``graphniah CMD`` call, so each start would import pydantic for nothing.
    """

    def get_help_option(self, ctx: Context) -> TyperOption | None:
        option = super().get_help_option(ctx)
        if option is not None:
            option.default = False
        return option


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
