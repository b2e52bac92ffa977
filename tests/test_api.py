"""The Python API (graphniah.api): loaded lazily from ``import graphniah``, documented, and the README's
notebook example run as written on a small demo build."""

from __future__ import annotations

import collections
import inspect
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

import graphniah

REPO = Path(__file__).resolve().parents[1]
API = ("open_dataset", "build_suite", "run_suite", "score", "build_report", "export_suite")


def test_import_graphniah_loads_no_stage_until_a_function_is_used() -> None:
    probe = ("import sys, graphniah\n"
             "before = sorted(m for m in sys.modules if m.startswith('graphniah'))\n"
             "graphniah.score\n"
             "print(before, 'graphniah.api' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["['graphniah',", "'graphniah.lazy']", "True"]


@pytest.mark.parametrize("name", API)
def test_each_function_is_exported_typed_and_documented(name: str) -> None:
    from graphniah import api

    fn = getattr(graphniah, name)
    assert fn is getattr(api, name) and name in graphniah.__all__
    sig = inspect.signature(fn)
    assert sig.return_annotation is not inspect.Signature.empty
    assert all(p.annotation is not inspect.Parameter.empty for p in sig.parameters.values())
    doc = inspect.getdoc(fn) or ""
    assert "Parameters\n----------" in doc and "Returns\n-------" in doc
    # every parameter is described
    assert [p for p in sig.parameters if not re.search(rf"^(\w+, )*{p}\b.*:", doc, re.M)] == []


def test_a_missing_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no attribute 'load_everything'"):
        graphniah.load_everything  # noqa: B018


def test_score_of_a_journal_that_does_not_exist_names_it(tmp_path: Path) -> None:
    from graphniah.errors import GraphNIAHError

    with pytest.raises(GraphNIAHError, match=r"no records in .*demo/nobody\.jsonl"):
        graphniah.score("nobody", "demo", runs=tmp_path)


def _readme_example() -> str:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    section = text[text.index("## From Python"):]
    (block,) = re.findall(r"```python\n(.*?)```", section[:section.index("\n## ", 3)], re.S)
    return block


def test_the_readme_example_is_short() -> None:
    lines = [ln for ln in _readme_example().splitlines() if ln.strip()]
    assert len(lines) <= 11 and lines[0] == "import graphniah"


def _as_interrupted(examples: Path, out: Path, snapshot_hash: str) -> None:
    """Lay out ``examples`` (the demo suite at one example per value, seed 0) in ``out`` as a build of
    the same suite interrupted after its last example: the README's ``build_suite`` into ``out`` then
    finishes it from there (the route tests/sampling/test_suites.py pins byte for byte) instead of
    sampling and packing its 60,000-token examples a second time."""
    from graphniah.sampling.suites import _item_key, load_suite_spec, plan_suite, suite_files
    from graphniah.seeds import DEFAULT_SEED
    from graphniah.text import load_prompts
    from graphniah.text.prompts import load_template

    suite, folder = load_suite_spec("demo"), load_prompts().directory
    keys = [_item_key(it, DEFAULT_SEED, snapshot_hash, load_template(it.spec.template, folder).hash)
            for it in plan_suite(suite, DEFAULT_SEED, 1)]
    lines = examples.read_text(encoding="utf-8").splitlines()
    out.mkdir(parents=True)
    suite_files(out, suite.name).partial.write_text(
        "".join(json.dumps({"key": k, "example": line}) + "\n" for k, line in zip(keys, lines, strict=True)), encoding="utf-8")


@pytest.mark.slow
def test_the_readme_example_runs_after_a_demo(demo_snapshot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    """The README's block, exec'd as written in a folder laid out as the checkout after ``make demo``:
    the session's demo snapshot under ``snapshots/``, the demo suite (one example per value) and the
    local oracle's journal of it, made through the API itself. The oracle answers everything right,
    so its scores are every example, right; the dataset holds the suite's examples task by task."""
    from graphniah.run.serve.policies import PolicyServer

    monkeypatch.chdir(tmp_path)
    (tmp_path / "snapshots").symlink_to(demo_snapshot.path.parent.parent, target_is_directory=True)
    first = graphniah.build_suite("demo", n=1)
    _as_interrupted(first.examples_path, Path("notebook/examples"), demo_snapshot.content_hash)
    with PolicyServer("oracle", seed=0) as server:
        sent = graphniah.run_suite("local-oracle", suite="demo", api_base=server.url)
    demo = [json.loads(line) for line in Path("examples/demo.jsonl").read_text(encoding="utf-8").splitlines()]
    assert sent.ok == len(demo)

    namespace: dict[str, object] = {}
    exec(compile(_readme_example(), "README.md", "exec"), namespace)

    scores = namespace["scores"]
    assert isinstance(scores, dict) and len(scores) == 1
    (only,) = scores.values()
    # The oracle answers every example right, those worded in another template set too (each read in
    # its set's answer format).
    worded = [e for e in demo if e["recipe"]["params"].get("template", "default") != "default"]
    assert worded and only.answered == only.overall.n == only.overall.k == len(demo)
    plan = namespace["plan"]
    built = namespace["built"]
    # the README's build found every example in the interrupted build's file: the same bytes as a fresh build
    assert built.reused == built.n_examples and built.examples_path.read_bytes() == first.examples_path.read_bytes()
    lines = built.examples_path.read_text(encoding="utf-8").splitlines()
    assert type(plan).__name__ == "RunPlan" and plan.total == built.n_examples == len(lines)
    assert Path("notebook/report/report.html").is_file()
    tasks = collections.Counter(e["task"] for e in demo)
    assert dict(graphniah.open_dataset("notebook/dataset").manifest.tasks) == dict(tasks)
    printed = capsys.readouterr().out.splitlines()
    assert printed[0] == repr({h: (s.overall.k, s.overall.n) for h, s in scores.items()})
