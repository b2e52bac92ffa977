"""Options shared by several commands: where prompts, the model registry, suite files and the data folder come from.

Each defaults to ``None``, which the library resolves at call time: the environment variable
(``GRAPHNIAH_PROMPTS``, ``GRAPHNIAH_MODELS``, ``GRAPHNIAH_SUITES``) if set, else the files shipped
in the package (``graphniah/resources``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from graphniah.formats.names import DISTRACTOR_KINDS as DISTRACTOR_KINDS  # the help lists the registry
from graphniah.formats.names import NO_DISTRACTOR

DataOpt = Annotated[Path | None, typer.Option("--data", help="Data folder (default: $GRAPHNIAH_DATA or <repo>/data).")]
PromptsOpt = Annotated[
    Path | None,
    typer.Option("--prompts", help="Prompt template folder (default: $GRAPHNIAH_PROMPTS, else the templates shipped in the package)."),
]
ModelsOpt = Annotated[
    Path | None,
    typer.Option("--models", "--registry", help="Model registry file (default: $GRAPHNIAH_MODELS, else the registry shipped in the package)."),
]
SuitesOpt = Annotated[
    Path | None,
    typer.Option("--suites", help="Folder of suite files <name>.yaml (default: $GRAPHNIAH_SUITES, else the suites shipped in the package)."),
]

# Defaults shown in ``--help``. They are the library's values, repeated here so that drawing the help
# imports neither numpy nor the pipeline (tests/cli/test_options.py checks each against its source).
DEFAULT_SEED = 0  # graphniah.seeds.DEFAULT_SEED
DEFAULT_CAP = 100  # graphniah.graph.paths.DEFAULT_CAP
DEFAULT_STEP_BUDGET = 100_000  # graphniah.graph.paths.DEFAULT_STEP_BUDGET
DEFAULT_ALPHA = 0.1  # graphniah.formats.examples.DEFAULT_ALPHA
MAX_CONTEXT_LENGTH = 1_050_000  # graphniah.sampling.examples.spec.MAX_CONTEXT_LENGTH
NONE = NO_DISTRACTOR  # the distractor kinds are the registry's (a module of the standard library only)
DEFAULT_POOL = 1000  # graphniah.refresh.DEFAULT_POOL
DEMO_PAPERS = 300_000  # graphniah.refresh.DEMO_PAPERS
MAX_ATTEMPTS = 8  # graphniah.retry.RetryPolicy.max_attempts
S2AG_API_BASE = "https://api.semanticscholar.org/datasets/v1"  # graphniah.ingest.s2ag.api.DEFAULT_BASE
