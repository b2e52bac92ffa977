"""Real examples (sampled from the demo snapshot, packed with real distractors) and real journals for the viewer tests."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from graphniah.formats.examples import Example, read_examples, write_examples
from graphniah.formats.journal import CallError, Journal, RunRecord, Usage
from graphniah.sampling.examples.sample import build_example
from graphniah.sampling.examples.spec import ExampleSpec, SamplingContext
from tests.conftest import shared_build

SPECS = (
    ExampleSpec("yesno", 4, 30, "YES", distractor="disjoint-component", context_length=9000),
    ExampleSpec("yesno", 4, 24, "NO"),
    ExampleSpec("mc", 4, 20, "C", distractor="essays", context_length=9000),
    ExampleSpec("count", 4, 25, None, distractor="code", context_length=7000),
)


@dataclass(frozen=True)
class ViewerSuite:
    ctx: SamplingContext
    examples: list[Example]
    examples_path: Path
    runs_dir: Path
    snapshots: Path
    expected: dict[str, dict[str, tuple[str, str | None]]]  # run label -> example id -> (outcome, extracted)


def _wrong(ex: Example) -> str:
    if ex.task == "yesno":
        return "NO" if ex.answer == "YES" else "YES"
    if ex.task == "mc":
        return "A" if ex.answer != "A" else "B"
    return str(int(ex.answer) + 3)


def _record(ex: Example, model: str, status: str, response: str | None, i: int) -> RunRecord:
    errors = () if status == "ok" else (CallError(attempt=1, kind="context_length", status=400, tier="standard",
                                                  message="prompt too long for this model"),)
    return RunRecord(example_id=ex.id, model=model, settings_hash="h-" + model, status=status, task=ex.task, answer=ex.answer,
                     response=response, usage=Usage(prompt_tokens=1000 + i, completion_tokens=7 + i, reasoning_tokens=i) if status == "ok" else None,
                     cost_usd=0.001 * (i + 1) if status == "ok" else None, response_time_s=0.5 + i if status == "ok" else None,
                     attempts=1, errors=errors, reasoning="I followed the citations." if status == "ok" and model == "model-a" else None,
                     finished_at="2026-11-01T00:00:00+00:00")


def _expected(examples: list[Example]) -> dict[str, dict[str, tuple[str, str | None]]]:
    """What each run's journal says of each example (as _write_journals writes them)."""
    yes, no, mc, count = examples
    return {"model-a": {ex.id: ("correct", ex.answer) for ex in examples},
            "model-b": {yes.id: ("wrong", _wrong(yes)), no.id: ("wrong", None), mc.id: ("correct", mc.answer),
                        count.id: ("failed", None)}}


def _write_journals(runs: Path, examples: list[Example]) -> None:
    with Journal(runs / "model-a.jsonl") as j:  # always right, with reasoning
        j.append([_record(ex, "model-a", "ok", f"Reasoning... \\answer{{{ex.answer}}}", i) for i, ex in enumerate(examples)])
    with Journal(runs / "model-b.jsonl") as j:
        yes, no, mc, count = examples
        j.append([
            _record(yes, "model-b", "failed", None, 0), _record(yes, "model-b", "ok", f"\\answer{{{_wrong(yes)}}}", 0),  # retried: the ok one counts
            _record(no, "model-b", "ok", "I cannot tell.", 1),  # no answer block: wrong, nothing extracted
            _record(mc, "model-b", "ok", f"\\answer{{{mc.answer}}}", 2),
            _record(count, "model-b", "failed", None, 3),  # failed for good
        ])


@pytest.fixture(scope="package")
def viewer_suite(demo_snapshot, demo_graph, tmp_path_factory) -> ViewerSuite:
    """Built once per test run (the examples file and journals, reopened by later runs that share the
    base temporary folder: :func:`tests.conftest.shared_build`)."""
    ctx = SamplingContext(demo_snapshot, demo_graph)

    def build(root: Path) -> Path:
        examples = [build_example(ctx, spec, seed=7, index=i) for i, spec in enumerate(SPECS)]
        (root / "examples").mkdir(parents=True, exist_ok=True)
        write_examples(root / "examples" / "view.jsonl", examples)
        _write_journals(root / "runs" / "view", examples)
        return root

    root = shared_build(tmp_path_factory, "viewer-suite", build, lambda root: root)
    path = root / "examples" / "view.jsonl"
    examples = read_examples(path)
    return ViewerSuite(ctx, examples, path, root / "runs" / "view", demo_snapshot.path.parent.parent, _expected(examples))


#: The list example of the list-overlay tests: a disjoint component among the distractors, so the random
#: run names papers of blocks that the forest does not draw as well as papers of the other task component.
LIST_SPEC = ExampleSpec("list", 4, 30, None, distractor="disjoint-component", context_length=12000)
LIST_RUNS = ("local-oracle", "local-random", "local-always-no")


@dataclass(frozen=True)
class ListSuite:
    example: Example
    examples_path: Path
    runs_dir: Path
    snapshots: Path


@pytest.fixture(scope="package")
def list_suite(viewer_suite, tmp_path_factory) -> ListSuite:
    """A list example of the demo snapshot, answered through LiteLLM by the local oracle, random and
    always-NO servers (real HTTP on 127.0.0.1), as ``make demo`` answers its list examples."""
    from graphniah.run import RunOptions, RunSummary, run_suite
    from graphniah.run.models import get_model
    from graphniah.run.serve.policies import PolicyServer

    def build(root: Path) -> Path:
        example = build_example(viewer_suite.ctx, LIST_SPEC, seed=3, index=0)
        path = root / "examples" / "lists.jsonl"
        path.parent.mkdir(parents=True, exist_ok=True)
        write_examples(path, [example])
        for name in LIST_RUNS:
            with PolicyServer(name.removeprefix("local-"), seed=0) as server:
                summary = run_suite(get_model(name).with_overrides(api_base=server.url), path, suite="lists", runs_root=root / "runs",
                                    snapshots_root=viewer_suite.snapshots, options=RunOptions(concurrency=1))
            assert isinstance(summary, RunSummary) and summary.ok == 1, summary
        return root

    root = shared_build(tmp_path_factory, "list-suite", build, lambda root: root)
    path = root / "examples" / "lists.jsonl"
    (example,) = read_examples(path)
    return ListSuite(example, path, root / "runs" / "lists", viewer_suite.snapshots)
