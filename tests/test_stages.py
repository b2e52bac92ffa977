"""Stage boundaries: stages stand only on the shared floor and on each other's public ``__init__``.

The package has three layers. The **floor** (file formats, layout, the text contract, atomic writes,
seeds, statistics, errors, progress, retries, shipped resources, assets, scoring) imports no stage.
The **stages** (ingest, graph, sampling, run, dataset, report, view, baselines, integrations) import
the floor and other stages' packages, never another stage's submodules, and an early stage imports
no later one. The **entry points** (``cli``, ``demo``, ``refresh``) wire stages together and may
reach anywhere.
"""

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
# Every stage package: the pipeline's, and the two that plug into it from the side.
STAGES = (*ORDER, "baselines", "integrations")
FLOOR = ("formats", "layout", "text", "atomic", "seeds", "stats", "errors", "progress", "retry", "resources", "assets", "lazy",
         "scoring")
ENTRY_POINTS = ("cli", "demo", "refresh")


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


def _top(path: Path) -> str:
    """The first name under ``graphniah`` of a module's path (``report`` for graphniah/report/tables.py)."""
    return path.relative_to(PACKAGE).parts[0].removesuffix(".py")


def _internal_imports(path: Path) -> set[str]:
    """The ``graphniah.*`` modules a file imports, anywhere in it (functions and TYPE_CHECKING blocks too),
    with ``from graphniah import x`` counted as ``graphniah.x``."""
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module == "graphniah":
                out.update(f"graphniah.{a.name}" for a in node.names)
            elif node.module.startswith("graphniah."):
                out.add(node.module)
        elif isinstance(node, ast.Import):
            out.update(a.name for a in node.names if a.name.startswith("graphniah."))
    return out


def test_every_top_level_module_has_a_layer():
    """A new top-level module or package must be placed in a layer here, so the rules below cover it."""
    tops = {_top(p) for p in PACKAGE.rglob("*.py")} - {"__init__", "__main__"}
    assert sorted(tops - set(STAGES) - set(FLOOR) - set(ENTRY_POINTS)) == []


def test_the_floor_imports_no_stage():
    bad = sorted(
        f"{path.relative_to(PACKAGE.parent)} imports {m}"
        for path in sorted(PACKAGE.rglob("*.py")) if _top(path) in FLOOR
        for m in _internal_imports(path)
        if m.split(".")[1] in (*STAGES, *ENTRY_POINTS)
    )
    assert bad == []


def test_a_stage_imports_other_stages_only_through_their_package():
    """``graphniah.sampling`` (its ``__init__``) yes, ``graphniah.sampling.examples.sample`` no."""
    bad = sorted(
        f"{path.relative_to(PACKAGE.parent)} imports {m}"
        for path in sorted(PACKAGE.rglob("*.py")) if _top(path) in STAGES
        for m in _internal_imports(path)
        if m.split(".")[1] in STAGES and m.split(".")[1] != _top(path) and m.count(".") > 1
    )
    assert bad == []


@pytest.mark.parametrize("stage", STAGES)
def test_each_stage_states_its_public_api(stage):
    """Each stage's ``__init__`` lists its public names in ``__all__``, and each of them resolves."""
    import importlib

    module = importlib.import_module(f"graphniah.{stage}")
    names = getattr(module, "__all__", None)
    assert names, f"graphniah.{stage} has no __all__"
    assert len(names) == len(set(names))
    missing = [n for n in names if not hasattr(module, n)]
    assert missing == []
    # what other stages import from it is public
    used = sorted({
        f"{path.relative_to(PACKAGE.parent)}: {a.name}"
        for path in sorted(PACKAGE.rglob("*.py")) if _top(path) != stage
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.ImportFrom) and node.module == f"graphniah.{stage}"
        for a in node.names if a.name not in names
    })
    assert used == []
