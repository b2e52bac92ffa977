"""CLI for the example viewer: ``graphniah view``."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Annotated

import typer

from graphniah.cli.app import app
from graphniah.cli.console import rich_console
from graphniah.cli.options import PromptsOpt
from graphniah.layout import SNAPSHOTS_ROOT, resolve_examples


@app.command("view")
def view_cmd(
    out: Annotated[Path, typer.Option(help="Folder to write (replaced atomically); open OUT/index.html in a browser.")],
    examples: Annotated[Path | None, typer.Option(help="Examples JSON-lines file.")] = None,
    dataset: Annotated[Path | None, typer.Option(help="An exported dataset folder instead of --examples.")] = None,
    runs: Annotated[Path | None, typer.Option(help="Folder of run journals (<runs>/<suite>/), whose answers the pages show.")] = None,
    root: Annotated[Path, typer.Option(help="Where snapshots live (paper titles, authors and dates for the graphs).")] = SNAPSHOTS_ROOT,
    prompts: PromptsOpt = None,
) -> None:
    """Write a static site (no server, no network) showing every example, its graph, needles and answers."""

    from graphniah.atomic import check_output, output_lock
    from graphniah.cli.progress import RichProgress
    from graphniah.view import build_viewer

    check_output(out, "folder")

    source = resolve_examples(examples=examples, dataset=dataset, accepts=("examples", "dataset"))
    t0 = time.perf_counter()
    console = rich_console(stderr=True)
    with output_lock(out), RichProgress(console) as bar:  # one writer per site folder
        files = build_viewer(source.examples, out, dataset=source.dataset, runs=runs, snapshots=root, prompts=prompts, progress=bar)
    if files.without_metadata:
        console.print(f"[yellow]note:[/] {files.without_metadata} example(s) were sampled from a snapshot not under {root}/: "
                      "their graphs show corpus ids instead of titles", highlight=False)
    console.print(f"{files.examples} examples, {len(files.runs)} run(s) in {time.perf_counter() - t0:.1f}s", highlight=False)
    print(files.index.resolve())
