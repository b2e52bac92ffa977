"""The ``graphniah`` command line: a thin layer over library functions.

Each pipeline stage keeps its commands in its own module below; importing them registers the
commands on ``app``. Errors the user can fix (``GraphNIAHError``) print one clear line and exit 2.
"""

from __future__ import annotations

import sys

from rich.console import Console

from graphniah.cli import build, corpora, dataset, demo, examples, graph, ingest, refresh, report, run, s2ag, view  # noqa: F401  (registers commands)
from graphniah.cli.app import app
from graphniah.errors import GraphNIAHError

__all__ = ["app", "main"]


def main() -> None:
    try:
        app()
    except GraphNIAHError as e:
        console = Console(stderr=True)
        console.print("[bold red]error:[/] ", end="")
        console.print(str(e), markup=False, highlight=False, soft_wrap=True)  # one line, however long
        sys.exit(2)
