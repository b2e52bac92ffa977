"""50 seeded cases of corrupted inputs (S2AG shards, examples, journals, suite YAML, the model
registry, prompt templates, dataset folders), damaged artifacts (snapshot Parquet, pruned sets, pools,
the release store, examples, suite manifests, journals, dataset files, viewer pages) and bad output
paths of the writing commands: each ends in time, without a traceback, with success, a verdict, a
rebuilt cache, or one error line naming the file or path and no output (the small version of
``bench/fuzz.py``; machinery in ``tests/faults/fuzz.py``)."""

from __future__ import annotations

import pytest

from tests.faults.fuzz import fuzz, fuzz_table
from tests.faults.harness import copy_work


@pytest.mark.slow
def test_fifty_corrupted_inputs_are_each_handled(prepared, tmp_path):
    # the inputs: the outputs of prune, paths, build, run and export (tests/faults/conftest.py)
    work = tmp_path / "work"
    ids = copy_work(prepared.pipeline, work)
    tallies = fuzz(work, 50, 0, ids[-1], timeout=120.0)
    failures = [f for t in tallies for f in t.failures]
    assert not failures, fuzz_table(tallies) + "\n" + "\n".join(failures)
    assert sum(t.cases for t in tallies) == 50
