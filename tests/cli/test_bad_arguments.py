"""Every CLI command, given a bad argument, ends with one ``error:`` line: no traceback, exit != 0.

The commands are enumerated from the typer application, so a new command without a case here
fails ``test_every_command_has_a_case``. The cases call the real entry point
(``graphniah.cli.main``) in this process, with ``sys.argv`` set as the shell would (one import of
the package for all of them); one case also runs it in a subprocess, the way a user meets it.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from graphniah.cli import app
from graphniah.formats import TASKS

Case = Callable[[Path], list[str]]


def _commands() -> list[str]:
    names = [c.name or c.callback.__name__.replace("_", "-") for c in app.registered_commands]  # type: ignore[union-attr]
    for group in app.registered_groups:
        names += [f"{group.name} {c.name or c.callback.__name__}" for c in group.typer_instance.registered_commands]  # type: ignore[union-attr]
    return names


# command -> (what is wrong, argv given a scratch folder)
CASES: dict[str, list[tuple[str, Case]]] = {
    "version": [],  # takes no arguments: only click's own usage errors (tested below)
    "build": [
        ("unknown suite", lambda t: ["build", "--suite", "no-such-suite"]),
        ("negative count", lambda t: ["build", "--suite", "demo", "-n", "-1", "--root", str(t / "none")]),
        ("empty suites folder", lambda t: ["build", "--suite", "demo", "--suites", str(t / "empty")]),
    ],
    "export": [("missing suite file", lambda t: ["export", "--suite", "nope", "--out", str(t / "ds"), "--examples-root", str(t)])],
    "demo-release": [
        ("negative paper count", lambda t: ["demo-release", "--out", str(t / "dr"), "--papers", "-5"]),
        ("unknown format", lambda t: ["demo-release", "--out", str(t / "dr"), "--format", "crossref"]),
    ],
    "demo": [
        ("bad date", lambda t: ["demo", "--cutoff", "2026-13-45", "--root", str(t / "s")]),
        ("empty suites folder", lambda t: ["demo", "--suites", str(t / "empty"), "--root", str(t / "s")]),
        ("negative count", lambda t: ["demo", "-n", "-2", "--root", str(t / "s")]),
    ],
    "sample": [
        ("unknown task", lambda t: ["sample", "--task", "bogus", "--depth", "4"]),
        ("negative count", lambda t: ["sample", "--task", "yesno", "--depth", "4", "-n", "-3"]),
        ("unknown rendering", lambda t: ["sample", "--task", "mc", "--depth", "4", "--render", "svg"]),
    ],
    "verify": [
        ("missing file", lambda t: ["verify", str(t / "missing.jsonl")]),
        ("not JSON", lambda t: ["verify", str(t / "bad.jsonl")]),
        ("prompts folder missing a template", lambda t: ["verify", str(t / "bad.jsonl"), "--prompts", str(t / "empty")]),
    ],
    "show": [("missing examples file", lambda t: ["show", "some-id", "--examples", str(t / "missing.jsonl")])],
    "prune": [("not a snapshot", lambda t: ["prune", "--depth", "4", "--snapshot", str(t / "nosnap")])],
    "paths": [
        ("negative pool", lambda t: ["paths", "--depth", "4", "--seed", "0", "--pool", "-1"]),
        ("depth 0", lambda t: ["paths", "--depth", "0", "--seed", "0", "--root", str(t)]),
    ],
    "ingest": [
        ("missing release folder", lambda t: ["ingest", "--release", str(t / "norelease"), "--cutoff", "2026-04-01", "--out", str(t / "snap")]),
        ("not an OpenAlex folder", lambda t: ["ingest", "--source", "openalex", "--release", str(t), "--cutoff", "2026-04-01", "--out", str(t / "snap")]),
    ],
    "refresh": [
        ("bad date", lambda t: ["refresh", "--cutoff", "yesterday", "--root", str(t / "r")]),
        ("unknown source", lambda t: ["refresh", "--cutoff", "2026-04-01", "--root", str(t / "r"), "--source", "crossref"]),
    ],
    "openalex fetch": [
        ("bad date", lambda t: ["openalex", "fetch", "--from-publication-date", "2026-13-01", "--to-publication-date", "2026-12-31", "--out", str(t / "f")]),
        ("window ends before it starts", lambda t: ["openalex", "fetch", "--from-publication-date", "2026-05-01", "--to-publication-date", "2026-04-01",
                                                    "--out", str(t / "f")]),
    ],
    "report": [("unknown suite", lambda t: ["report", "--suite", "nope", "--runs", str(t), "--examples-root", str(t), "--out", str(t / "rep")])],
    "select-alpha": [("not numbers", lambda t: ["select-alpha", "--alphas", "x,y", "--root", str(t)])],
    "run": [
        ("unknown model", lambda t: ["run", "--model", "no-such-model", "--suite", "demo", "--examples-root", str(t)]),
        ("missing registry", lambda t: ["run", "--model", "local-oracle", "--suite", "demo", "--models", str(t / "missing.yaml")]),
        ("missing registry (old option name)", lambda t: ["run", "--model", "local-oracle", "--suite", "demo", "--registry", str(t / "missing.yaml")]),
        ("bad reasoning effort", lambda t: ["run", "--model", "local-oracle", "--suite", "demo", "--reasoning-effort", "max"]),
    ],
    "batches": [("runs root is a file", lambda t: ["batches", "--runs", str(t / "notes.txt")])],
    "score": [("no journal", lambda t: ["score", "--model", "m", "--suite", "s", "--runs", str(t)])],
    "serve": [
        ("unknown policy", lambda t: ["serve", "--policy", "bogus"]),
        ("missing registry", lambda t: ["serve", "--policy", "oracle", "--models", str(t / "missing.yaml")]),
    ],
    "view": [("missing examples file", lambda t: ["view", "--out", str(t / "v"), "--examples", str(t / "missing.jsonl")])],
    "baselines": [
        ("no examples named", lambda t: ["baselines", "--runs", str(t / "runs")]),
        ("unknown shortcut", lambda t: ["baselines", "--examples", str(t / "bad.jsonl"), "--shortcut", "bogus"]),
        ("not JSON", lambda t: ["baselines", "--examples", str(t / "bad.jsonl"), "--runs", str(t / "runs")]),
        ("unknown suite", lambda t: ["baselines", "--suite", "nope", "--examples-root", str(t)]),
    ],
    "power": [
        ("equal rates", lambda t: ["power", "--p1", "0.5", "--p2", "0.5"]),
        ("rate above 1", lambda t: ["power", "--p1", "1.5", "--p2", "0.7"]),
        ("discordant without --paired", lambda t: ["power", "--p1", "0.5", "--p2", "0.7", "--discordant", "0.3"]),
        ("too few discordant pairs", lambda t: ["power", "--p1", "0.5", "--p2", "0.7", "--paired", "--discordant", "0.1"]),
    ],
    "corpora fetch": [("unknown kind", lambda t: ["corpora", "fetch", "--kind", "bogus", "--data", str(t / "d")])],
    "corpora list": [("no corpora", lambda t: ["corpora", "list", "--data", str(t / "d")])],
    "tokenize fetch": [("data folder is a file", lambda t: ["tokenize", "fetch", "--data", str(t / "notes.txt")])],
    "tokenize count": [("missing file", lambda t: ["tokenize", "count", str(t / "missing.txt")])],
    "store load": [("missing release folder", lambda t: ["store", "load", "--store", str(t / "s1.duckdb"), "--release", str(t / "norelease")])],
    "store apply-diff": [("missing diff folder", lambda t: ["store", "apply-diff", "--store", str(t / "s2.duckdb"), "--diff", str(t / "nodiff")])],
    "store snapshot": [("bad date", lambda t: ["store", "snapshot", "--store", str(t / "s3.duckdb"), "--cutoff", "2026-02-30", "--out", str(t / "o")])],
    "store status": [("not a database", lambda t: ["store", "status", "--store", str(t / "store.duckdb")])],
    "models list": [("missing registry", lambda t: ["models", "list", "--models", str(t / "missing.yaml")])],
    "models fetch": [("unknown model", lambda t: ["models", "fetch", "bogus-model", "--data", str(t / "d")])],
    "s2ag releases": [("not an http URL", lambda t: ["s2ag", "releases", "--api-base", "ftp://example.org/x"])],
    "s2ag download": [("no API key", lambda t: ["s2ag", "download", "--root", str(t / "dl")])],
    "s2ag diffs": [("bad release id", lambda t: ["s2ag", "diffs", "--root", str(t / "dl"), "--since", "../etc"])],
}
NEEDS_KEY = {("s2ag diffs", "bad release id")}


@pytest.fixture(scope="module")
def scratch(tmp_path_factory: pytest.TempPathFactory) -> Path:
    t = tmp_path_factory.mktemp("bad-args")
    (t / "notes.txt").write_text("hello\n")
    (t / "bad.jsonl").write_text("{not json\n")
    (t / "store.duckdb").write_text("this is not a database\n")
    (t / "empty").mkdir()
    return t


def _env(cwd: Path, key: bool) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "S2_API_KEY" and not k.startswith("GRAPHNIAH_")}
    env["GRAPHNIAH_DATA"] = str(cwd / "d")  # never the real data folder: nothing may be fetched
    env["COLUMNS"] = "200"
    if key:
        env["S2_API_KEY"] = "test-key-not-real"
    return env


def _main(argv: list[str], cwd: Path, key: bool, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """Run ``graphniah ARGV`` in this process: exit code, stdout, stderr. Any exception other than
    the exit escapes, so a traceback fails the test with the traceback itself."""
    from graphniah.cli import main

    monkeypatch.setattr(os, "environ", _env(cwd, key))
    monkeypatch.setattr(sys, "argv", ["graphniah", *argv])
    monkeypatch.chdir(cwd)
    try:
        main()
        code = 0
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    out = capsys.readouterr()
    return code, out.out, out.err


def test_every_command_has_a_case() -> None:
    missing = sorted(set(_commands()) - set(CASES))
    assert not missing, f"commands without a bad-argument case in {__file__}: {missing}"
    stale = sorted(set(CASES) - set(_commands()))
    assert not stale, f"bad-argument cases for commands that are not registered: {stale}"


@pytest.mark.parametrize(
    ("command", "what"), [(c, what) for c, cases in CASES.items() for what, _ in cases], ids=lambda v: str(v).replace(" ", "-")
)
def test_bad_arguments_give_one_error_line(command: str, what: str, scratch: Path, monkeypatch: pytest.MonkeyPatch,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    argv = dict(CASES[command])[what](scratch)
    code, out, err = _main(argv, scratch, (command, what) in NEEDS_KEY, monkeypatch, capsys)
    assert code != 0, out + err
    assert "Traceback" not in out + err, out + err
    errors = [line for line in err.splitlines() if line.startswith("error: ")]
    assert len(errors) == 1 and err.strip() == errors[0], out + err  # one line and nothing else
    assert len(errors[0]) > len("error: ") + 10  # says what is wrong


def test_the_installed_entry_point_prints_one_error_line(scratch: Path) -> None:
    r = subprocess.run([sys.executable, "-c", "from graphniah.cli import main; main()", "sample", "--task", "bogus", "--depth", "4"],
                       capture_output=True, text=True, env=_env(scratch, False), cwd=scratch, timeout=300)
    assert r.returncode == 2 and "Traceback" not in r.stdout + r.stderr
    assert r.stderr.strip() == f"error: --task must be one of {', '.join(TASKS)}, got 'bogus'"


def test_unknown_option_is_a_usage_error_without_traceback(scratch: Path, monkeypatch: pytest.MonkeyPatch,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _main(["version", "--bogus"], scratch, False, monkeypatch, capsys)
    assert code == 2 and "Traceback" not in out + err
    assert "No such option" in err
