"""Every place that prints or returns an accuracy gives the same numbers for the same journal.

One suite, one journal written by the runner's own ``Journal``, built to separate the plausible
rules from the project's one rule (:mod:`graphniah.scoring`: the last ``ok`` record per example and
settings hash, re-scored from its response text; failures apart): a retried example (failed, then
ok), records whose stored ``correct`` disagrees with their text, examples with two ``ok`` records
that disagree, an example that only failed, and a second settings hash in the same journal.

Each path is one entry of ``PATHS``: a function from the written suite to
``{settings_hash: {task | "all": (n, accuracy %)}}``. Adding a path (the dataset export, the
inspect_ai scorer) is one more entry.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from graphniah.run.journal import Journal, RunRecord
from graphniah.sampling.examples.records import Example, write_examples
from tests.report.synthetic import make_example

MODEL, SUITE = "m", "s"
H1, H2 = "1" * 64, "2" * 64
TASKS = ("yesno", "mc", "count")

Accuracies = dict[str, dict[str, tuple[int, float]]]


@dataclass(frozen=True)
class Written:
    root: Path
    examples: list[Example]

    @property
    def runs(self) -> Path:
        return self.root / "runs"

    @property
    def examples_root(self) -> Path:
        return self.root / "examples"


def _rec(ex: Example, status: str, text: str | None = None, *, h: str = H1, stored: bool | None = None) -> RunRecord:
    return RunRecord(example_id=ex.id, model=MODEL, settings_hash=h, status=status, task=ex.task, answer=ex.answer,
                     response=text, attempts=1, finished_at="2026-11-01T00:00:00+00:00",
                     extracted=None, correct=stored)


def _ans(x: str) -> str:
    return f"Thinking it over.\n\\answer{{{x}}}"


@pytest.fixture(scope="module")
def written(tmp_path_factory) -> Written:
    root = tmp_path_factory.mktemp("one-accuracy")
    y = [make_example("yesno", 4, 100 + i, lab, seed=0, index=i) for i, lab in enumerate(("YES", "NO", "YES", "NO"))]
    m = [make_example("mc", 4, 110 + i, lab, seed=0, index=10 + i) for i, lab in enumerate("ABCD")]
    c = [make_example("count", 4, 120 + i, str(119 + i), seed=0, index=20 + i) for i in range(4)]
    write_examples(root / "examples" / f"{SUITE}.jsonl", [*y, *m, *c])
    records = [
        # YES/NO: 2 of 4 right by the rule
        _rec(y[0], "failed"), _rec(y[0], "ok", _ans("YES"), stored=True),  # retried: counts, right
        _rec(y[1], "ok", _ans("YES"), stored=True),  # stored correct disagrees with the text: wrong
        _rec(y[2], "ok", _ans("YES"), stored=True), _rec(y[2], "ok", _ans("NO"), stored=False),  # last ok: wrong
        _rec(y[3], "ok", _ans("\\textbf{no}."), stored=False),  # an older rule said wrong; today's says right
        # multiple choice: 2 of 3 answered (one example only failed)
        _rec(m[0], "ok", _ans("(A)"), stored=True),
        _rec(m[1], "failed"), _rec(m[1], "failed"),  # never answered: failed, not in the accuracy
        _rec(m[2], "ok", _ans("A"), stored=False), _rec(m[2], "ok", _ans("C"), stored=True),  # last ok: right
        _rec(m[3], "ok", "I cannot tell.", stored=True),  # no answer block: wrong
        _rec(m[0], "failed"),  # a later failure does not undo an answer
        # counting: 2 of 4
        _rec(c[0], "ok", _ans("119"), stored=True),
        _rec(c[1], "ok", _ans("about 120"), stored=True),  # not a number: wrong
        _rec(c[2], "failed"), _rec(c[2], "ok", _ans("1,21") + " then " + _ans("121"), stored=False),  # right
        _rec(c[3], "ok", _ans("100"), stored=True),
        # a second settings hash of the same model in the same journal: its own run
        _rec(y[0], "ok", _ans("NO"), h=H2, stored=True), _rec(y[1], "ok", _ans("NO"), h=H2),
        _rec(c[0], "ok", _ans("119"), h=H2), _rec(m[0], "failed", h=H2),
    ]
    with Journal(root / "runs" / SUITE / f"{MODEL}.jsonl") as j:
        j.append(records)
    return Written(root, [*y, *m, *c])


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


PATHS: dict[str, Callable[..., Accuracies]] = {
    "graphniah score": _score_cli,
    "demo table": _demo_table,
    "graphniah report": _report,
    "notebook analysis/report.py": _notebook,
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
