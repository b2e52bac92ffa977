"""Atomic writes, two promises the second audit of issue 40 found unpinned: a dead run's old folder never
replaces a complete new one, and a file written atomically gets the permissions a plain write would."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from graphniah.atomic import atomic_dir, atomic_write_text, check_artifact, check_output, output_lock, remove_stale_temps
from graphniah.errors import GraphNIAHError


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


# ---- the contracts, one by one (after the third audit) ---------------------------------------------


def test_the_hashes_are_hashlibs_over_the_whole_file_past_one_chunk(tmp_path) -> None:
    import hashlib

    from graphniah.atomic import sha256_bytes, sha256_file

    data = bytes(range(256)) * 4097 + b"tail"  # more than one 1 MiB chunk, and not a multiple of it
    (tmp_path / "big").write_bytes(data)
    assert sha256_file(tmp_path / "big") == hashlib.sha256(data).hexdigest() == sha256_bytes(data)
    assert sha256_bytes(b"") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"  # `sha256sum /dev/null`


def test_the_damage_error_without_a_detail_has_no_parentheses() -> None:
    from graphniah.atomic import damaged

    assert str(damaged("x.parquet", "graphniah build")) == (
        "x.parquet was changed or damaged after it was written; rebuild it with `graphniah build`")
    assert str(damaged("x.parquet", "b", "why")) == "x.parquet was changed or damaged after it was written (why); rebuild it with `b`"


def test_an_artifact_that_is_a_folder_or_checked_against_another_hash_is_refused(tmp_path) -> None:
    import hashlib

    from graphniah.atomic import artifact_problem

    (tmp_path / "d").mkdir()
    assert artifact_problem(tmp_path / "d", None, None) == "not a regular file"
    f = tmp_path / "a.bin"
    f.write_bytes(b"hello")
    good = hashlib.sha256(b"hello").hexdigest()
    assert artifact_problem(str(f), good, None) is None  # now cached as intact under this hash
    assert artifact_problem(f, hashlib.sha256(b"other").hexdigest(), None) == "its sha256 differs from the one recorded"
    assert artifact_problem(f, None, 5) is None and artifact_problem(f, None, 6) == "5 bytes, 6 recorded"
    assert artifact_problem(f, None, 4) == "5 bytes, 4 recorded"
    assert isinstance(check_artifact(str(f), good, 5, "x"), Path)


def test_a_parquet_footer_that_exactly_fills_the_file_is_complete_and_one_byte_more_is_not(tmp_path) -> None:
    f = tmp_path / "t.parquet"
    f.write_bytes(b"PAR1" + (0).to_bytes(4, "little") + b"PAR1")  # 12 bytes: the smallest that can fit
    assert check_artifact(f, None, None, "r", parquet=True) == f
    g = tmp_path / "u.parquet"
    g.write_bytes(b"PAR1" + (1).to_bytes(4, "little") + b"PAR1")
    with pytest.raises(GraphNIAHError, match="not a complete Parquet file"):
        check_artifact(g, None, None, "r", parquet=True)
    h = tmp_path / "v.parquet"  # a good tail, a wrong head
    h.write_bytes(b"XAR1" + (0).to_bytes(4, "little") + b"PAR1")
    with pytest.raises(GraphNIAHError, match="not a complete Parquet file"):
        check_artifact(h, None, None, "r", parquet=True)
    k = tmp_path / "w.parquet"  # a good head, a wrong tail
    k.write_bytes(b"PAR1" + (0).to_bytes(4, "little") + b"PAR2")
    with pytest.raises(GraphNIAHError, match="not a complete Parquet file"):
        check_artifact(k, None, None, "r", parquet=True)


def test_check_output_names_the_option_it_is_given_or_none(tmp_path) -> None:
    (tmp_path / "D").mkdir()
    with pytest.raises(GraphNIAHError) as err:
        check_output(tmp_path / "D", "file", option="--site")
    assert str(err.value) == f"--site {tmp_path / 'D'}: is a folder, not a file"
    with pytest.raises(GraphNIAHError) as err:
        check_output(tmp_path / "D", "file", option="")
    assert str(err.value) == f"{tmp_path / 'D'}: is a folder, not a file"
    loop = tmp_path / "loop"
    loop.symlink_to(loop)
    with pytest.raises(GraphNIAHError) as err:
        check_output(loop, "file")
    assert str(err.value) == f"--out {loop}: cannot be written (Too many levels of symbolic links)"


@pytest.mark.parametrize(("code", "text"), [("ENOSPC", "No space left on device"), ("EDQUOT", "Disk quota exceeded"),
                                            ("EROFS", "Read-only file system"), ("EACCES", "Permission denied"),
                                            ("EPERM", "Operation not permitted"), ("EFBIG", "File too large")])
def test_each_refused_write_is_named_by_its_cause(tmp_path, code, text) -> None:
    import errno

    from graphniah.atomic import disk_error

    e = OSError(getattr(errno, code), text, str(tmp_path / "tmpfile"))
    assert str(disk_error(e, tmp_path / "out")) == f"cannot write {tmp_path / 'out'}: {text}"
    # Arrow gives the cause in its message only
    assert str(disk_error(OSError(f"IOError: {text}. Detail: [errno x]"), "t.parquet")) == f"cannot write t.parquet: {text}"
    assert disk_error(OSError(errno.ENOENT, "No such file or directory", "x")) is None


def test_an_atomic_write_replaces_the_whole_file_and_a_failed_one_leaves_it(tmp_path) -> None:
    from graphniah.atomic import atomic_path, atomic_write_bytes

    target = tmp_path / "out.bin"
    atomic_write_bytes(target, b"first, long")
    atomic_write_bytes(target, b"second")
    assert target.read_bytes() == b"second"
    with pytest.raises(KeyError), atomic_path(target, suffix=".parquet") as tmp:
        assert tmp.parent == tmp_path and tmp.name.startswith(f".out.bin.{os.getpid()}.") and tmp.name.endswith(".parquet.tmp")
        tmp.write_bytes(b"half")
        raise KeyError("stop")
    assert target.read_bytes() == b"second"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.bin"]


def test_a_disk_refusal_inside_a_write_names_the_output(tmp_path) -> None:
    import errno

    from graphniah.atomic import atomic_path

    with pytest.raises(GraphNIAHError) as err, atomic_path(tmp_path / "x.parquet") as tmp:
        raise OSError(errno.ENOSPC, "No space left on device", str(tmp))
    assert str(err.value) == f"cannot write {tmp_path / 'x.parquet'}: No space left on device"
    with pytest.raises(GraphNIAHError) as err, atomic_dir(tmp_path / "site") as tmp:
        raise OSError(errno.EDQUOT, "Disk quota exceeded", str(tmp / "a"))
    assert str(err.value) == f"cannot write {tmp_path / 'site'}: Disk quota exceeded"
    assert list(tmp_path.iterdir()) == []


def test_atomic_dir_refuses_an_existing_folder_unless_told_to_replace_it(tmp_path) -> None:
    target = tmp_path / "snap"
    with atomic_dir(target) as tmp:
        (tmp / "old").write_text("1")
    with pytest.raises(FileExistsError, match="snap already exists"), atomic_dir(target):
        raise AssertionError("the block must not run")
    with pytest.raises(RuntimeError), atomic_dir(target, replace=True) as tmp:
        (tmp / "half").write_text("x")
        raise RuntimeError("failed build")
    assert [p.name for p in target.iterdir()] == ["old"]  # a failed rebuild leaves the old folder whole
    with atomic_dir(target, replace=True) as tmp:
        (tmp / "new").write_text("2")
    assert [p.name for p in target.iterdir()] == ["new"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["snap"]  # the old folder is gone afterwards


def test_json_files_are_indented_sorted_utf8_and_end_in_a_newline(tmp_path) -> None:
    import json

    from graphniah.atomic import canonical_json, read_json, write_json

    obj = {"b": [1, {"z": 1, "y": "é"}], "a": Path("/x")}
    write_json(tmp_path / "m.json", obj)
    text = (tmp_path / "m.json").read_text(encoding="utf-8")
    assert text == json.dumps({"a": "/x", "b": [1, {"y": "é", "z": 1}]}, indent=2, ensure_ascii=False) + "\n"
    assert read_json(tmp_path / "m.json") == {"a": "/x", "b": [1, {"y": "é", "z": 1}]}
    assert canonical_json(obj) == '{"a":"/x","b":[1,{"y":"é","z":1}]}'


def test_stale_temps_of_this_process_and_odd_names_are_kept(tmp_path) -> None:
    dead = _dead_pid()
    mine = tmp_path / f".out.{os.getpid()}.abcdefgh.tmp"
    short = tmp_path / f".out.{dead}.abcdefg.tmp"  # 7 characters: not mkstemp's
    plain = tmp_path / f".out.{dead}.abcdefgh"  # no .tmp
    gone = tmp_path / f".out.{dead}.abcdefgh.parquet.tmp"
    for p in (mine, short, plain, gone):
        p.write_text("x")
    assert remove_stale_temps(tmp_path, "out") == [gone]
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(p.name for p in (mine, short, plain))
    assert remove_stale_temps(tmp_path / "missing", "out") == []


def test_an_output_lock_may_be_a_file_of_its_own_and_stays_after_release(tmp_path) -> None:
    lock = tmp_path / "locks" / "deep" / "site.lock"
    with output_lock(tmp_path / "site", lock) as held:
        assert held == lock and lock.read_text() == f"{os.getpid()}\n"
        with pytest.raises(GraphNIAHError) as err, output_lock(tmp_path / "site", lock):
            pass
        assert str(err.value) == (f"{tmp_path / 'site'} is being written by another process (pid {os.getpid()}, lock {lock}); "
                                  "wait for it to finish or stop it")
    assert lock.exists() and not (tmp_path / ".site.lock").exists()
    with output_lock(tmp_path / "site", lock):  # released: taken again
        pass


def test_an_atomic_write_and_a_folder_create_the_folders_on_their_way(tmp_path) -> None:
    from graphniah.atomic import write_json

    write_json(tmp_path / "a" / "b" / "c.json", {"x": 1})
    with atomic_dir(tmp_path / "d" / "e" / "site") as tmp:
        (tmp / "f").write_text("y")
    assert (tmp_path / "a" / "b" / "c.json").read_text() == '{\n  "x": 1\n}\n' and (tmp_path / "d" / "e" / "site" / "f").read_text() == "y"
