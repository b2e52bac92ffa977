"""Garbage in, counted: a seeded fuzzer corrupts the pipeline's inputs and artifacts, gives every writer a bad
output path, and checks every answer.

The cases take turns between three families (``tests/faults/fuzz.py`` has the machinery;
``tests/faults/test_fuzz.py`` runs 50 of them in ``make test``):

- inputs: S2AG shards (``ingest``), examples files and dataset folders (``verify``), journals
  (``score``), suite YAML (``build``), the model registry (``models list``) and prompt templates
  (``verify --prompts``), with byte flips, truncation, garbage lines, values of the wrong type, a
  10 MB line, invalid UTF-8, NUL bytes. Pass: no traceback, and success (S2AG records: skipped and
  counted by the documented rule), ``verify``'s verdict, or one error line naming the file and no output;
- artifacts (issue 31): snapshot Parquet, pruned sets, path pools, the release store, a suite's
  examples file and manifest, journals, a dataset folder's files and the viewer's page cache,
  truncated, bit-flipped, swapped or emptied, read by the stage that reads them. Pass: one error line
  naming the file, exit 2, nothing written; caches (pruned sets, viewer pages) are rebuilt instead;
- output paths (issue 31): every command that writes, given an output under a regular file, on
  ``/proc`` or of the wrong kind. Pass: one error line naming the path, exit 2, nothing created.

    .venv/bin/python bench/fuzz.py [--cases 500] [--papers 1500] [--seed 0]
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.faults.fuzz import fuzz, fuzz_table
from tests.faults.harness import OracleServer, freeze_code, reference, setup, stages


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", type=int, default=500)
    ap.add_argument("--papers", type=int, default=1500, help="papers in the demo release the inputs come from")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--timeout", type=float, default=120.0, help="seconds a case may take")
    ap.add_argument("--work", type=Path, default=None, help="work folder (default: a temporary one, removed)")
    args = ap.parse_args()
    work = args.work or Path(tempfile.mkdtemp(prefix="graphniah-fuzz-")) / "work"
    print(f"{args.cases} cases, seed {args.seed}, inputs from a demo release of {args.papers} papers in {work}", flush=True)
    try:
        freeze_code(work)
        ids = setup(work, args.papers, args.seed)
        server = OracleServer(work)
        try:
            for s in stages(ids, args.papers, server.url):
                if s.name in ("prune", "paths", "build", "run", "export"):
                    reference(work, s)
        finally:
            server.close()
        tallies = fuzz(work, args.cases, args.seed, ids[-1], args.timeout, report=lambda s: print(f"  {s}", flush=True))
    finally:
        if args.work is None:
            shutil.rmtree(work.parent, ignore_errors=True)
    print(fuzz_table(tallies))
    return 0 if all(t.passed == t.cases for t in tallies) else 1


if __name__ == "__main__":
    sys.exit(main())
