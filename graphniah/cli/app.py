"""The typer application object; command modules attach their commands to it."""

import typer

app = typer.Typer(
    name="graphniah",
    help="GraphNIAH: a self-renewing long-context reasoning benchmark from the S2AG citation graph.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)


@app.command()
def version() -> None:
    """Print the package version."""
    from graphniah import __version__

    typer.echo(__version__)


@app.callback()
def _root() -> None:
    """GraphNIAH: a self-renewing long-context reasoning benchmark from the S2AG citation graph."""
