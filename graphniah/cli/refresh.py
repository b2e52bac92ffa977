"""CLI for the monthly refresh (`make refresh CUTOFF=...`)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from graphniah.cli.app import app
from graphniah.cli.console import rich_console
from graphniah.cli.options import DEFAULT_POOL, DEFAULT_SEED, DEMO_PAPERS
from graphniah.layout import SNAPSHOTS_ROOT


@app.command("refresh")
def refresh_cmd(
    cutoff: Annotated[str, typer.Option(help="Papers published on or after this date (YYYY-MM-DD).")],
    root: Annotated[Path, typer.Option(help="Folder that holds snapshots and the release store.")] = SNAPSHOTS_ROOT,
    source: Annotated[str, typer.Option("--source", help="s2ag (S2_API_KEY, else the demo release) or openalex (no key: the works API with --mailto, else the demo world in OpenAlex form).")] = "s2ag",
    demo: Annotated[bool, typer.Option("--demo", help="Use the synthetic demo release even if S2_API_KEY (or --mailto) is set.")] = False,
    api_base: Annotated[str | None, typer.Option(help="S2AG Datasets API base URL (with --source openalex: the OpenAlex API's).")] = None,
    mailto: Annotated[str | None, typer.Option("--mailto", help="With --source openalex: an e-mail for OpenAlex's polite pool (or OPENALEX_MAILTO); fetches real works.")] = None,
    depth: Annotated[list[int] | None, typer.Option(help="Question depths to build path pools for.")] = None,
    pool: Annotated[int, typer.Option(help="Paths per depth.")] = DEFAULT_POOL,
    seed: Annotated[int, typer.Option(help="Seed of the path pools.")] = DEFAULT_SEED,
    demo_papers: Annotated[int, typer.Option(help="Papers in the demo release.")] = DEMO_PAPERS,
    memory_limit: Annotated[str | None, typer.Option("--memory-limit", help="Memory budget of the store and snapshot steps, e.g. 4GB (DuckDB spills beyond it). Default: half of the RAM.")] = None,
) -> None:
    """Update the release store (S2AG diffs, or the demo release), build the snapshot, prune, pool paths."""
    from rich.table import Table

    from graphniah.atomic import check_output, output_lock
    from graphniah.cli.ingest import preprint_line
    from graphniah.cli.openalex import mailto_from_env
    from graphniah.cli.progress import RichProgress
    from graphniah.formats.snapshot import parse_cutoff, source_label, source_name
    from graphniah.refresh import DEFAULT_DEPTHS, api_key_from_env, refresh

    check_output(root, "folder", "--root")

    console = rich_console()
    # One refresh per root: the store, snapshots and pools under it are written by one process at a time.
    with output_lock(root, lock=root / ".refresh.lock"), RichProgress(console) as bar:
        result = refresh(
            parse_cutoff(cutoff),
            root,
            source=source,
            demo=True if demo else None,
            api_key=None if demo else api_key_from_env(),
            api_base=api_base,
            mailto=None if demo or source != "openalex" else mailto_from_env(mailto),
            depths=tuple(depth or DEFAULT_DEPTHS),
            pool_size=pool,
            seed=seed,
            demo_papers=demo_papers,
            memory_limit=memory_limit,
            progress=bar,
        )
    m = result.snapshot.manifest
    what = f"SYNTHETIC demo release{' in OpenAlex form' if source_name(m) == 'openalex' else ''}" if m.get("synthetic") else source_label(m)
    console.print(f"\n[bold]snapshot[/] {result.snapshot.path}  ({what} {result.release_id})")
    table = Table("what", "count")
    for key, label in (("papers", "eligible papers"), ("edges", "citation edges")):
        n = m.get("rows", {}).get(key, {}).get("kept")
        if n is not None:
            table.add_row(label, f"{n:,}")
    for k in sorted(result.pools):
        table.add_row(f"depth {k}: pruned papers / paths", f"{result.pruned.get(k, 0):,} / {result.pools[k]:,}")
    console.print(table)
    console.print(preprint_line(m), highlight=False)
