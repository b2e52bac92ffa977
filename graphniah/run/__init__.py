"""Run stage: examples become journals of model calls.

Takes examples (a suite file) and a model from the registry (``models``); gives an append-only,
fsynced journal per model (its format is ``graphniah.formats.journal``) written by the LiteLLM
runner (``runner``: the sending loop and the budget) with retries by error kind (``failures``, which
also redacts keys), the knowledge-cutoff guard (``guard``), the plan (``plan``), answer reuse across
suites (``reuse``), cost estimates (``cost``) and LiteLLM's set-up (``client``). ``serve`` starts
the local OpenAI-compatible endpoints (text-only oracle, random, always-NO, a llama.cpp model).
"""

from graphniah.formats.examples import ExampleRef, index_examples
from graphniah.formats.journal import Journal, RunRecord, read_journal
from graphniah.run.client import litellm_module
from graphniah.run.cost import Estimate
from graphniah.run.failures import ErrorKind, Redactor, RetryPolicy, classify
from graphniah.run.guard import check_cutoff, snapshot_cutoffs
from graphniah.run.models import ModelEntry, get_model
from graphniah.run.plan import RunOptions, RunPlan
from graphniah.run.runner import RunSummary, run_suite

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
