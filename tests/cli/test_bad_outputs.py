"""Every command that writes checks its destination first: a bad output path is one ``error:`` line
naming the path and the reason, exit status 2, and nothing written (no folder, temporary or lock file).

The writing commands are enumerated from the typer application (a new command must be listed in
``WRITERS`` or ``READ_ONLY``). The checks are :func:`graphniah.atomic.check_output`'s.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.cli.test_bad_arguments import _commands, _main

Argv = Callable[[Path, Path], list[str]]  # (scratch folder, bad output path) -> argv

# command -> (kind of output, argv writing to the bad path)
WRITERS: dict[str, tuple[str, Argv]] = {
    "demo-release": ("folder", lambda t, o: ["demo-release", "--out", str(o), "--papers", "100"]),
    "demo": ("folder", lambda t, o: ["demo", "--root", str(o)]),
    "sample": ("file", lambda t, o: ["sample", "--task", "yesno", "--depth", "4", "--out", str(o), "--root", str(t)]),
    "build": ("folder", lambda t, o: ["build", "--suite", "demo", "--out", str(o), "--root", str(t)]),
    # prune and paths write into a snapshot's pruned/ and paths/ folders: here taken by regular files
    "prune": ("folder", lambda t, o: ["prune", "--depth", "4", "--snapshot", str(t / "snap")]),
    "paths": ("folder", lambda t, o: ["paths", "--depth", "4", "--seed", "0", "--snapshot", str(t / "snap")]),
    "ingest": ("folder", lambda t, o: ["ingest", "--release", str(t / "empty"), "--cutoff", "2026-04-01", "--out", str(o)]),
    "store load": ("file", lambda t, o: ["store", "load", "--store", str(o), "--release", str(t / "empty")]),
    "store apply-diff": ("file", lambda t, o: ["store", "apply-diff", "--store", str(o), "--diff", str(t / "empty")]),
    "store snapshot": ("folder", lambda t, o: ["store", "snapshot", "--store", str(t / "s.duckdb"), "--cutoff", "2026-04-01",
                                               "--out", str(o)]),
    "refresh": ("folder", lambda t, o: ["refresh", "--cutoff", "2026-04-01", "--root", str(o), "--demo"]),
    "report": ("folder", lambda t, o: ["report", "--suite", "demo", "--examples-root", str(t / "examples"), "--out", str(o)]),
    "select-alpha": ("folder", lambda t, o: ["select-alpha", "--root", str(t), "--out", str(o)]),
    "run": ("folder", lambda t, o: ["run", "--model", "local-oracle", "--suite", "demo", "--examples-root",
                                    str(t / "examples"), "--runs", str(o)]),
    "baselines": ("folder", lambda t, o: ["baselines", "--suite", "demo", "--examples-root", str(t / "examples"),
                                          "--runs", str(o)]),
    "export": ("folder", lambda t, o: ["export", "--suite", "demo", "--examples-root", str(t / "examples"), "--out", str(o)]),
    "view": ("folder", lambda t, o: ["view", "--examples", str(t / "examples" / "demo.jsonl"), "--out", str(o)]),
    "corpora fetch": ("folder", lambda t, o: ["corpora", "fetch", "--data", str(o)]),
    "tokenize fetch": ("folder", lambda t, o: ["tokenize", "fetch", "--data", str(o)]),
    "models fetch": ("folder", lambda t, o: ["models", "fetch", "smollm2", "--data", str(o)]),
    "s2ag download": ("folder", lambda t, o: ["s2ag", "download", "--root", str(o)]),
    "s2ag diffs": ("folder", lambda t, o: ["s2ag", "diffs", "--root", str(o), "--since", "2026-10-06"]),
}
READ_ONLY = {"version", "verify", "show", "score", "serve", "power", "corpora list", "tokenize count", "store status",
             "models list", "s2ag releases"}

# how an output path goes wrong -> (bad path given the scratch folder and the output's kind, words of the error)
BAD: dict[str, tuple[Callable[[Path, str], Path], str]] = {
    "under a regular file": (lambda t, kind: t / "notes.txt" / "x" / "out", "is a file, not a folder"),
    "special file system": (lambda t, kind: Path("/proc/graphniah-test/out"), "on a proc file system"),
    "wrong kind": (lambda t, kind: t / ("notes.txt" if kind == "folder" else "empty"),
                   "not a folder"),
}


@pytest.fixture(scope="module")
def scratch(tmp_path_factory: pytest.TempPathFactory) -> Path:
    t = tmp_path_factory.mktemp("bad-outputs")
    (t / "notes.txt").write_text("hello\n")
    (t / "empty").mkdir()
    (t / "examples").mkdir()
    (t / "examples" / "demo.jsonl").write_text("{}\n")  # a suite that exists: the output is the only thing wrong
    (t / "snap").mkdir()
    (t / "snap" / "manifest.json").write_text("{}\n")
    (t / "snap" / "pruned").write_text("not a folder\n")
    (t / "snap" / "paths").write_text("not a folder\n")
    return t


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
    kind, argv = WRITERS[command]
    where, words = BAD[bad]
    out = where(scratch, kind)
    if command in ("prune", "paths"):
        if bad != "wrong kind":
            pytest.skip("prune and paths write into the snapshot given, whose folders are tested as the wrong kind")
        out = scratch / "snap" / ("pruned" if command == "prune" else "paths")
        words = "exists and is not a folder"
    if bad == "wrong kind" and kind == "file":
        words = "is a folder, not a file"
    before = _tree(scratch)
    code, stdout, err = _main(argv(scratch, out), scratch, command.startswith("s2ag"), monkeypatch, capsys)
    assert code == 2, stdout + err
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), stdout + err
    assert str(out) in lines[0], lines[0]
    assert words in lines[0], lines[0]
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
