"""CLI for analysis: ``graphniah report`` (tables, figures, HTML) and ``graphniah select-alpha`` (appendix B)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from graphniah.cli.app import app
from graphniah.cli.console import rich_console
from graphniah.cli.options import DEFAULT_SEED
from graphniah.errors import GraphNIAHError
from graphniah.layout import EXAMPLES_ROOT, REPORTS_ROOT, RUNS_ROOT, SNAPSHOTS_ROOT, report_dir, resolve_examples, suite_examples

if TYPE_CHECKING:  # the report package is imported only when a report is built
    from graphniah.report.load import SuiteData


def _floats(text: str, name: str) -> tuple[float, ...]:
    try:
        return tuple(float(x) for x in text.split(",") if x.strip())
    except ValueError:
        raise GraphNIAHError(f"{name} must be a comma-separated list of numbers, got {text!r}") from None


def _twin_data(suite: str, twin: str | None, runs: Path, examples_root: Path) -> SuiteData | None:
    """The unmatched twin's data: ``--twin`` (must be built), or for ``<name>-matched`` the suite
    ``<name>`` when its examples file exists (the comparison table is then added to the report)."""
    from graphniah.report import load_suite
    from graphniah.report.matched import twin_of

    name = twin if twin is not None else twin_of(suite)
    if name is None or (twin is None and not suite_examples(examples_root, name).is_file()):
        return None
    return load_suite(name, runs_root=runs, examples_root=examples_root)


@app.command("report")
def report_cmd(
    suite: Annotated[str | None, typer.Option(help="Suite name: examples/<suite>.jsonl and runs/<suite>/*.jsonl.")] = None,
    out: Annotated[Path | None, typer.Option(help="Report folder (default: reports/<suite>); replaced atomically.")] = None,
    runs: Annotated[Path, typer.Option(help="Root of the run journals.")] = RUNS_ROOT,
    examples_root: Annotated[Path, typer.Option(help="Where suites live.")] = EXAMPLES_ROOT,
    examples: Annotated[Path | None, typer.Option(help="The suite's examples file, if not <examples-root>/<suite>.jsonl.")] = None,
    dataset: Annotated[Path | None, typer.Option(help="An exported dataset folder instead of a suite (its suite's journals under --runs).")] = None,
    by: Annotated[str | None, typer.Option(help="Varied variable: depth | component_size | context_length | distractor | task | none_option | reasoning_effort (default: the suite manifest's, else inferred).")] = None,
    threshold_margin: Annotated[float, typer.Option(help="Effective depth/size: points above the random baseline (as a fraction).")] = 0.25,
    threshold: Annotated[float | None, typer.Option(help="Effective depth/size: a fixed accuracy threshold in [0, 1] instead.")] = None,
    paper_z: Annotated[bool, typer.Option("--paper-z", help="Wilson intervals with z = 1.96, as the paper printed them.")] = False,
    figures: Annotated[bool, typer.Option(help="Write PNG/SVG figures.")] = True,
    html: Annotated[bool, typer.Option(help="Write report.html.")] = True,
    viewer: Annotated[Path | None, typer.Option(help="The suite's example viewer folder (graphniah view): report.html links cells and example ids to it.")] = None,
    twin: Annotated[
        str | None,
        typer.Option(help="Unmatched twin suite to compare with (default for <name>-matched: <name>, when its examples are built)."),
    ] = None,
) -> None:
    """Tables (Markdown/CSV), figures (PNG/SVG) and a self-contained HTML report of a suite's runs."""
    from rich.table import Table
    from rich.text import Text

    from graphniah.atomic import check_output
    from graphniah.report import ReportConfig, build_report, load_suite, write_report
    from graphniah.stats import PAPER_Z

    if out is not None or suite is not None:  # a dataset's suite (and so the default folder) is known once it is read
        check_output(out if out is not None else report_dir(REPORTS_ROOT, suite or ""), "folder")

    if threshold is not None and not 0 <= threshold <= 1:
        raise GraphNIAHError(f"--threshold must lie in [0, 1], got {threshold}")
    source = resolve_examples(suite=suite, examples=examples, dataset=dataset, examples_root=examples_root,
                              accepts=("suite", "dataset"), names_suite=True)
    if source.dataset is not None:
        from graphniah.dataset import materialize_examples

        ds, examples = materialize_examples(source.dataset, runs)  # the examples file, rebuilt from the rows and hash-checked
        suite = ds.suite
        if out is None:
            check_output(report_dir(REPORTS_ROOT, suite), "folder")
    else:
        examples = source.examples
    assert suite is not None  # given, or read from the dataset (exactly one of the two, checked above)
    t0 = time.perf_counter()
    data = load_suite(suite, runs_root=runs, examples_root=examples_root, examples_path=examples, by=by)
    twin_data = _twin_data(suite, twin, runs, examples_root)
    report = build_report(data, ReportConfig(z=PAPER_Z if paper_z else None, threshold_margin=threshold_margin, threshold=threshold),
                          twin=twin_data)
    files = write_report(report, out if out is not None else report_dir(REPORTS_ROOT, suite), figures=figures, html=html, viewer=viewer)
    console = rich_console(stderr=True)
    for note in data.notes:
        console.print(f"[yellow]note:[/] {note}", highlight=False)
    for key in ("accuracy", "wording"):  # the wording table: a suite asked in several template sets
        if key not in report.keys:
            continue
        shown = report.table(key)
        table = Table(title=shown.title)
        for h in shown.header:
            table.add_column(h)
        for row in shown.rows:
            table.add_row(*[Text(c.text, style="bold" if c.bold else "") for c in row])
        rich_console().print(table)
        for sentence in shown.verdicts if key == "wording" else ():
            rich_console().print(f"  {sentence}", markup=False, highlight=False, soft_wrap=True)
    console.print(
        f"{len(data.outcomes)} answers of {len(data.runs)} model setting(s) on {len(data.examples)} examples, by "
        f"{data.variable_title.lower()} ({data.variable_source}); {len(report.tables)} tables"
        f"{f', {len(files.figures)} figure files' if files.figures else ''} in {files.out}/ in {time.perf_counter() - t0:.1f}s",
        highlight=False,
    )


@app.command("select-alpha")
def select_alpha_cmd(
    snapshot: Annotated[Path | None, typer.Option(help="Snapshot folder (default: newest under --root).")] = None,
    root: Annotated[Path, typer.Option(help="Where snapshots live.")] = SNAPSHOTS_ROOT,
    out: Annotated[Path, typer.Option(help="Output folder (alpha.json/.csv/.md/.png/.svg); replaced atomically.")] = Path("reports/select-alpha"),
    examples_per_task: Annotated[int, typer.Option(help="Examples per task and α (the paper: 2,000).")] = 2000,
    alphas: Annotated[str, typer.Option(help="Candidate α values, comma-separated.")] = "0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9,1.0",
    depths: Annotated[str, typer.Option(help="Question depths drawn uniformly, comma-separated.")] = "4,8,16,32",
    min_size: Annotated[int, typer.Option(help="Smallest component size.")] = 100,
    max_size: Annotated[int, typer.Option(help="Largest component size.")] = 250,
    bootstrap: Annotated[int, typer.Option(help="Bootstrap replicates.")] = 500,
    seed: Annotated[int, typer.Option(help="Seed of the specs, the growth and the bootstrap.")] = DEFAULT_SEED,
    workers: Annotated[int, typer.Option(help="Processes growing examples.")] = 2,
) -> None:
    """Choose the concentration parameter α by in-degree KL divergence to the snapshot (appendix B)."""

    from graphniah.atomic import check_output
    from graphniah.cli.progress import RichProgress
    from graphniah.formats.snapshot import Snapshot, newest_snapshot
    from graphniah.report.alpha import AlphaConfig, generate_in_degrees, select_alpha, snapshot_in_degree_histogram, write_alpha_report

    check_output(out, "folder")

    config = AlphaConfig(
        alphas=_floats(alphas, "--alphas"), examples_per_task=examples_per_task,
        depths=tuple(int(d) for d in _floats(depths, "--depths")), min_size=min_size, max_size=max_size,
        bootstrap=bootstrap, seed=seed, workers=workers,
    )
    snap = Snapshot.open(snapshot) if snapshot else newest_snapshot(root)
    console = rich_console(stderr=True)
    reference = snapshot_in_degree_histogram(snap)
    with RichProgress(console) as bar:
        generated = generate_in_degrees(snap, config, progress=bar)
    sel = select_alpha(generated, reference, config)
    sel.source.update({"snapshot": str(snap.path), "snapshot_hash": snap.content_hash})
    write_alpha_report(sel, out)
    console.print(sel.markdown(), markup=False, highlight=False)
    console.print(f"grew {int(sel.examples.sum()):,} examples in {generated.seconds:.1f}s with {workers} process(es); wrote {out}/",
                  highlight=False)
