"""A seeded fuzzer of the pipeline's inputs (the machinery of ``bench/fuzz.py`` and ``tests/faults/test_fuzz.py``).

Each case copies one kind of input from a work folder prepared by :mod:`tests.faults.harness`,
corrupts one of its files with one mutation (byte flips, truncation, a garbage line, a value of the
wrong JSON/YAML type, a 10 MB line, invalid UTF-8, NUL bytes), and runs the command that reads it in
a process of its own, bounded in time. A case passes when the command finishes in time without a
traceback and either succeeds (for S2AG shards: the documented rule skips and counts what it cannot
read) or, for ``verify``, returns its verdict (exit 1), or fails with exit 2 and one error line that
names the corrupted file (or its folder), leaving no output behind.
"""

from __future__ import annotations

import gzip
import json
import shutil
import subprocess
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from tests.faults.harness import CUTOFF, MODEL, SUITE, graphniah_bin, stage_env

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
    """The inputs the work folder does not hold yet: the model registry and the prompt templates."""
    repo = Path(__file__).resolve().parents[2]
    shutil.copyfile(repo / "pipelines" / "models.yaml", work / "models.yaml")
    if not (work / "prompts").exists():
        shutil.copytree(repo / "prompts", work / "prompts", ignore=shutil.ignore_patterns("__pycache__", "__init__.py"))


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


def fuzz(work: Path, cases: int, seed: int, release_id: str, timeout: float = 120.0,
         report: Callable[[str], None] = lambda s: None) -> list[FuzzTally]:
    """``cases`` cases spread over the targets and mutations in turn, the victims and edits drawn from ``seed``."""
    rng = np.random.default_rng(seed)
    prepare_inputs(work)
    ts = targets(release_id)
    tallies = {t.name: FuzzTally(t.name) for t in ts}
    for i in range(cases):
        target, kind = ts[i % len(ts)], MUTATIONS[(i // len(ts)) % len(MUTATIONS)]
        tally = tallies[target.name]
        tally.cases += 1
        problem = run_case(work, work.parent / f"{work.name}.fuzz" / f"case-{i}", target, kind, rng, timeout)
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
