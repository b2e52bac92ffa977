"""graphniah.atomic: temporary siblings carry the writer's pid, and the next write removes those of
dead processes (a SIGKILL leaves them behind) while keeping a live writer's."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from graphniah.atomic import atomic_dir, atomic_write_text, check_artifact, check_output, output_lock, remove_stale_temps, temp_prefix
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


# ---- check_output: a destination is checked before any work --------------------------------------


@pytest.mark.parametrize(
    ("given", "kind", "error"),
    [
        ("F/x", "folder", "--out F/x: F is a file, not a folder"),
        ("F/x/y/z.jsonl", "file", "--out F/x/y/z.jsonl: F is a file, not a folder"),
        ("F", "folder", "--out F: exists and is not a folder"),
        ("D", "file", "--out D: is a folder, not a file"),
        ("/dev/null", "file", "--out /dev/null: exists and is not a regular file"),
        ("/proc/x", "folder", "--out /proc/x: /proc is on a proc file system, which cannot hold ordinary files"),
        ("/sys/x/y", "file", "--out /sys/x/y: /sys is on a sysfs file system, which cannot hold ordinary files"),
        ("dangling", "file", "--out dangling: is a broken symbolic link"),
    ],
)
def test_check_output_refuses_each_bad_destination_in_one_line(tmp_path, monkeypatch, given, kind, error):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "F").write_text("a file")
    (tmp_path / "D").mkdir()
    (tmp_path / "dangling").symlink_to(tmp_path / "nowhere")
    before = sorted(p.name for p in tmp_path.iterdir())
    with pytest.raises(GraphNIAHError) as err:
        check_output(given, kind)
    assert str(err.value) == error
    assert sorted(p.name for p in tmp_path.iterdir()) == before  # nothing created


def test_check_output_accepts_new_and_existing_destinations_and_creates_nothing(tmp_path):
    (tmp_path / "D").mkdir()
    (tmp_path / "f.jsonl").write_text("x")
    for given, kind in ((tmp_path / "new" / "deep" / "out", "folder"), (tmp_path / "D", "folder"),
                        (tmp_path / "f.jsonl", "file"), (tmp_path / "new.jsonl", "file")):
        assert check_output(given, kind) == given
    assert sorted(p.name for p in tmp_path.iterdir()) == ["D", "f.jsonl"]


def _as_nobody(top: Path) -> tuple[list[str], dict[str, str]]:
    """How to run this package as user 65534 wherever the checkout lies: a copy of the package in
    ``top`` (world-readable), and the first Python interpreter that user may run. A checkout cloned
    inside a private folder (``mktemp -d``, ``/root``) is unreadable to that user, and so may be the
    virtual environment's interpreter; a skip names what was tried."""
    import graphniah

    src = top / "src"
    shutil.copytree(Path(graphniah.__file__).parent, src / "graphniah", ignore=shutil.ignore_patterns("__pycache__"))
    for p in (top, *src.rglob("*")):
        p.chmod(0o755 if p.is_dir() else 0o644)
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "PYTHONPATH": str(src), "PYTHONDONTWRITEBYTECODE": "1"}
    nobody = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
    tried = list(dict.fromkeys([sys.executable, getattr(sys, "_base_executable", sys.executable),
                                os.path.realpath(sys.executable), shutil.which("python3") or "/usr/bin/python3"]))
    probe = "import sys, graphniah.atomic; sys.exit(sys.version_info < (3, 11))"
    for python in tried:
        if subprocess.run([*nobody, python, "-c", probe], capture_output=True, env=env, cwd=top, check=False).returncode == 0:
            return [*nobody, python], env
    pytest.skip(f"no Python interpreter user 65534 may run with the package copied to {src} (tried {', '.join(tried)})")


def test_check_output_names_a_folder_it_may_not_write_in():
    if shutil.which("setpriv") is None or os.geteuid() != 0:
        pytest.skip("needs root and setpriv to run as another user (root may write anywhere)")
    # pytest's temporary folders are private to root: this one lies where the other user can look
    top = Path(tempfile.mkdtemp(prefix="graphniah-locked-"))
    try:
        run, env = _as_nobody(top)
        locked = top / "locked"
        locked.mkdir(mode=0o555)
        code = f"from graphniah.atomic import check_output\ncheck_output({str(locked / 'out')!r}, 'folder')"
        r = subprocess.run([*run, "-c", code], capture_output=True, text=True, env=env, cwd=top, check=False)
    finally:
        shutil.rmtree(top)
    assert r.returncode == 1, r.stderr
    assert r.stderr.strip().splitlines()[-1] == (
        f"graphniah.errors.GraphNIAHError: cannot write {locked / 'out'} (--out): Permission denied ({locked})")


# ---- check_artifact: an artifact's bytes are those its manifest records ----------------------------


def test_check_artifact_takes_the_recorded_bytes_and_refuses_any_other(tmp_path):
    f = tmp_path / "a.bin"
    f.write_bytes(b"hello")
    good = "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824"  # sha256("hello"), `sha256sum`
    assert check_artifact(f, good, 5, "graphniah rebuild") == f
    f.write_bytes(b"hellO")  # same size, other bytes
    with pytest.raises(GraphNIAHError) as err:
        check_artifact(f, good, 5, "graphniah rebuild")
    assert str(err.value) == (f"{f} was changed or damaged after it was written (its sha256 differs from the one "
                              "recorded); rebuild it with `graphniah rebuild`")
    f.write_bytes(b"hell")
    with pytest.raises(GraphNIAHError, match=r"changed or damaged after it was written \(4 bytes, 5 recorded\)"):
        check_artifact(f, good, 5, "graphniah rebuild")
    f.unlink()
    with pytest.raises(GraphNIAHError, match=r"after it was written \(No such file or directory\); rebuild it with"):
        check_artifact(f, good, 5, "graphniah rebuild")


def test_check_artifact_hashes_a_file_once_per_process_until_it_changes(tmp_path, monkeypatch):
    import graphniah.atomic as atomic

    f = tmp_path / "a.bin"
    f.write_bytes(b"hello")
    good = atomic.sha256_file(f)
    calls = []
    real = atomic.sha256_file
    monkeypatch.setattr(atomic, "sha256_file", lambda p: calls.append(p) or real(p))
    for _ in range(3):
        check_artifact(f, good, None, "x")
    assert len(calls) == 1
    f.write_bytes(b"jello")  # rewritten: a new modification time, hashed again (and refused)
    os.utime(f, ns=(1, 1))
    with pytest.raises(GraphNIAHError):
        check_artifact(f, good, None, "x")
    assert len(calls) == 2


@pytest.mark.parametrize("cut", [0, 3, 11, -1, -5])
def test_a_parquet_file_without_a_recorded_hash_is_checked_for_its_ends(tmp_path, cut):
    import pyarrow as pa
    import pyarrow.parquet as pq

    f = tmp_path / "t.parquet"
    pq.write_table(pa.table({"x": list(range(100))}), f)
    check_artifact(f, None, None, "graphniah refresh", parquet=True)
    data = f.read_bytes()
    f.write_bytes(data[:cut])
    os.utime(f, ns=(2, 2))
    with pytest.raises(GraphNIAHError) as err:
        check_artifact(f, None, None, "graphniah refresh", parquet=True)
    assert str(err.value).startswith(f"{f} was changed or damaged after it was written (")
    assert str(err.value).endswith("; rebuild it with `graphniah refresh`")


def test_check_output_names_a_read_only_file_system(tmp_path):
    point = tmp_path / "ro"
    point.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "ro,size=64k", "tmpfs", str(point)], capture_output=True, text=True,
                          check=False)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here ({done.stderr.strip() or 'mount failed'})")
    try:
        with pytest.raises(GraphNIAHError) as err:
            check_output(point / "site" / "x", "folder")
        assert str(err.value) == f"cannot write {point / 'site' / 'x'} (--out): Read-only file system ({point})"
        assert list(point.iterdir()) == []
    finally:
        subprocess.run(["umount", str(point)], check=False)


def test_a_damaged_artifact_refused_once_is_refused_again(tmp_path):
    f = tmp_path / "a.bin"
    f.write_bytes(b"hellO")  # the recorded bytes were "hello": same size, another byte
    os.utime(f, ns=(3, 3))
    good = "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824"  # sha256("hello"), `sha256sum`
    for _ in range(3):  # nothing about the file changed between the checks: each one refuses it
        with pytest.raises(GraphNIAHError, match="its sha256 differs"):
            check_artifact(f, good, 5, "graphniah rebuild")
    f.write_bytes(b"hello")
    os.utime(f, ns=(4, 4))
    assert check_artifact(f, good, 5, "graphniah rebuild") == f


# ---- check_output's file-system lookup, on a mount table of our own --------------------------------


def _with_mounts(monkeypatch, mounts: list[tuple[str, str]]) -> None:
    """``/proc/self/mountinfo`` as the kernel would write it for ``mounts`` (point, type), in that order."""
    import io

    import graphniah.atomic as atomic

    def escape(path: str) -> str:
        return path.replace("\\", "\\134").replace(" ", "\\040")

    table = "".join(f"{20 + i} 1 0:{i} / {escape(point)} rw,relatime shared:{i} - {kind} none rw\n"
                    for i, (point, kind) in enumerate(mounts))
    real = open

    def fake_open(file, *args, **kwargs):  # type: ignore[no-untyped-def]
        return io.StringIO(table) if str(file) == "/proc/self/mountinfo" else real(file, *args, **kwargs)

    monkeypatch.setattr(atomic, "open", fake_open, raising=False)


def test_check_output_reads_the_innermost_mount_of_a_folder(tmp_path, monkeypatch):
    top = os.path.realpath(tmp_path)
    (tmp_path / "outer" / "inner").mkdir(parents=True)
    (tmp_path / "plain" / "special").mkdir(parents=True)
    _with_mounts(monkeypatch, [("/", "ext4"), (f"{top}/outer/inner", "ext4"), (f"{top}/outer", "proc"),
                               (f"{top}/plain/special", "sysfs"), (f"{top}/plain", "ext4")])
    assert check_output(tmp_path / "outer" / "inner" / "out", "folder") == tmp_path / "outer" / "inner" / "out"
    with pytest.raises(GraphNIAHError, match=r"outer is on a proc file system"):
        check_output(tmp_path / "outer" / "out", "folder")
    with pytest.raises(GraphNIAHError, match=r"special is on a sysfs file system"):
        check_output(tmp_path / "plain" / "special" / "x.jsonl", "file")
    assert check_output(tmp_path / "plain" / "x.jsonl", "file") == tmp_path / "plain" / "x.jsonl"


def test_check_output_does_not_read_a_longer_name_as_under_a_mount(tmp_path, monkeypatch):
    top = os.path.realpath(tmp_path)
    for name in ("sys", "system", "a b"):
        (tmp_path / name).mkdir()
    _with_mounts(monkeypatch, [("/", "ext4"), (f"{top}/sys", "sysfs"), (f"{top}/a b", "proc")])
    assert check_output(tmp_path / "system" / "out", "folder") == tmp_path / "system" / "out"  # /system is not /sys
    with pytest.raises(GraphNIAHError, match=r"sys is on a sysfs file system"):
        check_output(tmp_path / "sys" / "out", "folder")
    with pytest.raises(GraphNIAHError, match=r"a b is on a proc file system"):  # "\040" in the table is a space
        check_output(tmp_path / "a b" / "out", "folder")


@pytest.mark.parametrize(("order", "refused"), [(("ext4", "proc"), True), (("proc", "ext4"), False)])
def test_of_two_mounts_on_one_folder_the_later_one_is_on_top(tmp_path, monkeypatch, order, refused):
    top = os.path.realpath(tmp_path)
    (tmp_path / "m").mkdir()
    _with_mounts(monkeypatch, [("/", "ext4"), *((f"{top}/m", kind) for kind in order)])
    if refused:
        with pytest.raises(GraphNIAHError, match="proc file system"):
            check_output(tmp_path / "m" / "out", "folder")
    else:
        assert check_output(tmp_path / "m" / "out", "folder") == tmp_path / "m" / "out"


def test_check_output_refuses_a_folder_it_may_write_but_not_enter(tmp_path):
    """Creating a file in a folder takes the right to enter it (x) as well as to write it (w). Looking up the
    output inside such a folder is refused first, so the error names the output and the cause."""
    if shutil.which("setpriv") is None or os.geteuid() != 0:
        pytest.skip("needs root and setpriv to run as another user (root may write anywhere)")
    top = Path(tempfile.mkdtemp(prefix="graphniah-noexec-"))
    try:
        top.chmod(0o755)
        shut = top / "shut"
        shut.mkdir()
        shut.chmod(0o666)  # everyone may write it, nobody may enter it
        code = ("from graphniah.atomic import check_output\n"
                f"try:\n    check_output({str(shut / 'out')!r}, 'folder')\nexcept Exception as e:\n    print(e)\nelse:\n    print('accepted')")
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
        r = subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", sys.executable, "-c", code],
                           capture_output=True, text=True, check=False, env=env)
    finally:
        (top / "shut").chmod(0o755)
        shutil.rmtree(top)
    if "No module named 'graphniah'" in r.stderr or "Permission denied" in r.stderr:
        pytest.skip(f"user 65534 cannot read this checkout, so cannot run graphniah ({r.stderr.strip().splitlines()[-1]})")
    assert r.stdout.strip() == f"--out {shut / 'out'}: cannot be written (Permission denied)", r.stderr


def test_a_parquet_file_with_no_row_group_is_complete(tmp_path):
    """A writer closed before any row: "PAR1", the footer, its length and "PAR1" again, nothing else."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    f = tmp_path / "empty.parquet"
    pq.ParquetWriter(f, pa.schema([("x", pa.int64())])).close()
    data = f.read_bytes()
    assert len(data) == int.from_bytes(data[-8:-4], "little") + 12  # the file is its footer and the magic bytes
    assert check_artifact(f, None, None, "graphniah refresh", parquet=True) == f
    assert pq.read_table(f).num_rows == 0


def test_a_refused_write_names_the_file_the_error_names(tmp_path):
    import errno

    from graphniah.atomic import disk_error

    full = OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(tmp_path / "papers.parquet"))
    assert str(disk_error(full)) == f"cannot write {tmp_path / 'papers.parquet'}: No space left on device"
    assert str(disk_error(full, tmp_path / "out")) == f"cannot write {tmp_path / 'out'}: No space left on device"
    # DuckDB names the file only in its message
    duck = RuntimeError(f'IO Error: Could not write file "{tmp_path}/x.duckdb": No space left on device')
    assert str(disk_error(duck)) == f"cannot write {tmp_path}/x.duckdb: No space left on device"
    assert str(disk_error(OSError(errno.EROFS, "Read-only file system"))) == "cannot write a file: Read-only file system"
    assert disk_error(ValueError("no disk involved")) is None


def test_staged_writes_create_the_folders_on_the_way_and_json_stays_utf8(tmp_path):
    from graphniah.atomic import canonical_json, write_in_staging

    write_in_staging(tmp_path / "staging" / "lm_eval" / "deep" / "utils.py", "x = 1\n")
    assert (tmp_path / "staging" / "lm_eval" / "deep" / "utils.py").read_text() == "x = 1\n"
    assert canonical_json({"title": "Café – naïve", "a": [1, 2.5]}) == '{"a":[1,2.5],"title":"Café – naïve"}'


def test_without_a_hash_only_a_parquet_file_is_checked_for_its_ends(tmp_path):
    f = tmp_path / "examples.jsonl"
    f.write_text('{"id": "x"}\n')
    assert check_artifact(f, None, None, "graphniah build") == f  # not Parquet: nothing to check without a hash
    lying = tmp_path / "t.parquet"  # both magic bytes, but a footer of 1,000 bytes in a 22-byte file
    lying.write_bytes(b"PAR1" + b"x" * 10 + (1000).to_bytes(4, "little") + b"PAR1")
    with pytest.raises(GraphNIAHError, match=r"\(not a complete Parquet file\)"):
        check_artifact(lying, None, None, "graphniah refresh", parquet=True)


def test_flock_holder_names_the_process_holding_the_lock(tmp_path):
    import fcntl

    from graphniah.atomic import flock_holder

    if not Path("/proc/locks").is_file():
        pytest.skip("no /proc/locks here (Linux only)")
    f = tmp_path / "out.lock"
    f.write_text("")
    assert flock_holder(f) == "unknown"
    with open(f) as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        assert flock_holder(f) == str(os.getpid())
    assert flock_holder(tmp_path / "missing.lock") == "unknown"


def test_atomic_dir_syncs_nested_files_and_passes_other_errors_on(tmp_path):
    target = tmp_path / "site"
    with atomic_dir(target) as tmp:
        (tmp / "examples" / "deep").mkdir(parents=True)
        (tmp / "examples" / "deep" / "a.js").write_text("x")
    assert (target / "examples" / "deep" / "a.js").read_text() == "x"
    with pytest.raises(ValueError, match="not a disk problem"), atomic_dir(tmp_path / "other") as tmp:
        raise ValueError("not a disk problem")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["site"]
    (tmp_path / "F").write_text("a file")
    with pytest.raises(NotADirectoryError), atomic_dir(tmp_path / "F" / "sub" / "out"):
        pass  # its parent cannot be made: the error of the file system, as it is
