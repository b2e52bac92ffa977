"""A seeded fuzzer of the pipeline's inputs (the machinery of ``bench/fuzz.py`` and ``tests/faults/test_fuzz.py``).

Each case copies one kind of input from a work folder prepared by :mod:`tests.faults.harness`,
corrupts one of its files with one mutation (byte flips, truncation, a garbage line, a value of the
wrong JSON/YAML type, a 10 MB line, invalid UTF-8, NUL bytes), and runs the command that reads it in
a process of its own, bounded in time. A case passes when the command finishes in time without a
traceback and either succeeds (for S2AG shards: the documented rule skips and counts what it cannot
read) or, for ``verify``, returns its verdict (exit 1), or fails with exit 2 and one error line that
names the corrupted file (or its folder), leaving no output behind.

Two more families of cases (issue 31), spread over the same number of cases:

- **artifacts**: every kind of file a stage writes and a later one trusts (snapshot Parquet, pruned
  sets, path pools, the release store, a suite's examples file and manifest, journals, a dataset
  folder's files, the viewer's page cache), truncated, bit-flipped, swapped (with another file of the
  stage, or two of its lines or halves) or emptied, then read by the stage that reads it. Pass: one
  error line naming the file, exit 2, no traceback, nothing written; for the caches a stage rebuilds
  (pruned sets, viewer pages) the stage instead succeeds and writes what an intact cache gives; for
  journals, which record no hash, a damaged line may also be read as written (see ``READ_AS_WRITTEN``);
- **output paths**: every command that writes (:mod:`tests.faults.outputs`), given an output under a
  regular file, on ``/proc`` or of the wrong kind. Pass: one error line naming the path, exit 2,
  nothing created.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import shutil
import subprocess
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import numpy as np

from tests.faults.harness import CUTOFF, MODEL, SUITE, graphniah_bin, run_to_end, stage_env
from tests.faults.outputs import BAD, NEEDS_KEY, WRITERS, bad_output, scaffold

MUTATIONS = ("flip", "truncate", "garbage_line", "wrong_type", "long_line", "bad_utf8", "nul")
_LONG = 10 * 1024 * 1024


@dataclass(frozen=True)
class Target:
    """One kind of input: where its pristine copy is, which files may be corrupted, and its reader."""

    name: str
    source: str  # file or folder under the work folder, copied into the case folder as ``input``
    argv: Callable[[Path, Path], list[str]]  # (case folder, work folder) -> command
    output: str | None = None  # what the command writes, under the case folder
    verdict_ok: bool = False  # exit 1 is a verdict (verify), not an error


def targets(release_id: str) -> tuple[Target, ...]:
    snap = f"snap/{release_id}/cutoff={CUTOFF}"
    return (
        Target("s2ag-shard", f"rel/releases/{release_id}",
               lambda c, w: ["ingest", "--release", str(c / "input"), "--cutoff", CUTOFF, "--out", str(c / "out"),
                             "--memory-limit", "1GB"], output="out"),
        Target("examples", f"examples/{SUITE}.jsonl", lambda c, w: ["verify", str(c / "input")], verdict_ok=True),
        Target("journal", f"runs/{SUITE}/{MODEL}.jsonl",
               lambda c, w: ["score", "--model", MODEL, "--suite", SUITE, "--runs", str(c / "runs")]),
        Target("suite-yaml", f"suites/{SUITE}.yaml",
               lambda c, w: ["build", "--suite", str(c / "input"), "--snapshot", str(w / snap), "-n", "1",
                             "--workers", "1", "--out", str(c / "out")], output="out"),
        Target("model-registry", "models.yaml", lambda c, w: ["models", "list", "--models", str(c / "input")]),
        Target("prompts", "prompts", lambda c, w: ["verify", f"examples/{SUITE}.jsonl", "--prompts", str(c / "input")],
               verdict_ok=True),
        Target("dataset", "dataset", lambda c, w: ["verify", str(c / "input")], verdict_ok=True),
    )


def prepare_inputs(work: Path) -> None:
    """The inputs the work folder does not hold yet: the model registry, the prompt templates, and the
    artifacts of the stages the pipeline's references do not run (the release store, the viewer)."""
    repo = Path(__file__).resolve().parents[2]
    shutil.copyfile(repo / "pipelines" / "models.yaml", work / "models.yaml")
    if not (work / "prompts").exists():
        shutil.copytree(repo / "prompts", work / "prompts", ignore=shutil.ignore_patterns("__pycache__", "__init__.py"))
    if not (work / "store" / "store.duckdb").exists():
        old = sorted(p.name for p in (work / "rel" / "releases").iterdir())[0]
        _must(run_to_end(work, ["store", "load", "--store", "store/store.duckdb", "--release", f"rel/releases/{old}",
                                "--memory-limit", "1GB"]), "store load")
    if not (work / "viewer").exists():
        _must(run_to_end(work, ["view", "--examples", f"examples/{SUITE}.jsonl", "--runs", f"runs/{SUITE}", "--root", "snap",
                                "--out", "viewer"]), "view")


def _must(done: subprocess.CompletedProcess[str], what: str) -> None:
    if done.returncode != 0:
        raise RuntimeError(f"{what} (an input of the fuzzer) failed: {done.stderr.strip()[-800:]}")


# ---------------------------------------------------------------------------------------------
# Artifacts: every kind a stage writes and another trusts, damaged as a full disk, an interrupted
# copy or a stray write would leave it, and read by the stage that reads it.

ARTIFACT_MUTATIONS = ("truncate", "flip", "swap", "empty")
Outcome = Literal["refused", "rebuilt", "refused-or-read"]
#: Artifacts no manifest records a hash of, whose damage a reader may not see: a journal line changed
#: into another valid record (journals are appended to while a run goes on; each line is validated).
READ_AS_WRITTEN = ("journal",)


@dataclass(frozen=True)
class Artifact:
    """One kind of artifact: what of the work folder a case copies, which files may be damaged (one
    is), what a damaged file is swapped with, the reader, and what passing means."""

    name: str
    copy: tuple[str, ...]  # work-relative paths copied into the case folder, same layout
    victims: Callable[[Path], list[Path]]  # case folder -> files that may be damaged
    argv: list[str]  # run in the case folder
    output: str | None = None  # what the reader writes (must not exist after a refusal)
    outcome: Outcome = "refused"
    swap_with: Callable[[Path, Path], Path | None] = lambda case, victim: None  # a file of the same stage, if any


def artifacts(release_id: str) -> tuple[Artifact, ...]:
    snap = f"snap/{release_id}/cutoff={CUTOFF}"
    sample = ["sample", "--task", "yesno", "--depth", "4", "--snapshot", snap, "--out", "out.jsonl"]

    def files(*rels: str) -> Callable[[Path], list[Path]]:
        return lambda case: [case / r for r in rels]

    return (
        Artifact("snapshot parquet", ("snap",), files(f"{snap}/papers.parquet", f"{snap}/edges.parquet"), sample, "out.jsonl",
                 swap_with=lambda c, v: v.with_name("edges.parquet" if v.name == "papers.parquet" else "papers.parquet")),
        Artifact("pruned set", ("snap",), files(f"{snap}/pruned/depth=4.parquet"),
                 ["prune", "--depth", "4", "--snapshot", snap], outcome="rebuilt", swap_with=lambda c, v: c / snap / "paths" / "depth=4.parquet"),
        Artifact("path pool", ("snap",), files(f"{snap}/paths/depth=4.parquet"), sample, "out.jsonl",
                 swap_with=lambda c, v: c / snap / "pruned" / "depth=4.parquet"),
        Artifact("release store", ("store",), files("store/store.duckdb"),
                 ["store", "snapshot", "--store", "store/store.duckdb", "--cutoff", CUTOFF, "--out", "out", "--memory-limit", "1GB"],
                 "out"),
        Artifact("examples", ("examples", "snap"), files(f"examples/{SUITE}.jsonl"),
                 ["export", "--suite", SUITE, "--examples-root", "examples", "--snapshots", "snap", "--out", "out"], "out"),
        Artifact("suite manifest", ("examples", "snap"), files(f"examples/{SUITE}.json"),
                 ["export", "--suite", SUITE, "--examples-root", "examples", "--snapshots", "snap", "--out", "out"], "out"),
        Artifact("journal", ("runs",), files(f"runs/{SUITE}/{MODEL}.jsonl"),
                 ["score", "--model", MODEL, "--suite", SUITE, "--runs", "runs"], outcome="refused-or-read"),
        Artifact("dataset folder", ("dataset", "runs"),
                 lambda case: sorted((case / "dataset" / "data").glob("*.parquet")) + [case / "dataset" / "README.md"],
                 ["report", "--dataset", "dataset", "--runs", "runs", "--out", "out", "--no-figures", "--no-html"], "out",
                 swap_with=lambda c, v: next((p for p in sorted((c / "dataset" / "data").glob("*.parquet")) if p != v), None)),
        Artifact("viewer cache", ("viewer", ".viewer.pages", "examples", "runs", "snap"),
                 lambda case: sorted((case / ".viewer.pages").iterdir()),
                 ["view", "--examples", f"examples/{SUITE}.jsonl", "--runs", f"runs/{SUITE}", "--root", "snap", "--out", "viewer"],
                 outcome="rebuilt", swap_with=lambda c, v: next((p for p in sorted(v.parent.iterdir()) if p != v), None)),
    )


def damage(data: bytes, kind: str, rng: np.random.Generator, other: bytes | None) -> bytes:
    """``data`` as one of :data:`ARTIFACT_MUTATIONS` leaves it (``other``: the file it is swapped with, if any)."""
    n = len(data)
    if kind == "truncate":
        return data[: int(rng.integers(0, max(n, 1)))]
    if kind == "flip":
        buf = bytearray(data)
        for i in rng.integers(0, max(n, 1), size=int(rng.integers(1, 4))):
            if n:
                buf[int(i)] ^= 1 << int(rng.integers(8))
        return bytes(buf)
    if kind == "swap":
        if other is not None and other != data:
            return other
        lines = data.split(b"\n")
        if len(lines) > 2 and lines[0] != lines[1]:  # two records change places
            return b"\n".join([lines[1], lines[0], *lines[2:]])
        return data[n // 2 :] + data[: n // 2]  # the halves change places
    return b""  # empty


def _tree(root: Path) -> set[str]:
    return {os.path.relpath(os.path.join(d, n), root) for d, dirs, names in os.walk(root) for n in dirs + names}


def _digests(root: Path) -> dict[str, str]:
    return {p: hashlib.sha256((root / p).read_bytes()).hexdigest() for p in _tree(root) if (root / p).is_file()}


def run_artifact_case(work: Path, case: Path, art: Artifact, kind: str, rng: np.random.Generator, timeout: float) -> str | None:
    """Damage one file of ``art`` in a copy of the work folder and run its reader there; None if it passed."""
    if case.exists():
        shutil.rmtree(case)
    case.mkdir(parents=True)
    for rel in art.copy:
        (shutil.copytree if (work / rel).is_dir() else shutil.copyfile)(work / rel, case / rel)
    pristine = _digests(case)
    victims = art.victims(case)
    victim = victims[int(rng.integers(len(victims)))]
    other = art.swap_with(case, victim)
    data = victim.read_bytes()
    victim.write_bytes(damage(data, kind, rng, other.read_bytes() if other is not None and other.is_file() else None))
    where = f"{art.name}/{kind} on {victim.relative_to(case)}"
    if victim.read_bytes() == data:
        return None  # the mutation changed nothing (a swap of equal files): nothing to detect
    before = _tree(case)
    try:
        done = subprocess.run([graphniah_bin(), *art.argv], cwd=case, env=stage_env(work), capture_output=True, text=True,
                              timeout=timeout, check=False, errors="replace")
    except subprocess.TimeoutExpired:
        return f"hang: {where}"
    return _artifact_verdict(art, done, case, victim, where, pristine, before)


def _artifact_verdict(art: Artifact, done: subprocess.CompletedProcess[str], case: Path, victim: Path, where: str,
                      pristine: dict[str, str], before: set[str]) -> str | None:
    """Whether the reader's answer to a damaged artifact passes (None) or what went wrong."""
    err = done.stderr.strip()
    if "Traceback" in err:
        return f"traceback: {where}: {err.splitlines()[-1][:200]}"
    if art.outcome == "rebuilt":
        if done.returncode != 0:
            return f"unnamed: {where}: a cache the stage rebuilds was refused: {err[-300:]}"
        now = _digests(case)
        changed = sorted(p for p in pristine if not p.startswith(".viewer.pages") and now.get(p) != pristine[p]
                         and not p.endswith(".json"))
        if changed:  # what the stage wrote is not what it writes from an intact cache
            return f"partial: {where}: {', '.join(changed[:3])} differ from the output of an intact cache"
        return None
    if done.returncode == 0 and art.outcome == "refused-or-read":
        return None
    if done.returncode == 0:
        return f"unnamed: {where}: read without a word"
    # One error line, the last thing said (a reader may have said what it loaded before it met the damage).
    lines = [line for line in err.splitlines() if line.strip()]
    errors = [line for line in lines if line.startswith("error: ")]
    if done.returncode != 2 or len(errors) != 1 or lines[-1] != errors[0]:
        return f"multi-line: {where}: exit {done.returncode}: {' / '.join(lines[-3:])[:300]}"
    if victim.name not in errors[0] and str(victim.relative_to(case)) not in errors[0]:
        return f"unnamed: {where}: {errors[0][:300]}"
    # An output's lock file (.<out>.lock) outlives every run by design (atomic.output_lock): not an output.
    written = sorted(p for p in _tree(case) - before if not p.endswith(".lock"))
    if (art.output and (case / art.output).exists()) or written:
        return f"partial: {where}: {written[:3]} written"
    return None


def run_output_case(work: Path, case: Path, command: str, bad: str) -> str | None:
    """One writing command given one kind of bad output path; None if it passed."""
    if case.exists():
        shutil.rmtree(case)
    scaffold(case)
    chosen = bad_output(command, bad, case)
    if chosen is None:  # prune/paths: only the wrong kind applies
        chosen = bad_output(command, "wrong kind", case)
        assert chosen is not None
    out, words = chosen
    where = f"output-path/{bad} of {command}"
    env = {**stage_env(work), "GRAPHNIAH_DATA": str(case / "d")} | ({"S2_API_KEY": "not-a-real-key"} if command in NEEDS_KEY else {})
    before = _tree(case)
    done = subprocess.run([graphniah_bin(), *WRITERS[command][1](case, out)], cwd=case, env=env, capture_output=True, text=True,
                          timeout=120, check=False, errors="replace")
    err = done.stderr.strip()
    if "Traceback" in err:
        return f"traceback: {where}: {err.splitlines()[-1][:200]}"
    lines = [line for line in err.splitlines() if line.strip()]
    if done.returncode != 2 or len(lines) != 1:
        return f"multi-line: {where}: exit {done.returncode}: {' / '.join(lines[-3:])[:300]}"
    if str(out) not in lines[0] or words not in lines[0]:
        return f"unnamed: {where}: {lines[0][:300]}"
    if _tree(case) != before:
        return f"partial: {where}: {sorted(_tree(case) ^ before)[:3]}"
    return None


def _lines(data: bytes) -> list[bytes]:
    return data.split(b"\n")


def _wrong_type(data: bytes, rng: np.random.Generator) -> bytes:
    """A value of another type: a JSON line's field, else a YAML/text line's value after ``:``."""
    lines = _lines(data)
    order = rng.permutation(len(lines))
    odd: list[object] = [[1, 2], {"x": None}, 7, "text", None, True, -1.5]
    for i in order:
        try:
            obj = json.loads(lines[i])
        except ValueError:
            continue
        if isinstance(obj, dict) and obj:
            key = list(obj)[int(rng.integers(len(obj)))]
            obj[key] = odd[int(rng.integers(len(odd)))]
            lines[i] = json.dumps(obj).encode()
            return b"\n".join(lines)
    for i in order:
        if b":" in lines[i]:
            head = lines[i].split(b":", 1)[0]
            lines[i] = head + b": " + [b"[1, {x: 2}]", b"{a: [b]}", b"-3", b"null", b"yes"][int(rng.integers(5))]
            return b"\n".join(lines)
    return data + b"\n{not: [valid\n"


def mutate(data: bytes, kind: str, rng: np.random.Generator) -> bytes:
    """``data`` corrupted by one mutation of ``MUTATIONS``."""
    n = len(data)
    at = int(rng.integers(0, n + 1))
    if kind == "flip" and n:
        buf = bytearray(data)
        for i in rng.integers(0, n, size=int(rng.integers(1, 9))):
            buf[int(i)] ^= int(rng.integers(1, 256))
        return bytes(buf)
    if kind == "truncate":
        return data[: int(rng.integers(0, max(n, 1)))]
    if kind == "garbage_line":
        cut = data.rfind(b"\n", 0, at) + 1
        return data[:cut] + rng.integers(0, 256, size=int(rng.integers(1, 200)), dtype=np.uint8).tobytes() + b"\n" + data[cut:]
    if kind == "wrong_type":
        return _wrong_type(data, rng)
    if kind == "long_line":
        cut = data.rfind(b"\n", 0, at) + 1
        return data[:cut] + b'{"title": "' + b"a" * _LONG + b'"}\n' + data[cut:]
    if kind == "bad_utf8":
        return data[:at] + b"\xff\xfe\xc3\x28" + data[at:]
    return data[:at] + b"\x00" * int(rng.integers(1, 16)) + data[at:]  # nul


@dataclass
class FuzzTally:
    """Counts over the cases of one target."""

    target: str
    cases: int = 0
    passed: int = 0
    tracebacks: int = 0
    multi_line: int = 0
    unnamed: int = 0
    partial: int = 0
    hangs: int = 0
    failures: list[str] = field(default_factory=list)


def _corruptible(root: Path) -> list[Path]:
    files = [root] if root.is_file() else sorted(p for p in root.rglob("*") if p.is_file())
    return [p for p in files if p.name not in ("release.json",)]


def run_case(work: Path, case: Path, target: Target, kind: str, rng: np.random.Generator, timeout: float) -> str | None:
    """Run one case; None if it passed, else what went wrong."""
    if case.exists():
        shutil.rmtree(case)
    case.mkdir(parents=True)
    src = work / target.source
    dest = case / "input"
    if target.name == "journal":
        dest = case / "runs" / SUITE / f"{MODEL}.jsonl"
        dest.parent.mkdir(parents=True)
    (shutil.copytree if src.is_dir() else shutil.copyfile)(src, dest)
    files = _corruptible(dest)
    victim = files[int(rng.integers(len(files)))]
    data = victim.read_bytes()
    if victim.suffix == ".gz" and kind not in ("flip", "truncate"):
        victim.write_bytes(gzip.compress(mutate(gzip.decompress(data), kind, rng), mtime=0))
    else:
        victim.write_bytes(mutate(data, kind, rng))
    where = f"{target.name}/{kind} on {victim.relative_to(case)}"
    try:
        done = subprocess.run([graphniah_bin(), *target.argv(case, work)], cwd=work, env=stage_env(work),
                              capture_output=True, text=True, timeout=timeout, check=False, errors="replace")
    except subprocess.TimeoutExpired:
        return f"hang: {where}"
    err = done.stderr.strip()
    if "Traceback" in err:
        return f"traceback: {where}: {err.splitlines()[-1][:200]}"
    if done.returncode == 0 or (target.verdict_ok and done.returncode == 1):
        return None
    lines = [line for line in err.splitlines() if line.strip()]
    if len(lines) != 1:
        return f"multi-line: {where}: {' / '.join(lines[-3:])[:300]}"
    if victim.name not in lines[0] and str(dest) not in lines[0]:
        return f"unnamed: {where}: {lines[0][:300]}"
    if target.output and (case / target.output).exists():
        return f"partial: {where}: {target.output} exists"
    return None


FAMILIES = ("inputs", "artifacts", "outputs")


def fuzz(work: Path, cases: int, seed: int, release_id: str, timeout: float = 120.0,
         report: Callable[[str], None] = lambda s: None, families: Sequence[str] = FAMILIES) -> list[FuzzTally]:
    """``cases`` cases spread over the targets and mutations in turn, the victims and edits drawn from ``seed``.

    ``families`` (of :data:`FAMILIES`) take turns, in that order; a family left out draws nothing
    from ``seed``, so the others get the victims and edits they get when it is in."""
    unknown = set(families) - set(FAMILIES)
    if unknown or not families:
        raise ValueError(f"families must be some of {FAMILIES}, got {tuple(families)}")
    rng = np.random.default_rng(seed)
    prepare_inputs(work)
    ts = targets(release_id)
    arts = artifacts(release_id)
    outputs = [(c, b) for c in WRITERS for b in BAD]
    # Inputs, artifacts and output paths in turn; within each family the kinds take turns.
    every: dict[str, Callable[[int, Path], tuple[str, str | None]]] = {
        "inputs": lambda j, case: (ts[j % len(ts)].name,
                                   run_case(work, case, ts[j % len(ts)], MUTATIONS[(j // len(ts)) % len(MUTATIONS)], rng, timeout)),
        "artifacts": lambda j, case: (f"artifact: {arts[j % len(arts)].name}",
                                      run_artifact_case(work, case, arts[j % len(arts)],
                                                        ARTIFACT_MUTATIONS[(j // len(arts)) % len(ARTIFACT_MUTATIONS)], rng, timeout)),
        "outputs": lambda j, case: ("output paths", run_output_case(work, case, *outputs[j % len(outputs)])),
    }
    chosen = [every[name] for name in FAMILIES if name in families]
    tallies: dict[str, FuzzTally] = {}
    for i in range(cases):
        name, problem = chosen[i % len(chosen)](i // len(chosen), work.parent / f"{work.name}.fuzz" / f"case-{i}")
        tally = tallies.setdefault(name, FuzzTally(name))
        tally.cases += 1
        if problem is None:
            tally.passed += 1
            continue
        report(problem)
        tally.failures.append(problem)
        kind_of = problem.split(":", 1)[0]
        if kind_of == "partial":
            tally.partial += 1
        elif kind_of == "multi-line":
            tally.multi_line += 1
        elif kind_of == "unnamed":
            tally.unnamed += 1
        elif kind_of == "hang":
            tally.hangs += 1
        else:
            tally.tracebacks += 1
    shutil.rmtree(work.parent / f"{work.name}.fuzz", ignore_errors=True)
    return list(tallies.values())


def fuzz_table(tallies: list[FuzzTally]) -> str:
    head = ("input", "cases", "passed", "traceback", "multi-line", "unnamed", "partial", "hang")
    rows = [head] + [(t.target, *(str(x) for x in (t.cases, t.passed, t.tracebacks, t.multi_line, t.unnamed, t.partial,
                                                    t.hangs))) for t in tallies]
    widths = [max(len(r[i]) for r in rows) for i in range(len(head))]
    return "\n".join("  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths, strict=True)))
                     for r in rows)
