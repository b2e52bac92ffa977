"""Out of disk and read-only: ``ingest``, ``build``, ``run``, ``export`` and ``view`` writing to a
small tmpfs (mounted by the test: CI runs as root; elsewhere it skips and says why) fail with one
line naming the output and the cause, leave no output behind, and complete when rerun after space
is freed; the journal keeps every record it reported as written, each once."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.faults.harness import (
    CUTOFF,
    MODEL,
    SUITE,
    OracleServer,
    copy_work,
    graphniah_bin,
    stage_env,
)


def _mount(point: Path, options: str) -> None:
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(point)], capture_output=True, text=True,
                          check=False)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here ({done.stderr.strip() or 'mount failed'}): not root, or no CAP_SYS_ADMIN")


def _remount(point: Path, options: str) -> None:
    subprocess.run(["mount", "-o", f"remount,{options}", str(point)], check=True)


@pytest.fixture(scope="module")
def pipeline(prepared, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, str, list[str]]]:
    work = tmp_path_factory.mktemp("disk") / "work"
    # the inputs of the commands under test: the outputs of prune, paths and build (tests/faults/conftest.py)
    ids = copy_work(prepared.pipeline, work, omit=("runs", "dataset"))
    server = OracleServer(work)
    try:
        yield work, server.url, ids
    finally:
        server.close()


@pytest.fixture
def disk(tmp_path: Path) -> Iterator[Path]:
    point = tmp_path / "disk"
    point.mkdir()
    _mount(point, "size=64k")
    try:
        yield point
    finally:
        subprocess.run(["umount", str(point)], check=False)


def _commands(work: Path, api: str, ids: list[str], disk: Path) -> dict[str, tuple[list[str], Path]]:
    """Each command with its output on ``disk``, and that output."""
    snap = f"snap/{ids[-1]}/cutoff={CUTOFF}"
    return {
        "ingest": (["ingest", "--release", f"rel/releases/{ids[-1]}", "--cutoff", CUTOFF, "--out", str(disk / "snap"),
                    "--memory-limit", "1GB"], disk / "snap"),
        "build": (["build", "--suite", SUITE, "--suites", "suites", "--snapshot", snap, "--out", str(disk / "ex"),
                   "--workers", "1"], disk / "ex" / f"{SUITE}.jsonl"),
        "run": (["run", "--model", MODEL, "--suite", SUITE, "--examples-root", "examples", "--runs", str(disk / "runs"),
                 "--snapshots", "snap", "--api-base", api, "--concurrency", "2", "--no-progress"],
                disk / "runs" / SUITE / f"{MODEL}.jsonl"),
        "export": (["export", "--suite", SUITE, "--out", str(disk / "dataset"), "--examples-root", "examples",
                    "--snapshots", "snap"], disk / "dataset"),
        "view": (["view", "--examples", f"examples/{SUITE}.jsonl", "--root", "snap", "--out", str(disk / "viewer")],
                 disk / "viewer"),
    }


def _run(work: Path, argv: list[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([graphniah_bin(), *argv], cwd=work, env=stage_env(work), capture_output=True, text=True,
                          timeout=900, check=False)


def _journal_ids(path: Path) -> list[str]:
    data = path.read_bytes() if path.exists() else b""
    assert data == b"" or data.endswith(b"\n"), "the journal ends in a torn line"
    return [json.loads(line)["example_id"] for line in data.splitlines()]


def _one_line_naming(err: str, disk: Path, cause: str) -> None:
    """One error line (the last; ``run`` prints its plan before it), naming a path on ``disk`` (the
    output, or the folder that refused it) and the cause; no traceback."""
    lines = err.strip().splitlines()
    assert "Traceback" not in err and [line for line in lines if line.startswith("error:")] == lines[-1:], err
    assert cause in lines[-1] and f"cannot write {disk}/" in lines[-1], lines[-1]


@pytest.mark.slow
@pytest.mark.parametrize("name", ["ingest", "build", "run", "export", "view"])
def test_a_full_disk_is_one_line_no_partial_output_and_a_rerun_completes(pipeline, disk, name):
    work, api, ids = pipeline
    argv, out = _commands(work, api, ids, disk)[name]
    if name == "run":
        _remount(disk, "size=8k")  # room for the settings and a few journal lines
    done = _run(work, argv)
    assert done.returncode != 0
    _one_line_naming(done.stderr, disk, "No space left on device")
    if name == "run":  # what was written stays, each once, every line complete
        written = _journal_ids(out)
        assert len(written) == len(set(written))
    else:
        assert not out.exists()
    _remount(disk, "size=16m")
    done = _run(work, argv)
    assert done.returncode == 0, done.stderr
    assert out.exists()
    if name == "run":
        answered = _journal_ids(out)
        assert set(written) <= set(answered) and len(answered) == len(set(answered)) == 2 * 4


@pytest.mark.slow
@pytest.mark.parametrize("name", ["ingest", "build", "run", "export", "view"])
def test_a_read_only_folder_is_one_line_and_no_output(pipeline, disk, name):
    work, api, ids = pipeline
    argv, out = _commands(work, api, ids, disk)[name]
    _remount(disk, "ro")
    done = _run(work, argv)
    assert done.returncode != 0
    _one_line_naming(done.stderr, disk, "Read-only file system")
    assert not out.exists()
