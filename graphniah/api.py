"""The Python API: the pipeline's steps as functions, for notebooks and scripts.

Each function is a thin wrapper over the library functions the command of the same name calls
(``graphniah build``, ``run``, ``score``, ``report``, ``export``), with the command's defaults: paths
are relative to the working folder (``snapshots/``, ``examples/``, ``runs/``, ``reports/``), as in
the checkout after ``make demo``. They check their destination first, as the commands do, and raise
:class:`graphniah.errors.GraphNIAHError` on bad input; nothing is printed.

``import graphniah`` exposes them lazily (``graphniah.build_suite`` loads this module, and the
stages it needs, on first access)::

    import graphniah

    built = graphniah.build_suite("demo", n=1, out="notebook/examples")
    scores = graphniah.score("local-oracle", "demo")
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from graphniah.errors import GraphNIAHError
from graphniah.layout import EXAMPLES_ROOT, REPORTS_ROOT, RUNS_ROOT, SNAPSHOTS_ROOT, journal_file, report_dir, resolve_examples
from graphniah.progress import NO_PROGRESS, Progress
from graphniah.seeds import DEFAULT_SEED

if TYPE_CHECKING:
    from graphniah.dataset import Dataset, ExportResult
    from graphniah.report import Report, ReportConfig
    from graphniah.run import RunOptions, RunPlan, RunSummary
    from graphniah.sampling.suites import BuiltSuite
    from graphniah.scoring import RunScore

__all__ = ["build_report", "build_suite", "export_suite", "open_dataset", "run_suite", "score"]

PathLike = str | os.PathLike[str]


def open_dataset(folder: PathLike, *, check: bool = True) -> Dataset:
    """Open an exported dataset folder (``graphniah export``).

    Parameters
    ----------
    folder : path
        The dataset folder: ``data/*.parquet``, ``README.md`` and ``graphniah-manifest.json``.
    check : bool, default True
        Check every file against the sha256 its manifest records first.

    Returns
    -------
    Dataset
        The folder and its manifest (``.suite``, ``.manifest.tasks``, ``.data_paths()``).
    """
    from graphniah.dataset import open_dataset as _open

    return _open(folder, check=check)


def build_suite(
    suite: str | Path,
    *,
    n: int | None = None,
    seed: int = DEFAULT_SEED,
    snapshot: PathLike | None = None,
    root: PathLike = SNAPSHOTS_ROOT,
    out: PathLike = EXAMPLES_ROOT,
    workers: int = 2,
    prompts: PathLike | None = None,
    suites: PathLike | None = None,
    progress: Progress = NO_PROGRESS,
) -> BuiltSuite:
    """Build (or finish building) a suite's examples, as ``graphniah build`` does.

    Parameters
    ----------
    suite : str or Path
        A shipped suite's name (``pipelines/suites/<name>.yaml``) or a suite file.
    n : int, optional
        Examples per value (default: the suite's own counts).
    seed : int
        The suite's seed.
    snapshot : path, optional
        The snapshot folder (default: the newest under ``root``).
    root : path
        Where snapshots live.
    out : path
        Where the suite's files go: ``<out>/<suite>.jsonl`` and its manifest ``<out>/<suite>.json``.
    workers : int
        The most worker processes the build starts; a small build starts fewer, or none.
    prompts, suites : path, optional
        The prompt template folder and the suite folder (default: their environment variables, else
        the shipped ones).
    progress : Progress
        Receives the build's progress (default: none).

    Returns
    -------
    BuiltSuite
        ``examples_path``, ``manifest_path``, ``n_examples`` and ``reused`` (kept from an interrupted build).
    """
    from graphniah.atomic import check_output, output_lock
    from graphniah.formats.snapshot import Snapshot, newest_snapshot
    from graphniah.layout import suite_examples
    from graphniah.sampling.suites import build_suite as _build
    from graphniah.sampling.suites import load_suite_spec

    check_output(Path(out), "folder")
    if n is not None and n < 1:
        raise GraphNIAHError(f"n must be at least 1, got {n}")
    spec = load_suite_spec(suite, None if suites is None else Path(suites))
    snap = Snapshot.open(Path(snapshot)) if snapshot is not None else newest_snapshot(Path(root))
    with output_lock(suite_examples(Path(out), spec.name)):
        return _build(spec, snap, seed, out_root=Path(out), per_value=n, workers=workers,
                      prompts=None if prompts is None else Path(prompts), progress=progress)


def run_suite(
    model: str,
    *,
    suite: str | None = None,
    examples: PathLike | None = None,
    dataset: PathLike | None = None,
    runs: PathLike = RUNS_ROOT,
    examples_root: PathLike = EXAMPLES_ROOT,
    snapshots: PathLike = SNAPSHOTS_ROOT,
    models: PathLike | None = None,
    api_base: str | None = None,
    options: RunOptions | None = None,
    dry_run: bool = False,
    progress: Progress = NO_PROGRESS,
) -> RunPlan | RunSummary:
    """Run a model of the registry on a suite through LiteLLM, as ``graphniah run`` does.

    Every finished call is journaled in ``<runs>/<suite>/<model>.jsonl``; a second call sends only
    what is missing.

    Parameters
    ----------
    model : str
        The model's name in the registry (``pipelines/models.yaml``, or ``models``).
    suite, examples, dataset : optional
        Exactly one: a suite name (``<examples_root>/<suite>.jsonl``), an examples file, or an exported
        dataset folder.
    runs, examples_root, snapshots : path
        The journals' root, where suites live, and where snapshots live (for the knowledge-cutoff check).
    models : path, optional
        The model registry file.
    api_base : str, optional
        Another base URL for the model (a local endpoint).
    options : RunOptions, optional
        Concurrency, budget, retries and reuse (default: ``RunOptions()``, the command's defaults).
    dry_run : bool
        Plan only: nothing is sent.
    progress : Progress
        Counts the finished calls.

    Returns
    -------
    RunPlan or RunSummary
        The plan (with its cost estimate) of a dry run; else what was sent, answered and spent.
    """
    from graphniah.atomic import check_output
    from graphniah.run import run_suite as _run
    from graphniah.run.models import load_registry

    check_output(Path(runs), "folder", "runs")
    source = resolve_examples(suite=suite, examples=None if examples is None else Path(examples),
                              dataset=None if dataset is None else Path(dataset), examples_root=Path(examples_root))
    entry = load_registry(None if models is None else Path(models))[model].with_overrides(api_base=api_base)
    if source.dataset is not None:
        from graphniah.dataset import run_dataset

        return run_dataset(entry, source.dataset, runs_root=runs, options=options, dry_run=dry_run, progress=progress)
    assert source.examples is not None  # a suite or an examples file
    return _run(entry, source.examples, suite=suite, runs_root=runs, snapshots_root=snapshots, options=options,
                dry_run=dry_run, progress=progress)


def score(model: str, suite: str, *, runs: PathLike = RUNS_ROOT, examples_root: PathLike = EXAMPLES_ROOT) -> dict[str, RunScore]:
    """Score a model's journal of a suite, as ``graphniah score`` does.

    Parameters
    ----------
    model : str
        The model's name (its journal is ``<runs>/<suite>/<model>.jsonl``).
    suite : str
        The suite's name.
    runs : path
        The journals' root.
    examples_root : path
        Where suites live: the suite manifest there tells each example's template set, hence how
        its replies give the answer.

    Returns
    -------
    dict
        Settings hash to its :class:`~graphniah.scoring.RunScore` (``overall``, ``by_task``, intervals;
        ``f1`` for the list task), in journal order: one entry per settings the model was run with.
    """
    from graphniah.layout import suite_files
    from graphniah.run import read_journal
    from graphniah.scoring import score_records, split_runs, suite_answer_formats

    path = journal_file(runs, suite, model)
    records = read_journal(path)
    if not records:
        raise GraphNIAHError(f"no records in {path}; run the model on the suite first (graphniah.run_suite)")
    formats = suite_answer_formats(suite_files(Path(examples_root), suite).manifest)
    return {settings: score_records(run, formats=formats) for (_, settings), run in split_runs(records).items()}


def build_report(
    suite: str | None = None,
    *,
    dataset: PathLike | None = None,
    out: PathLike | None = None,
    runs: PathLike = RUNS_ROOT,
    examples_root: PathLike = EXAMPLES_ROOT,
    examples: PathLike | None = None,
    by: str | None = None,
    config: ReportConfig | None = None,
    write: bool = True,
    figures: bool = True,
    html: bool = True,
    viewer: PathLike | None = None,
) -> Report:
    """Compute a suite's report from its examples and journals and write it, as ``graphniah report`` does.

    Parameters
    ----------
    suite : str, optional
        The suite's name: ``<examples_root>/<suite>.jsonl`` (or ``examples``) and ``<runs>/<suite>/*.jsonl``.
    dataset : path, optional
        An exported dataset folder instead of a suite (its suite's journals under ``runs``).
    out : path, optional
        The report folder (default ``reports/<suite>``); replaced atomically.
    runs, examples_root : path
        The journals' root and where suites live.
    examples : path, optional
        The suite's examples file, if not ``<examples_root>/<suite>.jsonl``.
    by : str, optional
        The varied variable (default: the suite manifest's, else inferred).
    config : ReportConfig, optional
        Interval and effective-scale settings (default: the command's).
    write : bool
        Write the folder (its tables as Markdown and CSV); False computes the tables only.
    figures, html : bool
        With ``write``: also the figures (PNG/SVG), and ``report.html``.
    viewer : path, optional
        The suite's example viewer, which ``report.html`` links to.

    Returns
    -------
    Report
        Every table (``report.table("accuracy")``, ``report.tables``) and the effective depth and size.
    """
    from graphniah.atomic import check_output
    from graphniah.report import build_report as _build
    from graphniah.report import load_suite, write_report

    if write and (out is not None or suite is not None):
        check_output(Path(out) if out is not None else report_dir(REPORTS_ROOT, suite or ""), "folder")
    source = resolve_examples(suite=suite, examples=None if examples is None else Path(examples),
                              dataset=None if dataset is None else Path(dataset), examples_root=Path(examples_root),
                              accepts=("suite", "dataset"), names_suite=True)
    path = source.examples
    if source.dataset is not None:
        from graphniah.dataset import materialize_examples

        ds, path = materialize_examples(source.dataset, Path(runs))
        suite = ds.suite
    assert suite is not None  # given, or the dataset's
    data = load_suite(suite, runs_root=runs, examples_root=examples_root, examples_path=path, by=by)
    report = _build(data, config)
    if write:
        write_report(report, out if out is not None else report_dir(REPORTS_ROOT, suite), figures=figures, html=html,
                     viewer=viewer)
    return report


def export_suite(
    suite: str,
    out: PathLike,
    *,
    examples: PathLike | None = None,
    examples_root: PathLike = EXAMPLES_ROOT,
    snapshots: PathLike = SNAPSHOTS_ROOT,
    prompts: PathLike | None = None,
    progress: Progress = NO_PROGRESS,
) -> ExportResult:
    """Write a built suite as a Hugging Face datasets folder, as ``graphniah export`` does.

    Parameters
    ----------
    suite : str
        The suite's name (``<examples_root>/<suite>.jsonl``, or ``examples``); it names the dataset.
    out : path
        The dataset folder (an existing one is replaced atomically).
    examples, examples_root : path
        The suite's examples file, if not ``<examples_root>/<suite>.jsonl``, and where suites live.
    snapshots : path
        Where snapshots live (the card records the snapshot's release and cutoff).
    prompts : path, optional
        The prompt template folder.
    progress : Progress
        Counts the examples written.

    Returns
    -------
    ExportResult
        The written manifest (``.manifest``) and the number of examples (``.examples``); open the
        folder with :func:`open_dataset` or ``datasets.load_dataset``.
    """
    from graphniah.atomic import check_output, output_lock
    from graphniah.dataset import export_suite as _export

    check_output(Path(out), "folder")
    src = resolve_examples(suite=suite, examples=None if examples is None else Path(examples),
                           examples_root=Path(examples_root), accepts=("suite",), names_suite=True).examples
    assert src is not None  # a suite's examples file
    with output_lock(Path(out)):
        return _export(src, out, suite=suite, snapshots_root=snapshots, prompts=prompts, progress=progress)
