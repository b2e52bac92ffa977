"""Benchmark of ``graphniah baselines`` (prints figures, asserts nothing about time).

Issue 16: the time of ``graphniah baselines`` on a suite of 100 examples at L = 200,000 tokens, as a
ratio to the time of one read of the examples file (``iter_examples``).

The command runs all three shortcuts: title-similarity (parses every YES/NO and multiple-choice
question, fits TF-IDF), retrieval (every example: cut the context into paper blocks, rank them by
BM25, count the tokens of the top blocks with o200k_base, parse the kept blocks and answer) and
paper-count (parses the whole context of every counting example), then writes three journals. It is
timed as a user meets it: the whole command in a fresh process, start-up and tokenizer load
included. The read is timed in a fresh process too, in the same run of this script; each step is
run ``--repeat`` times and the smallest time counts (a shared machine).

Building 100 real 200k-token examples takes long here, so ``--real`` real examples (default 3: one
per task, each packed to L with a text distractor under all three tokenizers on the demo snapshot)
are built once and replicated to ``--n`` examples with distinct ids (``<id>-r0001``...). Every
replica is a full example that every shortcut reads and answers again (nothing is cached across
examples). Inputs are cached under ``bench/.data/baselines/`` (git-ignored).

    python bench/baselines.py [--n 100] [--real 3] [--length 200000] [--repeat 2]
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path

from graphniah.formats import Task

ROOT = Path(__file__).resolve().parent / ".data" / "baselines"
SPECS: tuple[tuple[Task, str | None, str], ...] = (("yesno", "YES", "essays"), ("mc", "B", "books"), ("count", None, "code"))


def real_examples(n: int, length: int) -> Path:
    """``n`` real examples at ``length`` tokens (built once, then cached)."""
    from graphniah.formats.examples import write_examples
    from graphniah.refresh import refresh
    from graphniah.sampling.examples.sample import build_example
    from graphniah.sampling.examples.spec import ExampleSpec, SamplingContext

    snap = refresh(dt.date(2026, 4, 1), ROOT / "snapshots", demo=True, depths=(8,)).snapshot
    path = ROOT / f"real-{n}-{length}-{snap.content_hash[:12]}.jsonl"  # a rebuilt snapshot needs new examples
    if path.is_file():
        return path
    ctx = SamplingContext(snap)
    examples = []
    for i in range(n):
        task, label, kind = SPECS[i % len(SPECS)]
        t0 = time.perf_counter()
        examples.append(build_example(ctx, ExampleSpec(task, 8, 150, label, distractor=kind, context_length=length), seed=16, index=i))
        print(f"  built real example {i + 1}/{n} ({task}, {kind}) in {time.perf_counter() - t0:.1f}s", flush=True)
    write_examples(path, examples)
    return path


def replicated(real: Path, n: int) -> Path:
    from graphniah.formats.examples import iter_examples, write_examples

    path = ROOT / f"suite-{n}-{real.stem}.jsonl"
    if not path.is_file():
        base = list(iter_examples(real))
        write_examples(path, (base[i % len(base)].model_copy(update={"id": f"{base[i % len(base)].id}-r{i:04d}"}) for i in range(n)))
    return path


def _children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def timed(argv: list[str]) -> tuple[float, float]:
    """Wall and CPU seconds of one command in a fresh process."""
    c0, t0 = _children_cpu(), time.perf_counter()
    res = subprocess.run(argv, capture_output=True, text=True)
    wall, cpu = time.perf_counter() - t0, _children_cpu() - c0
    if res.returncode:
        raise SystemExit(f"{' '.join(argv)} failed:\n{res.stderr}")
    return wall, cpu


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=100)
    ap.add_argument("--real", type=int, default=3)
    ap.add_argument("--length", type=int, default=200_000)
    ap.add_argument("--repeat", type=int, default=2, help="runs of each step; the smallest time counts (shared machine)")
    args = ap.parse_args()
    ROOT.mkdir(parents=True, exist_ok=True)
    examples = replicated(real_examples(args.real, args.length), args.n)
    runs = ROOT / "runs"
    print(f"{args.n} examples at L = {args.length:,} ({args.real} real, replicated): {examples} "
          f"({examples.stat().st_size / 1e6:,.0f} MB)")
    read_cmd = [sys.executable, "-c", "import sys\nfrom graphniah.formats.examples import iter_examples\n"
                "print(sum(1 for _ in iter_examples(sys.argv[1])))", str(examples)]
    cli = str(Path(sys.executable).with_name("graphniah"))
    base_cmd = [cli, "baselines", "--examples", str(examples), "--runs", str(runs)]
    reads, bases = [], []
    for _ in range(args.repeat):
        reads.append(timed(read_cmd))
        shutil.rmtree(runs, ignore_errors=True)
        bases.append(timed(base_cmd))
    read_wall, read_cpu = min(w for w, _ in reads), min(c for _, c in reads)
    base_wall, base_cpu = min(w for w, _ in bases), min(c for _, c in bases)
    journals = sorted(p.name for p in (runs / examples.stem).glob("baseline-*.jsonl"))
    lines = sum(len((runs / examples.stem / j).read_text().splitlines()) for j in journals)
    print(f"one read of the examples file (fresh process, start-up included): {read_wall:.2f}s wall, {read_cpu:.2f}s CPU")
    print(f"graphniah baselines (fresh process, all three shortcuts, journals written): {base_wall:.2f}s wall, "
          f"{base_cpu:.2f}s CPU; {lines} records in {', '.join(journals)}")
    print(f"baselines / read: {base_wall / read_wall:.2f} wall, {base_cpu / read_cpu:.2f} CPU")
    print(json.dumps({"read_s": read_wall, "baselines_s": base_wall, "ratio_wall": base_wall / read_wall,
                      "ratio_cpu": base_cpu / read_cpu}))


if __name__ == "__main__":
    main()
