"""Every stage killed with SIGKILL at 3 random moments and run again: nothing lost, duplicated, left
behind or incomplete, and the outputs equal an uninterrupted run's (the small version of
``bench/faults.py``; the machinery is in ``tests/faults/harness.py``)."""

from __future__ import annotations

import pytest

from tests.faults.harness import PAPERS, copy_work, measure, table


@pytest.mark.slow
def test_every_stage_survives_kill_9(prepared, tmp_path):
    work = tmp_path / "work"
    copy_work(prepared.setup, work)  # the release and the stages' snapshot, as measure's setup would make them
    tallies = measure(work, papers=PAPERS, kills=3, seed=0)
    notes = [f"{t.stage}: {n}" for t in tallies for n in t.notes]
    assert all(t.ok for t in tallies), table(tallies) + "\n" + "\n".join(notes)
    assert {t.stage for t in tallies} == {"ingest", "store load", "apply-diff", "prune", "paths", "build", "run",
                                           "export", "view", "refresh"}
