"""GraphNIAH: long-context reasoning over the post-cutoff S2AG citation graph."""

from __future__ import annotations

import functools


@functools.cache
def _version() -> str:
    # importlib.metadata scans the installed distributions: done when the version is first read,
    # not on every ``import graphniah`` (the CLI's start).
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("graphniah")
    except PackageNotFoundError:  # running from a source tree without an install
        return "0.0.0+unknown"


def __getattr__(name: str) -> str:
    if name == "__version__":
        return _version()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
