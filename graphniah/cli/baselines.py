"""``graphniah baselines``: the shortcut baselines' answers to a suite, as journals (the evidence behind a verdict)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from graphniah.baselines import SHORTCUTS, TRAINING_PER_TASK
from graphniah.cli.app import app
from graphniah.cli.console import rich_console
from graphniah.cli.options import DEFAULT_SEED, PromptsOpt
from graphniah.errors import GraphNIAHError
from graphniah.layout import EXAMPLES_ROOT, RUNS_ROOT, SNAPSHOTS_ROOT


def _examples_of(suite: str | None, examples: Path | None, dataset: Path | None, examples_root: Path, runs: Path) -> tuple[str, Path, str]:
    """(suite name, examples file, what the settings file records) from exactly one of the three options
    (the project's one resolver, :func:`graphniah.layout.resolve_examples`)."""
    from graphniah.layout import resolve_examples, suite_name

    source = resolve_examples(suite=suite, examples=examples, dataset=dataset, examples_root=examples_root)
    if source.dataset is not None:
        from graphniah.dataset import materialize_examples

        ds, path = materialize_examples(source.dataset, runs)  # the rows as an examples file, hash-checked
        return ds.suite, path, str(source.dataset)
    assert source.examples is not None  # a suite's file or --examples (not a dataset)
    return source.suite or suite_name(source.examples), source.examples, str(source.examples)


@app.command("baselines")
def baselines_cmd(
    suite: Annotated[str | None, typer.Option(help="Suite name: reads <examples-root>/<suite>.jsonl.")] = None,
    examples: Annotated[Path | None, typer.Option(help="An examples JSONL file instead of a suite (suite name: the file's stem).")] = None,
    dataset: Annotated[Path | None, typer.Option(help="An exported dataset folder instead of a suite.")] = None,
    shortcut: Annotated[list[str] | None, typer.Option(help=f"Only this shortcut (repeatable): {', '.join(SHORTCUTS)}.")] = None,
    runs: Annotated[Path, typer.Option(help="Root of the run journals: writes <runs>/<suite>/baseline-<shortcut>.jsonl.")] = RUNS_ROOT,
    examples_root: Annotated[Path, typer.Option(help="Where suites live.")] = EXAMPLES_ROOT,
    seed: Annotated[int, typer.Option(help="Seed of the retrieval shortcut's guesses on examples its blocks leave open.")] = DEFAULT_SEED,
    prompts: PromptsOpt = None,
    root: Annotated[Path, typer.Option(help="Where snapshots live (learned-surface's training draw, when no suite manifest names the snapshot).")] = SNAPSHOTS_ROOT,
    training_per_task: Annotated[int, typer.Option(min=1, help="Questions per task of learned-surface's training draw.")] = TRAINING_PER_TASK,
) -> None:
    """Score the shortcut baselines from the example text alone and write each as a journal beside the models'."""
    from rich.table import Table

    from graphniah.atomic import check_output
    from graphniah.baselines import SHORTCUT_TASKS, ShortcutName
    from graphniah.baselines.journals import write_baselines
    from graphniah.baselines.shortcuts import accuracy
    from graphniah.formats.examples import read_examples
    from graphniah.text import load_prompts

    check_output(runs, "folder", "--runs")

    chosen: list[ShortcutName] = []
    for name in shortcut or SHORTCUTS:
        if name not in SHORTCUTS:
            raise GraphNIAHError(f"--shortcut {name!r}: not a shortcut; choose from {', '.join(SHORTCUTS)}")
        chosen.append(next(s for s in SHORTCUTS if s == name))
    name, path, source = _examples_of(suite, examples, dataset, examples_root, runs)
    pr = load_prompts(prompts)
    written = write_baselines(path, name, runs, shortcuts=chosen, seed=seed, prompts=pr, source=source, snapshots=root,
                              training_per_task=training_per_task)
    exs = read_examples(path)
    table = Table(title=f"Shortcut baselines on {path} (% with 95% Wilson intervals)")
    for col in ("shortcut", "task", "accuracy", "n", "journal"):
        table.add_column(col)
    for j in written:
        for task, p in accuracy(exs, j.answers).items():
            lo, hi = p.interval
            table.add_row(j.shortcut, task, f"{100 * p.estimate:.1f} [{100 * lo:.1f}, {100 * hi:.1f}]", str(p.n), str(j.path))
    rich_console().print(table)
    for j in written:
        tasks = SHORTCUT_TASKS[j.shortcut]
        left_out = sum(1 for ex in exs if (tasks is None or ex.task in tasks) and ex.id not in j.answers)
        if left_out:
            reads_titles = j.shortcut in ("title-similarity", "topic-cluster", "learned-surface")
            why = "edge-list examples name ids, not titles" if reads_titles else "their messages follow other templates"
            rich_console(stderr=True).print(f"note: {j.shortcut} left out {left_out} example(s) it cannot read ({why})", highlight=False)
