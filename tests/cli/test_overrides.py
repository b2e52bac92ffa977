"""User overrides of the files shipped in the package: ``--prompts DIR``, ``--models FILE``,
``--suites DIR`` and their environment variables, read when used (never frozen at import)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from graphniah.cli import app
from graphniah.formats.examples import read_examples
from graphniah.resources import resource_dir
from graphniah.run.models import MODELS_ENV, load_registry
from graphniah.sampling.suites import SUITES_ENV, default_suites_dir, load_suite_spec
from graphniah.text import PROMPTS_ENV, load_prompts

TINY_SUITE = {
    "name": "tiny", "description": "two small examples", "vary": "task", "values": ["yesno", "count"], "per_value": 1,
    "draw": {"depth": [4], "component_size": {"min": 30, "max": 40}, "distractor": ["none"]},
}


def _registry(tmp_path: Path) -> Path:
    doc = yaml.safe_load((resource_dir("pipelines") / "models.yaml").read_text())
    doc["models"] = {"my-oracle": doc["models"]["local-oracle"]}
    path = tmp_path / "my-models.yaml"
    path.write_text(yaml.safe_dump(doc))
    return path


def _prompts(tmp_path: Path) -> Path:
    d = tmp_path / "my-prompts"
    shutil.copytree(resource_dir("prompts"), d)
    for task in ("yesno", "mc", "count"):
        f = d / "system" / f"{task}.txt"
        f.write_text("LOCAL WORDING. " + f.read_text())
    return d


def test_suites_folder_is_read_at_call_time(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "tiny.yaml").write_text(yaml.safe_dump(TINY_SUITE))
    assert load_suite_spec("tiny", tmp_path).name == "tiny"
    monkeypatch.setenv(SUITES_ENV, str(tmp_path))  # after import: still seen
    assert default_suites_dir() == tmp_path and load_suite_spec("tiny").per_value == 1
    monkeypatch.delenv(SUITES_ENV)
    assert (default_suites_dir() / "demo.yaml").is_file()


def test_models_file_option_alias_and_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    reg = _registry(tmp_path)
    for option in ("--models", "--registry"):
        res = CliRunner().invoke(app, ["models", "list", option, str(reg)], env={"COLUMNS": "250"})
        assert res.exit_code == 0, res.output
        assert "my-oracle" in res.output and "local-random" not in res.output
    monkeypatch.setenv(MODELS_ENV, str(reg))
    assert list(load_registry()) == ["my-oracle"]


@pytest.mark.slow
def test_prompts_and_suites_reach_sample_verify_show_and_build(demo_snapshot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(PROMPTS_ENV, raising=False)
    prompts = _prompts(tmp_path)
    mine, shipped = load_prompts(prompts), load_prompts()
    assert mine.hash != shipped.hash
    runner = CliRunner()
    out = tmp_path / "ex.jsonl"
    res = runner.invoke(app, ["sample", "--task", "yesno", "--depth", "4", "-n", "2", "--component-size", "30", "--out", str(out),
                              "--snapshot", str(demo_snapshot.path), "--prompts", str(prompts)])
    assert res.exit_code == 0, res.output
    examples = read_examples(out)
    assert all(ex.messages[0].content.startswith("LOCAL WORDING. ") and ex.recipe.prompts_hash == mine.hash for ex in examples)

    assert runner.invoke(app, ["verify", str(out), "--prompts", str(prompts)]).exit_code == 0
    root = demo_snapshot.path.parent.parent
    show = ["show", examples[0].id, "--examples", str(out), "--root", str(root)]
    res = runner.invoke(app, [*show, "--prompts", str(prompts)])
    assert res.exit_code == 0 and "LOCAL WORDING." in res.output, res.output
    res = runner.invoke(app, show)  # the shipped templates are not the ones the example was made with
    assert res.exit_code != 0 and "prompt set" in str(res.exception)

    suites = tmp_path / "suites"
    suites.mkdir()
    (suites / "tiny.yaml").write_text(yaml.safe_dump(TINY_SUITE))
    res = runner.invoke(app, ["build", "--suite", "tiny", "--suites", str(suites), "--prompts", str(prompts), "--workers", "1",
                              "--snapshot", str(demo_snapshot.path), "--out", str(tmp_path / "examples")])
    assert res.exit_code == 0, res.output
    built = read_examples(tmp_path / "examples" / "tiny.jsonl")
    assert [ex.task for ex in built] == ["yesno", "count"]
    assert {ex.recipe.prompts_hash for ex in built} == {mine.hash}
    manifest = json.loads((tmp_path / "examples" / "tiny.json").read_text())
    assert manifest["suite"]["name"] == "tiny"

    # export checks every answer from the text, so it must read the text with the same templates
    export = ["export", "--suite", "tiny", "--examples-root", str(tmp_path / "examples"), "--snapshots", str(root)]
    res = runner.invoke(app, [*export, "--out", str(tmp_path / "ds"), "--prompts", str(prompts)])
    assert res.exit_code == 0, res.output
    res = runner.invoke(app, [*export, "--out", str(tmp_path / "ds-shipped")])
    assert res.exit_code != 0 and not (tmp_path / "ds-shipped").exists()
    res = runner.invoke(app, ["view", "--examples", str(tmp_path / "examples" / "tiny.jsonl"), "--out", str(tmp_path / "view"),
                              "--root", str(root), "--prompts", str(prompts)])
    assert res.exit_code == 0 and (tmp_path / "view" / "index.html").is_file(), res.output
