"""Options shared by several commands: where prompts, the model registry and suite files come from.

Each defaults to ``None``, which the library resolves at call time: the environment variable
(``GRAPHNIAH_PROMPTS``, ``GRAPHNIAH_MODELS``, ``GRAPHNIAH_SUITES``) if set, else the files shipped
in the package (``graphniah/resources``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

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
