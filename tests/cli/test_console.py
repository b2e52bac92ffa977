"""Rich output where stdout is not a terminal (a pipe, a log file, CI): no table cell is cut and wrapped.

Run as ``make demo > log`` runs it: the command a child process with its stdout a pipe and no
``COLUMNS``. The expected cells are read from the corpus manifests' JSON, not from the command.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from graphniah.assets import data_dir
from graphniah.cli.console import PIPE_WIDTH, rich_console


def _piped(*argv: str) -> str:
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
    run = "import sys; from graphniah.cli import main; sys.argv[0] = 'graphniah'; main()"
    done = subprocess.run([sys.executable, "-c", run, *argv], capture_output=True, text=True, env=env, timeout=300,
                          check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def test_the_corpora_table_keeps_every_cell_whole_in_a_pipe() -> None:
    manifests = sorted(data_dir().glob("corpora/*/manifest.json"))
    if not manifests:
        pytest.skip(f"no corpora under {data_dir()}: the setup step (graphniah corpora fetch) builds them")
    out = _piped("corpora", "list").splitlines()
    for path in manifests:
        m = json.loads(path.read_text(encoding="utf-8"))
        row = [line for line in out if line.startswith(f"│ {m['kind']} ")]
        assert len(row) == 1, (m["kind"], out)  # the row is one line: nothing wrapped onto a second
        for cell in [", ".join(f"{s['package']} {s['version']}" for s in m["sources"]), f"{m['total_chars']:,}",
                     f"{m['n_blocks']:,}", f"{m['n_documents']:,}"]:
            assert cell in row[0]
        width = max(len(line) for line in out if line.startswith(("┏", "│", "└")))
        assert width < 200  # the width the content needs, not the pipe's assumed one


def test_a_console_takes_the_terminals_width_or_the_contents(monkeypatch: pytest.MonkeyPatch) -> None:
    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    monkeypatch.delenv("COLUMNS", raising=False)
    monkeypatch.setattr(sys, "stdout", io.StringIO())
    assert rich_console().width == PIPE_WIDTH
    monkeypatch.setattr(sys, "stdout", Tty())
    monkeypatch.setenv("COLUMNS", "93")  # what a terminal of 93 columns reports through rich
    assert rich_console().width == 93
    monkeypatch.setattr(sys, "stdout", io.StringIO())
    assert rich_console().width == 93  # COLUMNS, when set, is the user's word
    monkeypatch.setattr(sys, "stderr", io.StringIO())
    monkeypatch.delenv("COLUMNS")
    assert rich_console(stderr=True).width == PIPE_WIDTH


def test_a_long_line_in_a_pipe_stays_one_line(tmp_path: Path) -> None:
    out = _piped("tokenize", "count", "--text", "word " * 60)
    rows = [line for line in out.splitlines() if line.startswith("│")]
    assert [r.split("│")[1].strip() for r in rows] == ["o200k_base", "qwen3.5", "gemma"]
