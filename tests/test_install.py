"""The wheel works on its own: built from the repository, installed with its runtime dependencies
into a fresh virtual environment outside the repository, it runs ``graphniah demo`` to the end.

The demo it runs is the shipped one made small (:data:`SMALL_DEMO`, given with ``--suites``): the same
stages, templates, registry and local endpoints, on examples of 6,000 tokens instead of 60,000. The
shipped suite files are checked to load from the installed copy; the full-size demo is
``tests/test_demo.py``'s.

The wheel is built by ``uv build --wheel`` (the same files as ``pip wheel . --no-deps``, which spent
about 25 s more here setting up its build environment). Its dependencies are installed by ``uv pip
install`` from PyPI, resolved afresh from the wheel's own metadata (so an import of a package that
``dependencies`` does not declare fails here): ``uv`` installs from its cache by hard links, which
keeps this test at seconds once the cache is warm, where ``pip install`` of the same ~190
distributions took 2.5 minutes cold and more than 6 minutes warm on the shared CI machine (it
unpacks every wheel again).
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
IMPORT_ALL = """
import importlib, pkgutil, graphniah
from pathlib import Path
failed = []
for m in pkgutil.walk_packages(graphniah.__path__, "graphniah."):
    if not m.name.startswith("graphniah.integrations"):
        try:
            importlib.import_module(m.name)
        except Exception as e:
            failed.append(f"{m.name}: {type(e).__name__}: {e}")
print("ok" if not failed else "; ".join(failed))
from graphniah.errors import GraphNIAHError
from graphniah.run.serve.llamacpp import _serve_in_process
try:
    _serve_in_process(Path("model.gguf"), 0, 512, 1, "m")
except GraphNIAHError as e:
    print(e)
"""

# The demo suite at the fault tests' size (tests/faults/harness.py): one depth, components of 12 to 16
# papers, one distractor corpus, 6,000-token contexts; the multiple-choice example asked in both
# template sets keeps the packaged "tagged" templates in use.
SMALL_DEMO = """\
name: demo
description: The shipped demo suite made small (tests/test_install.py)
vary: task
values: [yesno, mc, count, list]
per_value: 1
draw:
  depth: [4]
  component_size: {min: 12, max: 16}
  distractor: [essays]
  context_length: [6000]
extra:
  - {value: mc, n: 1, fixed: {template: [default, tagged]}}
"""


def _run(cmd: list[str], cwd: Path, env: dict[str, str] | None = None, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    r = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    assert r.returncode == 0, f"{' '.join(cmd)} failed ({r.returncode}):\n{r.stdout[-3000:]}\n{r.stderr[-3000:]}"
    return r


def test_the_explicit_package_list_is_the_tree() -> None:
    """pyproject's ``packages`` names every folder of graphniah/ with an ``__init__.py`` (a package left
    out would be missing from the wheel, silently) and the two data packages mapped from the top level."""
    import tomllib

    config = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
    tree = {".".join(p.parent.relative_to(REPO).parts) for p in (REPO / "graphniah").rglob("__init__.py")}
    assert "graphniah.formats" in tree and "graphniah" in tree
    data = {name for name, folder in config["package-dir"].items() if (REPO / folder / "__init__.py").is_file()}
    assert data == {"graphniah.prompts", "graphniah.pipelines"}
    listed = config["packages"]
    assert len(listed) == len(set(listed))
    assert set(listed) == tree | data


# refresh opens the session's demo store (DuckDB, one writer at a time): the tests that do run on one xdist worker
@pytest.mark.xdist_group("demo-store")
@pytest.mark.slow
def test_wheel_installs_and_runs_the_demo_outside_the_repository(demo_snapshot, tmp_path: Path) -> None:
    timings: dict[str, float] = {}
    t0 = time.perf_counter()
    dist = tmp_path / "dist"
    _run([sys.executable, "-m", "uv", "build", "--wheel", "--quiet", "--out-dir", str(dist), str(REPO)], cwd=tmp_path)
    (wheel,) = dist.glob("graphniah-*.whl")
    timings["wheel"] = time.perf_counter() - t0

    t0 = time.perf_counter()
    venv = tmp_path / "venv"
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV") and not k.startswith("GRAPHNIAH_")}
    env.setdefault("SSL_CERT_FILE", "/etc/ssl/certs/ca-certificates.crt")
    _run([sys.executable, "-m", "uv", "venv", "--quiet", "--python", sys.executable, str(venv)], cwd=tmp_path, env=env)
    python = venv / "bin" / "python"
    _run([sys.executable, "-m", "uv", "pip", "install", "--quiet", "--python", str(python), str(wheel)], cwd=tmp_path, env=env)
    timings["install"] = time.perf_counter() - t0

    work = tmp_path / "work"  # outside the repository: nothing can be found through the checkout
    work.mkdir()
    env["GRAPHNIAH_DATA"] = str(REPO / "data")  # tokenizers, corpora: assembled at setup, not shipped
    env["COLUMNS"] = "250"
    where = _run([str(python), "-c", "import graphniah, graphniah.resources as r, graphniah.sampling.suites as s; "
                  "print(graphniah.__file__); print(r.resource_dir('prompts')); print(s.load_suite_spec('demo').per_value); "
                  "print(s.default_suites_dir())"], cwd=work, env=env).stdout.split()
    assert where.pop(2) == "36"  # the shipped demo suite, read from the installed copy
    assert all(Path(p).is_relative_to(venv) for p in where), where  # the installed copy, resources included
    assert not any(Path(p).is_relative_to(REPO) for p in where)

    # Every module imports with the runtime dependencies alone, except the inspect integration (the
    # `inspect` extra); the llama.cpp server, an extra too, says how to install it.
    check = _run([str(python), "-c", IMPORT_ALL], cwd=work, env=env).stdout.split("\n")
    assert check[0] == "ok", check
    assert "pip install 'graphniah[local-llm]'" in check[1], check

    t0 = time.perf_counter()
    root = demo_snapshot.path.parent.parent  # the session's demo snapshots: refresh finds them up to date
    suites = tmp_path / "suites"
    suites.mkdir()
    (suites / "demo.yaml").write_text(SMALL_DEMO, encoding="utf-8")
    r = _run([str(venv / "bin" / "graphniah"), "demo", "--root", str(root), "--suites", str(suites)], cwd=work, env=env, timeout=900)
    timings["demo"] = time.perf_counter() - t0
    out = r.stdout
    assert "Accuracy on the demo suite" in out, out
    oracle = [line for line in out.splitlines() if line.lstrip("│┃ ").startswith("local-oracle ")]  # the table row
    # yesno, mc, count, list, all and the list F1: every answer right
    assert len(oracle) == 1 and oracle[0].count("100.0 [") == 6, out
    assert (work / "examples" / "demo.jsonl").is_file() and (work / "reports" / "demo").is_dir()
    print("install test timings (s): " + ", ".join(f"{k} {v:.1f}" for k, v in timings.items()))
