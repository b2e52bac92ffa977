"""Running models over example suites: journal, retries by error kind, budget, contamination guard."""

from graphniah.runner.errors import ErrorKind, Redactor, RetryPolicy, classify
from graphniah.runner.journal import Journal, RunRecord, journal_path, read_journal
from graphniah.runner.runner import (
    Estimate,
    ExampleRef,
    RunOptions,
    RunPlan,
    RunSummary,
    check_cutoff,
    index_examples,
    litellm_module,
    run_suite,
    snapshot_cutoffs,
    suite_file,
)

__all__ = [
    "ErrorKind",
    "Estimate",
    "ExampleRef",
    "Journal",
    "Redactor",
    "RetryPolicy",
    "RunOptions",
    "RunPlan",
    "RunRecord",
    "RunSummary",
    "check_cutoff",
    "classify",
    "index_examples",
    "journal_path",
    "litellm_module",
    "read_journal",
    "run_suite",
    "snapshot_cutoffs",
    "suite_file",
]
