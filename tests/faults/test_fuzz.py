"""50 seeded cases of corrupted inputs (S2AG shards, examples, journals, suite YAML, the model
registry, prompt templates, dataset folders): each reader ends in time, without a traceback, with
success, a verdict, or one error line naming the file and no output (the small version of
``bench/fuzz.py``; machinery in ``tests/faults/fuzz.py``)."""

from __future__ import annotations

import pytest

from tests.faults.fuzz import fuzz, fuzz_table
from tests.faults.harness import OracleServer, freeze_code, reference, setup, stages

PAPERS = 1500


@pytest.mark.slow
def test_fifty_corrupted_inputs_are_each_handled(tmp_path):
    work = tmp_path / "work"
    freeze_code(work)
    ids = setup(work, PAPERS, 0)
    server = OracleServer(work)
    try:
        for s in stages(ids, PAPERS, server.url):
            if s.name in ("prune", "paths", "build", "run", "export"):
                reference(work, s)
    finally:
        server.close()
    tallies = fuzz(work, 50, 0, ids[-1], timeout=120.0)
    failures = [f for t in tallies for f in t.failures]
    assert not failures, fuzz_table(tallies) + "\n" + "\n".join(failures)
    assert sum(t.cases for t in tallies) == 50
