"""Stage boundaries: the ingest stage imports no later stage, and no stage imports a file format from another stage."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

import graphniah

PACKAGE = Path(graphniah.__file__).parent
# Stages in pipeline order; an earlier stage never imports a later one.
ORDER = ("ingest", "graph", "sampling", "run", "dataset", "report", "view")


def _imports(path: Path) -> set[str]:
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out.add(node.module)
        elif isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
    return out


@pytest.mark.parametrize("stage", ["ingest", "graph"])
def test_an_early_stage_imports_no_later_stage(stage):
    later = ORDER[ORDER.index(stage) + 1:]
    bad = sorted(
        f"{path.relative_to(PACKAGE.parent)} imports {m}"
        for path in (PACKAGE / stage).rglob("*.py")
        for m in _imports(path)
        if any(m == f"graphniah.{s}" or m.startswith(f"graphniah.{s}.") for s in later)
    )
    assert bad == []


def test_file_models_are_imported_from_formats():
    """The modules that held file models before graphniah.formats owned them are not where anyone imports them from."""
    moved = {"graphniah.sampling.examples.records", "graphniah.run.journal", "graphniah.dataset.manifest",
             "graphniah.ingest.snapshot"}
    names = {"SuiteSpec", "SuiteManifest", "SuiteManifestExample", "PrunedManifest", "PoolManifest", "StoreState"}
    bad = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.parent.name == "formats":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not (isinstance(node, ast.ImportFrom) and node.module) or node.module.startswith("graphniah.formats"):
                continue
            if node.module in moved or (node.module.startswith("graphniah.") and {a.name for a in node.names} & names):
                bad.append(f"{path.relative_to(PACKAGE.parent)}: from {node.module} import …")
    assert bad == []


def test_formats_import_no_stage():
    """File formats sit under every stage: a stage's package importing its formats, and the formats
    importing the stage back, is an import cycle (``import graphniah.formats.dataset`` first once failed so)."""
    bad = sorted(
        f"{path.relative_to(PACKAGE.parent)} imports {m}"
        for path in (PACKAGE / "formats").rglob("*.py")
        for m in _imports(path)
        if any(m == f"graphniah.{s}" or m.startswith(f"graphniah.{s}.") for s in ORDER)
    )
    assert bad == []


def test_every_module_imports_first():
    """Each module of the package can be the first of the package a process imports (no cycle that
    only a lucky import order hides). One interpreter: the package's modules are dropped from
    ``sys.modules`` before each import, the third-party ones stay loaded."""
    modules = sorted(
        ".".join(("graphniah", *p.relative_to(PACKAGE).with_suffix("").parts)).removesuffix(".__init__")
        for p in PACKAGE.rglob("*.py")
    )
    script = (
        "import importlib, sys, traceback\n"
        "failed = []\n"
        f"for name in {modules!r}:\n"
        "    for loaded in [m for m in sys.modules if m == 'graphniah' or m.startswith('graphniah.')]:\n"
        "        del sys.modules[loaded]\n"
        "    try:\n"
        "        importlib.import_module(name)\n"
        "    except Exception as e:\n"
        "        failed.append(f'{name}: {type(e).__name__}: {e}')\n"
        "print('\\n'.join(failed))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == ""
    assert len(modules) > 100
