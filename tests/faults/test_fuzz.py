"""34 seeded cases of corrupted inputs (S2AG shards, examples, journals, suite YAML, the model
registry, prompt templates, dataset folders) and damaged artifacts (snapshot Parquet, pruned sets,
pools, the release store, examples, suite manifests, journals, dataset files, viewer pages): each
ends in time, without a traceback, with success, a verdict, a rebuilt cache, or one error line naming
the file and no output (the small version of ``bench/fuzz.py``; machinery in ``tests/faults/fuzz.py``).

The fuzzer's third family, bad output paths, is left to ``tests/cli/test_bad_outputs.py``, which
runs every writing command with every kind of bad path (69 cases, in this process) where this test
ran 16 of them in processes of their own (11 s of CPU); the cases of the other two families are the
ones the 50-case run drew."""

from __future__ import annotations

import pytest

from tests.faults.fuzz import fuzz, fuzz_table
from tests.faults.harness import copy_work


@pytest.mark.slow
def test_corrupted_inputs_and_artifacts_are_each_handled(prepared, tmp_path):
    # the inputs: the outputs of prune, paths, build, run and export (tests/faults/conftest.py)
    work = tmp_path / "work"
    ids = copy_work(prepared.pipeline, work)
    tallies = fuzz(work, 34, 0, ids[-1], timeout=120.0, families=("inputs", "artifacts"))
    failures = [f for t in tallies for f in t.failures]
    assert not failures, fuzz_table(tallies) + "\n" + "\n".join(failures)
    assert sum(t.cases for t in tallies) == 34
    # every input kind and every artifact kind, each at least twice but the viewer cache (the 17th artifact case)
    assert {t.target: t.cases for t in tallies} == {
        "s2ag-shard": 3, "examples": 3, "journal": 3, "suite-yaml": 2, "model-registry": 2, "prompts": 2, "dataset": 2,
        **{f"artifact: {name}": 2 for name in ("snapshot parquet", "pruned set", "path pool", "release store", "examples",
                                               "suite manifest", "journal", "dataset folder")},
        "artifact: viewer cache": 1}
