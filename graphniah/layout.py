"""Where every file of the project lives: each path rule written once, and where a command's examples come from.

Every stage asks this module for a path instead of joining names itself, so a rule (a suite's files,
a journal, a pool, a dataset's files, a report folder) has one definition. The defaults of the
command-line roots are here too. :func:`resolve_examples` is the one reading of the options that
say where a command's examples come from (``--suite``, ``--examples``, ``--dataset``); ``run``,
``report``, ``view`` and ``export`` call it, ``score`` reads the journal rule.

The on-disk names (what each file holds is in :mod:`graphniah.formats`)::

    snapshots/<release>/cutoff=<YYYY-MM-DD>/            a snapshot (papers, edges, manifest.json)
        pruned/depth=<k>.parquet, pruned/depth=<k>.json   the papers kept for depth k, its manifest
        paths/depth=<k>.parquet,  paths/depth=<k>.json    the path pool of depth k, its manifest
    examples/<suite>.jsonl, examples/<suite>.json       a suite's examples and its manifest
    examples/.<suite>.jsonl.partial                     a suite build's progress (until it finishes)
    runs/<suite>/<model>.jsonl, <model>.settings.json   a model's journal and what its settings hashes mean
    runs/.datasets/<sha>/<suite>.jsonl                  a dataset's examples, rebuilt for report/view
    reports/<suite>/                                    a suite's report: report.md, report.html, cells.csv,
                                                        summary.json, tables/<key>.{md,csv}, figures/<name>.{png,svg}
    <dataset>/data/<task>-00000.parquet, README.md, graphniah-manifest.json

Names go both ways where a command meets a path: :func:`suite_name` reads the suite an examples file
is named for (``--examples FILE`` without ``--suite``), :func:`suite_examples` is its inverse, and both
refuse a name that could not name a suite's folders.
"""

from __future__ import annotations

import datetime as dt
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from graphniah.errors import GraphNIAHError

__all__ = [
    "DATASET_CARD",
    "DATASET_DATA_DIR",
    "DATASET_MANIFEST",
    "EXAMPLES_ROOT",
    "REPORTS_ROOT",
    "REPORT_CELLS",
    "REPORT_HTML",
    "REPORT_MARKDOWN",
    "REPORT_SUMMARY",
    "RUNS_ROOT",
    "SNAPSHOTS_ROOT",
    "SNAPSHOT_MANIFEST",
    "ExampleSource",
    "SuiteFiles",
    "dataset_examples_dir",
    "graph_manifest",
    "inputs_file",
    "journal_file",
    "journals_dir",
    "journals_in",
    "pool_file",
    "pruned_file",
    "report_dir",
    "report_figure",
    "report_table",
    "resolve_examples",
    "sample_file",
    "settings_file",
    "snapshot_dir",
    "snapshot_manifests",
    "suite_examples",
    "suite_files",
    "suite_manifest_of",
    "suite_name",
]

PathLike = str | os.PathLike[str]

#: The default roots of the command line (each command's ``--snapshots``/``--out``/``--runs``… option).
SNAPSHOTS_ROOT = Path("snapshots")
EXAMPLES_ROOT = Path("examples")
RUNS_ROOT = Path("runs")
REPORTS_ROOT = Path("reports")

# ---- snapshots and what the graph stage writes into them ----------------------------------------

SNAPSHOT_MANIFEST = "manifest.json"


def snapshot_dir(root: PathLike, release: str, cutoff: dt.date) -> Path:
    """``<root>/<release>/cutoff=<YYYY-MM-DD>``."""
    return Path(root) / release / f"cutoff={cutoff.isoformat()}"


def snapshot_manifests(root: PathLike) -> list[Path]:
    """The manifest of every snapshot folder under ``root``, in name order."""
    return sorted(Path(root).glob(f"*/cutoff=*/{SNAPSHOT_MANIFEST}"))


def pruned_file(snapshot: PathLike, depth: int) -> Path:
    """``<snapshot>/pruned/depth=<k>.parquet``: the papers kept for ``depth``."""
    return Path(snapshot) / "pruned" / f"depth={depth}.parquet"


def pool_file(snapshot: PathLike, depth: int) -> Path:
    """``<snapshot>/paths/depth=<k>.parquet``: the path pool of ``depth``."""
    return Path(snapshot) / "paths" / f"depth={depth}.parquet"


def graph_manifest(parquet: Path) -> Path:
    """The manifest beside a pruned set or a pool: the same name with ``.json``."""
    return parquet.with_suffix(".json")


# ---- suites -------------------------------------------------------------------------------------


def _plain_suite(suite: str, what: str) -> str:
    """``suite`` when it can name a suite's files and folders: not empty, no ``/``, no leading ``.``."""
    if not suite or "/" in suite or suite.startswith("."):
        raise GraphNIAHError(f"{what}: {suite!r} is not a suite name (a suite name is a plain file name: not empty, "
                             "no '/', no leading '.')")
    return suite


def suite_examples(root: PathLike, suite: str) -> Path:
    """``<root>/<suite>.jsonl``: a suite's examples (the inverse of :func:`suite_name`).

    Parameters
    ----------
    root : path
        The examples root (``--examples-root``).
    suite : str
        A suite name: a plain file name without ``/`` and not starting with ``.``.

    Returns
    -------
    Path
        The suite's examples file; :func:`suite_name` of it gives ``suite`` back.

    Raises
    ------
    GraphNIAHError
        When ``suite`` is not a plain name.
    """
    return Path(root) / f"{_plain_suite(suite, 'suite')}.jsonl"


def suite_name(examples: PathLike) -> str:
    """The suite an examples file is named for: ``<root>/<suite>.jsonl`` gives ``suite``.

    Parameters
    ----------
    examples : path
        An examples file (a suite's, or any file given with ``--examples``).

    Returns
    -------
    str
        The file's name without its last suffix; ``suite_examples(root, suite_name(p)) == p`` for a
        file ``p`` under ``root`` named ``*.jsonl``.

    Raises
    ------
    GraphNIAHError
        When the file's name gives no plain suite name (a hidden file such as a build's
        ``.<suite>.jsonl.partial``, or a name that is only a suffix), naming the file.

    Notes
    -----
    The suite name is where a run's journals and a report go (``runs/<suite>/``, ``reports/<suite>/``)
    and what a dataset is called, so a file given with ``--examples`` and no ``--suite`` is named by it.
    """
    return _plain_suite(Path(examples).stem, f"examples file {examples}")


def suite_manifest_of(examples: Path) -> Path:
    """The suite manifest beside an examples file: ``<suite>.json``."""
    return examples.with_suffix(".json")


@dataclass(frozen=True)
class SuiteFiles:
    """The files of one suite under an examples root."""

    examples: Path  # <root>/<suite>.jsonl
    manifest: Path  # <root>/<suite>.json
    partial: Path  # <root>/.<suite>.jsonl.partial, while a build is unfinished


def suite_files(root: PathLike, suite: str) -> SuiteFiles:
    examples = suite_examples(root, suite)
    return SuiteFiles(examples, suite_manifest_of(examples), Path(root) / f".{suite}.jsonl.partial")


def sample_file(kind: str, depth: int, distractor: str, length: str, seed: int) -> Path:
    """``examples/<kind>-depth<k>-<distractor>-<L>-seed<s>.jsonl``: where ``graphniah sample`` writes by default."""
    return EXAMPLES_ROOT / f"{kind}-depth{depth}-{distractor}-{length}-seed{seed}.jsonl"


# ---- runs, reports, datasets --------------------------------------------------------------------


def journals_dir(runs_root: PathLike, suite: str) -> Path:
    """``<runs>/<suite>``: the journals of every model run on a suite."""
    return Path(runs_root) / suite


def journal_file(runs_root: PathLike, suite: str, model: str) -> Path:
    """``<runs>/<suite>/<model>.jsonl`` (model names may contain dots, never slashes)."""
    if "/" in model or "/" in suite or model.startswith(".") or suite.startswith("."):
        raise GraphNIAHError(f"suite {suite!r} and model {model!r} must be plain names (no '/' or leading '.')")
    return journals_dir(runs_root, suite) / f"{model}.jsonl"


def journals_in(folder: PathLike) -> list[Path]:
    """Every journal in a suite's folder of journals (``*.jsonl``), in name order."""
    return sorted(Path(folder).glob("*.jsonl"))


def settings_file(journal: PathLike) -> Path:
    """``<model>.settings.json`` beside a journal ``<model>.jsonl``."""
    return Path(journal).with_suffix(".settings.json")


def inputs_file(journal: PathLike) -> Path:
    """``<model>.inputs.json`` beside a shortcut baseline's journal ``<model>.jsonl``: what it was computed from."""
    return Path(journal).with_suffix(".inputs.json")


def report_dir(reports_root: PathLike, suite: str) -> Path:
    """``<reports>/<suite>``: the default folder of a suite's report."""
    return Path(reports_root) / suite


#: The files of a report folder beside its tables and figures.
REPORT_MARKDOWN, REPORT_HTML, REPORT_CELLS, REPORT_SUMMARY = "report.md", "report.html", "cells.csv", "summary.json"


def report_table(folder: PathLike, key: str, ext: str) -> Path:
    """``<report>/tables/<key>.<md|csv>``."""
    return Path(folder) / "tables" / f"{key}.{ext}"


def report_figure(folder: PathLike, name: str, fmt: str) -> Path:
    """``<report>/figures/<name>.<png|svg>``."""
    return Path(folder) / "figures" / f"{name}.{fmt}"


def viewer_page_cache(out: PathLike) -> Path:
    """``.<out>.pages`` beside a viewer site: where its example pages are kept between runs.

    Each page is written there (atomically) under a name holding the hash of everything it is made
    of, then hard-linked into the site, so a rerun rebuilds only the pages whose inputs changed.
    """
    out = Path(out)
    return out.with_name(f".{out.name}.pages")


DATASET_DATA_DIR = "data"
DATASET_CARD = "README.md"
DATASET_MANIFEST = "graphniah-manifest.json"


def dataset_examples_dir(runs_root: PathLike, canonical_sha256: str) -> Path:
    """``<runs>/.datasets/<sha[:16]>``: where a dataset's examples are rebuilt as a suite's files."""
    return Path(runs_root) / ".datasets" / canonical_sha256[:16]


# ---- where a command's examples come from -------------------------------------------------------

Option = Literal["suite", "examples", "dataset"]
_FLAGS: dict[Option, str] = {"suite": "--suite NAME", "examples": "--examples FILE", "dataset": "--dataset DIR"}


@dataclass(frozen=True)
class ExampleSource:
    """Where a command's examples come from: a suite's file, another examples file, or a dataset folder.

    ``examples`` is the examples file (``None`` for a dataset); ``suite`` the suite's name when it
    is known from the options (a dataset's is in its manifest).
    """

    suite: str | None
    examples: Path | None
    dataset: Path | None


def resolve_examples(
    *,
    suite: str | None = None,
    examples: PathLike | None = None,
    dataset: PathLike | None = None,
    examples_root: PathLike = EXAMPLES_ROOT,
    accepts: tuple[Option, ...] = ("suite", "examples", "dataset"),
    names_suite: bool = False,
) -> ExampleSource:
    """Read the options that say where the examples come from: exactly one of those ``accepts`` lists.

    ``names_suite`` (``report``, ``export``): ``--suite`` names the suite and ``--examples``, if
    also given, replaces its file ``<examples-root>/<suite>.jsonl``. A suite's file, an examples file
    and a dataset folder must exist; the error names the option and the path.
    """
    options: tuple[tuple[Option, object], ...] = (("suite", suite), ("examples", examples), ("dataset", dataset))
    counted = {k for k, v in options if v is not None} - ({"examples"} if names_suite and suite is not None else set())
    if len(counted) != 1 or not counted <= set(accepts):
        flags = [_FLAGS[k] for k in accepts]
        listed = flags[0] if len(flags) == 1 else ", ".join(flags[:-1]) + " or " + flags[-1]
        raise GraphNIAHError(f"give exactly one of {listed}" if len(flags) > 1 else f"give {listed}")
    if dataset is not None:
        folder = Path(dataset)
        if not folder.is_dir():
            raise GraphNIAHError(f"--dataset {folder}: no such folder")
        return ExampleSource(None, None, folder)
    if examples is not None:
        file = Path(examples)
        if file.is_dir():
            raise GraphNIAHError(f"--examples {file}: is a folder, not an examples file"
                                 + (" (a dataset folder is given with --dataset)" if "dataset" in accepts else ""))
        if not file.is_file():
            raise GraphNIAHError(f"--examples {file}: no such file")
        return ExampleSource(suite, file, None)
    assert suite is not None  # exactly one option was given, and it was not a file or a folder
    file = suite_examples(examples_root, suite)
    if not file.is_file():
        raise GraphNIAHError(f"no suite {suite!r}: {file} does not exist (pass --examples FILE for another file)")
    return ExampleSource(suite, file, None)
