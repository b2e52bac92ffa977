"""graphniah.layout: each path rule, the one resolver of --suite/--examples/--dataset, and no rule written elsewhere."""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from graphniah import layout
from graphniah.cli import app
from graphniah.errors import GraphNIAHError

PACKAGE = Path(layout.__file__).parent


def test_each_path_rule():
    assert layout.snapshot_dir("s", "2026-11-25", dt.date(2026, 4, 1)) == Path("s/2026-11-25/cutoff=2026-04-01")
    assert layout.pruned_file("s/r/cutoff=2026-04-01", 8) == Path("s/r/cutoff=2026-04-01/pruned/depth=8.parquet")
    assert layout.pool_file("snap", 4) == Path("snap/paths/depth=4.parquet")
    assert layout.graph_manifest(layout.pool_file("snap", 4)) == Path("snap/paths/depth=4.json")
    files = layout.suite_files("ex", "depth")
    assert (files.examples, files.manifest, files.partial) == (Path("ex/depth.jsonl"), Path("ex/depth.json"), Path("ex/.depth.jsonl.partial"))
    assert layout.journal_file("runs", "depth", "gpt-5.1") == Path("runs/depth/gpt-5.1.jsonl")
    assert layout.settings_file(Path("runs/depth/gpt-5.1.jsonl")) == Path("runs/depth/gpt-5.1.settings.json")
    assert layout.inputs_file(Path("runs/d/baseline-retrieval.jsonl")) == Path("runs/d/baseline-retrieval.inputs.json")
    assert layout.report_dir(layout.REPORTS_ROOT, "depth") == Path("reports/depth")
    assert layout.report_table("reports/depth", "accuracy", "csv") == Path("reports/depth/tables/accuracy.csv")
    assert layout.report_figure("rep", "accuracy", "svg") == Path("rep/figures/accuracy.svg")
    assert (layout.REPORT_MARKDOWN, layout.REPORT_HTML, layout.REPORT_CELLS, layout.REPORT_SUMMARY) == (
        "report.md", "report.html", "cells.csv", "summary.json")
    assert layout.dataset_examples_dir("runs", "ab" * 32) == Path("runs/.datasets") / ("ab" * 8)
    assert layout.sample_file("mc", 4, "code", "200000", 7) == Path("examples/mc-depth4-code-200000-seed7.jsonl")


@pytest.mark.parametrize("path, suite", [
    ("examples/depth.jsonl", "depth"),
    ("/data/ex/depth-matched.jsonl", "depth-matched"),
    ("mine.v2.jsonl", "mine.v2"),  # dots inside a name stay: only the last suffix goes
    ("given.txt", "given"),  # --examples takes any file name; its suite is the name without the suffix
])
def test_the_suite_name_of_an_examples_file(path, suite):
    assert layout.suite_name(path) == suite
    assert layout.suite_name(Path(path)) == suite


@pytest.mark.parametrize("suite", ["depth", "depth-matched", "mine.v2", "gpt-5.1_long"])
def test_suite_name_and_the_suite_examples_rule_are_inverse(tmp_path, suite):
    file = layout.suite_examples(tmp_path, suite)
    assert file == tmp_path / f"{suite}.jsonl"
    assert layout.suite_name(file) == suite
    assert layout.suite_examples(tmp_path, layout.suite_name(file)) == file
    assert layout.suite_manifest_of(file) == tmp_path / f"{suite}.json"  # the manifest rule export uses


@pytest.mark.parametrize("path", ["examples/.depth.jsonl.partial", "examples/.jsonl", ".hidden.jsonl"])
def test_a_file_name_that_gives_no_suite_name_is_refused_naming_it(path):
    with pytest.raises(GraphNIAHError, match=rf"^examples file {re.escape(path)}: '\.[^']*' is not a suite name"):
        layout.suite_name(path)


@pytest.mark.parametrize("suite", ["", "a/b", "../up", ".hidden"])
def test_a_suite_name_that_is_not_plain_is_refused(suite):
    with pytest.raises(GraphNIAHError, match=rf"^suite: {re.escape(repr(suite))} is not a suite name"):
        layout.suite_examples("examples", suite)


@pytest.mark.parametrize("suite, model", [("a/b", "m"), ("s", "m/x"), (".hidden", "m"), ("s", ".m")])
def test_a_journal_name_must_be_plain(suite, model):
    with pytest.raises(GraphNIAHError, match="must be plain names"):
        layout.journal_file("runs", suite, model)


def test_journals_in_lists_a_suites_journals_in_name_order(tmp_path):
    for name in ("b.jsonl", "a.jsonl", "a.settings.json", "notes.txt"):
        (tmp_path / name).write_text("")
    assert layout.journals_in(tmp_path) == [tmp_path / "a.jsonl", tmp_path / "b.jsonl"]


def test_the_resolver_takes_exactly_one_source(tmp_path):
    (tmp_path / "depth.jsonl").write_text("")
    (tmp_path / "other.jsonl").write_text("")
    (tmp_path / "ds").mkdir()
    src = layout.resolve_examples(suite="depth", examples_root=tmp_path)
    assert (src.suite, src.examples, src.dataset) == ("depth", tmp_path / "depth.jsonl", None)
    assert layout.resolve_examples(examples=tmp_path / "other.jsonl").examples == tmp_path / "other.jsonl"
    assert layout.resolve_examples(dataset=tmp_path / "ds").dataset == tmp_path / "ds"
    with pytest.raises(GraphNIAHError, match=r"^give exactly one of --suite NAME, --examples FILE or --dataset DIR$"):
        layout.resolve_examples()
    with pytest.raises(GraphNIAHError, match="give exactly one of"):
        layout.resolve_examples(suite="depth", dataset=tmp_path / "ds", examples_root=tmp_path)
    with pytest.raises(GraphNIAHError, match=r"^give exactly one of --examples FILE or --dataset DIR$"):
        layout.resolve_examples(suite="depth", examples_root=tmp_path, accepts=("examples", "dataset"))


def test_the_resolver_names_what_is_missing(tmp_path):
    with pytest.raises(GraphNIAHError, match=rf"no suite 'x': {tmp_path / 'x.jsonl'} does not exist \(pass --examples FILE"):
        layout.resolve_examples(suite="x", examples_root=tmp_path)
    with pytest.raises(GraphNIAHError, match=rf"^--examples {tmp_path / 'no.jsonl'}: no such file$"):
        layout.resolve_examples(examples=tmp_path / "no.jsonl")
    with pytest.raises(GraphNIAHError, match=rf"^--dataset {tmp_path / 'nodir'}: no such folder$"):
        layout.resolve_examples(dataset=tmp_path / "nodir")


@pytest.mark.parametrize(("accepts", "hint"), [(("examples", "dataset"), " (a dataset folder is given with --dataset)"),
                                               (("suite", "examples"), "")])
def test_examples_naming_a_folder_is_refused(tmp_path, accepts, hint):
    """A folder given as --examples (a dataset folder, say) is refused by name, never read as a file."""
    folder = tmp_path / "ds"
    folder.mkdir()
    with pytest.raises(GraphNIAHError) as err:
        layout.resolve_examples(examples=folder, accepts=accepts)
    assert str(err.value) == f"--examples {folder}: is a folder, not an examples file{hint}"


def test_a_suite_name_with_another_examples_file(tmp_path):
    """``report``/``export``: --suite names the suite, --examples replaces its file."""
    (tmp_path / "mine.jsonl").write_text("")
    src = layout.resolve_examples(suite="depth", examples=tmp_path / "mine.jsonl", examples_root=tmp_path / "none",
                                  accepts=("suite", "dataset"), names_suite=True)
    assert (src.suite, src.examples) == ("depth", tmp_path / "mine.jsonl")
    with pytest.raises(GraphNIAHError, match=r"^give exactly one of --suite NAME or --dataset DIR$"):
        layout.resolve_examples(examples=tmp_path / "mine.jsonl", accepts=("suite", "dataset"), names_suite=True)


@pytest.mark.parametrize("argv, message", [
    (["run", "--model", "m"], "give exactly one of --suite NAME, --examples FILE or --dataset DIR"),
    (["report"], "give exactly one of --suite NAME or --dataset DIR"),
    (["view", "--out", "site"], "give exactly one of --examples FILE or --dataset DIR"),
    (["export", "--suite", "nosuch", "--out", "ds"], "no suite 'nosuch'"),
])
def test_every_command_reads_its_source_through_the_resolver(tmp_path, monkeypatch, argv, message):
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(app, argv)
    assert result.exit_code != 0
    assert message in " ".join(f"{result.output} {result.exception}".split())


# Path rules as they would be written by hand; each may appear only in layout.py.
RULES = {
    "suite examples file": r'f"\{[^}]*\}\.jsonl"',
    "suite build progress file": r"\.jsonl\.partial",
    "journal settings file": r'"\.settings\.json"',
    "pool and pruned-set files": r'f"depth=\{',
    "snapshot folder": r"cutoff=\{|cutoff=\*",
    "rebuilt dataset examples": r'"\.datasets"',
    "journals of a suite": r'glob\("\*\.jsonl"\)',
    "report files": r'"(tables|figures)" /|"(report\.md|report\.html|cells\.csv|summary\.json)"',
    "suite name of an examples file": r"(examples|src)\w*\)?\.stem\b",
    "suite manifest beside an examples file": r'(examples|src)\w*\)?\.with_suffix\("\.json"\)',

    "default roots": r'Path\("(examples|runs|reports|snapshots)"\)|= "(examples|runs|reports|snapshots)"',
}


@pytest.mark.parametrize("what", sorted(RULES))
def test_no_path_rule_is_written_outside_layout(what):
    pattern = re.compile(RULES[what])
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path == Path(layout.__file__):
            continue
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            code = line.split("#", 1)[0]
            if pattern.search(code) and not code.lstrip().startswith(("``", "-", "*")):
                found.append(f"{path.relative_to(PACKAGE.parent)}:{n}: {line.strip()}")
    assert found == [], f"{what} written outside graphniah/layout.py"
