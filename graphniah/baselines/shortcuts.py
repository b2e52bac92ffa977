"""The title-similarity, retrieval and paper-count shortcuts, each a function ``examples -> {example id: answer or None}``
(topic-cluster is :mod:`graphniah.baselines.topics`, learned-surface :mod:`graphniah.baselines.learned`).

Every shortcut reads the messages through the text checker's parser
(:mod:`graphniah.text.textcheck`): the question and its titles, the paper blocks, the
papers the context names. None of them looks at an example's stored answer, papers or edges.
Examples in the edge-list rendering are read the same way, with ids for titles and edge blocks for
paper blocks; title-similarity leaves them out (an id says nothing about what a paper is about).

* **title-similarity** fits TF-IDF over the titles the suite's questions name (every source and
  target of every example, each distinct normalised title once): words are the runs of the
  checker's ``normalize`` form (case, punctuation and spacing ignored), the weight of a word is its
  count times the smoothed ``idf = ln((1 + N) / (1 + df)) + 1`` (scikit-learn's default), and each
  title vector has unit length, so the similarity of two titles is the dot product. MC picks the
  candidate most similar to the source (the first in option order on a tie; never the "none"
  option). YES/NO answers YES when the similarity of source and target is above the median over
  the suite's YES/NO questions: the threshold depends on the questions, never on an answer.
* **retrieval** ranks the example's paper blocks by BM25 (bm25s, Lucene variant, English stop
  words) with the question as the query, keeps the ranked blocks while their o200k_base tokens
  sum to at most :data:`~graphniah.baselines.BUDGET_TOKENS` (the first block that does not fit
  ends the list), and answers from the citations those blocks state with perfect reasoning under
  the closed-world reading: a title the kept blocks do not name is unreachable. So YES/NO says
  YES only when the kept citations connect source and target, counting gives the size of the
  source's kept component minus one (0 when the source is not named), and MC gives the one
  reachable option, else the "none" option when there is one, else a guess drawn uniformly among
  the options from the ``shortcut`` stream (seeded per example). Other tasks take the checker's
  answer on the kept blocks, or none when those blocks leave it open.
* **paper-count** counts the distinct papers the context names (blocks and reference entries,
  merged by the checker's identity rule) and divides by the number of components the published
  design puts in a counting example (``graphniah.sampling.COMPONENTS["count"]``), minus one, rounded to the
  nearest integer (halves up). It never reads which paper cites which.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

import numpy as np

from graphniah.baselines import BUDGET_TOKENS, SHORTCUT_TASKS, ShortcutName
from graphniah.baselines.reading import CheckerTitleSpace, read_question, retrieve
from graphniah.errors import GraphNIAHError
from graphniah.formats.examples import Example, option_letters
from graphniah.scoring import score_response
from graphniah.seeds import DEFAULT_SEED, Stream, generator, suite_key
from graphniah.stats import Proportion, proportion
from graphniah.text import ParsedQuestion, PromptSet, TextGraph, Undetermined, answer_of, load_prompts

__all__ = ["Answers", "accuracy", "answer", "paper_count", "retrieval", "title_similarity"]

#: ``{example id: answer}``; ``None`` is "no answer" (scored wrong); absent: the shortcut does not
#: answer the task, or the example's text is not in the paper-block form it reads.
Answers = dict[str, str | None]


# --------------------------------------------------------------------------- title similarity


def title_similarity(examples: Sequence[Example], prompts: PromptSet | None = None) -> Answers:
    """The title-similarity shortcut on the YES/NO and MC examples (see the module docstring)."""
    pr = prompts or load_prompts()
    parsed = {ex.id: read_question(ex, pr) for ex in examples if ex.task in ("yesno", "mc")}
    questions = {i: p.q for i, p in parsed.items() if p is not None and p.render == "apa"}  # edge-list ids are not titles
    space = CheckerTitleSpace.fit([t for q in questions.values() for t in (q.source, *q.targets)])
    yesno = {i: space.similarity(q.source, q.targets[0]) for i, q in questions.items() if q.task == "yesno"}
    median = float(np.median(list(yesno.values()))) if yesno else 0.0
    out: Answers = {}
    for i, q in questions.items():
        if q.task == "yesno":
            out[i] = "YES" if yesno[i] > median else "NO"
        else:
            sims = [space.similarity(q.source, t) for t in q.targets]
            out[i] = option_letters(len(q.targets), q.none_option)[int(np.argmax(sims))]
    return out


# --------------------------------------------------------------------------- retrieval


def _closed_world(q: ParsedQuestion, g: TextGraph, rng: Callable[[], np.random.Generator]) -> str | None:
    """The answer from the kept citations only: a title they do not name is unreachable."""

    def node(title: str) -> int | None:
        try:
            return g.find(title)
        except Undetermined:
            return None

    s = node(q.source)
    reach = g.component(s) if s is not None else set()
    if q.task == "count":
        return str(max(len(reach) - 1, 0))
    targets = [node(t) for t in q.targets]
    if q.task == "yesno":
        return "YES" if targets[0] is not None and targets[0] in reach else "NO"
    letters = option_letters(len(q.targets), q.none_option)
    hits = [letter for letter, t in zip(letters, targets, strict=False) if t is not None and t in reach]
    if len(hits) == 1:
        return hits[0]
    if not hits and q.none_option:
        return letters[-1]
    pool = hits or list(letters[: len(q.targets)])
    return pool[int(rng().integers(len(pool)))]


def retrieval(
    examples: Sequence[Example],
    prompts: PromptSet | None = None,
    *,
    seed: int = DEFAULT_SEED,
    budget: int = BUDGET_TOKENS,
    data: Path | None = None,
) -> Answers:
    """The retrieve-then-reason shortcut on every example (see the module docstring).

    ``data`` is the data folder holding the o200k_base encoding (default: ``GRAPHNIAH_DATA``).
    """
    from graphniah.text import load_tokenizer

    pr = prompts or load_prompts()
    count_tokens = load_tokenizer("o200k_base", data).count
    out: Answers = {}
    for ex in examples:
        parsed = read_question(ex, pr)
        if parsed is None:
            continue
        q = parsed.q
        kept = retrieve(parsed.blocks(pr), parsed.question, count_tokens, budget)
        try:
            g = parsed.graph("\n\n".join(kept), pr)
        except Undetermined:
            g = TextGraph((), frozenset(), 0, 0)  # the kept blocks contradict each other: nothing is known
        if q.task in ("yesno", "mc", "count"):
            out[ex.id] = _closed_world(q, g, functools.partial(generator, Stream.SHORTCUT, seed, suite_key(ex.id)))
        else:
            try:
                out[ex.id] = answer_of(q, g)
            except Undetermined:
                out[ex.id] = None
    return out


# --------------------------------------------------------------------------- paper count


def papers_per_count_example() -> int:
    """Components the published design puts in a counting example (the sampler's own constant)."""
    from graphniah.sampling import COMPONENTS

    return COMPONENTS["count"]


def paper_count(examples: Sequence[Example], prompts: PromptSet | None = None) -> Answers:
    """The paper-count shortcut on the counting examples (see the module docstring)."""
    pr = prompts or load_prompts()
    k = papers_per_count_example()
    out: Answers = {}
    for ex in examples:
        if ex.task != "count":
            continue
        parsed = read_question(ex, pr)
        if parsed is None:
            continue
        try:
            named = len(parsed.graph(parsed.context, pr).nodes)
        except Undetermined:
            out[ex.id] = None
            continue
        out[ex.id] = str(max((2 * named + k) // (2 * k) - 1, 0))  # round(named / k) with halves up, minus one
    return out


# --------------------------------------------------------------------------- one entry point


def answer(name: ShortcutName, examples: Sequence[Example], prompts: PromptSet | None = None, *, seed: int = DEFAULT_SEED,
           data: Path | None = None) -> Answers:
    """Run the shortcut ``name`` on ``examples``; examples of other tasks are absent from the result."""
    if name == "title-similarity":
        return title_similarity(examples, prompts)
    if name == "retrieval":
        return retrieval(examples, prompts, seed=seed, data=data)
    if name == "paper-count":
        return paper_count(examples, prompts)
    if name == "topic-cluster":
        from graphniah.baselines.topics import topic_cluster

        return topic_cluster(examples, prompts, seed=seed)
    if name == "learned-surface":
        from graphniah.baselines.learned import learned_surface

        return learned_surface(examples, prompts, seed=seed, data=data)[0]
    raise GraphNIAHError(f"unknown shortcut {name!r}; known: {', '.join(SHORTCUT_TASKS)}")


def response_text(value: str | None) -> str:
    """The response a shortcut's journal stores: the answer block the scoring rule reads, or nothing."""
    return "" if value is None else f"\\answer{{{value}}}"


def accuracy(examples: Sequence[Example], answers: Mapping[str, str | None]) -> dict[str, Proportion]:
    """Accuracy per task of ``answers`` through :func:`graphniah.scoring.score_response` (95% Wilson)."""
    k: dict[str, int] = {}
    n: dict[str, int] = {}
    for ex in examples:
        if ex.id in answers:
            n[ex.task] = n.get(ex.task, 0) + 1
            k[ex.task] = k.get(ex.task, 0) + score_response(ex.task, ex.answer, response_text(answers[ex.id])).correct
    return {t: proportion(k[t], n[t]) for t in n}
