"""Argument checks shared by the statistics modules, and scipy imported on first use."""

from __future__ import annotations

import operator
from typing import Any, SupportsIndex

from graphniah.errors import GraphNIAHError

__all__ = ["as_count", "scipy_special", "scipy_stats"]


def scipy_stats() -> Any:  # scipy has no type stubs
    """scipy.stats, imported on first use: it costs most of a second of CPU, which every command that
    merely imports the statistics (``verify`` through the dataset card, ``run`` through scoring) would
    pay at start-up otherwise."""
    from scipy import stats

    return stats


def scipy_special() -> Any:
    """scipy.special, imported on first use (as :func:`scipy_stats`)."""
    from scipy import special

    return special


def as_count(name: str, value: object) -> int:
    """Return ``value`` as a non-negative int, or raise a GraphNIAHError naming the argument."""
    if isinstance(value, bool):
        raise GraphNIAHError(f"{name} must be a count (non-negative integer), got the boolean {value!r}")
    try:
        if not isinstance(value, SupportsIndex):  # what operator.index accepts; also narrows the type
            raise TypeError
        count = operator.index(value)
    except TypeError:
        raise GraphNIAHError(
            f"{name} must be a count (non-negative integer), got {value!r} of type {type(value).__name__}"
        ) from None
    if count < 0:
        raise GraphNIAHError(f"{name} must be a count (non-negative integer), got {count}")
    return count
