"""``graphniah s2ag releases | download | diffs``: the S2AG Datasets API from the command line.

The API key comes only from the ``S2_API_KEY`` environment variable — never from an option, so
it stays out of shell history and process listings — and is never printed.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from graphniah.cli.app import Group, app
from graphniah.cli.console import rich_console
from graphniah.cli.options import S2AG_API_BASE as DEFAULT_BASE
from graphniah.errors import GraphNIAHError

if TYPE_CHECKING:  # the client (httpx) and rich are imported by the commands, when they run
    from graphniah.cli.progress import RichProgress
    from graphniah.ingest.s2ag.api import S2AGClient

s2ag_app = typer.Typer(
    name="s2ag",
    cls=Group,
    help="Semantic Scholar (S2AG) Datasets API: list releases, download a release or its diffs.",
    no_args_is_help=True,
)
app.add_typer(s2ag_app, name="s2ag")

KEY_ENV = "S2_API_KEY"

ApiBase = Annotated[
    str,
    typer.Option("--api-base", envvar="S2_API_BASE", help="Datasets API base URL.", show_default=True),
]
Root = Annotated[Path, typer.Option("--root", help="Folder that holds releases/ and diffs/.")]
Datasets = Annotated[
    list[str] | None,
    typer.Option("--dataset", help="Dataset to fetch (repeatable). Default: papers, citations, publication-venues, authors."),
]


def _key(required: bool) -> str | None:
    key = os.environ.get(KEY_ENV) or None
    if key is None and required:
        raise GraphNIAHError(
            f"no S2AG API key: set the {KEY_ENV} environment variable (request a key at "
            "https://www.semanticscholar.org/product/api), or use the demo release instead"
        )
    return key


def _datasets(values: list[str] | None) -> tuple[str, ...]:
    from graphniah.ingest.s2ag.api import DEFAULT_DATASETS

    return tuple(values) if values else DEFAULT_DATASETS


@contextlib.contextmanager
def _downloading(api_base: str) -> Iterator[tuple[S2AGClient, RichProgress]]:
    """A keyed client whose downloads draw rich progress bars on stderr."""

    from graphniah.cli.progress import RichProgress
    from graphniah.ingest.s2ag.api import S2AGClient

    key = _key(required=True)
    with RichProgress(rich_console(stderr=True), units="bytes") as progress, S2AGClient(key, api_base, progress=progress) as client:
        yield client, progress


@s2ag_app.command("releases")
def releases(api_base: ApiBase = DEFAULT_BASE) -> None:
    """List the release ids the API offers, oldest first."""
    from graphniah.ingest.s2ag.api import S2AGClient

    with S2AGClient(_key(required=False), api_base) as client:
        ids = client.releases()
    for rid in ids:
        typer.echo(rid)


@s2ag_app.command("download")
def download(
    root: Root,
    release: Annotated[str, typer.Option("--release", help="Release id, or 'latest'.")] = "latest",
    dataset: Datasets = None,
    api_base: ApiBase = DEFAULT_BASE,
) -> None:
    """Download a release to ROOT/releases/<id>/ (resumes and skips what is already complete)."""
    from graphniah.atomic import check_output

    check_output(root, "folder", "--root")
    with _downloading(api_base) as (client, progress):
        folder = client.download_release(release, root, _datasets(dataset))
    progress.note(f"release complete: {folder}  ({progress.steps} files checked, {progress.units:,} bytes fetched)")


@s2ag_app.command("diffs")
def diffs(
    root: Root,
    since: Annotated[str, typer.Option("--since", help="Release you have now.")],
    to: Annotated[str, typer.Option("--to", help="Release to reach, or 'latest'.")] = "latest",
    dataset: Datasets = None,
    api_base: ApiBase = DEFAULT_BASE,
) -> None:
    """Download the diffs SINCE → TO into ROOT/diffs/<from>_to_<to>/, one folder per step."""
    from graphniah.atomic import check_output

    check_output(root, "folder", "--root")
    with _downloading(api_base) as (client, progress):
        folders = client.download_diffs(since, to, root, _datasets(dataset))
    for folder in folders:
        typer.echo(str(folder))
    progress.note(f"{len(folders)} diff steps complete ({progress.units:,} bytes fetched)")
