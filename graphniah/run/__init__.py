"""Run stage: examples become journals of model calls.

Takes examples (a suite file) and a model from the registry (``models``); gives an append-only,
fsynced journal per model (its format is ``graphniah.formats.journal``) written by the LiteLLM
runner (``runner``) with retries by error kind (``failures``, which also redacts keys), a budget and
the knowledge-cutoff guard. ``serve`` starts the local OpenAI-compatible endpoints (text-only
oracle, random, always-NO, a llama.cpp model).
"""

from graphniah.formats.examples import ExampleRef, index_examples
from graphniah.formats.journal import Journal, RunRecord, read_journal
from graphniah.run.failures import ErrorKind, Redactor, RetryPolicy, classify
from graphniah.run.models import ModelEntry, get_model
from graphniah.run.runner import (
    Estimate,
    RunOptions,
    RunPlan,
    RunSummary,
    check_cutoff,
    litellm_module,
    run_suite,
    snapshot_cutoffs,
)

__all__ = [
    "ErrorKind",
    "Estimate",
    "ExampleRef",
    "Journal",
    "ModelEntry",
    "Redactor",
    "RetryPolicy",
    "RunOptions",
    "RunPlan",
    "RunRecord",
    "RunSummary",
    "check_cutoff",
    "classify",
    "get_model",
    "index_examples",
    "litellm_module",
    "read_journal",
    "run_suite",
    "snapshot_cutoffs",
]
