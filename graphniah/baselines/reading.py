"""How every shortcut reads an example: its question, context and rendering, its titles as vectors, and
the blocks a BM25 search keeps under a token budget (what the retrieval shortcut reads).

The shortcuts (:mod:`~graphniah.baselines.shortcuts`, :mod:`~graphniah.baselines.topics`,
:mod:`~graphniah.baselines.learned`) share this reader, so none of them imports another's privates.
It reads the messages only, through the text checker (:mod:`graphniah.text.textcheck`), never an
example's stored answer, papers or edges.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from graphniah.baselines import BUDGET_TOKENS
from graphniah.formats import Render
from graphniah.formats.examples import Example
from graphniah.text import (
    ParsedQuestion,
    PromptSet,
    TextGraph,
    Undetermined,
    edge_blocks,
    paper_blocks,
    parse_context,
    parse_edge_context,
    parse_question,
    rendering_of,
    split_messages,
)
from graphniah.text.textcheck import normalize

__all__ = ["CheckerTitleSpace", "TextQuestion", "read_question", "retrieve"]


@dataclass(frozen=True)
class TextQuestion:
    """An example as its text states it: the parsed question, the question's text, the context, the rendering."""

    q: ParsedQuestion
    question: str
    context: str
    render: Render

    def blocks(self, prompts: PromptSet) -> list[str]:
        """The context's paper blocks (edge blocks in the edge-list rendering), in context order."""
        return edge_blocks(self.context, prompts) if self.render == "edges" else paper_blocks(self.context, prompts)

    def graph(self, context: str, prompts: PromptSet) -> TextGraph:
        """The citation graph ``context`` (this context or part of it) states, read in this rendering."""
        return parse_edge_context(context, prompts) if self.render == "edges" else parse_context(context, prompts)


def read_question(ex: Example, prompts: PromptSet) -> TextQuestion | None:
    """An example's text, read; None when its messages do not follow the templates (another prompt
    set): such an example is left out of a shortcut's answers."""
    try:
        task, question, context = split_messages(ex.messages, prompts)
        render = rendering_of(ex.messages, prompts)
        return TextQuestion(parse_question(task, question, prompts, render=render), question, context, render)
    except Undetermined:
        return None


@dataclass(frozen=True)
class CheckerTitleSpace:
    """TF-IDF vectors of the titles it is fitted on: one unit-length row per distinct normalised title.

    Unlike the sampler's ``TitleSpace`` (:mod:`graphniah.sampling.examples.similarity`), which fits
    IDF over a snapshot's titles and tokenises with its own word rule, this space holds only the
    titles a reader has in front of it (a suite's questions, one context) and splits them into the
    words of the text checker's normal form (:func:`graphniah.text.textcheck.normalize`: case,
    punctuation and spacing ignored). A word's weight is its count times the smoothed
    ``idf = ln((1 + N) / (1 + df)) + 1`` (scikit-learn's default).
    """

    row: Mapping[str, int]
    vectors: sp.csr_matrix

    @classmethod
    def fit(cls, titles: Sequence[str]) -> CheckerTitleSpace:
        docs = list(dict.fromkeys(normalize(t) for t in titles))
        vocab: dict[str, int] = {}
        rows, cols = [], []
        for i, doc in enumerate(docs):
            for word in doc.split():
                rows.append(i)
                cols.append(vocab.setdefault(word, len(vocab)))
        counts = sp.csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(len(docs), len(vocab)))
        counts.sum_duplicates()
        df = np.bincount(counts.indices, minlength=len(vocab))
        idf = np.log((1 + len(docs)) / (1 + df)) + 1
        weighted = sp.csr_matrix(counts.multiply(idf[None, :]))
        norms = np.sqrt(np.asarray(weighted.multiply(weighted).sum(axis=1)).ravel())
        norms[norms == 0] = 1.0  # a title with no word (all punctuation) has similarity 0 to all
        vectors = sp.csr_matrix(sp.diags(1 / norms) @ weighted)
        return cls({d: i for i, d in enumerate(docs)}, vectors)

    def similarity(self, a: str, b: str) -> float:
        """The cosine of two fitted titles (any spelling with the same normal form)."""
        va, vb = self.vectors[self.row[normalize(a)]], self.vectors[self.row[normalize(b)]]
        return float(va.multiply(vb).sum())


def _ranked_blocks(blocks: Sequence[str], query: str) -> list[int]:
    """Block indices by decreasing BM25 score for ``query`` (ties keep context order)."""
    import bm25s

    corpus = bm25s.tokenize(list(blocks), stopwords="en", show_progress=False, return_ids=False)
    words = bm25s.tokenize([query], stopwords="en", show_progress=False, return_ids=False)[0]
    if not words or not any(corpus):
        return list(range(len(blocks)))
    index = bm25s.BM25()
    index.index(corpus, show_progress=False)
    scores = index.get_scores(words)
    return [int(i) for i in np.argsort(-scores, kind="stable")]


def retrieve(blocks: Sequence[str], query: str, count_tokens: Callable[[str], int], budget: int = BUDGET_TOKENS) -> list[str]:
    """The top-ranked blocks for ``query`` whose tokens sum to at most ``budget`` (a ranked prefix)."""
    kept: list[str] = []
    used = 0
    for i in _ranked_blocks(blocks, query):
        n = count_tokens(blocks[i])
        if used + n > budget:
            break
        kept.append(blocks[i])
        used += n
    return kept
