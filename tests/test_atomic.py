"""graphniah.atomic: temporary siblings carry the writer's pid, and the next write removes those of
dead processes (a SIGKILL leaves them behind) while keeping a live writer's."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from graphniah.atomic import atomic_dir, atomic_write_text, output_lock, remove_stale_temps, temp_prefix
from graphniah.errors import GraphNIAHError


def _dead_pid() -> int:
    proc = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True,
                          check=True)
    return int(proc.stdout)


def test_a_killed_writers_temporaries_are_removed_by_the_next_write(tmp_path):
    dead = _dead_pid()
    (tmp_path / f".out.json.{dead}.abcdefgh.tmp").write_text("half")
    (tmp_path / f".snap.{dead}.k2j4h5g6.tmp").mkdir()
    atomic_write_text(tmp_path / "out.json", "{}")
    with atomic_dir(tmp_path / "snap") as tmp:
        (tmp / "a").write_text("a")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.json", "snap"]


def test_a_live_writers_temporaries_and_other_names_are_kept(tmp_path):
    live = tmp_path / f".out.json.{os.getppid()}.abcdefgh.tmp"
    live.write_text("in progress")
    other = tmp_path / f".out.json.5.{_dead_pid()}.abcdefgh.tmp"  # the temporary of a target "out.json.5"
    other.write_text("x")
    assert remove_stale_temps(tmp_path, "out.json") == []
    assert live.exists() and other.exists()


def test_a_kill_between_the_two_renames_puts_the_old_folder_back(tmp_path):
    old = tmp_path / f".snap.{_dead_pid()}.old"
    old.mkdir()
    (old / "complete").write_text("yes")
    remove_stale_temps(tmp_path, "snap")
    assert (tmp_path / "snap" / "complete").read_text() == "yes"
    assert not old.exists()


def test_the_prefix_names_this_process():
    assert temp_prefix("x") == f".x.{os.getpid()}."


def test_a_second_writer_of_one_output_fails_naming_the_holders_pid(tmp_path):
    holder = subprocess.Popen([sys.executable, "-c", (
        "import sys, time; from graphniah.atomic import output_lock\n"
        f"with output_lock({str(tmp_path / 'site')!r}):\n    print('locked', flush=True); time.sleep(60)")],
        stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
        with pytest.raises(GraphNIAHError, match=rf"site is being written by another process \(pid {holder.pid},"):
            with output_lock(tmp_path / "site"):
                pass
    finally:
        holder.kill()
        holder.wait()
    with output_lock(tmp_path / "site") as lock:  # the kernel dropped the dead holder's lock
        assert lock.read_text() == f"{os.getpid()}\n"
