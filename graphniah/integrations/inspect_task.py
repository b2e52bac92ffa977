r"""GraphNIAH as an inspect_ai task: ``inspect eval graphniah/graphniah -T dataset=DIR --model ...``.

The task reads an exported dataset folder (``graphniah export``) after checking it against its
manifest, and turns each example into a :class:`~inspect_ai.dataset.Sample` whose input is the
example's chat messages exactly as ``graphniah run`` sends them, whose target is the answer, and
whose metadata carries the design variables (task, depth, component size, context length,
distractor). The solver is a single ``generate()``.

Scoring is :func:`graphniah.scoring.score_response`, the function that scores ``graphniah run``'s
journals, so both harnesses give the same verdict on the same reply (the last ``\answer{}``
block, normalised per task). The metrics are the accuracy overall and per task, each with the
95% Wilson interval of :func:`graphniah.stats.wilson_interval` (what the report prints), and for
list questions the mean F1 with its 95% bootstrap interval (``f1``, ``f1_low``, ``f1_high``; a list
sample is *correct* only when it names the exact set).

Task parameters (``-T``): ``dataset`` (the folder, required), ``task`` (``yesno``, ``mc``,
``count`` or ``list``), ``depth``, ``component_size``, ``context_length``, ``distractor``, ``template`` (the
template set the prompts are worded in: ``default`` or a set of ``prompts/sets/``) — each keeps only
the examples with that value (inspect's own ``--limit`` takes the first N of those). A reply is read
in the answer format of its example's set (an ``Answer:`` line, ``<answer>`` tags, a bare reply).

Failed calls: ``graphniah run`` leaves an example whose call failed for good out of the accuracy
(see ``graphniah.scoring.counted_records``). inspect does the same for a sample that errored when run
with ``--no-fail-on-error``; with ``--score-on-error`` it scores such a sample as incorrect instead,
which gives a lower accuracy than the report for the same calls.

There is no knowledge-cutoff guard here (inspect's model is not in graphniah's registry); the
dataset card states the cutoff, and ``graphniah run --dataset`` enforces it. All samples are held
in memory, as inspect's datasets are: about 4 MB per 922k-token example.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import ChatMessage, ChatMessageAssistant, ChatMessageSystem, ChatMessageUser
from inspect_ai.scorer import CORRECT, INCORRECT, Metric, SampleScore, Score, Scorer, Target, accuracy, metric, scorer, value_to_float
from inspect_ai.solver import TaskState, generate

from graphniah.dataset import iter_dataset_examples, open_dataset
from graphniah.errors import GraphNIAHError
from graphniah.formats import TASKS
from graphniah.formats.dataset import design_fields
from graphniah.formats.examples import Example
from graphniah.scoring import score_response
from graphniah.seeds import DEFAULT_SEED, Stream, generator
from graphniah.stats import bootstrap_mean, wilson_interval
from graphniah.text.prompts import answer_format

_MESSAGE_TYPES = {"system": ChatMessageSystem, "user": ChatMessageUser, "assistant": ChatMessageAssistant}


def example_sample(example: Example) -> Sample:
    """The inspect sample of one example: its messages, its answer as target, its design as metadata."""
    messages: list[ChatMessage] = [_MESSAGE_TYPES[m.role](content=m.content) for m in example.messages]
    return Sample(
        input=messages,
        target=example.answer,
        id=example.id,
        metadata={**design_fields(example), "snapshot_hash": example.recipe.snapshot_hash},
    )


def _int_or_none(name: str, value: Any) -> int | None:
    if value is None:
        return None
    try:
        return int(value)
    except (TypeError, ValueError):
        raise GraphNIAHError(f"-T {name} must be an integer, got {value!r}") from None


def dataset_samples(
    dataset: str,
    *,
    task: str | None = None,
    depth: int | None = None,
    component_size: int | None = None,
    context_length: int | None = None,
    distractor: str | None = None,
    template: str | None = None,
) -> list[Sample]:
    """The samples of a dataset folder (checked against its manifest), filtered by the given values."""
    if task is not None and task not in TASKS:
        raise GraphNIAHError(f"-T task must be one of {', '.join(TASKS)}, got {task!r}")
    want = {"task": task, "distractor": distractor, "depth": _int_or_none("depth", depth),
            "component_size": _int_or_none("component_size", component_size),
            "context_length": _int_or_none("context_length", context_length), "template": template}
    want = {k: v for k, v in want.items() if v is not None}  # an unset filter keeps every example
    samples = []
    for ex in iter_dataset_examples(open_dataset(dataset)):
        got = design_fields(ex)
        if all(got[k] == v for k, v in want.items()):
            samples.append(example_sample(ex))
    if not samples:
        raise GraphNIAHError(f"no example of dataset {dataset} matches the filters (task={task}, depth={depth}, "
                             f"component_size={component_size}, context_length={context_length}, distractor={distractor}, "
                             f"template={template})")
    return samples


_as_float = value_to_float()


def _correct(s: SampleScore) -> bool:
    """Whether a sample was answered right (inspect may hand metrics the value as ``C`` or as 1.0)."""
    return _as_float(s.score.value) == 1.0


def task_accuracy(scores: Sequence[SampleScore]) -> dict[str, float]:
    """Accuracy overall and per task with 95% Wilson bounds: ``{all, all_low, all_high, yesno, yesno_low, ...}``."""
    groups: dict[str, list[bool]] = defaultdict(list)
    for s in scores:
        ok = _correct(s)
        groups["all"].append(ok)
        groups[str((s.sample_metadata or {}).get("task", "unknown"))].append(ok)
    out: dict[str, float] = {}
    for name in ["all", *(t for t in TASKS if t in groups)]:
        hits = groups[name]
        iv = wilson_interval(sum(hits), len(hits))
        out[name] = sum(hits) / len(hits)
        out[f"{name}_low"] = iv.low
        out[f"{name}_high"] = iv.high
    return out


@metric
def per_task() -> Metric:
    """Accuracy per task and overall, each with its 95% Wilson interval (``graphniah.stats``)."""

    def compute(scores: list[SampleScore]) -> dict[str, float]:
        return task_accuracy(scores) if scores else {}

    return compute


def list_f1(scores: Sequence[SampleScore]) -> dict[str, float]:
    """Mean F1 of the list samples with its percentile bootstrap interval (the report's ``f1`` table):
    ``{f1, f1_low, f1_high}``, empty when no sample is a list question."""
    f1s = [float(s.score.metadata["f1"]) for s in scores if s.score.metadata and s.score.metadata.get("f1") is not None]
    if not f1s:
        return {}
    m = bootstrap_mean(f1s, generator(Stream.F1_BOOTSTRAP, DEFAULT_SEED))
    return {"f1": m.estimate, "f1_low": m.interval.low, "f1_high": m.interval.high}


@metric
def f1() -> Metric:
    """Mean F1 of the list answers with its 95% bootstrap interval (``graphniah.stats.bootstrap_mean``)."""

    def compute(scores: list[SampleScore]) -> dict[str, float]:
        return list_f1(scores)

    return compute


@scorer(metrics=[accuracy(), per_task(), f1()])
def graphniah_scorer() -> Scorer:
    r"""Score a reply with ``graphniah.scoring.score_response`` (last ``\answer{}`` block, normalised per task)."""

    async def score(state: TaskState, target: Target) -> Score:
        reply = state.output.completion if state.output is not None else None
        fmt = answer_format(str(state.metadata.get("template", "default")))  # the example's set's answer format
        scored = score_response(state.metadata["task"], target.text, reply, fmt)
        meta: dict[str, Any] = {"raw_answer": scored.raw}
        if scored.listing is not None:
            meta |= {"f1": scored.listing.f1, "precision": scored.listing.precision, "recall": scored.listing.recall}
        return Score(
            value=CORRECT if scored.correct else INCORRECT,
            answer=scored.extracted,
            explanation=None if scored.raw is not None else "no answer in the reply (in the format the prompt asks for)",
            metadata=meta,
        )

    return score


@task
def graphniah(
    dataset: str,
    task: str | None = None,
    depth: int | None = None,
    component_size: int | None = None,
    context_length: int | None = None,
    distractor: str | None = None,
    template: str | None = None,
) -> Task:
    """GraphNIAH long-context citation-graph reasoning on an exported dataset folder."""
    return Task(
        dataset=MemoryDataset(dataset_samples(dataset, task=task, depth=depth, component_size=component_size,
                                              context_length=context_length, distractor=distractor, template=template),
                              name=f"graphniah:{dataset}"),
        solver=generate(),
        scorer=graphniah_scorer(),
    )
