"""Every command that writes checks its destination first: a bad output path is one ``error:`` line
naming the path and the reason, exit status 2, and nothing written (no folder, temporary or lock file).

The writing commands are enumerated from the typer application (a new command must be listed in
``WRITERS`` or ``READ_ONLY``). The checks are :func:`graphniah.atomic.check_output`'s.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.cli.test_bad_arguments import _commands, _main
from tests.faults.outputs import BAD, NEEDS_KEY, READ_ONLY, WRITERS, bad_output, scaffold


@pytest.fixture(scope="module")
def scratch(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return scaffold(tmp_path_factory.mktemp("bad-outputs"))


def _tree(root: Path) -> set[str]:
    return {os.path.relpath(os.path.join(d, n), root) for d, dirs, files in os.walk(root) for n in dirs + files}


def test_every_command_is_a_writer_or_read_only() -> None:
    commands = set(_commands())
    assert commands == set(WRITERS) | READ_ONLY, (commands - set(WRITERS) - READ_ONLY, (set(WRITERS) | READ_ONLY) - commands)
    assert not set(WRITERS) & READ_ONLY


@pytest.mark.parametrize("bad", list(BAD))
@pytest.mark.parametrize("command", list(WRITERS))
def test_a_bad_output_path_is_one_line_and_nothing_is_written(command: str, bad: str, scratch: Path,
                                                              monkeypatch: pytest.MonkeyPatch,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    case = bad_output(command, bad, scratch)
    if case is None:
        pytest.skip("prune and paths write into the snapshot given, whose folders are tested as the wrong kind")
    out, words = case
    before = _tree(scratch)
    code, stdout, err = _main(WRITERS[command][1](scratch, out), scratch, command in NEEDS_KEY, monkeypatch, capsys)
    assert code == 2, stdout + err
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), stdout + err
    assert str(out) in lines[0] and words in lines[0], lines[0]
    assert _tree(scratch) == before  # nothing written: no folder, no temporary, no lock file


ISSUE = [  # the four commands of issue 31, as a new user typed them (F a regular file)
    ["report", "--suite", "demo", "--out", "F/x"],
    ["view", "--examples", "examples/demo.jsonl", "--out", "F/v"],
    ["report", "--out", "/proc/x"],
    ["export", "--suite", "demo", "--out", "/proc/y"],
]


@pytest.mark.parametrize("argv", ISSUE, ids=lambda a: " ".join(a))
def test_the_four_commands_of_the_issue(argv: list[str], scratch: Path, monkeypatch: pytest.MonkeyPatch,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    (scratch / "F").write_text("a regular file\n")
    before = _tree(scratch)
    code, stdout, err = _main(argv, scratch, False, monkeypatch, capsys)
    out = argv[argv.index("--out") + 1]
    reason = "F is a file, not a folder" if out.startswith("F/") else "/proc is on a proc file system, which cannot hold ordinary files"
    assert (code, err.strip()) == (2, f"error: --out {out}: {reason}"), stdout + err
    assert _tree(scratch) == before


@pytest.mark.parametrize(("argv", "error"), [
    (["sample", "--task", "yesno", "--depth", "4"],
     "error: --out examples/yesno-depth4-none-nolimit-seed0.jsonl: examples is a file, not a folder"),
    (["report", "--suite", "demo", "--examples", "ex.jsonl"], "error: --out reports/demo: reports is a file, not a folder"),
])
def test_a_default_output_path_is_checked_too(argv: list[str], error: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    """Without --out a command writes to its default path, checked the same way before any work."""
    (tmp_path / "examples").write_text("a file where the default folder would be\n")
    (tmp_path / "reports").write_text("likewise\n")
    (tmp_path / "ex.jsonl").write_text("{}\n")
    before = _tree(tmp_path)
    code, stdout, err = _main(argv, tmp_path, False, monkeypatch, capsys)
    assert (code, err.strip()) == (2, error), stdout + err
    assert _tree(tmp_path) == before
