"""The command line starts without the pipeline: what each start imports, checked in fresh processes.

``import graphniah.cli`` (and so ``graphniah --help``) must load none of the heavy libraries; LiteLLM
is imported only when a model call is about to be made, so ``run --dry-run``, ``score`` and
``report`` never load it. Each case runs the real entry point in a subprocess and prints the
modules it loaded.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from tests.report.synthetic import make_example, write_suite
from tests.run.helpers import demo_suite

HEAVY = ("duckdb", "igraph", "scipy", "pyarrow", "litellm", "tokenizers", "numba")

# Runs ``graphniah ARGV`` through the entry point and prints the top-level modules it loaded.
_PROBE = """
import json, sys
argv = json.loads(sys.argv[1])
sys.argv = ["graphniah", *argv]
if argv == ["--import-only"]:
    import graphniah.cli
else:
    from graphniah.cli import main
    try:
        main()
    except SystemExit as e:
        if e.code not in (0, None):
            raise
sys.stdout.write("\\nMODULES " + json.dumps(sorted({m.split(".")[0] for m in sys.modules})) + "\\n")
"""


def _loaded(argv: list[str], cwd: Path) -> set[str]:
    env = {**os.environ, "COLUMNS": "200"}
    r = subprocess.run([sys.executable, "-c", _PROBE, json.dumps(argv)], capture_output=True, text=True, cwd=cwd, env=env,
                       timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    line = next(x for x in r.stdout.splitlines() if x.startswith("MODULES "))
    return set(json.loads(line.removeprefix("MODULES ")))


def test_import_of_the_cli_loads_no_heavy_library(tmp_path: Path) -> None:
    loaded = _loaded(["--import-only"], tmp_path)
    assert "typer" in loaded  # the probe saw the import
    assert not loaded & set(HEAVY), sorted(loaded & set(HEAVY))


@pytest.mark.parametrize("argv", [["--help"], ["run", "--help"], ["build", "--help"], ["store", "load", "--help"]],
                         ids=lambda a: "-".join(a))
def test_help_loads_neither_the_pipeline_nor_rich_nor_pydantic(argv: list[str], tmp_path: Path) -> None:
    loaded = _loaded(argv, tmp_path)
    unwanted = set(HEAVY) | {"numpy", "pydantic", "rich"}
    assert not loaded & unwanted, sorted(loaded & unwanted)


def test_a_dry_run_plans_without_litellm(tmp_path_factory: pytest.TempPathFactory, tmp_path: Path) -> None:
    suite = demo_suite(tmp_path_factory)
    loaded = _loaded(["run", "--dry-run", "--model", "local-oracle", "--examples", str(suite.path),
                      "--snapshots", str(suite.snapshots), "--runs", str(tmp_path / "runs")], tmp_path)
    assert "graphniah" in loaded and "numpy" in loaded  # the plan was made
    assert "litellm" not in loaded
    assert not (tmp_path / "runs").exists() or not any((tmp_path / "runs").rglob("*.jsonl"))  # nothing sent


def test_score_and_report_read_journals_without_litellm(tmp_path: Path) -> None:
    rng = np.random.default_rng(0)
    exs = [make_example("yesno", 4, 100, ("YES", "NO")[i % 2], seed=0, index=i) for i in range(20)]
    write_suite(tmp_path, "s", exs, {"m": {"p": 0.8}}, rng)
    score = _loaded(["score", "--model", "m", "--suite", "s", "--runs", str(tmp_path / "runs")], tmp_path)
    assert "litellm" not in score
    report = _loaded(["report", "--suite", "s", "--runs", str(tmp_path / "runs"), "--examples-root", str(tmp_path / "examples"),
                      "--out", str(tmp_path / "report"), "--no-figures", "--no-html"], tmp_path)
    assert (tmp_path / "report").is_dir()  # the report was written
    assert "litellm" not in report


@pytest.mark.parametrize("argv", [["--help"], [], ["--bogus"], ["--help", "run"], ["run", "--help"], ["store", "--help"],
                                  ["store", "load", "--help"], ["store", "bogus"], ["bogus"], ["version"]],
                         ids=lambda a: "-".join(a) or "none")
def test_the_app_main_builds_answers_as_the_whole_app(argv: list[str]) -> None:
    """``main`` builds only the named command, or a listing when none is named: same output, same exit."""
    from typer.testing import CliRunner

    from graphniah.cli import _command_app, app

    runner = CliRunner()
    whole = runner.invoke(app, argv, prog_name="graphniah", env={"COLUMNS": "100"})
    built = runner.invoke(_command_app(argv), argv, prog_name="graphniah", env={"COLUMNS": "100"})
    assert (built.output, built.exit_code) == (whole.output, whole.exit_code)
    assert whole.output.strip()  # each case prints something (help, usage error or the version)
