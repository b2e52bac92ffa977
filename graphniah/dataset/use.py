"""Using a dataset folder instead of a suite: runs, the text-only check, and reports.

* :func:`run_dataset` is :func:`graphniah.run.run_suite` with the examples read from the folder: the
  same plan, journal (``<runs>/<suite>/<model>.jsonl``, the suite named by the manifest), retries,
  budget and cost estimate. The knowledge-cutoff guard takes the snapshot cutoffs recorded in the
  manifest, so no snapshot is needed; prompts are read from the Parquet files one request at a time.
* :func:`verify_dataset` checks the files against the manifest, re-solves every example from its
  text, and checks that the rows rebuild the exported examples file byte for byte.
* :func:`materialize_examples` rebuilds the suite's examples file (and the suite manifest the report
  reads its varied variable from) into ``<runs>/.datasets/<hash>/``, outside any journal folder;
  ``graphniah report --dataset`` reads it with the report's own loader. The folder is named by the
  examples' hash, so it is written once and then reused.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from graphniah.atomic import sha256_file, write_json
from graphniah.formats.dataset import Dataset, checked_examples, example_refs, open_dataset, write_examples_file
from graphniah.layout import RUNS_ROOT, dataset_examples_dir, suite_files
from graphniah.progress import NO_PROGRESS, Progress, step
from graphniah.text import verify

if TYPE_CHECKING:
    from graphniah.run import ModelEntry, RunPlan, RunSummary


def run_dataset(entry: ModelEntry, folder: str | os.PathLike[str], *, runs_root: str | os.PathLike[str] = RUNS_ROOT,
                **kwargs: Any) -> RunPlan | RunSummary:
    """Run ``entry`` on every example of a dataset folder (``graphniah.run.run_suite``'s other arguments pass through).

    The journal is ``<runs_root>/<suite>/<model>.jsonl`` with the suite named by the manifest, and the
    manifest's snapshot cutoffs feed the knowledge-cutoff guard.
    """
    from graphniah.run import run_suite

    ds = open_dataset(folder)
    source = f"dataset {ds.path}: {ds.manifest.examples.file} sha256:{ds.manifest.examples.sha256}"
    return run_suite(entry, example_refs(ds), suite=ds.suite, runs_root=runs_root, cutoffs=ds.manifest.cutoffs,
                     examples_source=source, **kwargs)


@dataclass(frozen=True)
class DatasetCheck:
    """Outcome of :func:`verify_dataset`: examples checked and the ones whose text disagrees."""

    total: int
    failures: tuple[tuple[str, str], ...]  # (id, reason)


def verify_dataset(folder: str | os.PathLike[str], *, progress: Progress = NO_PROGRESS) -> DatasetCheck:
    """Manifest check (raises on a changed file), then every answer re-solved from its text alone,
    then the check that the rows rebuild the exported examples file (raises if not)."""
    failures = []
    n = 0
    with step(progress, None, "verifying"):
        for ex in checked_examples(open_dataset(folder)):
            n += 1
            r = verify(ex)
            if not r.ok:
                failures.append((ex.id, r.reason))
            progress.advance()
    return DatasetCheck(n, tuple(failures))


def materialize_examples(folder: str | os.PathLike[str], runs_root: str | os.PathLike[str] = RUNS_ROOT) -> tuple[Dataset, Path]:
    """The dataset and its rebuilt examples file ``<runs>/.datasets/<sha[:16]>/<suite>.jsonl`` (made once)."""
    ds = open_dataset(folder)
    m = ds.manifest
    files = suite_files(dataset_examples_dir(runs_root, m.examples.canonical_sha256), m.suite)
    path = files.examples
    if not (path.is_file() and sha256_file(path) == m.examples.canonical_sha256):
        if m.suite_manifest is not None:  # the report reads the varied variable and the size range from it
            write_json(files.manifest, m.suite_manifest)
        write_examples_file(ds, path)
    return ds, path

