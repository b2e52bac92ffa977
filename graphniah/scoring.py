r"""Scoring model responses: extract the final ``\answer{...}``, normalise it, compare with the truth.

The answer of a response is read by :mod:`graphniah.text.normalize`: the content of its last complete
``\answer{...}`` block (:func:`~graphniah.text.extract_answer`), in the canonical form of the task's
answer (:func:`~graphniah.text.normalize_answer`: YES/NO, a letter, a base-10 integer, or a list's
titles one a line, each keyed as the text-only verifier keys titles, :func:`~graphniah.text.title_key`).
A template set that asks for its answer another way (an ``Answer:`` line, ``<answer>`` tags, a bare
reply; options numbered) passes its :class:`~graphniah.text.prompts.AnswerFormat` (the *extraction
hook*: ``fmt`` of :func:`score_response` and :func:`score_record`, ``formats`` of
:func:`score_records`); without one, a reply is read the default set's way.
The truth gets the same treatment. For a list, a line matches the truth title it equals.
Precision is matched lines over all answer lines (a duplicate or an unknown title is a line that
does not match), recall is matched truth titles over all of them, F1 their harmonic mean, and the
answer is *correct* when it is the exact set (F1 = 1).

A response without an answer block, or whose block does not normalise, has no answer
(``extracted is None``) and is wrong. Run-level summaries reuse :mod:`graphniah.stats`
(Wilson intervals, the Table 15 counting outcomes).

**One scoring path.** Every accuracy in the project (``graphniah score``, the demo's table,
``graphniah report``, the notebooks, the dataset export and the inspect_ai scorer) goes through two
functions of this module:

1. :func:`counted_records` decides which record of an example counts, per run (model and settings
   hash; :func:`split_runs` groups a journal into runs): the **last ``ok`` record** of the example;
   an example without any ``ok`` record is represented by its last failed record and counts as
   *failed* — apart from the accuracy, whose denominator is the answered examples (the paper's
   "#Examples").
2. :func:`score_record` scores that record **from its response text** with :func:`score_response`
   against the record's truth. The ``extracted``/``correct`` a journal stores are what the rule said
   when the call finished and are never read, so a re-scored journal gives the same answer
   everywhere.

:func:`score_records` combines the two into a run's accuracies.
"""

from __future__ import annotations

import functools
import os
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol, TypeVar

from graphniah.errors import GraphNIAHError
from graphniah.seeds import DEFAULT_SEED, Stream, generator
from graphniah.stats import CountingOutcomes, Mean, Proportion, bootstrap_mean, counting_outcomes, proportion
from graphniah.text import distances, extract_answer, normalize_answer, title_key, unwrap_answer
from graphniah.text.prompts import DEFAULT_FORMAT, DEFAULT_TEMPLATE, AnswerFormat, answer_format


@dataclass(frozen=True, slots=True)
class Scored:
    """What a response says and whether it is right."""

    raw: str | None  # content of the last answer block
    extracted: str | None  # normalised answer, None if there is none
    correct: bool
    listing: ListScore | None = None  # the list task's match (None for the other tasks)


@dataclass(frozen=True, slots=True)
class ListScore:
    """How a list answer matches the truth: which truth titles it names, out of how many lines."""

    hits: tuple[bool, ...]  # per truth line, in the truth's order: named by some answer line
    lines: int  # non-empty answer lines, duplicates and unknown titles included

    @property
    def precision(self) -> float:
        return sum(self.hits) / self.lines if self.lines else 0.0

    @property
    def recall(self) -> float:
        return sum(self.hits) / len(self.hits) if self.hits else 0.0

    @property
    def f1(self) -> float:
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0


def match_list(truth: str, extracted: str | None) -> ListScore:
    """Match a normalised list answer (:func:`normalize_answer`) against the truth's titles.

    Each answer line names at most one truth title, and each truth title counts once: a second
    line with the same title is a line that matches nothing, so it lowers precision.
    """
    keys = [title_key(t) for t in truth.split("\n")]
    index = {k: i for i, k in enumerate(keys)}
    hits = [False] * len(keys)
    lines = extracted.split("\n") if extracted else []
    for line in lines:
        i = index.get(line)
        if i is not None:
            hits[i] = True
    return ListScore(tuple(hits), len(lines))


def score_response(task: str, truth: str, text: str | None, fmt: AnswerFormat = DEFAULT_FORMAT) -> Scored:
    """Score the reply ``text`` against ``truth`` (the stored answer), reading it in the set's format ``fmt``."""
    raw = extract_answer(text, fmt, task)
    ext = normalize_answer(task, raw, fmt)
    if task == "list":
        got = match_list(truth, ext)
        return Scored(raw, ext, got.f1 == 1.0, got)
    return Scored(raw, ext, ext is not None and ext == normalize_answer(task, truth))


# ------------------------------------------------------------------------------------------------
# Run-level summaries
# ------------------------------------------------------------------------------------------------


class ScoredRecord(Protocol):
    """The fields of a journal record that scoring reads (``graphniah.formats.journal.RunRecord``).

    A record's stored ``extracted``/``correct`` are deliberately not among them: they are what the
    scoring rule said when the call finished, and a later rule may differ.
    """

    @property
    def example_id(self) -> str: ...
    @property
    def model(self) -> str: ...
    @property
    def settings_hash(self) -> str: ...
    @property
    def task(self) -> str: ...
    @property
    def answer(self) -> str: ...
    @property
    def status(self) -> str: ...
    @property
    def response(self) -> str | None: ...


R = TypeVar("R", bound=ScoredRecord)
RunKey = tuple[str, str]  # (model, settings hash): one run, one row of the paper's tables


@dataclass(frozen=True)
class RunScore:
    """Accuracy of one model on one suite, as the paper reports it.

    ``answered`` are the examples with a successful call (the paper's "#Examples"); accuracy is over
    them. ``failed`` are examples without a successful call (context too long, auth, retries
    exhausted); ``no_answer`` counts answered examples without a usable answer block. ``counting`` holds the
    Table 15 outcomes of the counting examples, ``no_share`` the share of NO answers among answered
    YES/NO examples (Table 14).
    """

    answered: int
    failed: int
    overall: Proportion | None
    by_task: Mapping[str, Proportion]
    no_answer: int
    counting: CountingOutcomes | None
    no_share: Proportion | None
    f1: Mean | None = None  # mean F1 of the answered list examples, with its bootstrap interval


def split_runs(records: Iterable[R]) -> dict[RunKey, list[R]]:
    """The records grouped by run ``(model, settings_hash)``, runs and records in journal order."""
    out: dict[RunKey, list[R]] = {}
    for r in records:
        out.setdefault((r.model, r.settings_hash), []).append(r)
    return out


def run_labels(keys: Sequence[RunKey], efforts: Mapping[RunKey, str | None]) -> list[str]:
    """THE rule for naming runs (the report's rows and the viewer's links use it, so they match).

    A run is labelled by its model; a model with several runs qualifies each by its reasoning
    effort (``default`` when it has none) when those differ between all its runs, else by the
    first 8 hex digits of its settings hash. ``keys`` are distinct, so the labels are too unless
    two settings hashes share their first 8 digits.
    """
    per_model: dict[str, list[RunKey]] = {}
    for key in keys:
        per_model.setdefault(key[0], []).append(key)
    out = []
    for model, h in keys:
        siblings = per_model[model]
        if len(siblings) == 1:
            out.append(model)
        elif len({efforts[s] for s in siblings}) == len(siblings):
            out.append(f"{model} ({efforts[(model, h)] or 'default'})")
        else:
            out.append(f"{model} [{h[:8]}]")
    return out


def counted_records(records: Iterable[R]) -> dict[str, R]:
    """THE rule for which record of an example counts: ``{example_id: record}`` for one run.

    Per example, the *last* ``ok`` record counts; an example without any ``ok`` record is
    represented by its last ``failed`` record (it failed: :func:`score_record` makes it wrong, and
    :func:`score_records` counts it apart from the accuracy, as the paper's "#Examples" does).
    "Last" is journal order, i.e. the order the records were appended.

    Why this rule: the runner writes at most one ``ok`` record per example and settings hash
    (see :mod:`graphniah.formats.journal`), so for a journal the runner wrote "last ok" and "first ok"
    agree; they differ only for a journal that was merged or edited, where the newest answer is the
    one the researcher means. A failure never hides an earlier success (a retried example that
    later failed again still counts with its answer).

    All records must belong to one run (one model and settings hash): several settings in one
    journal are several runs, and mixing them would count one example twice or pick an answer
    given under other settings. Use :func:`split_runs` first; a mix is a ``GraphNIAHError``.
    """
    out: dict[str, R] = {}
    run: RunKey | None = None
    for r in records:
        key = (r.model, r.settings_hash)
        if run is None:
            run = key
        elif key != run:
            raise GraphNIAHError(
                f"records of several runs ({run[0]} settings {run[1][:12]} and {key[0]} settings {key[1][:12]}) "
                "cannot be counted together; group them with graphniah.scoring.split_runs first"
            )
        prev = out.get(r.example_id)
        if prev is None or r.status == "ok" or prev.status != "ok":
            out[r.example_id] = r
    return out


_FAILED = Scored(None, None, False)


def score_record(record: ScoredRecord, fmt: AnswerFormat = DEFAULT_FORMAT) -> Scored:
    """Score one record from its response text with the current :func:`score_response`.

    The stored ``extracted``/``correct`` of the record are never used, so a journal written under an
    older scoring rule is scored by today's rule everywhere. A failed record has no answer and is
    wrong; an ``ok`` record without a response text has no answer either.
    """
    if record.status != "ok":
        return _FAILED
    return score_response(record.task, record.answer, record.response, fmt)


def suite_answer_formats(manifest: str | os.PathLike[str]) -> dict[str, AnswerFormat]:
    """The answer format of each example of a built suite worded in a template set other than the
    default, by id, from the recipes of its suite manifest (none when the manifest does not exist):
    what :func:`score_records` takes as ``formats`` when only the journal is at hand."""
    if not Path(manifest).is_file():
        return {}
    from graphniah.formats.suites import read_suite_manifest

    return {e.id: answer_format(e.recipe.params.template) for e in read_suite_manifest(Path(manifest)).examples
            if e.recipe.params.template != DEFAULT_TEMPLATE}


def score_records(records: Iterable[ScoredRecord], *, z: float | None = None, seed: int = DEFAULT_SEED,
                  formats: Mapping[str, AnswerFormat] | None = None) -> RunScore:
    """Summarise one run's records into accuracies with Wilson intervals (through :func:`counted_records`).

    Every accuracy the project prints comes from here or from the same two functions
    (:func:`counted_records` picks the record, :func:`score_record` scores it). ``formats`` gives the
    answer format of each example rendered under a template set other than ``default`` (by id).
    """
    counted = counted_records(records).values()
    fmts = formats or {}
    ok = [(r, score_record(r, fmts.get(r.example_id, DEFAULT_FORMAT))) for r in counted if r.status == "ok"]
    by_task_n: Counter[str] = Counter(r.task for r, _ in ok)
    by_task_k: Counter[str] = Counter(r.task for r, s in ok if s.correct)
    by_task = {t: proportion(by_task_k[t], n, z=z) for t, n in sorted(by_task_n.items())}
    overall = proportion(sum(by_task_k.values()), len(ok), z=z) if ok else None
    counts = [(r, s) for r, s in ok if r.task == "count"]
    counting = None
    if counts:
        counting = counting_outcomes([None if s.extracted is None else int(s.extracted) for _, s in counts],
                                     [int(r.answer) for r, _ in counts])
    yn = [s for r, s in ok if r.task == "yesno"]
    no_share = proportion(sum(s.extracted == "NO" for s in yn), len(yn), z=z) if yn else None
    f1s = [s.listing.f1 for r, s in ok if s.listing is not None]
    f1 = bootstrap_mean(f1s, generator(Stream.F1_BOOTSTRAP, seed)) if f1s else None
    return RunScore(
        answered=len(ok),
        failed=len(counted) - len(ok),
        overall=overall,
        by_task=by_task,
        no_answer=sum(s.extracted is None for _, s in ok),
        counting=counting,
        no_share=no_share,
        f1=f1,
    )


# ------------------------------------------------------------------------------------------------
# Where a list answer's search stopped (the report's recall_by_distance and the viewer's overlay)
# ------------------------------------------------------------------------------------------------


def target_distances(edges: Iterable[tuple[int, int]], source: int, targets: Sequence[int]) -> tuple[int, ...]:
    """Hops from ``source`` of each truth paper of a list example, in the truth's order.

    Parameters
    ----------
    edges : iterable of (citing, cited)
        The example's citations (``Example.edges``); distances ignore their direction.
    source : int
        The source paper.
    targets : sequence of int
        The truth's papers (``Example.targets``), each reachable from ``source``.

    Returns
    -------
    tuple of int
        The shortest undirected distance of each target, 1 or more.
    """
    dist = distances(edges, source)
    return tuple(dist[t] for t in targets)


def recall_by_distance(hits: Sequence[bool], distances: Sequence[int]) -> tuple[tuple[int, int], ...]:
    """``(named, all)`` truth papers at each distance 1, 2, …, the largest, from the source.

    Parameters
    ----------
    hits : sequence of bool
        Per truth line, whether the answer named it (:attr:`ListScore.hits`).
    distances : sequence of int
        Per truth line, its paper's hops from the source (:func:`target_distances`).

    Returns
    -------
    tuple of (int, int)
        Entry ``h - 1`` counts the papers at distance ``h``: how many the answer named, out of how many.

    Notes
    -----
    The report's ``recall_by_distance`` table pools these counts over examples; the viewer shows
    them for one example and one run, so both read where a search stopped the same way.
    """
    if len(hits) != len(distances):
        raise ValueError(f"{len(hits)} hits for {len(distances)} distances")
    top = max(distances, default=0)
    named = [0] * (top + 1)
    total = [0] * (top + 1)
    for h, d in zip(hits, distances, strict=True):
        total[d] += 1
        named[d] += bool(h)
    return tuple(zip(named[1:], total[1:], strict=True))


@dataclass(frozen=True, slots=True)
class ListPapers:
    """Which papers of the context a list answer named, by place.

    ``found``/``missed`` index the truth's lines (named or not, as :func:`match_list` decides),
    ``extra`` indexes ``others`` (papers of the context outside the truth that a line names, each
    once, in the order named), ``unknown`` holds the lines, as written, that name no paper of the
    context, and ``repeated`` counts the lines that name a paper an earlier line named.
    """

    found: tuple[int, ...]
    missed: tuple[int, ...]
    extra: tuple[int, ...]
    unknown: tuple[str, ...]
    repeated: int


@functools.lru_cache(maxsize=8)  # the runs of one example share its truth
def _truth_keys(truth: str) -> frozenset[str]:
    return frozenset(title_key(t) for t in truth.split("\n"))


def title_index(titles: Iterable[str]) -> dict[str, int]:
    """``{title key: index of the first title with it}`` (:func:`title_key`): the form in which
    :func:`list_papers` looks answer lines up among other papers, built once for many answers."""
    out: dict[str, int] = {}
    for i, title in enumerate(titles):
        out.setdefault(title_key(title), i)
    return out


def list_papers(truth: str, raw: str | None, others: Sequence[str] | Mapping[str, int], *,
                listing: ListScore | None = None) -> ListPapers:
    r"""Classify the lines of a list answer against the truth and the context's other papers.

    Parameters
    ----------
    truth : str
        The truth's titles, one a line (``Example.answer``).
    raw : str or None
        The content of the answer block (:attr:`Scored.raw`); None when there is none.
    others : sequence of str, or mapping
        Titles of the context's papers that are not in the truth (the source, other components), or
        their :func:`title_index`.
    listing : ListScore, optional
        The answer's :func:`match_list` score when the caller has it (:attr:`Scored.listing` of the
        same response); otherwise it is matched here.

    Returns
    -------
    ListPapers
        Truth lines found and missed, named other papers, and lines naming no paper of the context.

    Notes
    -----
    Found and missed are :func:`match_list`'s hits on :func:`normalize_answer`'s lines, so they are
    what F1, recall and ``recall_by_distance`` count; a line names another paper when its
    :func:`title_key` is that paper's (the first of equal titles).
    """
    hits = (listing if listing is not None else match_list(truth, normalize_answer("list", raw))).hits
    truth_keys = _truth_keys(truth)
    rest: list[tuple[str, str]] = []  # (key, line) of the first line naming each title outside the truth
    named: set[str] = set()
    repeated = 0
    for line in unwrap_answer(raw).split("\n") if raw is not None else ():
        key = title_key(line)
        if not key:
            continue
        if key in named:
            repeated += 1
            continue
        named.add(key)
        if key not in truth_keys:
            rest.append((key, line.strip()))
    # the others' titles are keyed only when a line needs them
    other_of = others if isinstance(others, Mapping) else title_index(others if rest else ())
    extra = [other_of[key] for key, _ in rest if key in other_of]
    unknown = [line for key, line in rest if key not in other_of]
    return ListPapers(tuple(i for i, h in enumerate(hits) if h), tuple(i for i, h in enumerate(hits) if not h), tuple(extra),
                      tuple(unknown), repeated)
