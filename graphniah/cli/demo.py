"""CLI commands for the demo stage: ``graphniah demo-release``."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.console import Console
from rich.table import Table

from graphniah.cli.app import app
from graphniah.cli.options import ModelsOpt, PromptsOpt, SuitesOpt
from graphniah.cli.progress import RichProgress
from graphniah.seeds import DEFAULT_SEED
from graphniah.ingest.demo_release import DATASETS
from graphniah.ingest.demo_release.generate import generation_summary, timed_write


@app.command("demo-release")
def demo_release(
    out: Path = typer.Option(..., "--out", help="Folder to create (releases/ and diffs/ inside)."),
    papers: int = typer.Option(100_000, "--papers", help="Papers in the newest release."),
    seed: int = typer.Option(DEFAULT_SEED, "--seed", help="Random seed; the same seed gives byte-identical files."),
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


@app.command("demo")
def demo_cmd(
    cutoff: str = typer.Option("2026-04-01", "--cutoff", help="Papers published on or after this date."),
    root: Path = typer.Option(Path("snapshots"), "--root", help="Where snapshots live."),
    examples: Path = typer.Option(Path("examples"), "--examples", help="Where suites' example files go."),
    runs: Path = typer.Option(Path("runs"), "--runs", help="Root of the run journals."),
    reports: Path = typer.Option(Path("reports"), "--reports", help="Where the run's report is written."),
    n: int | None = typer.Option(None, "-n", help="Examples per value of the demo suite (default: the suite's)."),
    seed: int = typer.Option(DEFAULT_SEED, "--seed", help="Seed of the demo suite."),
    llm: bool = typer.Option(False, "--llm", help="Run the short demo-llm suite on SmolLM2 (llama.cpp) instead of the baselines."),
    prompts: PromptsOpt = None,
    models: ModelsOpt = None,
    suites: SuitesOpt = None,
) -> None:
    """The whole pipeline on the synthetic demo release: refresh, build, run local endpoints, score."""
    from graphniah.demo import accuracy_table, preview, run_demo
    from graphniah.sampling.examples.records import iter_examples
    from graphniah.ingest.snapshot import parse_cutoff
    from graphniah.sampling.examples.prompts import load_prompts

    console = Console()
    console.width = max(console.width, 120)  # the accuracy table needs room for its intervals
    with RichProgress(console) as bar:
        result = run_demo(
            root, examples, runs, reports, cutoff=parse_cutoff(cutoff), per_value=n, seed=seed, llm=llm,
            prompts=prompts, models=models, suites=suites, progress=bar,
        )
    shown: set[str] = set()
    console.print("\n[bold]One example of each task[/] (full prompt: graphniah show ID --examples FILE)")
    for ex in iter_examples(result.examples):
        if ex.task not in shown:
            shown.add(ex.task)
            console.print(preview(ex, prompts=load_prompts(prompts)), markup=False, highlight=False)
    title = f"Accuracy on the {'demo-llm' if llm else 'demo'} suite (SYNTHETIC data), % with 95% Wilson intervals — {result.examples}"
    console.print(accuracy_table(result.scores, result.baselines, title))
    if result.dataset is not None:
        console.print(f"dataset: {result.dataset.resolve()} (the suite as a datasets folder: graphniah run --dataset DIR, "
                      "inspect eval graphniah/graphniah -T dataset=DIR)", highlight=False, soft_wrap=True)
    if result.report is not None:
        console.print(f"report: {result.report.html or result.report.out} (tables and figures in {result.report.out})", highlight=False)
    if result.viewer is not None:
        console.print(f"viewer: {result.viewer.index.resolve()} (open it in a browser: every example, its graph, needles and answers)",
                      highlight=False, soft_wrap=True)
