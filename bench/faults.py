"""Kill -9 at random moments, for every stage, counted: the fault table of issue 20.

For each of ``ingest``, ``store load``, ``apply-diff``, ``prune``, ``paths``, ``build``, ``run``
(against a local ``graphniah serve --policy oracle`` on 127.0.0.1), ``export``, ``view`` and
``refresh`` on a small demo release (``graphniah demo-release --papers N``): one uninterrupted run,
then ``--kills`` times a run whose process group is killed with SIGKILL at a random moment (seeded
numpy Generator) followed by a rerun to the end. The machinery and the meaning of each column are in
``tests/faults/harness.py`` (the slow test ``tests/faults/test_kill.py`` runs 1 kill per stage).
Target: every stage finished = identical = kills, and 0 lost, 0 duplicated, 0 left behind, 0
incomplete.

    .venv/bin/python bench/faults.py [--kills 20] [--papers 3000] [--seed 0] [--stage run ...]
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.faults.harness import Tally, measure, table


def _report(t: Tally) -> None:
    print(f"{t.stage}: {t.kills} kills, {t.finished} finished, {t.identical} identical, {t.lost} lost, "
          f"{t.duplicated} duplicated, {t.left_behind} left behind, {t.incomplete} incomplete", flush=True)
    for note in t.notes:
        print(f"  {note}", flush=True)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kills", type=int, default=20, help="kills per stage")
    ap.add_argument("--papers", type=int, default=3000, help="papers in the demo release")
    ap.add_argument("--seed", type=int, default=0, help="seed of the kill moments and the demo release")
    ap.add_argument("--stage", nargs="*", default=[], help="only these stages")
    ap.add_argument("--work", type=Path, default=None, help="work folder (default: a temporary one, removed)")
    args = ap.parse_args()
    work = args.work or Path(tempfile.mkdtemp(prefix="graphniah-faults-")) / "work"
    print(f"demo release of {args.papers} papers, {args.kills} kills per stage, seed {args.seed}, in {work}", flush=True)
    try:
        tallies = measure(work, papers=args.papers, kills=args.kills, seed=args.seed, only=args.stage, report=_report)
    finally:
        if args.work is None:
            shutil.rmtree(work.parent, ignore_errors=True)
    print(table(tallies))
    return 0 if all(t.ok for t in tallies) else 1


if __name__ == "__main__":
    sys.exit(main())
