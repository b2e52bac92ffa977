"""Loading a suite's journals and examples into one typed table of scored answers.

A suite is ``examples/<suite>.jsonl`` (one example per line) plus ``runs/<suite>/<model>.jsonl``
(one record per finished call, written by :mod:`graphniah.run`). The report needs, for every
(example, model, settings) that was answered, the example's design variables (task, depth,
component size, distractor, context length, ...) next to the model's answer. This module builds
exactly that: :class:`Outcomes`, one row per answered (example, run), column-oriented in numpy
arrays so that every table is a few vectorised group-bys.

Choices, and why:

* **Which record counts, and its score**, come from :mod:`graphniah.scoring`, the one path every
  accuracy of the project takes: per (example, model, settings) the last ``ok`` record counts
  (:func:`~graphniah.scoring.counted_records`), re-scored from its response text
  (:func:`~graphniah.scoring.score_record`); an example with records but no ``ok`` one is a failure
  of that run and is counted apart (never as a wrong answer), like the paper's "#Examples counts
  the examples that the model answered". A record whose task or truth differs from the examples
  file's is an error (the journal belongs to other examples).
* **One model per file format.** Examples are read through
  :class:`~graphniah.formats.examples.Example` and journals through
  :class:`~graphniah.formats.journal.RunRecord` (both versioned, see :mod:`graphniah.formats`), so a
  line the runner or the sampler would reject is rejected here too, naming file and line. A
  trailing partial journal line (a run interrupted mid-write) is ignored, as the runner does.
* **The varied variable** is ``by=`` when given, else the suite manifest's
  (``examples/<suite>.json`` written by :func:`graphniah.sampling.suites.build_suite`: ``suite.vary``), else it is
  inferred (:func:`infer_variable`).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from graphniah.atomic import canonical_json, sha256_bytes
from graphniah.errors import GraphNIAHError
from graphniah.formats import EFFORTS, TASK_LABELS, TASKS
from graphniah.formats.examples import Example, enumerate_examples
from graphniah.formats.journal import RunRecord, read_journal, read_run_settings
from graphniah.formats.suites import SuiteManifest, read_suite_manifest
from graphniah.layout import EXAMPLES_ROOT, RUNS_ROOT, journals_dir, journals_in, suite_examples, suite_manifest_of
from graphniah.scoring import Scored, counted_records, run_labels, score_record, split_runs, target_distances
from graphniah.text.prompts import answer_format

if TYPE_CHECKING:
    import pyarrow as pa

__all__ = [
    "RUN_VARIABLES",
    "VARIABLES",
    "ExampleInfo",
    "Outcomes",
    "RunInfo",
    "SuiteData",
    "infer_variable",
    "level_label",
    "load_suite",
    "read_example_infos",
]

#: Variables an experiment can vary (the paper's §4.1), in the order inference prefers them.
VARIABLES = ("depth", "component_size", "context_length", "distractor", "task", "render", "none_option", "reasoning_effort")
#: Variables that belong to the run (the model's settings), not to the example.
RUN_VARIABLES = frozenset({"reasoning_effort"})
_MAX_LEVELS = 25  # a varied variable has a handful of values; a randomly drawn size has ~150
_TASK_ORDER: dict[str, int] = {t: i for i, t in enumerate(TASKS)}
_EFFORT_ORDER: dict[str, int] = {e: i for i, e in enumerate(EFFORTS)}
VARIABLE_TITLES = {
    "depth": "Question depth k",
    "component_size": "Component size",
    "context_length": "Target context length (tokens)",
    "distractor": "Distractor type",
    "task": "Task",
    "none_option": "'None of these' option",
    "reasoning_effort": "Reasoning effort",
    "render": "Rendering of the papers",
}


# ------------------------------------------------------------------------------------------------
# Examples
# ------------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ExampleInfo:
    """What the report needs of one example (its prompt is never kept).

    ``pair_key`` identifies the example up to its "none of these" option: the hash of its recipe
    with ``none_option`` removed. Two examples with the same key differ only in that option (same
    snapshot, pool, seed, index and parameters, hence the same context and candidates), which is
    how the before/after comparison of the paper's Table 17 pairs them.
    """

    id: str
    task: str
    depth: int
    component_size: int
    answer: str
    none_option: bool
    n_options: int
    distractor: str
    context_length: int | None
    alpha: float | None
    pair_key: str
    token_counts: Mapping[str, int] | None = None
    nodes: int = 0  # papers rendered in the context (the task's components and distractor components)
    evidence_tokens: int | None = None  # ExampleStats: None for examples that did not record it
    hops_needed: int | None = None
    distances: tuple[int, ...] = ()  # list task: hops from the source of the paper of each answer line
    render: str = "apa"  # how the papers are written: APA blocks or an edge list of ids
    template: str = "default"  # the template set the prompt is worded in (graphniah.report.wording)
    wording_key: str = ""  # the recipe without the wording: equal for one example asked in several sets
    # The matched-sampling rules its recipe records (keys ``match_*`` that are set, e.g. match_similarity,
    # match_learned): what the report can say about the example's balance (graphniah.report.balance).
    matching: tuple[str, ...] = ()


def _example_info(ex: Example) -> ExampleInfo:
    params = ex.recipe.params
    recipe = ex.recipe.model_dump(mode="json")
    matching = tuple(k for k, v in recipe["params"].items() if k.startswith("match_") and v)
    key_params = {k: v for k, v in recipe.pop("params").items() if k != "none_option"}
    pair_key = sha256_bytes(canonical_json(recipe | {"params": key_params, "task": ex.task}).encode())[:16]
    unworded = {k: v for k, v in recipe.items() if k != "prompts_hash"} | {
        "params": {k: v for k, v in ex.recipe.model_dump(mode="json")["params"].items() if k != "template"}}
    return ExampleInfo(
        id=ex.id,
        task=ex.task,
        depth=ex.depth,
        component_size=ex.component_size,
        answer=ex.answer,
        none_option=ex.none_option,
        n_options=len(ex.options) if ex.task == "mc" else 0,
        distractor=params.distractor,
        context_length=params.context_length,
        alpha=params.alpha,
        pair_key=pair_key,
        token_counts=ex.token_counts,
        render=params.render,
        template=params.template,
        wording_key=sha256_bytes(canonical_json(unworded | {"task": ex.task}).encode())[:16],
        nodes=ex.stats.nodes,
        evidence_tokens=ex.stats.evidence_tokens,
        hops_needed=ex.stats.hops_needed,
        distances=_target_distances(ex),
        matching=matching,
    )


def _target_distances(ex: Example) -> tuple[int, ...]:
    """For a list example: the shortest distance from the source of each answer line's paper."""
    if ex.task != "list":
        return ()
    return target_distances(ex.edges, ex.source, ex.targets)


def read_example_infos(path: str | os.PathLike[str]) -> dict[str, ExampleInfo]:
    """``{id: ExampleInfo}`` of an examples JSONL file, read through the one :class:`Example` model.

    Duplicate ids and an empty file are errors.
    """
    p = Path(path)
    out: dict[str, ExampleInfo] = {}
    for lineno, ex in enumerate_examples(p):
        if ex.id in out:
            raise GraphNIAHError(f"{p}:{lineno}: example id {ex.id} appears twice")
        out[ex.id] = _example_info(ex)
    if not out:
        raise GraphNIAHError(f"examples file {p} holds no examples")
    return out


def _num(value: float | int | None) -> float:
    return float("nan") if value is None else float(value)


# ------------------------------------------------------------------------------------------------
# The typed table
# ------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class RunInfo:
    """One model at one settings hash: a row of the paper's tables (unless effort is the variable)."""

    label: str
    model: str
    settings_hash: str
    reasoning_effort: str | None
    journal: Path
    answered: int
    failed: tuple[str, ...]  # examples with records but no ok record


@dataclass(frozen=True)
class Outcomes:
    """One row per answered (example, run): design variables, the answer, and usage.

    All columns are numpy arrays of equal length. Missing numbers are NaN; ``predicted`` is the
    counting answer as a number (NaN when the task is not counting or no number was given).
    """

    example_id: np.ndarray  # str
    run: np.ndarray  # int: index into SuiteData.runs
    task: np.ndarray  # str: yesno | mc | count | list
    depth: np.ndarray  # int
    component_size: np.ndarray  # int
    answer: np.ndarray  # str (the truth)
    none_option: np.ndarray  # bool
    n_choices: np.ndarray  # int: answer options a guesser picks from (2 | options(+1) | 0 for counting)
    distractor: np.ndarray  # str
    context_length: np.ndarray  # float (NaN: none)
    reasoning_effort: np.ndarray  # str ("" when unknown)
    pair_key: np.ndarray  # str
    extracted: np.ndarray  # object: str | None
    correct: np.ndarray  # bool
    predicted: np.ndarray  # float
    prompt_tokens: np.ndarray  # float
    completion_tokens: np.ndarray  # float
    reasoning_tokens: np.ndarray  # float
    cost_usd: np.ndarray  # float
    response_time_s: np.ndarray  # float
    attempts: np.ndarray  # int
    f1: np.ndarray  # float: the list answer's F1 (NaN for the other tasks)
    evidence_tokens: np.ndarray  # float: the example's evidence tokens (NaN: not recorded)
    hops_needed: np.ndarray  # float: the example's hops needed (NaN: not recorded)
    hits: np.ndarray  # object: list task, per answer line of the truth whether it was named (None otherwise)
    batched: np.ndarray  # bool: answered through a provider batch (graphniah run --batch), at the batch price

    def __len__(self) -> int:
        return int(self.example_id.size)

    def columns(self) -> dict[str, np.ndarray]:
        return {name: getattr(self, name) for name in self.__dataclass_fields__}

    def to_arrow(self) -> pa.Table:
        """The table as a pyarrow Table (nullable columns where the arrays hold NaN/None)."""
        import pyarrow as pa

        cols = {}
        for name, arr in self.columns().items():
            if arr.dtype.kind == "f":
                cols[name] = pa.array(arr, from_pandas=True)  # NaN -> null
            elif name == "hits":
                cols[name] = pa.array([None if h is None else list(h) for h in arr.tolist()], type=pa.list_(pa.bool_()))
            elif arr.dtype.kind == "O":
                cols[name] = pa.array(arr.tolist(), type=pa.string())
            else:
                cols[name] = pa.array(arr)
        return pa.table(cols)

    def to_pandas(self) -> Any:
        """The table as a pandas DataFrame (typed Any: pandas, from the ``analysis`` extra, has no type information)."""
        return self.to_arrow().to_pandas()


@dataclass(frozen=True)
class SuiteData:
    """A suite's answers (``outcomes``), its examples, its runs, and the varied variable.

    ``row``/``row_labels`` give the table row of every outcome: the run, or the model when the
    varied variable is a run setting (reasoning effort: one row per model, one column per effort).
    ``value``/``levels`` give the column: the index of the outcome's value of the varied variable
    in ``levels`` (display labels, in the paper's order).
    """

    suite: str
    examples_path: Path
    runs_dir: Path
    examples: Mapping[str, ExampleInfo]
    runs: tuple[RunInfo, ...]
    outcomes: Outcomes
    variable: str
    variable_source: str
    row: np.ndarray
    row_labels: tuple[str, ...]
    value: np.ndarray
    levels: tuple[str, ...]
    unknown_examples: int = 0
    notes: tuple[str, ...] = field(default=())
    size_range: tuple[int, int] | None = None  # component sizes drawn from this range (suite manifest)
    data_source: str | None = None  # the snapshot's source, release and cutoff (suite manifest), for the report's head
    # A suite built with ``base: true``: the answers on the examples' no-distractor twins (each
    # model's base accuracy, graphniah.report.effective), kept out of ``outcomes`` (:func:`split_base`).
    base: Outcomes | None = None

    @property
    def variable_title(self) -> str:
        return VARIABLE_TITLES.get(self.variable, self.variable)

    def example_value(self, info: ExampleInfo) -> str:
        """The level label of an example (example-level variables only)."""
        return level_label(self.variable, _raw_example_value(info, self.variable))


def _raw_example_value(info: ExampleInfo, variable: str) -> Any:
    if variable == "reasoning_effort":
        raise ValueError("reasoning effort is a run setting, not an example field")
    return getattr(info, variable)


def level_label(variable: str, raw: Any) -> str:
    """How a value of a variable is printed: tasks by name, context lengths as 200k, ..."""
    if variable == "task":
        return TASK_LABELS.get(str(raw), str(raw))
    if variable == "context_length":
        if raw is None or (isinstance(raw, float) and np.isnan(raw)):
            return "none"
        v = int(raw)
        return f"{v // 1000}k" if v % 1000 == 0 else f"{v:,}"
    if variable == "none_option":
        return "with 'none'" if raw else "without"
    if variable == "reasoning_effort":
        return str(raw) if raw else "default"
    return str(raw)


def _sort_key(variable: str, raw: Any) -> tuple[int, float | str]:
    if variable == "task":
        return (_TASK_ORDER.get(str(raw), 9), str(raw))
    if variable == "reasoning_effort":
        return (_EFFORT_ORDER.get(str(raw), 9), str(raw))
    if variable == "context_length":
        return (0, float("inf")) if raw is None else (0, float(raw))
    if isinstance(raw, bool | np.bool_):
        return (0, int(raw))
    if isinstance(raw, int | float | np.integer | np.floating):
        return (0, float(raw))
    return (1, str(raw))


def infer_variable(examples: Sequence[ExampleInfo], efforts_per_model: Mapping[str, set[str]]) -> tuple[str, str]:
    """The variable a suite varies, and a sentence saying how it was found.

    The paper varies one variable per experiment and draws the others independently at random,
    so the varied one is the variable whose values have *exactly equal* counts (the design fixes
    them); the random ones rarely come out exactly equal. In order:

    1. reasoning effort, when some model was run at several efforts;
    2. the "none of these" option, when examples come in pairs differing only in it;
    3. the first of depth, component size, context length, distractor, task whose values (at
       least two, at most 25, each at least twice) all occur equally often;
    4. the first of those that takes between two and 25 values (a size drawn from [100, 250]
       takes far more: it is never the varied variable by accident);
    5. task (a one-column table).
    """
    if any(len(e) > 1 for e in efforts_per_model.values()):
        return "reasoning_effort", "inferred: a model was run at several reasoning efforts"
    keys: dict[str, set[bool]] = {}
    for ex in examples:
        keys.setdefault(ex.pair_key, set()).add(ex.none_option)
    if any(len(v) == 2 for v in keys.values()):
        return "none_option", "inferred: examples come in pairs with and without the 'none of these' option"
    counts: dict[str, dict[Any, int]] = {var: {} for var in VARIABLES if var not in ("none_option", "reasoning_effort")}
    for ex in examples:
        for var, c in counts.items():
            v = _raw_example_value(ex, var)
            c[v] = c.get(v, 0) + 1
    for var, c in counts.items():
        if 2 <= len(c) <= _MAX_LEVELS and len(set(c.values())) == 1 and min(c.values()) >= 2:
            return var, f"inferred: the only or first variable whose {len(c)} values occur equally often ({next(iter(c.values()))} each)"
    for var, c in counts.items():
        if 2 <= len(c) <= _MAX_LEVELS:
            return var, f"inferred: the first variable that takes several values ({len(c)}); pass --by to choose another"
    return "task", "inferred: no variable takes several values"


def _read_manifest(examples_path: Path) -> SuiteManifest | None:
    """The suite manifest ``<suite>.json`` next to the examples (written by ``graphniah build``), if any,
    read through :class:`graphniah.formats.suites.SuiteManifest`."""
    manifest = suite_manifest_of(examples_path)
    if not manifest.is_file():
        return None
    return read_suite_manifest(manifest)


def _data_source(manifest: SuiteManifest) -> str:
    """Where a suite's papers come from: the source (S2AG or OpenAlex), release and cutoff of its
    snapshot, and whether it is the synthetic demo; only the hash when the snapshot is not at hand."""
    from graphniah.formats.snapshot import MANIFEST_FILE, read_snapshot_manifest, source_label

    demo = " (SYNTHETIC demo data)" if manifest.synthetic else ""
    path = Path(manifest.snapshot) / MANIFEST_FILE
    try:
        m = read_snapshot_manifest(path)
    except (GraphNIAHError, OSError):
        return f"snapshot {manifest.snapshot_hash[:12]}{demo}"
    return f"{source_label(m)} release {m.release_id}, papers published on or after {m.cutoff.isoformat()}{demo}"


def _manifest_size_range(manifest: SuiteManifest) -> tuple[int, int]:
    """The range component sizes are drawn from (``suite.draw.component_size``)."""
    r = manifest.suite.draw.component_size
    return r.min, r.max


def _choices(info: ExampleInfo) -> int:
    if info.task == "yesno":
        return 2
    if info.task == "mc":
        return (info.n_options or 4) + int(info.none_option)
    return 0


def load_suite(
    suite: str,
    *,
    runs_root: str | os.PathLike[str] = RUNS_ROOT,
    examples_root: str | os.PathLike[str] = EXAMPLES_ROOT,
    examples_path: str | os.PathLike[str] | None = None,
    by: str | None = None,
) -> SuiteData:
    """Read ``<examples_root>/<suite>.jsonl`` and every journal ``<runs_root>/<suite>/*.jsonl``.

    ``by`` overrides the varied variable (else the suite manifest's, else inferred). Records of
    examples that are not in the examples file are left out and counted in ``unknown_examples``.
    """
    ex_path = Path(examples_path) if examples_path is not None else suite_examples(examples_root, suite)
    runs_dir = journals_dir(runs_root, suite)
    examples = read_example_infos(ex_path)
    journals = journals_in(runs_dir) if runs_dir.is_dir() else []
    if not journals:
        raise GraphNIAHError(f"no journals in {runs_dir}/ (run `graphniah run --suite {suite} --model NAME` first)")
    rec = _read_journals(journals, examples, ex_path)
    final = rec.final

    efforts: dict[str, set[str]] = {}
    effort_of_run: dict[tuple[str, str], str | None] = {}
    for run_key in rec.order:
        eff = _run_effort(run_key, [r for k, (r, _) in final.items() if k[:2] == run_key], rec.journal_of[run_key])
        effort_of_run[run_key] = eff
        efforts.setdefault(run_key[0], set()).add(eff or "")

    manifest = _read_manifest(ex_path)
    variable, source = _varied_variable(by, manifest, ex_path, examples, efforts)
    runs, run_index = _run_infos(rec, effort_of_run)
    outcomes = _outcomes(final, examples, run_index, effort_of_run)
    row_labels, row, value, levels = _rows_and_values(variable, runs, outcomes, examples)
    notes: list[str] = []
    if rec.unknown:
        notes.append(f"{len(rec.unknown)} journal record(s) name examples that are not in {ex_path}; they are left out")
    notes.extend(f"{run.label}: {len(run.failed)} example(s) failed for good and are not counted" for run in runs if run.failed)
    return split_base(SuiteData(
        suite=suite,
        examples_path=ex_path,
        runs_dir=runs_dir,
        examples=examples,
        runs=tuple(runs),
        outcomes=outcomes,
        variable=variable,
        variable_source=source,
        row=row,
        row_labels=row_labels,
        value=value,
        levels=levels,
        unknown_examples=len(rec.unknown),
        notes=tuple(notes),
        size_range=_manifest_size_range(manifest) if manifest is not None else None,
        data_source=_data_source(manifest) if manifest is not None else None,
    ), manifest)


@dataclass(frozen=True)
class _JournalRecords:
    """The records that count, per run (model, settings hash), from a suite's journals."""

    final: dict[tuple[str, str, str], tuple[RunRecord, Scored]]  # (model, hash, example id) -> ok record, score
    failed: dict[tuple[str, str], set[str]]  # run -> examples whose counted record is a failure
    journal_of: dict[tuple[str, str], Path]  # run -> the first journal it appears in
    order: list[tuple[str, str]]  # runs in the order they are first seen
    unknown: set[tuple[str, str, str]]  # records of examples not in the examples file


def _read_journals(journals: Sequence[Path], examples: Mapping[str, ExampleInfo], ex_path: Path) -> _JournalRecords:
    """Which record of an example counts, and its score: graphniah.scoring's one rule."""
    rec = _JournalRecords({}, {}, {}, [], set())
    for path in journals:
        records = read_journal(path)  # complete records only, each validated by RunRecord
        for run_key, run_records in split_runs(records).items():
            if run_key not in rec.journal_of:
                rec.journal_of[run_key] = path
                rec.order.append(run_key)
            known = []
            for r in run_records:
                info = examples.get(r.example_id)
                if info is None:
                    rec.unknown.add((r.model, r.settings_hash, r.example_id))
                    continue
                if (r.task, r.answer) != (info.task, info.answer):
                    raise GraphNIAHError(
                        f"{path}: the record of example {r.example_id} has task {r.task} and answer {r.answer!r}, but "
                        f"{ex_path} says {info.task} and {info.answer!r}; the journal belongs to other examples"
                    )
                known.append(r)
            for example_id, r in counted_records(known).items():
                if r.status == "ok":
                    rec.final[(*run_key, example_id)] = (r, score_record(r, answer_format(examples[example_id].template)))
                else:
                    rec.failed.setdefault(run_key, set()).add(example_id)
    return rec


def _varied_variable(
    by: str | None, manifest: SuiteManifest | None, ex_path: Path, examples: Mapping[str, ExampleInfo], efforts: dict[str, set[str]]
) -> tuple[str, str]:
    """The varied variable and where it came from: ``--by``, else the suite manifest, else inferred."""
    if by is not None:
        variable, source = by, "chosen with --by"
    elif manifest is not None:
        variable, source = manifest.suite.vary, f"from the suite manifest {suite_manifest_of(ex_path)}"
    else:
        variable, source = infer_variable(list(examples.values()), efforts)
    if variable not in VARIABLES:
        raise GraphNIAHError(f"unknown varied variable {variable!r} ({source}); choose one of {', '.join(VARIABLES)}")
    return variable, source


def _run_infos(rec: _JournalRecords, effort_of_run: dict[tuple[str, str], str | None]) -> tuple[list[RunInfo], dict[tuple[str, str], int]]:
    """One :class:`RunInfo` per run, in first-seen order, and each run's index."""
    runs: list[RunInfo] = []
    run_index: dict[tuple[str, str], int] = {}
    for run_key, label in zip(rec.order, run_labels(rec.order, effort_of_run), strict=True):
        model, h = run_key
        answered_ids = {k[2] for k in rec.final if k[:2] == run_key}
        run_index[run_key] = len(runs)
        runs.append(
            RunInfo(
                label=label,
                model=model,
                settings_hash=h,
                reasoning_effort=effort_of_run[run_key],
                journal=rec.journal_of[run_key],
                answered=len(answered_ids),
                failed=tuple(sorted(rec.failed.get(run_key, set()) - answered_ids)),
            )
        )
    return runs, run_index


def _rows_and_values(
    variable: str, runs: Sequence[RunInfo], outcomes: Outcomes, examples: Mapping[str, ExampleInfo]
) -> tuple[tuple[str, ...], np.ndarray, np.ndarray, tuple[str, ...]]:
    """The table rows (runs, or models when reasoning effort is the variable) and values of the outcomes:
    ``(row labels, row per outcome, value code per outcome, value labels)``."""
    if variable == "reasoning_effort":
        models = list(dict.fromkeys(r.model for r in runs))
        row_labels = tuple(models)
        run_row = np.array([models.index(r.model) for r in runs], dtype=np.int64)
        raw = [r.reasoning_effort or "" for r in runs]
        raw_values = [raw[i] for i in outcomes.run.tolist()]
    else:
        row_labels = tuple(r.label for r in runs)
        run_row = np.arange(len(runs), dtype=np.int64)
        raw_values = [_raw_example_value(examples[i], variable) for i in outcomes.example_id.tolist()]
        raw_values += [_raw_example_value(e, variable) for e in examples.values()]  # levels of unanswered values too
    distinct = sorted(set(raw_values), key=lambda v: _sort_key(variable, v))
    levels = tuple(level_label(variable, v) for v in distinct)
    code_of = {v: i for i, v in enumerate(distinct)}
    value = np.array([code_of[v] for v in raw_values[: len(outcomes)]], dtype=np.int64)
    row = run_row[outcomes.run] if len(outcomes) else np.zeros(0, dtype=np.int64)
    return row_labels, row, value, levels


def _select(o: Outcomes, mask: np.ndarray) -> Outcomes:
    return Outcomes(**{name: arr[mask] for name, arr in o.columns().items()})


def split_base(data: SuiteData, manifest: SuiteManifest | None) -> SuiteData:
    """``data`` without the no-distractor twins of a ``base: true`` suite, their answers in ``base``.

    The twins (manifest entries with ``is_base``) answer the base question, not the varied one, so
    every table leaves them out; ``base`` holds the answers on every example that is some example's
    twin (``base_id``), which includes the examples without distractors (their own twins). Levels
    no remaining example has (a twin's distractor ``none``) are dropped.
    """
    if manifest is None or not manifest.suite.base:
        return data
    twins = {e.id for e in manifest.examples if e.is_base}
    bases = {e.base_id for e in manifest.examples if e.base_id is not None}
    ids = data.outcomes.example_id.tolist()
    keep = np.fromiter((i not in twins for i in ids), dtype=bool, count=len(ids))
    in_base = np.fromiter((i in bases for i in ids), dtype=bool, count=len(ids))
    examples = {k: v for k, v in data.examples.items() if k not in twins}
    levels = data.levels
    value = data.value[keep]
    if data.variable not in RUN_VARIABLES:
        present = {data.example_value(e) for e in examples.values()}
        levels = tuple(lv for lv in data.levels if lv in present)
        code = {lv: i for i, lv in enumerate(levels)}
        value = np.array([code[data.levels[c]] for c in value.tolist()], dtype=np.int64)
    return replace(data, examples=examples, outcomes=_select(data.outcomes, keep), row=data.row[keep], value=value,
                   levels=levels, base=_select(data.outcomes, in_base))


def _run_effort(run_key: tuple[str, str], records: Sequence[RunRecord], journal: Path) -> str | None:
    """The reasoning effort of a run: from its records, else from the journal's settings file."""
    found = {r.reasoning_effort for r in records if r.reasoning_effort}
    if len(found) == 1:
        return found.pop()
    entry = read_run_settings(journal).runs.get(run_key[1])
    return entry.reasoning_effort if entry is not None else None


def _outcomes(
    final: Mapping[tuple[str, str, str], tuple[RunRecord, Scored]],
    examples: Mapping[str, ExampleInfo],
    run_index: Mapping[tuple[str, str], int],
    effort_of_run: Mapping[tuple[str, str], str | None],
) -> Outcomes:
    keys = sorted(final, key=lambda k: (run_index[k[:2]], k[2]))
    n = len(keys)
    ex_id = np.empty(n, dtype=object)
    extracted = np.empty(n, dtype=object)
    cols_o = {name: np.empty(n, dtype=object) for name in ("task", "answer", "distractor", "reasoning_effort", "pair_key")}
    cols_i = {name: np.zeros(n, dtype=np.int64) for name in ("run", "depth", "component_size", "n_choices", "attempts")}
    cols_f = {
        name: np.full(n, np.nan)
        for name in ("context_length", "predicted", "prompt_tokens", "completion_tokens", "reasoning_tokens", "cost_usd", "response_time_s",
                     "f1", "evidence_tokens", "hops_needed")
    }
    none_option = np.zeros(n, dtype=bool)
    correct = np.zeros(n, dtype=bool)
    batched = np.array([final[k][0].batch_id is not None for k in keys], dtype=bool)
    hits = np.full(n, None, dtype=object)
    for i, key in enumerate(keys):
        r, scored = final[key]
        info = examples[key[2]]
        ex_id[i] = info.id
        cols_i["run"][i] = run_index[key[:2]]
        cols_i["depth"][i] = info.depth
        cols_i["component_size"][i] = info.component_size
        cols_i["n_choices"][i] = _choices(info)
        cols_i["attempts"][i] = r.attempts
        cols_o["task"][i] = info.task
        cols_o["answer"][i] = info.answer
        cols_o["distractor"][i] = info.distractor
        cols_o["reasoning_effort"][i] = effort_of_run[key[:2]] or ""
        cols_o["pair_key"][i] = info.pair_key
        none_option[i] = info.none_option
        if info.context_length is not None:
            cols_f["context_length"][i] = info.context_length
        extracted[i], correct[i] = scored.extracted, scored.correct
        cols_f["evidence_tokens"][i] = _num(info.evidence_tokens)
        cols_f["hops_needed"][i] = _num(info.hops_needed)
        if scored.listing is not None:
            cols_f["f1"][i] = scored.listing.f1
            hits[i] = scored.listing.hits
        if info.task == "count" and extracted[i] is not None:
            try:
                cols_f["predicted"][i] = float(int(extracted[i]))
            except ValueError:
                pass
        usage = r.usage
        if usage is not None:
            for name in ("prompt_tokens", "completion_tokens", "reasoning_tokens"):
                cols_f[name][i] = _num(getattr(usage, name))
        for name in ("cost_usd", "response_time_s"):
            cols_f[name][i] = _num(getattr(r, name))
    return Outcomes(example_id=ex_id, extracted=extracted, none_option=none_option, correct=correct, hits=hits,
                    batched=batched, **cols_o, **cols_i, **cols_f)
