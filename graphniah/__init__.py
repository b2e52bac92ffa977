"""GraphNIAH: long-context reasoning over the post-cutoff S2AG citation graph.

The Python API (:mod:`graphniah.api`) is loaded on first access, so ``import graphniah`` stays
free: :func:`open_dataset`, :func:`build_suite`, :func:`run_suite`, :func:`score`,
:func:`build_report` and :func:`export_suite`, each the library call behind the command of its name.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

from graphniah.lazy import attribute

if TYPE_CHECKING:
    from graphniah.api import build_report, build_suite, export_suite, open_dataset, run_suite, score

__all__ = ["build_report", "build_suite", "export_suite", "open_dataset", "run_suite", "score"]

# Where each public name lives; loaded on first access.
_HOMES = dict.fromkeys(__all__, "graphniah.api")


@functools.cache
def _version() -> str:
    # importlib.metadata scans the installed distributions: done when the version is first read,
    # not on every ``import graphniah`` (the CLI's start).
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("graphniah")
    except PackageNotFoundError:  # running from a source tree without an install
        return "0.0.0+unknown"


def __getattr__(name: str) -> Any:
    if name == "__version__":
        return _version()
    return attribute(__name__, _HOMES, name)
