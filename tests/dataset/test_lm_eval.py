"""The lm-eval task folder that ``graphniah export`` writes (``graphniah.dataset.lm_eval``), without running lm-eval.

lm-eval itself runs these files in ``tests/integrations/test_lm_eval.py``; here: which files an export
writes and hashes, what they name, that a bytecode cache does not break the manifest check, that an
export lacking the folder is redone, and that an export without lm-eval installed still writes the
folder and says what to install (lm-eval's absence simulated in a subprocess).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from graphniah.dataset import export_if_changed, read_manifest
from graphniah.dataset.lm_eval import folder_files, lm_eval_installed, run_hint
from graphniah.formats.dataset import check_files, manifest_json
from graphniah.formats.examples import read_examples

ORACLE_LINE = ("lm-eval run --include_path {dir}/lm_eval --tasks graphniah --model local-chat-completions "
               "--model_args base_url=http://127.0.0.1:8701/v1/chat/completions,model=local-oracle")


class _Loader(yaml.SafeLoader):
    """YAML as lm-eval reads it: ``!function module.name`` names a function of the folder's module."""


_Loader.add_constructor("!function", lambda loader, node: ("function", loader.construct_scalar(node)))  # type: ignore[arg-type]


def _yaml(path: Path) -> dict[str, Any]:
    return yaml.load(path.read_text(encoding="utf-8"), Loader=_Loader)  # a SafeLoader with one tag more


def test_export_writes_one_task_per_task_present_and_a_group(exported):
    folder = exported.dataset / "lm_eval"
    present = {e.task for e in read_examples(exported.examples)}
    assert present == {"yesno", "mc", "count"}  # the shared fixture has no list question
    assert sorted(p.name for p in folder.iterdir() if p.is_file()) == sorted(  # (lm-eval may have left __pycache__/)
        ["graphniah.yaml", "utils.py", *(f"graphniah_{t}.yaml" for t in present)])
    for task in present:
        cfg = _yaml(folder / f"graphniah_{task}.yaml")
        assert cfg["task"] == f"graphniah_{task}"
        assert cfg["class"] == ("function", "utils.GraphNIAHTask")
        assert cfg["custom_dataset"] == ("function", "utils.custom_dataset")
        assert cfg["process_results"] == ("function", "utils.process_results")
        assert cfg["dataset_kwargs"] == {"graphniah_task": task} and cfg["test_split"] == "test"
        assert cfg["output_type"] == "generate_until" and cfg["doc_to_target"] == "answer"
        assert [m["metric"] for m in cfg["metric_list"]] == ["acc"]
        assert "data_files" not in json.dumps(cfg, default=str)  # nothing resolved from the working directory
    group = _yaml(folder / "graphniah.yaml")
    assert group["group"] == "graphniah"
    assert group["task"] == ["graphniah_yesno", "graphniah_mc", "graphniah_count"]
    assert group["aggregate_metric_list"] == [{"metric": "acc", "aggregation": "mean", "weight_by_size": True}]


def test_the_list_task_adds_f1_and_tasks_keep_their_order():
    files = folder_files(["list", "count"])
    assert sorted(files) == ["lm_eval/graphniah.yaml", "lm_eval/graphniah_count.yaml", "lm_eval/graphniah_list.yaml", "lm_eval/utils.py"]
    listing = yaml.load(files["lm_eval/graphniah_list.yaml"], Loader=_Loader)
    assert [m["metric"] for m in listing["metric_list"]] == ["acc", "f1"]
    assert yaml.load(files["lm_eval/graphniah.yaml"], Loader=_Loader)["task"] == ["graphniah_count", "graphniah_list"]


def test_the_manifest_hashes_the_folder(exported):
    m = read_manifest(exported.dataset)
    listed = {f.path: f for f in m.files if f.path.startswith("lm_eval/")}
    on_disk = {p.relative_to(exported.dataset).as_posix() for p in (exported.dataset / "lm_eval").rglob("*") if p.is_file()}
    assert set(listed) == on_disk
    for rel, f in listed.items():
        data = (exported.dataset / rel).read_bytes()
        assert (f.sha256, f.bytes) == (hashlib.sha256(data).hexdigest(), len(data))


def test_utils_finds_the_data_from_its_own_place_and_scores_with_graphniah(exported):
    text = (exported.dataset / "lm_eval" / "utils.py").read_text(encoding="utf-8")
    compile(text, "utils.py", "exec")
    assert "Path(__file__).resolve().parent.parent" in text and "def custom_dataset(" in text
    assert "from graphniah.integrations.lm_eval_task import" in text
    # no answer extraction of its own: no regular expressions, no \answer{} parsing
    for f in (exported.dataset / "lm_eval").glob("*.*"):
        body = f.read_text(encoding="utf-8")
        assert "answer{" not in body and "import re" not in body, f.name


def test_the_card_shows_the_lm_eval_line(exported):
    card = (exported.dataset / "README.md").read_text(encoding="utf-8")
    assert ORACLE_LINE.format(dir="DIR") in card
    assert "`graphniah_yesno`, `graphniah_mc`, `graphniah_count`" in card and "graphniah_list" not in card
    assert "pip install 'graphniah[lm-eval]'" in card and "graphniah serve --policy oracle" in card


def test_a_bytecode_cache_is_not_a_stranger_but_any_other_file_is(exported, tmp_path):
    ds = shutil.copytree(exported.dataset, tmp_path / "ds")
    cache = ds / "lm_eval" / "__pycache__"
    cache.mkdir()
    (cache / "utils.cpython-311.pyc").write_bytes(b"\x00" * 16)
    assert check_files(ds) == []
    (ds / "lm_eval" / "extra.yaml").write_text("task: x\n")
    assert check_files(ds) == ["lm_eval/extra.yaml: not listed in the manifest"]
    (ds / "lm_eval" / "extra.yaml").unlink()
    (ds / "lm_eval" / "utils.py").write_text("# edited\n")
    assert [p.split(":")[0] for p in check_files(ds)] == ["lm_eval/utils.py"]


def test_an_export_without_the_folder_is_exported_again(exported, tmp_path):
    ds = shutil.copytree(exported.dataset, tmp_path / exported.dataset.name)
    old = read_manifest(ds)
    # an export made before the folder existed: neither the files nor their manifest entries
    shutil.rmtree(ds / "lm_eval")
    (ds / "graphniah-manifest.json").write_text(manifest_json(old.model_copy(
        update={"files": tuple(f for f in old.files if not f.path.startswith("lm_eval/"))})))
    assert check_files(ds) == []  # intact as far as its own manifest goes
    redone = export_if_changed(exported.examples, ds, suite=exported.name, snapshots_root=exported.suite.snapshots)
    assert redone.manifest == old and (ds / "lm_eval" / "utils.py").is_file()
    stamp = (ds / "graphniah-manifest.json").stat().st_mtime_ns
    kept = export_if_changed(exported.examples, ds, suite=exported.name, snapshots_root=exported.suite.snapshots)
    assert kept.manifest == old and (ds / "graphniah-manifest.json").stat().st_mtime_ns == stamp  # current: kept as it is


def test_the_hint_names_the_folder_and_what_to_install(tmp_path, monkeypatch):
    assert lm_eval_installed()  # make installs the extra
    hint = run_hint(tmp_path / "ds")
    assert ORACLE_LINE.format(dir=tmp_path / "ds") in hint and "pip install" not in hint
    monkeypatch.setitem(sys.modules, "lm_eval", None)  # what `import lm_eval` then refuses
    assert not lm_eval_installed()
    assert run_hint(tmp_path / "ds").endswith("(lm-eval is not installed here: pip install 'graphniah[lm-eval]' first)")


_WITHOUT_LM_EVAL = """
import sys
sys.modules["lm_eval"] = None  # `import lm_eval` raises ImportError, as without the extra
from graphniah.cli import main
sys.argv = ["graphniah", *sys.argv[1:]]
try:
    main()
finally:
    assert sys.modules["lm_eval"] is None, "the export imported lm_eval"
"""


@pytest.mark.slow
def test_an_export_without_lm_eval_writes_the_folder_and_says_how_to_run_it(exported, tmp_path):
    out = tmp_path / "month-dataset"
    env = os.environ | {"COLUMNS": "400"}
    res = subprocess.run([sys.executable, "-c", _WITHOUT_LM_EVAL, "export", "--suite", exported.name, "--examples", str(exported.examples),
                          "--out", str(out), "--snapshots", str(exported.suite.snapshots)],
                         capture_output=True, text=True, timeout=300, env=env)
    assert res.returncode == 0, res.stdout + res.stderr
    assert sorted(p.name for p in (out / "lm_eval").iterdir()) == sorted(p.name for p in (exported.dataset / "lm_eval").iterdir() if p.is_file())
    assert check_files(out) == []
    said = " ".join(res.stderr.split())
    assert ORACLE_LINE.format(dir=out) in said
    assert "lm-eval is not installed here: pip install 'graphniah[lm-eval]' first" in said


def test_a_stale_folder_with_the_same_file_names_is_exported_again(exported, tmp_path):
    """An older exporter's utils.py, listed with its own hash (so the folder is intact as its manifest goes):
    the names match today's, the bytes do not, and the export is redone."""
    ds = shutil.copytree(exported.dataset, tmp_path / exported.dataset.name)
    old = read_manifest(ds)
    today = (ds / "lm_eval" / "utils.py").read_bytes()
    stale = b'"""Hooks written by an older graphniah export."""\n'
    (ds / "lm_eval" / "utils.py").write_bytes(stale)
    files = tuple(f.model_copy(update={"sha256": hashlib.sha256(stale).hexdigest(), "bytes": len(stale)})
                  if f.path == "lm_eval/utils.py" else f for f in old.files)
    (ds / "graphniah-manifest.json").write_text(manifest_json(old.model_copy(update={"files": files})))
    assert check_files(ds) == []
    assert sorted(f.path for f in read_manifest(ds).files) == sorted(f.path for f in old.files)  # the same names
    redone = export_if_changed(exported.examples, ds, suite=exported.name, snapshots_root=exported.suite.snapshots)
    assert (ds / "lm_eval" / "utils.py").read_bytes() == today and redone.manifest == old


def test_each_task_asks_for_long_replies_with_no_stop_sequence_as_the_card_says(exported):
    """lm-eval's own defaults (256 tokens, a stop at a blank line) would cut most replies short: every task asks
    for the 16,384 tokens the README and the card promise, and no stop sequence."""
    folder = exported.dataset / "lm_eval"
    for task in ("yesno", "mc", "count"):
        assert _yaml(folder / f"graphniah_{task}.yaml")["generation_kwargs"] == {"until": [], "max_gen_toks": 16384}
    assert "a reply may take up to 16,384 tokens" in (exported.dataset / "README.md").read_text(encoding="utf-8")


def test_a_spec_less_stand_in_for_lm_eval_is_not_an_installed_lm_eval(monkeypatch):
    import types

    stand_in = types.ModuleType("lm_eval")  # what a test double or a half-finished import leaves: no __spec__
    assert stand_in.__spec__ is None
    monkeypatch.setitem(sys.modules, "lm_eval", stand_in)
    assert lm_eval_installed() is False


# ---- the contracts, one by one (after the third audit) ---------------------------------------------


def test_every_key_of_a_task_file_and_the_group_file():
    """Each task file, key by key, and the group's, read back as lm-eval's YAML loader reads them."""
    files = folder_files(["list", "yesno", "list"])  # a task named twice is one task
    assert sorted(files) == ["lm_eval/graphniah.yaml", "lm_eval/graphniah_list.yaml", "lm_eval/graphniah_yesno.yaml", "lm_eval/utils.py"]
    metric = {"aggregation": "mean", "higher_is_better": True}
    for task, metrics in (("yesno", ["acc"]), ("list", ["acc", "f1"])):
        assert yaml.load(files[f"lm_eval/graphniah_{task}.yaml"], Loader=_Loader) == {
            "task": f"graphniah_{task}", "class": ("function", "utils.GraphNIAHTask"),
            "custom_dataset": ("function", "utils.custom_dataset"), "dataset_kwargs": {"graphniah_task": task}, "test_split": "test",
            "output_type": "generate_until", "doc_to_target": "answer", "process_results": ("function", "utils.process_results"),
            "generation_kwargs": {"until": [], "max_gen_toks": 16384},
            "metric_list": [{"metric": m, **metric} for m in metrics], "metadata": {"version": 1}}
        assert files[f"lm_eval/graphniah_{task}.yaml"].startswith(f"# GraphNIAH `{task}` questions as an lm-evaluation-harness task")
    assert yaml.load(files["lm_eval/graphniah.yaml"], Loader=_Loader) == {
        "group": "graphniah", "task": ["graphniah_yesno", "graphniah_list"],
        "aggregate_metric_list": [{"metric": "acc", "aggregation": "mean", "weight_by_size": True}], "metadata": {"version": 1}}


def test_tasks_not_in_the_benchmark_get_no_file_and_every_task_keeps_the_benchmarks_order():
    from graphniah.formats import TASKS

    files = folder_files(["count", "nonsense", "mc", "yesno", "list"])
    assert [rel for rel in files if rel.startswith("lm_eval/graphniah_")] == [f"lm_eval/graphniah_{t}.yaml" for t in TASKS]
    assert yaml.load(files["lm_eval/graphniah.yaml"], Loader=_Loader)["task"] == [f"graphniah_{t}" for t in TASKS]
    assert TASKS == ("yesno", "mc", "count", "list")  # the order the README's task table gives


def test_write_lm_eval_folder_writes_the_files_it_returns(tmp_path):
    from graphniah.dataset.lm_eval import write_lm_eval_folder

    written = write_lm_eval_folder(str(tmp_path), ["mc"])
    assert written == [tmp_path / rel for rel in folder_files(["mc"])]
    assert {p.relative_to(tmp_path).as_posix(): p.read_text(encoding="utf-8") for p in written} == folder_files(["mc"])


def test_the_folder_is_current_only_with_exactly_its_files_byte_for_byte(exported):
    from graphniah.dataset.lm_eval import folder_is_current
    from graphniah.formats.dataset import FileEntry

    m = read_manifest(exported.dataset)
    assert folder_is_current(m)
    lm = [f for f in m.files if f.path.startswith("lm_eval/")]
    other = [f for f in m.files if not f.path.startswith("lm_eval/")]
    assert folder_is_current(m.model_copy(update={"files": tuple(lm)}))  # the other files do not count
    extra = FileEntry(path="lm_eval/graphniah_list.yaml", bytes=3, sha256=hashlib.sha256(b"abc").hexdigest())
    assert not folder_is_current(m.model_copy(update={"files": (*m.files, extra)}))  # a task file more
    assert not folder_is_current(m.model_copy(update={"files": (*other, *lm[1:])}))  # one file less
    assert not folder_is_current(m.model_copy(update={"tasks": {**m.tasks, "list": 1}}))  # tasks the folder does not serve


def test_the_lm_eval_command_takes_its_endpoint_and_model():
    from graphniah.dataset.lm_eval import lm_eval_command

    assert lm_eval_command("ds/lm_eval", "http://h:1/v1/chat/completions", "m-1") == (
        "lm-eval run --include_path ds/lm_eval --tasks graphniah --model local-chat-completions "
        "--model_args base_url=http://h:1/v1/chat/completions,model=m-1")
    assert lm_eval_command("x") == ORACLE_LINE.format(dir="x").replace("x/lm_eval", "x")


def test_the_hint_follows_the_installed_flag_it_is_given(tmp_path):
    ran = (f"lm-evaluation-harness tasks in {tmp_path / 'ds' / 'lm_eval'}/: with `graphniah serve --policy oracle` running, "
           f"`{ORACLE_LINE.format(dir=tmp_path / 'ds')}`")
    assert run_hint(tmp_path / "ds", installed=True) == ran
    assert run_hint(str(tmp_path / "ds"), installed=False) == ran + " (lm-eval is not installed here: pip install 'graphniah[lm-eval]' first)"


def test_every_card_field_of_the_folder():
    from graphniah.dataset.lm_eval import card_fields

    assert card_fields({"list": 3, "yesno": 0, "count": 2}) == {
        "lm_eval_dir": "lm_eval", "lm_eval_tasks": "`graphniah_yesno`, `graphniah_count`, `graphniah_list`", "lm_eval_group": "graphniah",
        "lm_eval_install": "pip install 'graphniah[lm-eval]'", "lm_eval_command": ORACLE_LINE.format(dir="DIR"),
        "lm_eval_max_gen_toks": "16,384"}
    assert card_fields(["mc"])["lm_eval_tasks"] == "`graphniah_mc`"


def test_utils_hands_the_template_of_metadata_to_task_docs(tmp_path, monkeypatch):
    """The folder's ``custom_dataset``: the test split of ``task_docs(<the dataset>, task, template)``, the dataset found
    from the file's own place."""
    import types

    calls = []
    fake = types.ModuleType("graphniah.integrations.lm_eval_task")
    fake.GraphNIAHTask, fake.process_results = object, object  # type: ignore[attr-defined]
    fake.task_docs = lambda root, task, template: calls.append((root, task, template)) or ["doc"]  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "graphniah.integrations.lm_eval_task", fake)
    (tmp_path / "ds" / "lm_eval").mkdir(parents=True)
    path = tmp_path / "ds" / "lm_eval" / "utils.py"
    path.write_text(folder_files(["mc"])["lm_eval/utils.py"], encoding="utf-8")
    space: dict[str, Any] = {"__file__": str(path), "__name__": "utils"}
    exec(compile(path.read_text(encoding="utf-8"), str(path), "exec"), space)
    assert space["custom_dataset"]("mc", template="tagged", pretrained="x") == {"test": ["doc"]}
    assert space["custom_dataset"]("count") == {"test": ["doc"]}
    assert calls == [((tmp_path / "ds").resolve(), "mc", "tagged"), ((tmp_path / "ds").resolve(), "count", None)]
