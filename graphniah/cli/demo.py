"""CLI commands for the demo stage: ``graphniah demo-release``."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.console import Console
from rich.table import Table

from graphniah.cli.app import app
from graphniah.demo_release import DATASETS
from graphniah.demo_release.generate import generation_summary, timed_write


@app.command("demo-release")
def demo_release(
    out: Path = typer.Option(..., "--out", help="Folder to create (releases/ and diffs/ inside)."),
    papers: int = typer.Option(100_000, "--papers", help="Papers in the newest release."),
    seed: int = typer.Option(0, "--seed", help="Random seed; the same seed gives byte-identical files."),
    releases: int = typer.Option(2, "--releases", help="Number of consecutive weekly releases."),
    legacy_format: bool = typer.Option(False, "--legacy-format", help="Write the 2022 format (string ids, flat intents)."),
    first_release: str = typer.Option("2026-10-06", "--first-release", help="Id (date) of the oldest release."),
    replace: bool = typer.Option(False, "--replace", help="Regenerate an existing demo release folder."),
) -> None:
    """Write synthetic S2AG-format releases and the diffs between them (labelled synthetic)."""
    rs, seconds = timed_write(
        out, papers=papers, seed=seed, releases=releases, legacy_format=legacy_format,
        first_release=first_release, replace=replace,
    )
    summary = generation_summary(rs, seconds)
    table = Table(title=f"SYNTHETIC demo releases in {rs.root} ({seconds:.1f} s)")
    table.add_column("release")
    for ds in DATASETS:
        table.add_column(ds, justify="right")
    for rid, rows in summary["releases"].items():
        table.add_row(rid, *(f"{rows[ds]:,}" for ds in DATASETS))
    Console().print(table)
