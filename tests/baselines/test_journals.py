"""The shortcuts' journals flow through everything that reads journals: ``graphniah baselines`` writes
them beside the models', and ``graphniah report`` shows them as rows and in the Shortcuts table."""

from __future__ import annotations

import itertools
import json
import math

import pytest
from statsmodels.stats.multitest import multipletests
from typer.testing import CliRunner

from graphniah.baselines import SHORTCUTS, is_baseline_model, model_name
from graphniah.baselines import shortcuts as shortcut_rules
from graphniah.baselines.journals import reusable_journal, write_baselines
from graphniah.baselines.shortcuts import accuracy, response_text
from graphniah.cli import app
from graphniah.formats import TASK_LABELS
from graphniah.formats.examples import read_examples, write_examples
from graphniah.formats.journal import read_journal, read_run_settings
from graphniah.report import build_report, load_suite
from graphniah.report.shortcuts import shortcut_results, shortcut_verdicts


def report_results(report):  # type: ignore[no-untyped-def]
    return shortcut_results(report.context)


#: learned-surface's training draw in these tests: a few questions per task (its own tests check what it learns).
TRAIN = 3


def test_journals_are_run_records_and_rewritten_whole(shortcut_suite, demo_snapshot, tmp_path) -> None:
    runs = tmp_path / "runs"
    snapshots = demo_snapshot.path.parents[1]
    written = write_baselines(shortcut_suite.path, "s", runs, snapshots=snapshots, training_per_task=TRAIN)
    assert [j.shortcut for j in written] == list(SHORTCUTS)
    for j in written:
        assert j.path == runs / "s" / f"{model_name(j.shortcut)}.jsonl"
        records = read_journal(j.path)
        assert {r.example_id for r in records} == set(j.answers)
        assert all(r.model == model_name(j.shortcut) and r.status == "ok" and r.settings_hash == j.settings_hash for r in records)
        assert all(r.response == response_text(j.answers[r.example_id]) for r in records)
        entry = read_run_settings(j.path).runs[j.settings_hash]
        assert entry.model == model_name(j.shortcut) and entry.settings["shortcut"] == j.shortcut
    again = write_baselines(shortcut_suite.path, "s", runs, snapshots=snapshots, training_per_task=TRAIN)  # replaces, never appends
    for j in again:
        assert len(read_journal(j.path)) == len(j.answers)


def test_a_rerun_on_the_same_inputs_reuses_the_journals_and_a_changed_input_runs_again(shortcut_suite, tmp_path,
                                                                                       monkeypatch) -> None:
    examples, runs = tmp_path / "s.jsonl", tmp_path / "runs"
    examples.write_bytes(shortcut_suite.path.read_bytes())
    ran: list[str] = []
    real = shortcut_rules.answer
    monkeypatch.setattr(shortcut_rules, "answer", lambda shortcut, *a, **k: ran.append(shortcut) or real(shortcut, *a, **k))
    pair = ("paper-count", "title-similarity")

    def write(**kw):  # type: ignore[no-untyped-def]
        ran.clear()
        return write_baselines(examples, "s", runs, shortcuts=pair, **kw)

    first = write()
    assert ran == list(pair)
    files = {j.path: (j.path.read_bytes(), j.path.stat().st_mtime_ns) for j in first}
    assert write() == first and ran == []  # the same shortcuts, settings hashes and answers, nothing run
    assert {j.path: (j.path.read_bytes(), j.path.stat().st_mtime_ns) for j in first} == files  # not even rewritten
    assert reusable_journal(examples, "s", runs, "paper-count") == first[0]
    assert reusable_journal(examples, "s", runs, "paper-count", seed=1) is None
    assert write(seed=1) and ran == list(pair)  # another seed: both again
    assert write(seed=1) and ran == []
    # a journal changed on disk runs that shortcut again, and the journal is whole again
    count = first[0].path
    count.write_text(count.read_text().replace('"attempts":1', '"attempts":2', 1))
    assert write(seed=1)[0].answers == first[0].answers and ran == ["paper-count"]
    assert all(r.attempts == 1 for r in read_journal(count))
    # an inputs record cut short (a crash while it was written elsewhere): that shortcut runs again
    record = count.with_suffix(".inputs.json")
    record.write_bytes(record.read_bytes()[:40])
    assert write(seed=1) and ran == ["paper-count"]
    # other examples: every shortcut again, on the examples the file holds now
    dropped, *kept = read_examples(examples)
    write_examples(examples, kept)
    rerun = write(seed=1)
    assert ran == list(pair) and dropped.id in first[1].answers
    assert set(rerun[1].answers) == set(first[1].answers) - {dropped.id}


def test_baselines_flow_through_report(shortcut_suite, demo_snapshot, tmp_path) -> None:
    root = shortcut_suite.root
    runner = CliRunner()
    res = runner.invoke(app, ["baselines", "--suite", shortcut_suite.suite, "--examples-root", str(root / "examples"),
                              "--runs", str(root / "runs"), "--root", str(demo_snapshot.path.parents[1]),
                              "--training-per-task", str(TRAIN)])
    assert res.exit_code == 0, res.output
    assert "paper-count" in res.output and "retrieval" in res.output

    data = load_suite(shortcut_suite.suite, runs_root=root / "runs", examples_root=root / "examples")
    assert {r.model for r in data.runs} == {model_name(s) for s in SHORTCUTS}
    report = build_report(data)
    acc = report.table("accuracy")
    assert {row[0].text for row in acc.rows} >= {model_name(s) for s in SHORTCUTS}  # rows like any model's
    table = report.table("shortcuts")
    exs = shortcut_suite.examples
    for j in (model_name(s) for s in SHORTCUTS):
        answers = {r.example_id: r.response for r in read_journal(root / "runs" / shortcut_suite.suite / f"{j}.jsonl")}
        expected = accuracy(exs, {i: (r or "")[len("\\answer{"):-1] or None for i, r in answers.items()})
        for task, p in expected.items():
            label = {"yesno": "YES/NO", "mc": "Multiple choice", "count": "Counting"}[task]
            v = table.value(f"{label} | {j.removeprefix('baseline-')}", "accuracy")
            assert (v.k, v.n) == (p.k, p.n)
    verdicts = {v.task: v for v in shortcut_verdicts(report.context)}
    assert set(verdicts) == {"yesno", "mc", "count"}
    # counting: paper-count is exact on 2 of the 3 examples, far above random guessing (1 in 230 answers here)
    assert "paper-count" in [r.shortcut for r in verdicts["count"].beaten_by]
    assert "paper-count" in verdicts["count"].text and "random guessing" in verdicts["count"].text
    rows = {(row[0].text, row[1].text): row for row in table.rows}
    results = report_results(report)
    # each cell's two-sided p-value by enumerating every right/wrong pattern of its examples under random
    # guessing (twice the smaller tail), then Holm over all cells (statsmodels): flagged exactly when the
    # adjusted value is at most 5%, above random when the upper tail is the smaller
    raw, above = [], []
    for r in results:
        rates = [float(rate) for n, rate in r.chance for _ in range(n)]
        assert len(rates) == r.accuracy.n
        probs = [(sum(pattern), math.prod(q if hit else 1 - q for hit, q in zip(pattern, rates, strict=True)))
                 for pattern in itertools.product((0, 1), repeat=len(rates))]
        up = sum(pr for k, pr in probs if k >= r.accuracy.k)
        down = sum(pr for k, pr in probs if k <= r.accuracy.k)
        raw.append(min(1.0, 2 * min(up, down)))
        above.append(up <= down)
    flagged = dict(zip(results, multipletests(raw, method="holm")[1] <= 0.05, strict=True))
    for v in verdicts.values():
        for r in (r for r in results if r.task == v.task):
            i = results.index(r)
            assert r.pvalue == pytest.approx(raw[i], rel=1e-9)
            assert (r in v.beaten_by) == (flagged[r] and above[i]) and (r in v.below_by) == (flagged[r] and not above[i])
            assert rows[(TASK_LABELS[v.task], r.shortcut)][-1].text == ("no" if not flagged[r] else "above" if above[i] else "below")
    assert tuple(f"{v.text}." for v in verdicts.values()) == table.verdicts[:len(verdicts)]
    # then the balance notes (report.balance): an unmatched suite, and learned-surface's 3-per-task draw read from its settings
    notes = table.verdicts[len(verdicts):]
    assert notes[0].startswith(f"No example of suite {shortcut_suite.suite} was drawn with matched sampling") and len(notes) == 2
    assert notes[1].startswith("learned-surface was trained on fewer questions than its design asks for (1,000 per task; drawn: YES/NO ")

    # and through the command line's report, which writes the table with the others
    out = tmp_path / "report"
    res = runner.invoke(app, ["report", "--suite", shortcut_suite.suite, "--examples-root", str(root / "examples"),
                              "--runs", str(root / "runs"), "--out", str(out), "--no-figures", "--no-html"])
    assert res.exit_code == 0, res.output
    assert "shortcuts" in json.loads((out / "summary.json").read_text())["tables"]
    md = (out / "tables" / "shortcuts.md").read_text()
    assert "| verdict |" not in md and sum(line.startswith("- ") for line in md.splitlines()) == 3 + 2  # a sentence per task, 2 notes


@pytest.mark.parametrize(("model", "expected"), [
    ("baseline-title-similarity", True), ("baseline-retrieval", True), ("baseline-paper-count", True),
    ("baseline-topic-cluster", True),
    ("baseline-", False), ("baseline-gpt-5", False), ("baseline-retrieval-2", False), ("baselines-retrieval", False),
    ("baselineretrieval", False), ("my-baseline-retrieval", False), ("Baseline-retrieval", False), ("retrieval", False),
    ("gemini-3.8-flash", False), ("local-oracle", False),
])
def test_only_the_shortcuts_journals_are_baselines(model: str, expected: bool) -> None:
    assert model_name("retrieval") == "baseline-retrieval"  # the name a shortcut's journal is written under
    """A model is a baseline when its name is exactly ``baseline-<shortcut>``: a model whose name merely
    starts with ``baseline`` (a user's own "baseline-gpt-5") is a model, tabled with the others."""
    assert is_baseline_model(model) is expected
