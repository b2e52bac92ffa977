"""The CLI's option defaults (graphniah/cli/options.py, kept free of heavy imports) equal the library's."""

from __future__ import annotations

from graphniah.cli import options
from graphniah.formats.examples import DEFAULT_ALPHA
from graphniah.graph.paths import DEFAULT_CAP, DEFAULT_STEP_BUDGET
from graphniah.ingest.s2ag.api import DEFAULT_BASE
from graphniah.refresh import DEFAULT_POOL, DEMO_PAPERS
from graphniah.retry import RetryPolicy
from graphniah.sampling.examples.spec import MAX_CONTEXT_LENGTH
from graphniah.seeds import DEFAULT_SEED


def test_each_default_is_the_library_value() -> None:
    assert options.DEFAULT_SEED == DEFAULT_SEED
    assert options.DEFAULT_CAP == DEFAULT_CAP
    assert options.DEFAULT_STEP_BUDGET == DEFAULT_STEP_BUDGET
    assert options.DEFAULT_ALPHA == DEFAULT_ALPHA
    assert options.MAX_CONTEXT_LENGTH == MAX_CONTEXT_LENGTH
    assert options.DEFAULT_POOL == DEFAULT_POOL
    assert options.DEMO_PAPERS == DEMO_PAPERS
    assert RetryPolicy().max_attempts == options.MAX_ATTEMPTS
    assert options.S2AG_API_BASE == DEFAULT_BASE
