"""Atomic writes, two promises the second audit of issue 40 found unpinned: a dead run's old folder never
replaces a complete new one, and a file written atomically gets the permissions a plain write would."""

from __future__ import annotations

import os
import stat
import subprocess
import sys

from graphniah.atomic import atomic_dir, atomic_write_text, output_lock, remove_stale_temps


def _dead_pid() -> int:
    proc = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True, check=True)
    return int(proc.stdout)


def test_a_dead_runs_old_folder_is_removed_when_a_complete_new_one_is_in_place(tmp_path) -> None:
    """Killed after its second rename, a run leaves ``.<name>.<pid>.old`` beside the new folder: the next
    run removes it and keeps the new folder (the old one goes back only when no folder is in place)."""
    with atomic_dir(tmp_path / "snap") as tmp:
        (tmp / "new").write_text("complete")
    old = tmp_path / f".snap.{_dead_pid()}.old"
    old.mkdir()
    (old / "old").write_text("replaced")
    assert remove_stale_temps(tmp_path, "snap") == [old]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["snap"]
    assert [p.name for p in (tmp_path / "snap").iterdir()] == ["new"]


def test_an_atomic_write_gets_the_permissions_of_a_plain_write(tmp_path) -> None:
    """mkstemp makes 0600 files; an artifact gets 0666 less the umask, as ``open(..., "w")`` gives it."""
    mask = os.umask(0o027)
    try:
        atomic_write_text(tmp_path / "atomic.txt", "x")
        (tmp_path / "plain.txt").write_text("x")
    finally:
        os.umask(mask)
    modes = [stat.S_IMODE((tmp_path / n).stat().st_mode) for n in ("atomic.txt", "plain.txt")]
    assert modes == [0o640, 0o640]


def test_the_output_lock_is_a_hidden_file_beside_the_output(tmp_path) -> None:
    """``.<name>.lock`` beside the output (hidden: no listing of the output's folder shows it), holding the pid."""
    with output_lock(tmp_path / "site") as lock:
        assert lock == tmp_path / ".site.lock" and lock.read_text() == f"{os.getpid()}\n"
