"""Every place that prints or returns an accuracy gives the same numbers for the same journal.

One suite, one journal written by the runner's own ``Journal``, built to separate the plausible
rules from the project's one rule (:mod:`graphniah.scoring`: the last ``ok`` record per example and
settings hash, re-scored from its response text; failures apart): a retried example (failed, then
ok), records whose stored ``correct`` disagrees with their text, examples with two ``ok`` records
that disagree, an example that only failed, and a second settings hash in the same journal.

Each path is one entry of ``PATHS``: a function from the written suite to
``{settings_hash: {task | "all": (n, accuracy %)}}``; adding a path is one more entry. The paths:
``graphniah score``, the demo table, ``graphniah report``, the report notebook, ``graphniah report
--dataset`` on the exported dataset, the inspect_ai task's scorer and metric (called directly, and in
``inspect_ai.eval`` with ``mockllm`` replaying the counted responses), and the viewer's index.
The examples are real (sampled from a demo snapshot) so that ``graphniah export`` accepts them.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from graphniah.formats.examples import Example, write_examples
from graphniah.formats.journal import Journal, RunRecord

MODEL, SUITE = "m", "s"
H1, H2 = "1" * 64, "2" * 64
TASKS = ("yesno", "mc", "count")

Accuracies = dict[str, dict[str, tuple[int, float]]]


@dataclass(frozen=True)
class Written:
    root: Path
    examples: list[Example]
    snapshots: Path  # where the examples' snapshot lives (the export re-solves them from it)

    @property
    def runs(self) -> Path:
        return self.root / "runs"

    @property
    def examples_root(self) -> Path:
        return self.root / "examples"

    @property
    def dataset(self) -> Path:
        return self.root / "dataset"


def _rec(ex: Example, status: str, text: str | None = None, *, h: str = H1, stored: bool | None = None) -> RunRecord:
    return RunRecord(example_id=ex.id, model=MODEL, settings_hash=h, status=status, task=ex.task, answer=ex.answer,
                     response=text, attempts=1, finished_at="2026-11-01T00:00:00+00:00",
                     extracted=None, correct=stored)


def _ans(x: str) -> str:
    return f"Thinking it over.\n\\answer{{{x}}}"


def _wrong(ex: Example) -> str:
    """An answer to ``ex`` that is well-formed and wrong."""
    if ex.task == "yesno":
        return "NO" if ex.answer == "YES" else "YES"
    if ex.task == "mc":
        return next(x for x in "ABCDE" if x != ex.answer)
    return str(int(ex.answer) + 1)


@pytest.fixture(scope="module")
def written(tmp_path_factory) -> Written:
    """Real examples (the run tests' demo suite, sampled from a real snapshot, so the dataset export's
    text-only check passes), with the journal's responses written against each example's own answer."""
    from graphniah.dataset import export_suite
    from tests.run.helpers import demo_suite

    suite = demo_suite(tmp_path_factory)
    by_task = {t: [e for e in suite.examples if e.task == t] for t in TASKS}
    y, m, c = by_task["yesno"][:4], by_task["mc"][:4], by_task["count"][:4]
    assert len(y) == len(m) == len(c) == 4
    root = tmp_path_factory.mktemp("one-accuracy")
    write_examples(root / "examples" / f"{SUITE}.jsonl", [*y, *m, *c])
    records = [
        # YES/NO: 2 of 4 right by the rule
        _rec(y[0], "failed"), _rec(y[0], "ok", _ans(y[0].answer), stored=True),  # retried: counts, right
        _rec(y[1], "ok", _ans(_wrong(y[1])), stored=True),  # stored correct disagrees with the text: wrong
        _rec(y[2], "ok", _ans(y[2].answer), stored=True), _rec(y[2], "ok", _ans(_wrong(y[2])), stored=False),  # last ok: wrong
        # an older rule said wrong; today's (case and markup normalised) says right
        _rec(y[3], "ok", _ans(f"\\textbf{{{y[3].answer.lower()}}}."), stored=False),
        # multiple choice: 2 of 3 answered (one example only failed)
        _rec(m[0], "ok", _ans(f"({m[0].answer})"), stored=True),
        _rec(m[1], "failed"), _rec(m[1], "failed"),  # never answered: failed, not in the accuracy
        _rec(m[2], "ok", _ans(_wrong(m[2])), stored=False), _rec(m[2], "ok", _ans(m[2].answer), stored=True),  # last ok: right
        _rec(m[3], "ok", "I cannot tell.", stored=True),  # no answer block: wrong
        _rec(m[0], "failed"),  # a later failure does not undo an answer
        # counting: 2 of 4
        _rec(c[0], "ok", _ans(c[0].answer), stored=True),
        _rec(c[1], "ok", _ans(f"about {c[1].answer}"), stored=True),  # not a number: wrong
        _rec(c[2], "failed"),
        _rec(c[2], "ok", _ans(f"{c[2].answer},1") + " then " + _ans(c[2].answer), stored=False),  # last block: right
        _rec(c[3], "ok", _ans(_wrong(c[3])), stored=True),
        # a second settings hash of the same model in the same journal: its own run
        _rec(y[0], "ok", _ans(_wrong(y[0])), h=H2, stored=True), _rec(y[1], "ok", _ans(y[1].answer), h=H2),
        _rec(c[0], "ok", _ans(c[0].answer), h=H2), _rec(m[0], "failed", h=H2),
    ]
    with Journal(root / "runs" / SUITE / f"{MODEL}.jsonl") as j:
        j.append(records)
    # the dataset a colleague receives: the same examples, exported (each re-solved from its text)
    export_suite(root / "examples" / f"{SUITE}.jsonl", root / "dataset", suite=SUITE, snapshots_root=suite.snapshots, workers=0)
    return Written(root, [*y, *m, *c], suite.snapshots)


EXPECTED: Accuracies = {
    H1: {"yesno": (4, 50.0), "mc": (3, 200 / 3), "count": (4, 50.0), "all": (11, 600 / 11)},
    H2: {"yesno": (2, 50.0), "count": (1, 100.0), "all": (3, 200 / 3)},
}


# ------------------------------------------------------------------------------------------------
# The paths
# ------------------------------------------------------------------------------------------------


def _score_cli(w: Written) -> Accuracies:
    """``graphniah score``: one table per settings hash, rows ``task | n | accuracy % | CI``."""
    from typer.testing import CliRunner

    from graphniah.cli import app

    res = CliRunner().invoke(app, ["score", "--model", MODEL, "--suite", SUITE, "--runs", str(w.runs)],
                             env={"COLUMNS": "250"})
    assert res.exit_code == 0, res.output
    out: Accuracies = {}
    current = None
    for line in res.output.splitlines():
        if (t := re.search(r"settings ([0-9a-f]{12})\)", line)) is not None:
            current = next(h for h in (H1, H2) if h.startswith(t.group(1)))
            out[current] = {}
        cells = [c.strip() for c in re.split(r"[│┃]", line)[1:-1]]
        if current and len(cells) == 4 and cells[0] in (*TASKS, "all"):
            out[current][cells[0]] = (int(cells[1]), float(cells[2]))
    return out


def _demo_table(w: Written) -> Accuracies:
    """The demo's accuracy table (``graphniah demo``), built from ``journal_score`` per settings hash."""
    from rich.console import Console

    from graphniah.demo import accuracy_table, journal_score

    out: Accuracies = {}
    for h in (H1, H2):
        table = accuracy_table({MODEL: journal_score(w.runs, SUITE, MODEL, h)}, {t: 0.5 for t in TASKS}, "t")
        console = Console(record=True, width=250)
        console.print(table)
        row = next(line for line in console.export_text().splitlines() if line.strip().startswith(("│ m ", "┃ m ")))
        cells = [c.strip() for c in re.split(r"[│┃]", row)[2:-1]]
        out[h] = {}
        for key, cell in zip((*TASKS, "all"), cells, strict=True):
            if cell != "—":
                pct, n = re.fullmatch(r"([\d.]+) \[.*\] n=(\d+)", cell).groups()  # type: ignore[union-attr]
                out[h][key] = (int(n), float(pct))
    return out


_COLUMN = {"YES/NO": "yesno", "Multiple choice": "mc", "Counting": "count", "Overall": "all"}


def _report(w: Written) -> Accuracies:
    """``graphniah report``: the loader and the accuracy table (one row per run)."""
    from graphniah.report import build_report, load_suite

    data = load_suite(SUITE, runs_root=w.runs, examples_root=w.examples_root, by="task")
    table = build_report(data).table("accuracy")
    out: Accuracies = {}
    for run in data.runs:
        out[run.settings_hash] = {}
        for col, key in _COLUMN.items():
            try:
                v = table.value(run.label, col, "accuracy")
            except KeyError:
                continue
            if v.n:
                out[run.settings_hash][key] = (v.n, 100 * v.k / v.n)
    return out


def _notebook(w: Written, monkeypatch: pytest.MonkeyPatch) -> Accuracies:
    """``analysis/report.py``: its code cells, executed in this process, then its table of answers."""
    import jupytext

    for k, v in {"GRAPHNIAH_SUITE": SUITE, "GRAPHNIAH_RUNS": str(w.runs), "GRAPHNIAH_EXAMPLES": str(w.examples_root),
                 "GRAPHNIAH_BY": "task"}.items():
        monkeypatch.setenv(k, v)
    nb = jupytext.read(Path(__file__).resolve().parents[1] / "analysis" / "report.py")
    ns: dict = {}
    for cell in nb.cells:
        if cell.cell_type == "code":
            exec(compile(cell.source, "analysis/report.py", "exec"), ns)  # the notebook's own code
    answers, data = ns["answers"], ns["data"]
    out: Accuracies = {}
    for run_index, run in enumerate(data.runs):
        mine = answers[answers["run"] == run_index]
        out[run.settings_hash] = {"all": (len(mine), 100 * mine["correct"].mean())}
        for task, group in mine.groupby("task"):
            out[run.settings_hash][str(task)] = (len(group), 100 * group["correct"].mean())
    return out


def _hash_of(label: str) -> str:
    """The settings hash a report/viewer run label names (``m [11111111]``: two runs of one model)."""
    return next(h for h in (H1, H2) if f"[{h[:8]}]" in label)


def _dataset(w: Written) -> Accuracies:
    """A colleague with only the exported dataset: ``graphniah report --dataset DIR --runs RUNS``, then
    the report's own ``cells.csv`` (``k``/``n`` per run and column: no rounding to parse back)."""
    import csv

    from typer.testing import CliRunner

    from graphniah.cli import app

    out = w.root / "dataset-report"
    res = CliRunner().invoke(app, ["report", "--dataset", str(w.dataset), "--runs", str(w.runs), "--out", str(out),
                                   "--by", "task", "--no-figures", "--no-html"], env={"COLUMNS": "250"})
    assert res.exit_code == 0, res.output
    got: Accuracies = {H1: {}, H2: {}}
    with open(out / "cells.csv", newline="", encoding="utf-8") as f:
        for row in csv.DictReader(f):
            if row["table"] == "accuracy" and row["column"] in _COLUMN and row["n"] and int(row["n"]):
                got[_hash_of(row["row"])][_COLUMN[row["column"]]] = (int(row["n"]), 100 * int(row["k"]) / int(row["n"]))
    return got


def _inspect_scorer(w: Written) -> Accuracies:
    """The inspect_ai task's scorer and metrics (``graphniah.integrations.inspect_task``) on each counted answer.

    The samples are the task's own (``dataset_samples`` over the exported folder); each becomes the
    ``TaskState`` inspect hands a scorer after ``generate()``, its output the counted record's response
    text. An example whose counted record failed has no reply: inspect records such a sample as an
    error and leaves it out of the metrics (``fail_on_error=False``; by default the whole eval fails),
    so it gets no state here either, matching the rule that failures are counted apart.
    """
    import asyncio

    from inspect_ai.model import ModelName, ModelOutput
    from inspect_ai.scorer import SampleScore, Target
    from inspect_ai.solver import TaskState

    from graphniah.formats.journal import read_journal
    from graphniah.integrations.inspect_task import dataset_samples, graphniah_scorer, task_accuracy
    from graphniah.scoring import counted_records, split_runs

    samples = {s.id: s for s in dataset_samples(str(w.dataset))}
    assert set(samples) == {e.id for e in w.examples}
    score = graphniah_scorer()
    out: Accuracies = {}
    for (_, h), recs in split_runs(read_journal(w.runs / SUITE / f"{MODEL}.jsonl")).items():
        scores = []
        for eid, r in counted_records(recs).items():
            if r.status != "ok":
                continue
            s = samples[eid]
            state = TaskState(ModelName(f"mockllm/{MODEL}"), s.id, 1, s.input, list(s.input), target=Target(s.target),
                              output=ModelOutput.from_content(f"mockllm/{MODEL}", r.response or ""), metadata=s.metadata)
            scores.append(SampleScore(score=asyncio.run(score(state, Target(s.target))), sample_id=s.id,
                                      sample_metadata=s.metadata))
        metrics = task_accuracy(scores)
        n = {"all": len(scores)} | {t: sum(sc.sample_metadata["task"] == t for sc in scores) for t in TASKS}
        out[h] = {k: (n[k], 100 * metrics[k]) for k in ("all", *TASKS) if k in metrics}
    return out


def _inspect_eval(w: Written) -> Accuracies:
    """``inspect eval graphniah/graphniah`` itself: the task over the exported folder, run by inspect's
    eval loop with its ``mockllm`` model answering each sample with the run's counted response (found
    by the prompt's text). An example whose counted record failed, or that the run never answered,
    makes the model call raise: inspect records a sample error and, with ``fail_on_error=False``,
    leaves the sample out of the metrics, which is the rule's treatment of failures."""
    from inspect_ai import eval as inspect_eval
    from inspect_ai.model import ModelOutput, ModelUsage, get_model

    from graphniah.formats.journal import read_journal
    from graphniah.integrations.inspect_task import graphniah as graphniah_task
    from graphniah.scoring import counted_records, split_runs
    from graphniah.text import load_tokenizer

    tok = load_tokenizer("o200k_base")
    prompt_of = {e.id: e.messages[-1].content for e in w.examples}
    out: Accuracies = {}
    for (_, h), recs in split_runs(read_journal(w.runs / SUITE / f"{MODEL}.jsonl")).items():
        reply = {prompt_of[eid]: r.response or "" for eid, r in counted_records(recs).items() if r.status == "ok"}

        def answer(messages, tools, tool_choice, config, reply=reply):  # mockllm's per-call output
            text = messages[-1].text
            if text not in reply:
                raise RuntimeError("the run has no answer to this example (failed or not run)")
            out = ModelOutput.from_content("mockllm/model", reply[text])
            # given usage, mockllm does not count tokens itself with tiktoken, which would download the
            # encoding; the project's local o200k_base counts them instead (the same encoding)
            n_in, n_out = sum(tok.count(m.text) for m in messages), tok.count(reply[text])
            out.usage = ModelUsage(input_tokens=n_in, output_tokens=n_out, total_tokens=n_in + n_out)
            return out

        [log] = inspect_eval(graphniah_task(dataset=str(w.dataset)), model=get_model("mockllm/model", custom_outputs=answer),
                             fail_on_error=False, log_dir=str(w.root / "inspect-logs" / h[:8]), display="none",
                             log_format="json", max_samples=2)
        assert log.results is not None and log.samples is not None
        [ev] = log.results.scores
        metrics = {k: m.value for k, m in ev.metrics.items()}
        answered = [s for s in log.samples if s.error is None]
        assert len(answered) == len(reply) and metrics["accuracy"] == pytest.approx(metrics["all"])
        n = {"all": len(answered)} | {t: sum(s.metadata["task"] == t for s in answered) for t in TASKS}
        out[h] = {k: (n[k], 100 * metrics[k]) for k in ("all", *TASKS) if k in metrics}
    return out


def _viewer(w: Written) -> Accuracies:
    """``graphniah view``: the index's rows (``outcomes``: one c/w/f/- per run) aggregated as ``view.js``
    does: accuracy = correct / (correct + wrong), failed and not-run apart."""
    import json

    from graphniah.view.pages import build_viewer

    files = build_viewer(w.examples_root / f"{SUITE}.jsonl", w.root / "viewer", runs=w.runs / SUITE, snapshots=w.snapshots)
    text = (files.out / "data.js").read_text(encoding="utf-8")
    prefix = "GraphNIAHView.index("
    assert text.startswith(prefix) and text.rstrip().endswith(");")
    index = json.loads(text[len(prefix):text.rstrip().rindex(")")])
    col = {name: i for i, name in enumerate(index["columns"])}
    out: Accuracies = {}
    for i, run in enumerate(index["runs"]):
        kn: dict[str, list[int]] = {}
        for row in index["rows"]:
            code = row[col["outcomes"]][i]
            if code in "cw":
                for key in (row[col["task"]], "all"):
                    k_n = kn.setdefault(key, [0, 0])
                    k_n[0] += code == "c"
                    k_n[1] += 1
        out[run["settings_hash"]] = {key: (n, 100 * k / n) for key, (k, n) in kn.items()}
    return out


PATHS: dict[str, Callable[..., Accuracies]] = {
    "graphniah score": _score_cli,
    "demo table": _demo_table,
    "graphniah report": _report,
    "notebook analysis/report.py": _notebook,
    "graphniah report --dataset (exported dataset)": _dataset,
    "inspect_ai scorer": _inspect_scorer,
    "inspect eval (mockllm)": _inspect_eval,
    "graphniah view index": _viewer,
}


@pytest.mark.parametrize("name", list(PATHS))
def test_every_path_gives_the_one_accuracy(name, written, monkeypatch):
    fn = PATHS[name]
    got = fn(written, monkeypatch) if "monkeypatch" in fn.__code__.co_varnames else fn(written)
    assert set(got) == set(EXPECTED), name
    for h, cells in EXPECTED.items():
        assert set(got[h]) == set(cells), (name, h)
        for key, (n, pct) in cells.items():
            assert got[h][key][0] == n, (name, h, key)
            # the printed paths round to one or two decimals
            assert got[h][key][1] == pytest.approx(pct, abs=0.051), (name, h, key)


def test_inspect_score_on_error_would_count_a_failure_as_wrong(written):
    """The one place the rule can diverge, stated: inspect leaves errored samples out of its metrics
    by default (as the rule does), but ``inspect eval --score-on-error`` scores them, and a sample
    with no reply scores INCORRECT, so the multiple-choice accuracy of the first run would read 2/4,
    not the rule's 2/3. The task's docs should tell users not to pass that flag."""
    import asyncio

    from inspect_ai.model import ModelName
    from inspect_ai.scorer import INCORRECT, Target
    from inspect_ai.solver import TaskState

    from graphniah.integrations.inspect_task import dataset_samples, graphniah_scorer

    failed = written.examples[5]  # m[1]: only failed records
    s = next(x for x in dataset_samples(str(written.dataset), task="mc") if x.id == failed.id)
    state = TaskState(ModelName(f"mockllm/{MODEL}"), s.id, 1, s.input, list(s.input), target=Target(s.target), metadata=s.metadata)
    assert asyncio.run(graphniah_scorer()(state, Target(s.target))).value == INCORRECT
