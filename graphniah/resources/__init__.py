"""Where the shipped data files are: the prompt templates (``prompts/``) and the pipelines (``pipelines/``:
the model registry ``models.yaml`` and the experiment suites ``suites/*.yaml``).

Both folders sit at the repository's top level and the build configuration (``pyproject.toml``) ships
them inside the wheel as the data-only packages ``graphniah.prompts`` and ``graphniah.pipelines``, so
a source checkout, an editable install and an installed wheel all find them through
:mod:`importlib.resources`. Each has a user override (``--prompts``, ``--models``, ``--suites`` or the
matching environment variable).
"""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path


def resource_dir(name: str) -> Path:
    """The shipped folder ``name`` (``prompts`` or ``pipelines``) as a real path.

    The package is installed as plain files (setuptools never zips it), so the traversable is a
    real directory; anything else is an installation problem worth a clear error.
    """
    path = Path(str(files(f"graphniah.{name}")))
    if not path.is_dir():
        raise FileNotFoundError(f"package resource folder {name!r} is missing at {path} (a broken install?)")
    return path
