"""Files shipped inside the package: prompt templates (``prompts/``), the model registry and the
experiment suites (``pipelines/``). Found through :func:`resource_dir`, so that an installed wheel
finds them exactly as a source checkout does; each has a user override (``--prompts``,
``--models``, ``--suites`` or the matching environment variable).
"""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path


def resource_dir(name: str) -> Path:
    """The folder ``name`` (``prompts`` or ``pipelines``) of the installed package, as a real path.

    The package is installed as plain files (setuptools never zips it), so the traversable is a
    real directory; anything else is an installation problem worth a clear error.
    """
    path = Path(str(files(__package__) / name))
    if not path.is_dir():
        raise FileNotFoundError(f"package resource folder {name!r} is missing from {path.parent} (a broken install?)")
    return path
