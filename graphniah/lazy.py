"""Public names of a package that load on first access, so that importing the package costs nothing.

A package ``__init__`` maps each public name to the module that defines it (``_HOMES``) and derives
``__all__`` from the map (``__all__ = [*_HOMES]``); its module-level ``__getattr__`` (PEP 562) calls
:func:`attribute`. Type checkers see the names through ``if TYPE_CHECKING:`` imports beside the map
(tests/test_stages.py keeps the two the same).
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import Any

__all__ = ["attribute"]


def attribute(package: str, homes: Mapping[str, str], name: str) -> Any:
    """The public ``name`` of ``package``, imported from its home module on first access.

    Parameters
    ----------
    package : str
        The package's ``__name__`` (for the error message).
    homes : mapping
        Public name to the module that defines it.
    name : str
        The attribute asked for.

    Returns
    -------
    object
        ``getattr(import_module(homes[name]), name)``.

    Raises
    ------
    AttributeError
        When ``name`` is not one of the package's public names (as for any missing attribute).
    """
    if name not in homes:
        raise AttributeError(f"module {package!r} has no attribute {name!r}")
    return getattr(importlib.import_module(homes[name]), name)
