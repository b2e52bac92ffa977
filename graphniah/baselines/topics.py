"""The topic-cluster shortcut: group the context's titles by subject and answer by group membership.

A component of an example is grown along citations, and citations mostly stay inside a subject, so
a reader who never looks at a citation can still sort the titles of the context into subjects and
guess that papers of one subject belong to one component. This shortcut is that reader, with every
parameter fixed before it sees any answer:

1. **Titles.** The titles of the papers the context names, paper blocks and reference entries alike,
   as the text checker's parser reads them (:func:`~graphniah.text.textcheck.parse_context`),
   one per distinct normalised title. Which paper cites which is never read.
2. **Vectors.** TF-IDF over those titles alone (the title-similarity shortcut's
   :class:`~graphniah.baselines.reading.CheckerTitleSpace`: words of the checker's normal form, smoothed
   IDF, unit rows), so the similarity of two titles is the dot product of their rows.
3. **Graph.** Each title is linked to its :data:`NEIGHBOURS` most similar other titles (ties by
   context order); the links are symmetrised as ``W = (A + Aᵀ) / 2``.
4. **Groups.** Spectral clustering of ``W`` into as many groups as the task's design has components
   (two, or four for multiple choice; ``graphniah.sampling.COMPONENTS``): the eigenvectors of
   the ``k`` largest eigenvalues of ``D^{-1/2} W D^{-1/2}``, scaled by ``D^{-1/2}`` and
   each row set to unit length, then k-means (k-means++ starts, :data:`KMEANS_RUNS` runs, the one
   of least within-group sum of squares kept). Every draw comes from the example's ``shortcut``
   stream (:mod:`graphniah.seeds`), so the answers are a function of the text and the seed.
5. **Answers.**

   * YES/NO: YES when the source and the target fall in one group;
   * multiple choice: the option in the source's group, the most similar to the source when several
     are; when none is, the "none of these" option if there is one, else the most similar option;
   * counting: the size of the source's group minus one;
   * list: the titles of the source's group but the source.

Examples in the edge-list rendering name papers by ids, which say nothing about a subject: the
shortcut abstains there (they are absent from its answers, and the tables show a dash).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
import scipy.sparse as sp
from scipy.cluster.vq import kmeans2
from scipy.linalg import eigh
from scipy.sparse.linalg import lobpcg
from threadpoolctl import threadpool_limits

from graphniah.baselines.reading import CheckerTitleSpace, read_question
from graphniah.formats.examples import Example, option_letters
from graphniah.seeds import DEFAULT_SEED, Stream, generator, suite_key
from graphniah.text import ParsedQuestion, PromptSet, Undetermined, load_prompts, parse_context
from graphniah.text.textcheck import normalize

__all__ = ["KMEANS_RUNS", "NEIGHBOURS", "TitleGroups", "group_titles", "topic_cluster"]

#: Each title is linked to this many nearest titles (fixed before any answer was seen).
NEIGHBOURS = 10
#: k-means restarts; the run of least within-group sum of squares is kept.
KMEANS_RUNS = 10


@dataclass(frozen=True)
class TitleGroups:
    """Distinct normalised titles of a context, their TF-IDF rows and the group of each."""

    titles: tuple[str, ...]  # display titles, one per distinct normalised title, in context order
    row: dict[str, int]  # normalised title -> index into titles
    vectors: sp.csr_matrix
    labels: npt.NDArray[np.int64]

    def group_of(self, title: str) -> int | None:
        """The group of a title the question names; None when the context does not name it."""
        i = self.row.get(normalize(title))
        return None if i is None else int(self.labels[i])

    def similarity(self, a: str, b: str) -> float:
        va, vb = self.vectors[self.row[normalize(a)]], self.vectors[self.row[normalize(b)]]
        return float(va.multiply(vb).sum())


#: Rows of the similarity matrix computed at a time (bounds memory on contexts of many thousand titles).
_BLOCK = 1024
#: Up to this many titles the embedding comes from a dense eigensolver; above it from LOBPCG.
DENSE_LIMIT = 2000


def _nearest(sims: npt.NDArray[np.float64], k: int) -> npt.NDArray[np.bool_]:
    """Per row, the ``k`` largest entries (ties to the lowest column), as a mask."""
    kth = -np.partition(-sims, k - 1, axis=1)[:, k - 1 : k]
    above = sims > kth
    tied = sims == kth
    need = k - above.sum(axis=1, keepdims=True)
    out: npt.NDArray[np.bool_] = above | (tied & (np.cumsum(tied, axis=1) <= need))
    return out


def _knn_graph(vectors: sp.csr_matrix, neighbours: int) -> sp.csr_matrix:
    """``(A + Aᵀ) / 2`` of the directed graph linking each row to its ``neighbours`` most similar rows."""
    n = vectors.shape[0]
    k = min(neighbours, n - 1)
    rows, cols = [], []
    for start in range(0, n, _BLOCK):
        sims = np.asarray((vectors[start : start + _BLOCK] @ vectors.T).todense())
        sims[np.arange(sims.shape[0]), np.arange(start, start + sims.shape[0])] = -np.inf  # never itself
        r, c = np.nonzero(_nearest(sims, k))
        rows.append(r + start)
        cols.append(c)
    r, c = np.concatenate(rows), np.concatenate(cols)
    a = sp.csr_matrix((np.ones(r.size), (r, c)), shape=(n, n))
    out: sp.csr_matrix = sp.csr_matrix((a + a.T) * 0.5)
    return out


def _embedding(w: sp.csr_matrix, k: int, rng: np.random.Generator) -> npt.NDArray[np.float64]:
    """Rows of the spectral embedding: top-``k`` eigenvectors of the normalised affinity, unit rows.

    Not ARPACK: a context whose titles fall into separate subjects repeats the top eigenvalue (1),
    and ARPACK then returns vectors that mix the subjects' indicators. A dense solver for up to
    :data:`DENSE_LIMIT` titles, the block solver LOBPCG (started from ``rng``) above.
    """
    n = w.shape[0]
    d = np.asarray(w.sum(axis=1)).ravel()
    scale = 1.0 / np.sqrt(np.where(d > 0, d, 1.0))
    m = sp.csr_matrix(sp.diags(scale) @ w @ sp.diags(scale))
    # One BLAS thread: on a small matrix the threads' hand-offs cost more than the work (a 220-title
    # eigh took 0.6 s with two OpenBLAS threads on a busy 2-core machine, 7 ms with one).
    with threadpool_limits(1):
        if n <= DENSE_LIMIT:
            vecs = eigh(m.toarray(), subset_by_index=[n - k, n - 1])[1]
        else:
            vecs = lobpcg(m, rng.standard_normal((n, k)), largest=True, tol=1e-8, maxiter=1000)[1]
    emb = vecs * scale[:, None]
    norms = np.linalg.norm(emb, axis=1, keepdims=True)
    return np.asarray(emb / np.where(norms > 0, norms, 1.0), dtype=np.float64)


def _kmeans(x: npt.NDArray[np.float64], k: int, rng: np.random.Generator) -> npt.NDArray[np.int64]:
    """Labels of the best of :data:`KMEANS_RUNS` k-means runs (k-means++ starts) by within-group sum of squares."""
    best: tuple[float, npt.NDArray[np.int64]] | None = None
    for _ in range(KMEANS_RUNS):
        centroids, labels = kmeans2(x, k, minit="++", seed=rng)
        inertia = float(((x - centroids[labels]) ** 2).sum())
        if best is None or inertia < best[0]:
            best = (inertia, np.asarray(labels, dtype=np.int64))
    assert best is not None
    return best[1]


def group_titles(titles: Sequence[str], k: int, rng: np.random.Generator, *, neighbours: int = NEIGHBOURS) -> TitleGroups:
    """Split ``titles`` into ``k`` groups by subject (steps 2–4 of the module docstring).

    Parameters
    ----------
    titles : the titles, in context order; titles with one normal form count once.
    k : the number of groups.
    rng : the source of every draw (k-means starts; the block eigensolver's start on large contexts).
    neighbours : titles each title is linked to.

    Returns
    -------
    TitleGroups
        With fewer than ``k + 1`` distinct titles every title is a group of its own.
    """
    first: dict[str, str] = {}
    for t in titles:
        first.setdefault(normalize(t), t)
    space = CheckerTitleSpace.fit(list(first.values()))
    n = len(first)
    if n <= k:
        labels = np.arange(n, dtype=np.int64)
    else:
        labels = _kmeans(_embedding(_knn_graph(space.vectors, neighbours), k, rng), k, rng)
    return TitleGroups(tuple(first.values()), dict(space.row), space.vectors, labels)


def _answer(q: ParsedQuestion, groups: TitleGroups) -> str | None:
    """The answer by group membership (step 5); None when the question names a title the context does not."""
    src = groups.group_of(q.source)
    if src is None:
        return None
    members = [t for t, label in zip(groups.titles, groups.labels, strict=True) if label == src]
    if q.task == "count":
        return str(len(members) - 1)
    if q.task == "list":
        key = normalize(q.source)
        return "\n".join(sorted((t for t in members if normalize(t) != key), key=lambda t: (t.casefold(), t)))
    target_groups = [groups.group_of(t) for t in q.targets]
    if any(g is None for g in target_groups):
        return None
    if q.task == "yesno":
        return "YES" if target_groups[0] == src else "NO"
    letters = option_letters(len(q.targets), q.none_option)
    inside = [i for i, g in enumerate(target_groups) if g == src]
    if not inside and q.none_option:
        return letters[-1]
    pool = inside or list(range(len(q.targets)))
    sims = [groups.similarity(q.source, q.targets[i]) for i in pool]
    return letters[pool[int(np.argmax(sims))]]  # the first in option order on a tie


def topic_cluster(examples: Sequence[Example], prompts: PromptSet | None = None, *, seed: int = DEFAULT_SEED) -> dict[str, str | None]:
    """The topic-cluster shortcut on every example in the paper-block rendering (module docstring).

    Parameters
    ----------
    examples : the examples; only their message text is read.
    prompts : the templates the messages follow (default: the shipped ones).
    seed : seeds each example's ``shortcut`` stream, with the example's id.

    Returns
    -------
    dict
        ``{example id: answer}``, None where the text names a question title twice or not at all;
        edge-list examples and examples of another prompt set are absent.
    """
    from graphniah.sampling import COMPONENTS

    pr = prompts or load_prompts()
    out: dict[str, str | None] = {}
    for ex in examples:
        parsed = read_question(ex, pr)
        if parsed is None or parsed.render != "apa":
            continue
        try:
            nodes = parse_context(parsed.context, pr).nodes
        except Undetermined:
            out[ex.id] = None
            continue
        rng = generator(Stream.SHORTCUT, seed, suite_key(ex.id))
        groups = group_titles([node.title for node in nodes], COMPONENTS[parsed.q.task], rng)
        out[ex.id] = _answer(parsed.q, groups)
    return out
