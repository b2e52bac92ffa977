"""Every stage killed with SIGKILL at a random moment and run again: nothing lost, duplicated, left
behind or incomplete, and the outputs equal an uninterrupted run's (the small version of
``bench/faults.py``, which kills each stage 20 times; the machinery is in ``tests/faults/harness.py``).

One kill per stage: each trial costs a killed run, a rerun to the end and the stage's preparing
commands, and three kills per stage made this the suite's longest test (100 s of CPU, against 54 s
for one). The moment is drawn from the last 70% of the stage's reference run: the first part of a
short stage is mostly its process importing its modules, where a kill finds nothing written yet.
"""

from __future__ import annotations

import pytest

from tests.faults.harness import PAPERS, copy_work, measure, table


@pytest.mark.slow
def test_every_stage_survives_kill_9(prepared, tmp_path):
    work = tmp_path / "work"
    # The release, the stages' snapshot and the prepared pipeline's outputs, whose reference runs stand
    # for those measure would take again (about 15 s of CPU): each of those stages reads only what the
    # earlier ones' reruns leave as their references left it (no output of theirs records a journal's
    # times). The trials are the same.
    copy_work(prepared.pipeline, work)
    tallies = measure(work, papers=PAPERS, kills=1, seed=0, share=(0.3, 1.0), references=prepared.references)
    notes = [f"{t.stage}: {n}" for t in tallies for n in t.notes]
    assert all(t.ok for t in tallies), table(tallies) + "\n" + "\n".join(notes)
    assert {t.stage for t in tallies} == {"ingest", "store load", "apply-diff", "prune", "paths", "build", "run",
                                           "export", "view", "refresh"}
