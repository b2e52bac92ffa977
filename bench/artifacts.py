"""What checking an artifact costs: ``check_artifact`` (sha256 and size against the manifest) beside one read.

Issue 31: every reader checks an artifact against the sha256 and size its manifest records before it
trusts it (``graphniah.atomic.check_artifact``, once per process). Target: check + read at most 1.2x
one read, for each kind of artifact as its reader reads it:

    papers.parquet   the columns ``CitationGraph.load`` reads (corpusid, title, authors)
    edges.parquet    citing, cited
    paths pool       ``load_pool`` without its check (the Parquet read and the reshape)
    examples file    ``iter_examples`` of a suite's examples file (parsed and validated)

Inputs: a demo release of ``--papers`` papers ingested into a snapshot, a depth-4 pool of 1,000
paths, and an examples file of ``--examples`` synthetic examples (``tests.report.synthetic``),
cached under ``bench/.data/artifacts/`` (git-ignored). The page cache is warm for both timings
(the file was just read), so the ratio is the CPU cost of hashing against the CPU cost of reading:
the worst case for the check, since a cold read costs the disk time in both. Each timing is the
median of ``--repeat`` runs; the check's per-process cache is emptied before each check.

    python bench/artifacts.py [--papers 300000] [--examples 2000] [--repeat 5]
"""

from __future__ import annotations

import argparse
import datetime as dt
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import pyarrow.parquet as pq

import graphniah.atomic as atomic
from graphniah.formats.snapshot import Snapshot

ROOT = Path(__file__).resolve().parent / ".data" / "artifacts"
CUTOFF = dt.date(2026, 4, 1)


def median_seconds(fn: Callable[[], object], repeat: int, before: Callable[[], None] = lambda: None) -> float:
    times = []
    for _ in range(repeat):
        before()
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def snapshot(papers: int) -> Snapshot:
    from graphniah.ingest.build import ingest_release
    from graphniah.ingest.demo_release.generate import write_demo_releases

    folder = ROOT / f"papers-{papers}"
    snap = folder / "snap"
    if not (snap / "manifest.json").is_file():
        rs = write_demo_releases(folder / "release", papers=papers, seed=0, releases=1, replace=True)
        ingest_release(rs.release_dir(rs.release_ids[-1]), CUTOFF, snap, replace=True)
    return Snapshot.open(snap)


def pool(snap: Snapshot) -> Path:
    from graphniah.graph.store import build_path_pools, pool_file

    if not pool_file(snap, 4).is_file():
        build_path_pools(snap, [4], 1000, seed=0, allow_short=True)
    return pool_file(snap, 4)


def examples(n: int) -> Path:
    from graphniah.atomic import sha256_bytes
    from graphniah.formats import ArtifactHash
    from graphniah.formats.examples import write_examples
    from graphniah.formats.suites import SuiteManifest, SuiteManifestExample, write_suite_manifest
    from graphniah.sampling.suites import load_suite_spec
    from tests.report.synthetic import make_example

    path = ROOT / f"examples-{n}" / "bench.jsonl"
    if not path.is_file():
        exs = [make_example(("yesno", "mc", "count")[i % 3], 4, 120 + i % 50, ("YES", "B", "130")[i % 3], seed=0, index=i)
               for i in range(n)]
        write_examples(path, exs)
        data = path.read_bytes()
        write_suite_manifest(path.with_suffix(".json"), SuiteManifest(
            suite=load_suite_spec("demo"), seed=0, per_value=None, snapshot="bench", snapshot_hash="b" * 64, synthetic=True,
            version="bench", created_at="2026-12-04T00:00:00+00:00",
            examples=tuple(SuiteManifestExample(id=e.id, index=i, value=4, recipe=e.recipe) for i, e in enumerate(exs)),
            examples_file=ArtifactHash(sha256=sha256_bytes(data), bytes=len(data))))
    return path


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--papers", type=int, default=300_000)
    ap.add_argument("--examples", type=int, default=2000)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    import numpy as np

    from graphniah.formats.examples import iter_examples
    from graphniah.formats.suites import recorded_examples_file

    snap = snapshot(args.papers)
    pool_path = pool(snap)
    ex_path = examples(args.examples)
    files = snap.manifest.files
    recorded = recorded_examples_file(ex_path.with_suffix(".json"))
    assert recorded is not None
    pool_manifest = atomic.read_json(pool_path.with_suffix(".json"))
    cases: list[tuple[str, Path, str, int, Callable[[], object]]] = [
        ("papers.parquet", snap.path / "papers.parquet", files["papers.parquet"]["sha256"], files["papers.parquet"]["bytes"],
         lambda: pq.read_table(snap.path / "papers.parquet", columns=["corpusid", "title", "authors"])),
        ("edges.parquet", snap.path / "edges.parquet", files["edges.parquet"]["sha256"], files["edges.parquet"]["bytes"],
         lambda: pq.read_table(snap.path / "edges.parquet", columns=["citing", "cited"])),
        ("paths/depth=4.parquet", pool_path, pool_manifest["sha256"], pool_manifest["bytes"],
         lambda: np.asarray(pq.read_table(pool_path).column("path").combine_chunks().flatten())),
        ("examples file", ex_path, recorded[0].sha256, recorded[0].bytes,
         lambda: sum(1 for _ in iter_examples(ex_path))),  # its own check runs once: cached from the first call
    ]
    print(f"snapshot of {args.papers:,} demo papers, {args.examples:,} synthetic examples; median of {args.repeat} runs, "
          "page cache warm", flush=True)
    print(f"{'artifact':24} {'MB':>8} {'read s':>8} {'check s':>8} {'(check+read)/read':>18}")
    worst = 0.0
    for name, path, sha, size, read in cases:
        read()  # warm the page cache (and the examples file's own check)
        t_read = median_seconds(read, args.repeat)
        t_check = median_seconds(lambda p=path, s=sha, b=size: atomic.check_artifact(p, s, b, "bench"), args.repeat,
                                 before=atomic._INTACT.clear)
        ratio = (t_check + t_read) / t_read
        worst = max(worst, ratio)
        print(f"{name:24} {size / 1e6:8.1f} {t_read:8.4f} {t_check:8.4f} {ratio:18.2f}", flush=True)
    print(f"worst ratio {worst:.2f} (target <= 1.2)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
