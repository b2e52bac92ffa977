"""Kill -9 fault injection for every pipeline stage, counted (the machinery of ``bench/faults.py``).

A work folder holds a small demo release and everything the stages make from it. Each stage runs
once uninterrupted (the reference), then ``kills`` times: its outputs are reset, it is started in a
process group of its own, the group is killed with SIGKILL at a random moment of its run (a seeded
``numpy.random.Generator`` picks the moment, uniform over the reference run's duration), the outputs
that exist right after the kill are checked, and the same command is run again to the end.

What is counted per stage:

- *incomplete*: trials in which, right after the kill, an output file existed at its final name but
  was neither what it was before the trial nor what the reference run wrote (a journal may instead
  hold a subset of the reference's records, each once, plus the one partial last line the next
  start drops). Names marked as in progress (a leading dot, ``.tmp``, ``.partial``, ``.wal``) are
  not outputs; they count as *left behind* if they survive the rerun.
- *finished*: reruns that exited 0.
- *identical*: reruns whose outputs equal the reference: byte for byte, except manifests (JSON)
  compared apart from the times they record, journals as the same set of records (apart from
  response times) each exactly once, and DuckDB files by their tables' rows.
- *lost* / *duplicated*: reference outputs (files, or journal records) missing after the rerun, and
  journal records present more than once.
- *left behind*: paths in the work folder after the rerun that the reference run did not leave.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

CUTOFF = "2026-04-01"
SUITE = "faults"
MODEL = "local-oracle"
PAPERS = 1500  # the fault tests' demo release (tests/faults/conftest.py prepares it once per run)
# A suite small enough that one build takes seconds: one depth, small components, short contexts.
SUITE_YAML = """\
name: faults
description: Tiny suite of the fault-injection bench (bench/faults.py)
vary: task
values: [yesno, mc, count, list]
per_value: 2
draw:
  depth: [4]
  component_size: {min: 12, max: 16}
  distractor: [essays]
  context_length: [6000]
"""
_TIME_KEY = re.compile(r"(_at|_s|seconds|elapsed|_time|^timings|^first_run)$")
_IN_PROGRESS = re.compile(r"(^\.)|(\.tmp)|(\.partial)|(\.wal$)")
_REPO = Path(__file__).resolve().parents[2]


def graphniah_bin() -> str:
    """The ``graphniah`` script installed beside this interpreter."""
    return str(Path(sys.executable).parent / "graphniah")


def code_dir(work: Path) -> Path:
    """Where :func:`freeze_code` copies the package for the runs in ``work``."""
    return work.parent / f"{work.name}.code"


def freeze_code(work: Path) -> None:
    """Copy the package (with its prompts and pipelines) beside ``work``: every run of a measurement
    then uses the same code, so outputs that record a hash of the code (``checker``) stay comparable
    even while the working tree changes."""
    dest = code_dir(work) / "graphniah"
    if dest.exists():
        shutil.rmtree(dest)
    ignore = shutil.ignore_patterns("__pycache__")
    shutil.copytree(_REPO / "graphniah", dest, ignore=ignore)
    shutil.copytree(_REPO / "prompts", dest / "prompts", ignore=ignore)
    shutil.copytree(_REPO / "pipelines", dest / "pipelines", ignore=ignore)


def copy_work(src: Path, dst: Path, omit: Sequence[str] = ()) -> list[str]:
    """Copy the work folder ``src`` (and the code frozen beside it) to ``dst``, leaving out the top-level
    entries named in ``omit``; return its release ids.

    The stages address everything in a work folder relative to it (they run with it as their
    working folder), so the copy is what running the same commands at ``dst`` would leave there:
    the tests share one prepared folder this way instead of building it once per test module.
    """
    shutil.copytree(src, dst, symlinks=True, ignore=lambda folder, names: [n for n in names if Path(folder) == src and n in omit])
    if code_dir(src).is_dir():
        shutil.copytree(code_dir(src), code_dir(dst), symlinks=True)
    return sorted(p.name for p in (dst / "rel" / "releases").iterdir())


def stage_env(work: Path) -> dict[str, str]:
    env = dict(os.environ)
    env.setdefault("GRAPHNIAH_DATA", str(_REPO / "data"))
    env["PYTHONUNBUFFERED"] = "1"
    if code_dir(work).is_dir():
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(code_dir(work)), env.get("PYTHONPATH")]))
    return env


@dataclass(frozen=True)
class Stage:
    """One command of the pipeline: its arguments, the outputs it writes, and what must run before it."""

    name: str
    argv: tuple[str, ...]
    outputs: tuple[str, ...]  # files or folders, relative to the work folder
    prepare: tuple[tuple[str, ...], ...] = ()  # commands that set up the stage's starting state
    # Suffixes of outputs that a multi-step stage commits step by step (the release store of
    # ``refresh``): after a kill such a file may hold any state that opens, as the rerun carries on from it.
    steps: tuple[str, ...] = ()


def stages(release_ids: Sequence[str], papers: int, api: str) -> tuple[Stage, ...]:
    """The stages in pipeline order (each one's reference run makes the next one's inputs)."""
    old, new = release_ids[0], release_ids[-1]
    snap = f"snap/{new}/cutoff={CUTOFF}"
    load = ("store", "load", "--store", "store/store.duckdb", "--release", f"rel/releases/{old}", "--memory-limit", "1GB")
    return (
        Stage("ingest", ("ingest", "--release", f"rel/releases/{new}", "--cutoff", CUTOFF, "--out", "ingest/snapshot",
                         "--replace", "--memory-limit", "1GB"), ("ingest",)),
        Stage("store load", load, ("store",)),
        Stage("apply-diff", ("store", "apply-diff", "--store", "store/store.duckdb", "--diff",
                             f"rel/diffs/{old}_to_{new}", "--memory-limit", "1GB"), ("store",), (load,)),
        Stage("prune", ("prune", "--depth", "4", "--snapshot", snap), (f"{snap}/pruned",)),
        Stage("paths", ("paths", "--depth", "4", "--seed", "0", "--pool", "50", "--allow-short", "--snapshot", snap),
              (f"{snap}/paths",)),
        Stage("build", ("build", "--suite", SUITE, "--suites", "suites", "--snapshot", snap, "--out", "examples",
                        "--workers", "1"), ("examples",)),
        Stage("run", ("run", "--model", MODEL, "--suite", SUITE, "--examples-root", "examples", "--runs", "runs",
                      "--snapshots", "snap", "--api-base", api, "--concurrency", "2", "--no-progress"), ("runs",)),
        Stage("export", ("export", "--suite", SUITE, "--out", "dataset", "--examples-root", "examples",
                         "--snapshots", "snap"), ("dataset",)),
        Stage("view", ("view", "--examples", f"examples/{SUITE}.jsonl", "--runs", f"runs/{SUITE}", "--root", "snap",
                       "--out", "viewer"), ("viewer",)),
        Stage("refresh", ("refresh", "--cutoff", CUTOFF, "--root", "refresh", "--demo", "--demo-papers", str(papers),
                          "--depth", "4", "--pool", "50", "--memory-limit", "1GB"), ("refresh",), steps=(".duckdb",)),
    )


# ---------------------------------------------------------------------------------------------
# Digests: what "the same output" means per kind of file.


# A manifest's seal (formats.Format.seal) hashes the rest of the object, times included: it differs
# exactly when a time does, so it is left out with them (readers check it against the rest anyway).
_SEAL_KEYS = frozenset({"content_sha256"})


def _strip_times(obj: object) -> object:
    if isinstance(obj, dict):
        return {k: _strip_times(v) for k, v in obj.items()
                if not (isinstance(k, str) and (_TIME_KEY.search(k) or k in _SEAL_KEYS))}
    if isinstance(obj, list):
        return [_strip_times(v) for v in obj]
    return obj


def _canon(obj: object) -> str:
    return json.dumps(_strip_times(obj), sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def is_journal(path: Path) -> bool:
    return path.suffix == ".jsonl" and "runs" in path.parts


def journal_lines(path: Path) -> tuple[list[str], bool]:
    """The journal's complete records (canonical, times stripped) and whether a partial last line follows."""
    data = path.read_bytes()
    partial = bool(data) and not data.endswith(b"\n")
    lines = data.split(b"\n")[:-1] if data else []
    out = []
    for line in lines:
        try:
            out.append(_canon(json.loads(line)))
        except ValueError:
            out.append("corrupt:" + hashlib.sha256(line).hexdigest())
    return out, partial


def _json_cell(value: object) -> object:
    """A text cell holding a JSON document (the store's state), compared apart from its times."""
    if isinstance(value, str) and value.startswith("{"):
        try:
            return _canon(json.loads(value))
        except ValueError:
            return value
    return value


#: A DuckDB file whose tables hold no row: the release store right after it is created, before the
#: load's one transaction commits (its commit point is the state row, written in that transaction).
#: Every reader takes it for an empty store, so after a kill it counts as "no output yet".
EMPTY_DUCKDB = "empty"


def _duckdb_digest(path: Path) -> str:
    import duckdb

    h = hashlib.sha256()
    total = 0
    con = duckdb.connect(str(path), read_only=True)
    try:
        for (table,) in con.execute("SELECT table_name FROM information_schema.tables ORDER BY 1").fetchall():
            cols = [c for (c, t) in con.execute(
                "SELECT column_name, data_type FROM information_schema.columns WHERE table_name = ? ORDER BY ordinal_position",
                [table]).fetchall() if not _TIME_KEY.search(c) and "TIMESTAMP" not in t]
            sel = ", ".join(f'"{c}"' for c in cols)
            rows = [tuple(_json_cell(v) for v in row)
                    for row in con.execute(f'SELECT {sel} FROM "{table}" ORDER BY ALL').fetchall()]
            h.update(f"{table}:{cols}:{rows!r}".encode())
            total += len(rows)
    finally:
        con.close()
    return h.hexdigest() if total else EMPTY_DUCKDB


def digest(path: Path) -> str:
    """A digest of the file that is equal exactly when two outputs count as the same."""
    if is_journal(path):
        lines, partial = journal_lines(path)
        return hashlib.sha256(repr((sorted(lines), partial)).encode()).hexdigest()
    if path.suffix == ".json":
        try:
            return "json:" + hashlib.sha256(_canon(json.loads(path.read_bytes())).encode()).hexdigest()
        except ValueError:
            pass
    if path.suffix == ".duckdb":
        try:
            return "duckdb:" + _duckdb_digest(path)
        except Exception as exc:  # a damaged or half-written DuckDB file is an outcome to count, not a crash
            return f"duckdb-error:{type(exc).__name__}"
    h = hashlib.sha256()
    with path.open("rb") as f:
        while chunk := f.read(1 << 20):
            h.update(chunk)
    return h.hexdigest()


def walk(root: Path) -> Iterator[Path]:
    """Every file and folder under ``root`` (relative paths), folders included so empty ones count."""
    for dirpath, dirnames, filenames in os.walk(root):
        base = Path(dirpath).relative_to(root)
        for name in [*dirnames, *filenames]:
            yield base / name


def output_files(work: Path, stage: Stage) -> dict[str, str]:
    """Digest of every finished output file of ``stage`` (in-progress names left out)."""
    out: dict[str, str] = {}
    for rel in stage.outputs:
        top = work / rel
        files = [top] if top.is_file() else [top / p for p in walk(top)] if top.is_dir() else []
        for f in files:
            if f.is_file() and not any(_IN_PROGRESS.search(part) for part in f.relative_to(work).parts):
                out[str(f.relative_to(work))] = digest(f)
    return out


# ---------------------------------------------------------------------------------------------
# Running and killing.


@dataclass
class Tally:
    """The counts of one stage."""

    stage: str
    kills: int = 0
    finished: int = 0
    identical: int = 0
    lost: int = 0
    duplicated: int = 0
    left_behind: int = 0
    incomplete: int = 0
    seconds: float = 0.0  # the reference run
    notes: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return (self.finished == self.identical == self.kills
                and self.lost == self.duplicated == self.left_behind == self.incomplete == 0)


def run_to_end(work: Path, argv: Sequence[str], timeout: float = 900.0) -> subprocess.CompletedProcess[str]:
    return subprocess.run([graphniah_bin(), *argv], cwd=work, env=stage_env(work), capture_output=True, text=True,
                          timeout=timeout, check=False)


def run_and_kill(work: Path, argv: Sequence[str], after: float) -> None:
    """Start the command in its own process group and SIGKILL the whole group ``after`` seconds in."""
    proc = subprocess.Popen([graphniah_bin(), *argv], cwd=work, env=stage_env(work), stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        proc.wait(timeout=after)
    except subprocess.TimeoutExpired:
        pass
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:  # the group had already finished
        pass
    proc.wait()
    _wait_group_gone(proc.pid)


def _wait_group_gone(pgid: int, limit: float = 10.0) -> None:
    end = time.monotonic() + limit
    while time.monotonic() < end:
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.05)


def reset(work: Path, stage: Stage) -> None:
    """Remove the stage's outputs and run its preparing commands."""
    for rel in stage.outputs:
        p = work / rel
        if p.is_dir():
            shutil.rmtree(p)
        elif p.exists():
            p.unlink()
    for argv in stage.prepare:
        done = run_to_end(work, argv)
        if done.returncode != 0:
            raise RuntimeError(f"{stage.name}: preparing with {' '.join(argv)} failed: {done.stderr.strip()[-400:]}")


def _after_kill_incomplete(stage: Stage, now: dict[str, str], before: dict[str, str], ref: dict[str, str],
                           work: Path) -> list[str]:
    """Outputs that exist right after a kill but are neither the old nor the finished version."""
    bad = []
    for rel, d in now.items():
        if d in (before.get(rel), ref.get(rel)) or (d == "duckdb:" + EMPTY_DUCKDB and rel not in before):
            continue
        if rel.endswith(stage.steps) and stage.steps and not d.startswith("duckdb-error"):
            continue
        if is_journal(work / rel) and _journal_prefix_ok(work / rel, ref_lines=ref.get(rel + "#lines")):
            continue
        bad.append(rel)
    return bad


def _journal_prefix_ok(path: Path, ref_lines: str | None) -> bool:
    lines, _ = journal_lines(path)
    reference = set(json.loads(ref_lines)) if ref_lines else set()
    return len(lines) == len(set(lines)) and set(lines) <= reference


def _journal_counts(work: Path, ref: dict[str, str]) -> tuple[int, int]:
    """(lost, duplicated) journal records after a rerun, against the reference records."""
    lost = dup = 0
    for key, value in ref.items():
        if not key.endswith("#lines"):
            continue
        path = work / key.removesuffix("#lines")
        lines = journal_lines(path)[0] if path.exists() else []
        counts = Counter(lines)
        lost += sum(1 for line in json.loads(value) if counts[line] == 0)
        dup += sum(n - 1 for n in counts.values() if n > 1)
    return lost, dup


# A stage's uninterrupted run: its output digests and its duration in seconds (:func:`reference`).
Reference = tuple[dict[str, str], float]


def reference(work: Path, stage: Stage) -> Reference:
    """Run the stage uninterrupted from its reset state; its output digests (journals: with their
    records under ``<path>#lines``) and its duration."""
    reset(work, stage)
    t0 = time.monotonic()
    done = run_to_end(work, stage.argv)
    seconds = time.monotonic() - t0
    if done.returncode != 0:
        raise RuntimeError(f"{stage.name}: the uninterrupted run failed: {done.stderr.strip()[-800:]}")
    ref = output_files(work, stage)
    for rel in list(ref):
        if is_journal(work / rel):
            ref[rel + "#lines"] = json.dumps(journal_lines(work / rel)[0])
    return ref, seconds


def trial(work: Path, stage: Stage, ref: dict[str, str], tree: set[Path], after: float, tally: Tally) -> None:
    """One kill and rerun of ``stage``, counted into ``tally``."""
    reset(work, stage)
    before = output_files(work, stage)
    run_and_kill(work, stage.argv, after)
    tally.kills += 1
    bad = _after_kill_incomplete(stage, output_files(work, stage), before, ref, work)
    if bad:
        tally.incomplete += 1
        tally.notes.append(f"incomplete after a kill at {after:.2f}s: {', '.join(bad)}")
    done = run_to_end(work, stage.argv)
    if done.returncode == 0:
        tally.finished += 1
    else:
        tally.notes.append(f"rerun after a kill at {after:.2f}s failed: {done.stderr.strip().splitlines()[-1:]}")
    now = output_files(work, stage)
    files = {k: v for k, v in ref.items() if not k.endswith("#lines")}
    if now == files:
        tally.identical += 1
    else:
        differ = sorted(k for k in files.keys() | now.keys() if files.get(k) != now.get(k))
        tally.notes.append(f"differs after a kill at {after:.2f}s: {', '.join(differ[:4])}")
    lost, dup = _journal_counts(work, ref)
    tally.lost += lost + sum(1 for k in files if k not in now)
    tally.duplicated += dup
    extra = sorted(str(p) for p in set(walk(work)) - tree)
    if extra:
        tally.left_behind += len(extra)
        tally.notes.append(f"left behind after a kill at {after:.2f}s: {', '.join(extra[:4])}")
        for p in extra:  # the next trial starts from the reference tree
            q = work / p
            if q.is_dir():
                shutil.rmtree(q, ignore_errors=True)
            elif q.exists():
                q.unlink()


# ---------------------------------------------------------------------------------------------
# The work folder and the whole run.


def setup(work: Path, papers: int, seed: int) -> list[str]:
    """Write the demo release, the snapshot the later stages read and the tiny suite; return the release ids."""
    work.mkdir(parents=True, exist_ok=True)
    (work / "suites").mkdir(exist_ok=True)
    (work / "suites" / f"{SUITE}.yaml").write_text(SUITE_YAML, encoding="utf-8")
    if not (work / "rel").exists():
        done = run_to_end(work, ["demo-release", "--out", "rel", "--papers", str(papers), "--seed", str(seed),
                                 "--releases", "2"])
        if done.returncode != 0:
            raise RuntimeError(f"demo-release failed: {done.stderr.strip()[-800:]}")
    ids = sorted(p.name for p in (work / "rel" / "releases").iterdir())
    snap = work / "snap" / ids[-1] / f"cutoff={CUTOFF}"
    if not (snap / "manifest.json").exists():
        done = run_to_end(work, ["ingest", "--release", f"rel/releases/{ids[-1]}", "--cutoff", CUTOFF, "--out",
                                 str(snap.relative_to(work)), "--replace", "--memory-limit", "1GB"])
        if done.returncode != 0:
            raise RuntimeError(f"ingest of the stages' snapshot failed: {done.stderr.strip()[-800:]}")
    return ids


class OracleServer:
    """``graphniah serve --policy oracle`` on a free port of 127.0.0.1, for the ``run`` stage."""

    def __init__(self, work: Path) -> None:
        self.log = work.parent / f"{work.name}.serve.log"
        self.proc = subprocess.Popen([graphniah_bin(), "serve", "--policy", "oracle", "--port", "0"],
                                     stdout=self.log.open("w"), stderr=subprocess.STDOUT, env=stage_env(work),
                                     start_new_session=True)
        self.url = self._wait_url()

    def _wait_url(self, limit: float = 120.0) -> str:
        end = time.monotonic() + limit
        while time.monotonic() < end:
            m = re.search(r"(http://127\.0\.0\.1:\d+/v1)", self.log.read_text(encoding="utf-8", errors="replace"))
            if m:
                return m.group(1)
            if self.proc.poll() is not None:
                break
            time.sleep(0.2)
        self.close()
        raise RuntimeError(f"graphniah serve did not start: {self.log.read_text(errors='replace')[-400:]}")

    def close(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            self.proc.wait(timeout=30)


def measure(work: Path, *, papers: int, kills: int, seed: int, only: Sequence[str] = (),
            report: Callable[[Tally], None] = lambda t: None, share: tuple[float, float] = (0.0, 1.0),
            references: Mapping[str, Reference] | None = None) -> list[Tally]:
    """Set up ``work``, take every stage's reference run, then kill and rerun each stage ``kills`` times.

    Each kill moment is drawn uniformly from ``share`` (a range of fractions) of the stage's reference run.
    ``references`` holds reference runs already taken (:func:`reference`'s result, by stage name) of
    stages whose outputs ``work`` already holds: those stages are not run uninterrupted again. Code
    frozen beside ``work`` already (:func:`copy_work` of a prepared folder) is kept."""
    rng = np.random.default_rng(seed)
    if not code_dir(work).is_dir():
        freeze_code(work)
    ids = setup(work, papers, seed)
    server = OracleServer(work)
    try:
        chosen = [s for s in stages(ids, papers, server.url) if not only or s.name in only]
        tallies = []
        for s in chosen:
            # The reference right before the stage's trials: the earlier stages' reruns left their
            # inputs equal to their references, apart from what is allowed to differ (a journal's
            # times), which a later output may record (the viewer shows the journal's hash).
            ref, seconds = references[s.name] if references and s.name in references else reference(work, s)
            tree = set(walk(work))
            tally = Tally(s.name, seconds=seconds)
            for after in rng.uniform(share[0] * seconds, share[1] * seconds, size=kills):
                trial(work, s, ref, tree, float(after), tally)
            report(tally)
            tallies.append(tally)
        return tallies
    finally:
        server.close()


def table(tallies: Sequence[Tally]) -> str:
    head = ("stage", "ref s", "kills", "finished", "identical", "lost", "dup", "left", "incomplete")
    rows = [head] + [(t.stage, f"{t.seconds:.1f}", str(t.kills), str(t.finished), str(t.identical), str(t.lost),
                      str(t.duplicated), str(t.left_behind), str(t.incomplete)) for t in tallies]
    widths = [max(len(r[i]) for r in rows) for i in range(len(head))]
    return "\n".join("  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths, strict=True)))
                     for r in rows)
