"""A small real suite exported once per session: the run tests' demo suite plus two packed examples.

The packed examples (a disjoint-component distractor and an essays distractor, small L) carry token
counts under all three tokenizers, so the round trip covers the ``token_counts`` struct and the
``context_length``/``distractor`` columns. Nothing here reaches the network: the ``datasets``
library is told to stay offline before it is imported.
"""

from __future__ import annotations

import os

os.environ["HF_DATASETS_OFFLINE"] = "1"
os.environ["HF_HUB_OFFLINE"] = "1"
os.environ.setdefault("HF_HUB_DISABLE_TELEMETRY", "1")

from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.run.helpers import DemoSuite, demo_suite


@dataclass(frozen=True)
class Exported:
    suite: DemoSuite
    examples: Path  # examples/<name>.jsonl (the demo suite + two packed examples)
    dataset: Path  # the exported folder
    name: str


_CACHE: dict[str, Exported] = {}


def exported_suite(tmp_path_factory: pytest.TempPathFactory) -> Exported:
    if "x" not in _CACHE:
        from graphniah.dataset import export_suite
        from graphniah.formats.examples import write_examples
        from graphniah.formats.snapshot import find_snapshot_by_hash
        from graphniah.sampling.examples.sample import build_example
        from graphniah.sampling.examples.spec import ExampleSpec, SamplingContext

        suite = demo_suite(tmp_path_factory)
        ctx = SamplingContext(find_snapshot_by_hash(suite.snapshots, suite.snapshot_hash))
        packed = [
            build_example(ctx, ExampleSpec("yesno", 4, 20, "NO", distractor="disjoint-component", context_length=9_000), 21, 0),
            build_example(ctx, ExampleSpec("count", 4, 20, distractor="essays", context_length=5_000), 22, 0),
        ]
        root = tmp_path_factory.mktemp("dataset")
        path = root / "examples" / "month.jsonl"
        write_examples(path, [*suite.examples, *packed])
        export_suite(path, root / "month-dataset", snapshots_root=suite.snapshots)
        _CACHE["x"] = Exported(suite, path, root / "month-dataset", "month")
    return _CACHE["x"]


@pytest.fixture(scope="session")
def exported(tmp_path_factory: pytest.TempPathFactory) -> Exported:
    return exported_suite(tmp_path_factory)
