"""Synthetic suites with known answers for the report tests, the notebook tests and bench/report.py.

Examples are real :class:`graphniah.formats.examples.Example` records (tiny prompts) written with
``write_examples``; journals are real :class:`graphniah.formats.journal.RunRecord` lines written by
the runner's own :class:`~graphniah.formats.journal.Journal`. Every model answers each example
right or wrong by a coin with a per-model, per-level probability, and the ground truth of every
call is returned as :class:`Truth` rows, so a test can recompute each table cell by plain counting.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from graphniah.atomic import canonical_json, sha256_bytes
from graphniah.formats.examples import Example, ExampleStats, Message, Recipe, write_examples
from graphniah.formats.journal import Journal, RunRecord, Usage

LETTERS = "ABCD"


@dataclass(frozen=True)
class Truth:
    """One final answered call as the generator meant it (what the report must count)."""

    example_id: str
    model: str
    settings_hash: str
    reasoning_effort: str | None
    task: str
    depth: int
    component_size: int
    answer: str
    none_option: bool
    distractor: str
    context_length: int | None
    pair: str  # recipe key without the none option
    extracted: str | None
    correct: bool
    completion_tokens: int
    reasoning_tokens: int
    cost_usd: float
    response_time_s: float


@dataclass
class SyntheticSuite:
    root: Path
    suite: str
    examples: list[Example]
    truth: list[Truth]
    failed_only: dict[tuple[str, str], set[str]] = field(default_factory=dict)  # (model, hash) -> ids never answered

    @property
    def examples_root(self) -> Path:
        return self.root / "examples"

    @property
    def runs_root(self) -> Path:
        return self.root / "runs"


def make_example(task: str, depth: int, size: int, label: str, *, seed: int, index: int, none_option: bool = False,
                 distractor: str = "none", context_length: int | None = None, matching: dict | None = None) -> Example:
    """A valid Example with a tiny prompt; its id hashes its recipe like the sampler's. ``matching``: the
    recipe's matched-sampling keys (e.g. ``{"match_similarity": True, "match_learned": "<sha256>"}``)."""
    params = {"task": task, "depth": depth, "component_size": size, "label": None if task == "count" else label,
              "none_option": none_option, "alpha": 0.1, "distractor": distractor, "context_length": context_length,
              "index": index, **(matching or {})}
    recipe = Recipe(snapshot_hash="s" * 64, pool_hash="p" * 64, prompts_hash="q" * 64, seed=seed, version="0",
                    params=params)
    eid = f"{task}-{sha256_bytes(canonical_json(recipe.model_dump()).encode())[:16]}"
    options = tuple(f"Candidate {c}" for c in LETTERS) if task == "mc" else ()
    targets = (1, 2, 3, 4) if task == "mc" else ((1,) if task == "yesno" else ())
    stats = ExampleStats(question_words=5, context_words=10, needles=2, needle_words=10, needle_word_pct=100.0,
                         reference_lines=1, nodes=size * 2, edges=size * 2 - 2)
    return Example(id=eid, task=task, depth=depth, component_size=size, answer=label, options=options,
                   none_option=none_option,
                   messages=(Message(role="system", content="sys"), Message(role="user", content=f"question {eid}")),
                   papers=(1, 2, 3, 4, 5), edges=((1, 2),), source=5, targets=targets, stats=stats, recipe=recipe,
                   token_counts={"o200k_base": 100})


def wrong_answer(task: str, truth: str, rng: np.random.Generator, none_option: bool = False) -> str | None:
    """A wrong extracted answer (None: no usable answer)."""
    if task == "yesno":
        return "NO" if truth == "YES" else "YES"
    if task == "mc":
        letters = LETTERS + ("E" if none_option else "")
        return str(rng.choice([c for c in letters if c != truth]))
    t = int(truth)
    kind = rng.integers(3)
    if kind == 0:
        return None
    return str(t - 1 - int(rng.integers(20)) if kind == 1 else t + 1 + int(rng.integers(20)))


def response_text(extracted: str | None, rng: np.random.Generator) -> str:
    if extracted is None:
        return "I could not decide." if rng.random() < 0.5 else "\\answer{about a hundred}"
    return f"Reasoning...\n\\answer{{{extracted}}}"


def _labels(task: str, n: int, rng: np.random.Generator, size: int) -> list[str]:
    if task == "yesno":
        return [("YES", "NO")[i % 2] for i in range(n)]
    if task == "mc":
        return [LETTERS[i % 4] for i in range(n)]
    return [str(size - 1)] * n


def write_suite(root: Path, suite: str, examples: list[Example], models: dict[str, dict], rng: np.random.Generator,
                *, fail_rate: float = 0.0, fail_only_rate: float = 0.0, skip: dict[str, set[str]] | None = None,
                level_of=None) -> SyntheticSuite:
    """Write examples and one journal per model.

    ``models[name] = {"p": accuracy or callable(example) -> accuracy, "effort": str | None,
    "settings": str}``, or ``{"answer": callable(example) -> extracted answer | None}`` for fixed answers; a model may be listed under several names mapping to one journal via
    ``"journal"`` (several settings of one model). ``fail_rate``: share of examples with a failed
    record before the ok one; ``fail_only_rate``: share with only failed records (never answered).
    ``skip[model]``: example ids the model never saw.
    """
    write_examples(root / "examples" / f"{suite}.jsonl", examples)
    truth: list[Truth] = []
    failed_only: dict[tuple[str, str], set[str]] = {}
    journals: dict[str, list[RunRecord]] = {}
    for name, spec in models.items():
        model = spec.get("model", name)
        settings = spec.get("settings", sha256_bytes(name.encode()))
        effort = spec.get("effort")
        recs = journals.setdefault(spec.get("journal", model), [])
        for ex in examples:
            if skip and ex.id in skip.get(name, set()):
                continue
            base = dict(example_id=ex.id, model=model, settings_hash=settings, task=ex.task, answer=ex.answer,
                        finished_at="2026-11-01T00:00:00+00:00", reasoning_effort=effort)
            if rng.random() < fail_only_rate:
                recs.append(RunRecord(status="failed", attempts=2, **base))
                failed_only.setdefault((model, settings), set()).add(ex.id)
                continue
            if rng.random() < fail_rate:
                recs.append(RunRecord(status="failed", attempts=3, **base))
            if "answer" in spec:  # a fixed answer per example
                extracted = spec["answer"](ex)
                right = extracted == ex.answer
            else:
                p = spec["p"](ex) if callable(spec["p"]) else spec["p"]
                right = rng.random() < p
                extracted = ex.answer if right else wrong_answer(ex.task, ex.answer, rng, ex.none_option)
            if ex.task == "count" and extracted is not None:
                extracted = str(int(extracted))
            out_tok = int(rng.integers(100, 5000))
            reason_tok = int(rng.integers(0, out_tok))
            cost = float(rng.uniform(0.001, 0.05))
            t = float(rng.uniform(1, 100))
            recs.append(RunRecord(status="ok", attempts=1, response=response_text(extracted, rng),
                                  usage=Usage(prompt_tokens=1000, completion_tokens=out_tok, reasoning_tokens=reason_tok),
                                  cost_usd=cost, response_time_s=t, extracted=extracted, correct=right, **base))
            p_ = ex.recipe.params
            pair = canonical_json({k: v for k, v in p_.model_dump().items() if k != "none_option"} | {"seed": ex.recipe.seed})
            truth.append(Truth(ex.id, model, settings, effort, ex.task, ex.depth, ex.component_size, ex.answer,
                               ex.none_option, p_.distractor, p_.context_length, pair,
                               extracted,
                               right, out_tok, reason_tok, cost, t))
    for jname, recs in journals.items():
        with Journal(root / "runs" / suite / f"{jname}.jsonl") as j:
            j.append(recs)
    return SyntheticSuite(root, suite, examples, truth, failed_only)


def depth_suite(root: Path, *, per_cell: int = 12, seed: int = 0, models: dict[str, dict] | None = None,
                depths: tuple[int, ...] = (4, 8, 16), **kw) -> SyntheticSuite:
    """A question-depth experiment: every depth has the same number of examples of each task."""
    rng = np.random.default_rng(seed)
    examples = []
    idx = 0
    for depth in depths:
        for task in ("yesno", "mc", "count"):
            sizes = rng.integers(100, 251, size=per_cell)
            labels = _labels(task, per_cell, rng, 0)
            for i in range(per_cell):
                label = str(int(sizes[i]) - 1) if task == "count" else labels[i]
                examples.append(make_example(task, depth, int(sizes[i]), label, seed=seed, index=idx,
                                             distractor=str(rng.choice(["code", "essays", "books"]))))
                idx += 1
    if models is None:
        models = {
            "alpha-model": {"p": lambda ex: {4: 0.9, 8: 0.7, 16: 0.5}.get(ex.depth, 0.4) if ex.task != "count" else 0.1},
            "beta-model": {"p": lambda ex: 0.5 if ex.task != "count" else 0.0},
        }
    return write_suite(root, "depth", examples, models, rng, **kw)
