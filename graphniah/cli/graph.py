"""CLI commands for the graph stage: ``graphniah prune`` and ``graphniah paths``.

``--depth`` takes one or more values (``--depth 4 8 16 32`` or ``--depth 4 --depth 8``): click has
no variadic options, so the numbers after the first one arrive as extra arguments and are parsed
here; anything else left over is an error.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from graphniah import layout
from graphniah.cli.app import app
from graphniah.cli.console import rich_console
from graphniah.cli.options import DEFAULT_CAP, DEFAULT_STEP_BUDGET
from graphniah.errors import GraphNIAHError
from graphniah.layout import SNAPSHOTS_ROOT

if TYPE_CHECKING:  # the graph stage is imported by the commands, when they run
    from rich.console import Console

    from graphniah.formats.snapshot import Snapshot
    from graphniah.graph.citation_graph import CitationGraph

_EXTRA = {"allow_extra_args": True, "ignore_unknown_options": False}

SnapshotOpt = Annotated[Path | None, typer.Option(help="Snapshot folder (default: the newest under --root).")]
RootOpt = Annotated[Path, typer.Option(help="Where snapshots live (used when --snapshot is not given).")]
DepthOpt = Annotated[list[int], typer.Option(help="Question depth(s) k; paths have 3k-2 papers. Several: --depth 4 8 16 32.")]


def _depths(ctx: typer.Context, depth: list[int]) -> list[int]:
    extra: list[int] = []
    for arg in ctx.args:
        try:
            extra.append(int(arg))
        except ValueError:
            raise GraphNIAHError(f"unexpected argument {arg!r} (depths are integers: --depth 4 8 16 32)") from None
    out = list(dict.fromkeys([*depth, *extra]))
    bad = [d for d in out if d < 1]
    if bad:
        raise GraphNIAHError(f"depth must be >= 1, got {bad[0]}")
    return out


def _snapshot(snapshot: Path | None, root: Path) -> Snapshot:
    from graphniah.formats.snapshot import Snapshot, newest_snapshot

    return Snapshot.open(snapshot) if snapshot is not None else newest_snapshot(root)


def _check_writable(folder: Path) -> None:
    """The snapshot's ``pruned/`` or ``paths/`` folder can be written (before the graph is loaded)."""
    from graphniah.atomic import check_output

    check_output(folder, "folder", "")


def _load(snap: Snapshot, console: Console) -> CitationGraph:
    from graphniah.graph.citation_graph import CitationGraph

    t0 = time.perf_counter()
    g = CitationGraph.load(snap)
    console.print(f"loaded {snap.path}: {g.n:,} papers, {g.citing.size:,} citations ({time.perf_counter() - t0:.1f}s)", highlight=False)
    return g


@app.command("prune", context_settings=_EXTRA)
def prune_cmd(
    ctx: typer.Context,
    depth: DepthOpt,
    snapshot: SnapshotOpt = None,
    root: RootOpt = SNAPSHOTS_ROOT,
) -> None:
    """Remove papers that cannot lie on a simple path of 3k-2 papers; write pruned/depth=K.parquet."""
    from rich.table import Table

    from graphniah.cli.progress import RichProgress
    from graphniah.graph.store import prune_snapshot

    depths = _depths(ctx, depth)
    console = rich_console()
    snap = _snapshot(snapshot, root)
    _check_writable(layout.pruned_file(snap.path, depths[0]).parent)
    g = _load(snap, console)
    with RichProgress(console) as bar:
        results = prune_snapshot(snap, depths, graph=g, progress=bar)
    table = Table("depth", "path papers", "papers in", "kept", "removed: small components", "removed: bound")
    for d, r in results.items():
        table.add_row(str(d), str(r.length), f"{r.papers_allowed:,}", f"{r.n_kept:,}", f"{r.removed_small_components:,}", f"{r.removed_by_bound:,}")
    console.print(table)


@app.command("paths", context_settings=_EXTRA)
def paths_cmd(
    ctx: typer.Context,
    depth: DepthOpt,
    seed: Annotated[int, typer.Option(help="Seed; each depth uses SeedSequence([seed, depth]).")],
    pool: Annotated[int, typer.Option(help="Paths per depth.")] = 1000,
    snapshot: SnapshotOpt = None,
    root: RootOpt = SNAPSHOTS_ROOT,
    allow_short: Annotated[bool, typer.Option("--allow-short", help="Write and accept pools with fewer paths than --pool.")] = False,
    cap: Annotated[int, typer.Option(help="Most paths any one paper may be in.")] = DEFAULT_CAP,
    steps: Annotated[int, typer.Option(help="DFS step budget per start paper.")] = DEFAULT_STEP_BUDGET,
    rebuild: Annotated[bool, typer.Option("--rebuild", help="Sample again even if an identical complete pool exists.")] = False,
) -> None:
    """Sample a pool of distinct induced (chordless) paths per depth; write paths/depth=K.parquet and .json."""
    from rich.table import Table

    from graphniah.cli.progress import RichProgress
    from graphniah.graph.paths import explain_short
    from graphniah.graph.store import build_path_pools

    depths = _depths(ctx, depth)
    if pool < 1:
        raise GraphNIAHError(f"--pool must be >= 1, got {pool}")
    console = rich_console()
    snap = _snapshot(snapshot, root)
    _check_writable(layout.pool_file(snap.path, depths[0]).parent)
    _check_writable(layout.pruned_file(snap.path, depths[0]).parent)
    with RichProgress(console) as bar:
        outcomes = build_path_pools(
            snap, depths, pool, seed, allow_short=allow_short, cap=cap, step_budget=steps, reuse=not rebuild, progress=bar,
        )
    table = Table("depth", "papers/path", "pruned", "paths", "searches", "steps", "rejects", "s")
    for o in outcomes:
        st = o.pool.stats
        rej = ", ".join(f"{k} {v}" for k, v in st.rejects.as_dict().items() if v)
        table.add_row(
            str(o.depth), str(o.pool.length), f"{o.pruned.n_kept:,}" if o.pruned else "(reused)",
            f"{o.pool.size:,}" + ("" if o.written else " (not written)"), f"{st.attempts:,}", f"{st.steps:,}", rej or "-", f"{o.seconds:.1f}",
        )
    console.print(table)
    console.print(f"pools in {snap.path / 'paths'}", highlight=False)
    short = [o for o in outcomes if not o.pool.complete]
    for o in short:
        console.print(f"[yellow]short pool[/] {explain_short(o.pool, o.pruned)}", highlight=False)
