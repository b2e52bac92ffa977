"""``graphniah openalex fetch``: OpenAlex works of a publication-date window, no key needed.

The optional e-mail (``--mailto`` or ``OPENALEX_MAILTO``) is sent to OpenAlex's polite pool only;
it is never written to the folder or printed.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated

import typer

from graphniah.cli.app import Group, app
from graphniah.cli.console import rich_console

openalex_app = typer.Typer(name="openalex", cls=Group, help="OpenAlex works API (no key needed): fetch a publication-date window as a snapshot folder.",
                           no_args_is_help=True)
app.add_typer(openalex_app, name="openalex")

MAILTO_ENV = "OPENALEX_MAILTO"


def mailto_from_env(mailto: str | None) -> str | None:
    """``--mailto``, else ``OPENALEX_MAILTO``, else None."""
    return mailto or os.environ.get(MAILTO_ENV, "").strip() or None


@openalex_app.command("fetch")
def fetch_cmd(
    from_publication_date: Annotated[str, typer.Option("--from-publication-date", help="First publication date (YYYY-MM-DD), included.")],
    to_publication_date: Annotated[str, typer.Option("--to-publication-date", help="Last publication date (YYYY-MM-DD), included.")],
    out: Annotated[Path, typer.Option("--out", help="Folder to fill (data/jsonl/works/…, manifest.json); a folder fetched before gets a new partition.")],
    mailto: Annotated[str | None, typer.Option("--mailto", help=f"E-mail for OpenAlex's polite pool (or {MAILTO_ENV}); never written or printed.")] = None,
    api_base: Annotated[str | None, typer.Option("--api-base", envvar="OPENALEX_API_BASE", help="Works API base URL.")] = None,
) -> None:
    """Page the works API by cursor and write the works in OpenAlex's snapshot layout (resumes after an interruption)."""

    from graphniah.atomic import check_output, output_lock
    from graphniah.cli.progress import RichProgress
    from graphniah.formats.snapshot import parse_cutoff
    from graphniah.ingest.openalex.api import DEFAULT_BASE, fetch_works

    check_output(out, "folder")
    start, end = parse_cutoff(from_publication_date), parse_cutoff(to_publication_date)
    console = rich_console()
    with output_lock(out), RichProgress(console) as bar:
        result = fetch_works(out, start, end, mailto=mailto_from_env(mailto), base_url=api_base or DEFAULT_BASE, progress=bar)
    what = "already fetched today" if result.already_done else f"{result.pages_read:,} pages read{' (resumed)' if result.resumed else ''}"
    console.print(f"{result.records:,} OpenAlex works published {start} to {end} in {result.root} (partition updated_date={result.partition}; {what}); "
                  f"read it with: graphniah ingest --source openalex --release {result.root} --cutoff {start} --out SNAPSHOT", highlight=False, soft_wrap=True)
