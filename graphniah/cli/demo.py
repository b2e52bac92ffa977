"""CLI commands for the demo stage: ``graphniah demo-release``."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from graphniah.cli.app import app
from graphniah.cli.console import rich_console
from graphniah.cli.options import DEFAULT_SEED, ModelsOpt, PromptsOpt, SuitesOpt
from graphniah.layout import EXAMPLES_ROOT, REPORTS_ROOT, RUNS_ROOT, SNAPSHOTS_ROOT

if TYPE_CHECKING:
    from rich.console import Console

    from graphniah.demo import DemoResult


@app.command("demo-release")
def demo_release(
    out: Annotated[Path, typer.Option("--out", help="Folder to create (releases/ and diffs/ inside).")],
    papers: Annotated[int, typer.Option("--papers", help="Papers in the newest release.")] = 100_000,
    seed: Annotated[int, typer.Option("--seed", help="Random seed; the same seed gives byte-identical files.")] = DEFAULT_SEED,
    releases: Annotated[int, typer.Option("--releases", help="Number of consecutive weekly releases.")] = 2,
    legacy_format: Annotated[bool, typer.Option("--legacy-format", help="Write the 2022 format (string ids, flat intents).")] = False,
    first_release: Annotated[str, typer.Option("--first-release", help="Id (date) of the oldest release.")] = "2026-10-06",
    replace: Annotated[bool, typer.Option("--replace", help="Regenerate an existing demo release folder.")] = False,
    fmt: Annotated[str, typer.Option("--format", help="s2ag (releases and diffs) or openalex (the same world as an OpenAlex works folder, data/jsonl/…).")] = "s2ag",
) -> None:
    """Write synthetic S2AG-format releases and the diffs between them, or the same world as OpenAlex works (labelled synthetic)."""
    from rich.table import Table

    from graphniah.atomic import check_output
    from graphniah.errors import GraphNIAHError
    from graphniah.ingest.demo_release import DATASETS
    from graphniah.ingest.demo_release.generate import generation_summary, timed_write

    check_output(out, "folder")
    if fmt not in ("s2ag", "openalex"):
        raise GraphNIAHError(f"--format {fmt!r}: choose s2ag or openalex")
    if fmt == "openalex":
        from graphniah.ingest.demo_release.openalex import demo_summary, write_openalex_demo

        if legacy_format:
            raise GraphNIAHError("--legacy-format is an S2AG format; it does not apply to --format openalex")
        write_openalex_demo(out, papers=papers, seed=seed, releases=releases, first_release=first_release, replace=replace)
        d = demo_summary(out)
        rich_console().print(f"SYNTHETIC demo world in OpenAlex form in {out}: {d['works_records']:,} works records in partitions "
                        f"{', '.join(d['partitions'])}, {d['merged']:,} merged away (release {d['release_id']})", highlight=False, soft_wrap=True)
        return

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
    rich_console().print(table)


@app.command("demo")
def demo_cmd(
    cutoff: Annotated[str, typer.Option("--cutoff", help="Papers published on or after this date.")] = "2026-04-01",
    root: Annotated[Path, typer.Option("--root", help="Where snapshots live.")] = SNAPSHOTS_ROOT,
    examples: Annotated[Path, typer.Option("--examples", help="Where suites' example files go.")] = EXAMPLES_ROOT,
    runs: Annotated[Path, typer.Option("--runs", help="Root of the run journals.")] = RUNS_ROOT,
    reports: Annotated[Path, typer.Option("--reports", help="Where the run's report is written.")] = REPORTS_ROOT,
    n: Annotated[int | None, typer.Option("-n", help="Examples per value of the demo suite (default: the suite's).")] = None,
    seed: Annotated[int, typer.Option("--seed", help="Seed of the demo suite.")] = DEFAULT_SEED,
    llm: Annotated[bool, typer.Option("--llm", help="Run the short demo-llm suite on SmolLM2 (llama.cpp) instead of the baselines.")] = False,
    prompts: PromptsOpt = None,
    models: ModelsOpt = None,
    suites: SuitesOpt = None,
    timings: Annotated[bool, typer.Option("--timings", help="End with the wall-clock seconds of each stage.")] = False,
) -> None:
    """The whole pipeline on the synthetic demo release: refresh, build, run local endpoints, score."""

    from graphniah.atomic import check_output
    from graphniah.cli.ingest import preprint_line
    from graphniah.cli.progress import RichProgress
    from graphniah.demo import accuracy_tables, preview, run_demo
    from graphniah.formats.examples import iter_examples
    from graphniah.formats.snapshot import parse_cutoff
    from graphniah.text import load_prompts

    for option, folder in (("--root", root), ("--examples", examples), ("--runs", runs), ("--reports", reports)):
        check_output(folder, "folder", option)

    console = rich_console()
    with RichProgress(console) as bar:
        result = run_demo(
            root, examples, runs, reports, cutoff=parse_cutoff(cutoff), per_value=n, seed=seed, llm=llm,
            prompts=prompts, models=models, suites=suites, progress=bar,
        )
    console.print(f"\nsnapshot {result.snapshot.path}: {preprint_line(result.snapshot.manifest)}", highlight=False, soft_wrap=True)
    shown: set[str] = set()
    console.print("\n[bold]One example of each task[/] (full prompt: graphniah show ID --examples FILE)")
    for ex in iter_examples(result.examples):
        if ex.task not in shown:
            shown.add(ex.task)
            console.print(preview(ex, prompts=load_prompts(prompts)), markup=False, highlight=False)
    title = f"Accuracy on the {'demo-llm' if llm else 'demo'} suite (SYNTHETIC data), % with 95% Wilson intervals — {result.examples}"
    for table in accuracy_tables(result.scores, result.baselines, title, console.width):
        console.print(table)
    if result.verdicts:
        console.print("[bold]Shortcuts[/] (baseline-* rows: answers from the example text without searching the graph; "
                      "graphniah baselines)", highlight=False)
        for line in result.verdicts:
            console.print(f"  {line}", markup=False, highlight=False, soft_wrap=True)
    if result.wording:
        console.print("[bold]Wording[/] (examples asked in two template sets, prompts/sets/; graphniah report's wording table)",
                      highlight=False)
        for line in result.wording:
            console.print(f"  {line}", markup=False, highlight=False, soft_wrap=True)
    _where(console, result, timings)


def _where(console: Console, result: DemoResult, timings: bool) -> None:
    """The closing lines of ``graphniah demo``: where its dataset, report and viewer are, and the stage timings."""
    from graphniah.dataset.lm_eval import run_hint

    if result.dataset is not None:
        console.print(f"dataset: {result.dataset.resolve()} (the suite as a datasets folder: graphniah run --dataset DIR, "
                      "inspect eval graphniah/graphniah -T dataset=DIR)", highlight=False, soft_wrap=True)
        console.print(run_hint(result.dataset), markup=False, highlight=False, soft_wrap=True)
    if result.report is not None:
        console.print(f"report: {result.report.html or result.report.out} (tables and figures in {result.report.out})", highlight=False)
    if result.viewer is not None:
        console.print(f"viewer: {result.viewer.index.resolve()} (open it in a browser: every example, its graph, needles and answers)",
                      highlight=False, soft_wrap=True)
    if timings:
        console.print("timings (wall-clock s): " + ", ".join(f"{stage} {s:.1f}" for stage, s in result.timings)
                      + f"; total {sum(s for _, s in result.timings):.1f}", highlight=False, soft_wrap=True)
