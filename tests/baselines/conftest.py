"""Real examples for the shortcut tests: sampled from the demo snapshot, packed with real distractors."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from graphniah.formats.examples import Example, write_examples
from graphniah.sampling.examples.sample import build_example
from graphniah.sampling.examples.spec import ExampleSpec, SamplingContext

SPECS = (
    ExampleSpec("yesno", 4, 24, "YES", distractor="essays", context_length=12000),
    ExampleSpec("yesno", 4, 24, "NO", distractor="essays", context_length=12000),
    ExampleSpec("yesno", 4, 20, "YES"),
    ExampleSpec("yesno", 4, 20, "NO"),
    ExampleSpec("yesno", 4, 22, "NO", distractor="disjoint-component", context_length=9000),
    ExampleSpec("mc", 4, 20, "C", distractor="code", context_length=12000),
    ExampleSpec("mc", 4, 20, "A"),
    ExampleSpec("mc", 4, 20, "B", none_option=True),
    ExampleSpec("count", 4, 25, None, distractor="books", context_length=9000),
    ExampleSpec("count", 4, 23, None),
    ExampleSpec("count", 4, 21, None, distractor="disjoint-component", context_length=9000),
    ExampleSpec("yesno", 4, 22, "YES", distractor="essays", context_length=9000, render="edges"),
    ExampleSpec("count", 4, 21, None, render="edges"),
)


@dataclass(frozen=True)
class ShortcutSuite:
    examples: list[Example]
    root: Path  # examples/<suite>.jsonl and runs/<suite>/ below it
    suite: str

    @property
    def path(self) -> Path:
        return self.root / "examples" / f"{self.suite}.jsonl"


@pytest.fixture(scope="package")
def shortcut_suite(demo_snapshot, demo_graph, tmp_path_factory) -> ShortcutSuite:
    ctx = SamplingContext(demo_snapshot, demo_graph)
    examples = [build_example(ctx, spec, seed=11, index=i) for i, spec in enumerate(SPECS)]
    root = tmp_path_factory.mktemp("shortcut-suite")
    suite = ShortcutSuite(examples, root, "shortcuts")
    suite.path.parent.mkdir()
    write_examples(suite.path, examples)
    return suite
