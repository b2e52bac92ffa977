"""Matching on a learned score, as in propensity matching: wrong answers a reader of the surface cannot tell from the true one.

Matching on one cue at a time (:mod:`.similarity`: title similarity, field, venue, word count, rank
by length; :mod:`.components`: subject of the components) balances where the true answer *ranks*
inside one question, not how the cues are *distributed* over questions, and a reader that learns
from examples combines whatever is left: a wrong option drawn just longer or just shorter than the
true title comes from a tail, so the true title is the one of typical length; the true target lies a
path away from the source, so it was published closer in time to it. With ``match_learned`` one
scorer, trained once per snapshot and depth, weighs every cue a block prints at once, and the wrong
options are drawn so that its score of a wrong option follows the distribution of its score of the
true target.

**The scorer.** For a source paper and a candidate target, the features are the columns of
:func:`graphniah.text.surface.pair_features` (title similarity in the sampler's TF-IDF space, shared
author names, same printed venue, year and day gaps, the candidate's title words and characters and
its author count), built from the snapshot's metadata as a block would print it (:func:`printed`;
the day is always given, as if both papers had a block, so the scorer sees at least what any prompt
shows). Each feature is cut at its training quantiles (:data:`BINS` among the true pairs and as many
among the wrong ones, so the bins are fine where either concentrates), with one more bin for "not
shown" (NaN), and a logistic regression on the bins' indicators estimates the log-odds
that the candidate is the true target. Bins make each cue free to act non-monotonically (a typical
title length, not a long or short one). The training set, drawn once from the ``match-scorer``
stream (:mod:`graphniah.seeds`), holds every pool path in both directions: its true pair, and up to
:data:`NEGATIVES` candidates that the draw could offer as wrong answers for that source (the same
compatibility, field, venue, partner and word-count filters, and the cosine caliper). The score is
thus a propensity score in the population the draw chooses from.

**Frozen.** The fitted scorer is a JSON document (bin edges, weights, the design it was trained
for), written atomically to ``<snapshot>/matching/learned-depth=<k>.json``; its sha256 is the
recipe's ``match_learned``. Scoring is plain numpy over the stored numbers, so a replay needs only
the file: ``regenerate`` refuses an example whose scorer hash differs from the stored file's, and a
missing file is trained again from the same stream (deterministic, so the same bytes).

**The draw** (:meth:`.similarity.MatchIndex.draw` with ``learned``) is the rank rule of
:mod:`.similarity` on the score instead of the cosine: among the candidates that pass the filters,
lie within the cosine caliper and within the scorer's caliper (:data:`CALIPER_SDS` standard
deviations of the training pairs' log-odds, the usual rule of propensity matching) of the true target's log-odds, the
true target's rank by score is drawn uniformly, and the wrong answers are the nearest candidates on
each side. Matching on the score balances the features it was fitted on (the balancing property of a
propensity score: given the score, features do not depend on being the true target), up to the
caliper and the model's fit; the rank rule keeps "pick the highest score" at chance. The partner
rule still chooses the wrong answers' components among the source component's partners (subject
matched), so the scorer sees only candidates from components a topic grouping cannot tell apart.

**The weighted draw** (``match_weighted``, :meth:`.similarity.MatchIndex.weighted_draw`). Nearest
neighbours by score make the true option the centre of its options, and a reader picks the middle
one. Within one question a reader can do better than chance only if the true option's cues follow
another distribution than the wrong ones': true target ``x ~ p``, wrong options drawn independently
from ``q`` make the posterior of "option i is true" proportional to ``p(x_i) / q(x_i)``, uniform only
when ``q = p``. So each wrong answer is drawn among the candidates (the same graph, partner, field,
venue and word-count rules; no cosine caliper and no rank rule) with probability proportional to
``exp(logit) = e / (1 - e)``, the density ratio of true targets to candidates that the scorer
estimates (the training prevalence is one factor and cancels). Its scorer is trained on exactly
those candidates (:data:`WEIGHTED_VERSION`, its own file ``learned-weighted-depth=<k>.json``). A
source whose candidates' weights amount to fewer than :data:`MIN_EFFECTIVE` candidates (Kish's
effective size ``(sum w)^2 / sum w^2``) is drawn again, as a source without enough candidates
always was (``paths_no_match`` in the sampler's rejects). Multiple choice's default, YES/NO's not
(``WEIGHTED_MATCH_TASKS``; measured in docs/paper-deviations.md).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt
from pydantic import ValidationError

from graphniah.atomic import atomic_write_bytes, canonical_json, sha256_bytes
from graphniah.errors import GraphNIAHError
from graphniah.formats import Frozen
from graphniah.formats.examples import PaperMeta
from graphniah.sampling.examples.render import printed_venue
from graphniah.seeds import DEFAULT_SEED, Stream, generator
from graphniah.text.surface import SURFACE_FEATURES, PrintedPaper, pair_features

__all__ = ["BINS", "CALIPER_SDS", "MIN_EFFECTIVE", "NEGATIVES", "SCORER_VERSION", "WEIGHTED_VERSION", "LearnedMatch", "Scorer",
           "effective_size", "fit_scorer", "printed", "ratio_weights", "row_features", "scorer_file", "training_pairs"]

SCORER_VERSION = 1  # the design of the scorer and its training set; a new design writes a new scorer
WEIGHTED_VERSION = 2  # the weighted draw's scorer: the same model, trained on candidates without the cosine caliper
BINS = 16  # quantile bins per feature among the true pairs and among the wrong ones (fewer where it takes fewer values)
NEGATIVES = 8  # wrong candidates per source in the training set
CALIPER_SDS = 0.2  # the caliper on the score: this many standard deviations of the training pairs' log-odds
_C = 1.0  # inverse L2 penalty of the logistic regression
MIN_EFFECTIVE = 3.0  # the weighted draw redraws a source whose candidates' weights amount to fewer candidates


def ratio_weights(logits: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """The density ratio ``e / (1 - e) = exp(logit)`` of each candidate, up to one factor (the largest is 1)."""
    return np.exp(logits - logits.max()) if logits.size else np.zeros(0)


def effective_size(w: npt.NDArray[np.float64]) -> float:
    """Kish's effective sample size of weights ``w``: ``(sum w)^2 / sum w^2`` (0 for none)."""
    sq = float(np.dot(w, w))
    return float(w.sum()) ** 2 / sq if sq > 0 else 0.0


def printed(meta: PaperMeta) -> PrintedPaper:
    """What a paper's block prints, from its snapshot metadata (its day always, as if it had a block)."""
    year = meta.publication_date.year if meta.publication_date is not None else meta.year
    return PrintedPaper(meta.title, meta.authors, printed_venue(meta.venue), year, meta.publication_date)


class Scorer(Frozen):
    """A fitted scorer: per feature, inner bin edges and one weight per bin (the last: not shown)."""

    version: int
    depth: int
    features: tuple[str, ...]
    edges: tuple[tuple[float, ...], ...]
    weights: tuple[tuple[float, ...], ...]
    intercept: float
    pairs: int  # training pairs (true and wrong)
    caliper: float  # largest log-odds gap between a wrong target and the true one (CALIPER_SDS of the training log-odds)

    def bins(self, x: npt.NDArray[np.float64]) -> npt.NDArray[np.int64]:
        """The bin of each value (rows: pairs, columns: features); NaN gets the last bin."""
        out = np.empty(x.shape, dtype=np.int64)
        for j, edges in enumerate(self.edges):
            col = x[:, j]
            out[:, j] = np.where(np.isnan(col), len(edges) + 1, np.searchsorted(np.asarray(edges), col, side="right"))
        return out

    def logits(self, x: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
        """The log-odds that each pair's candidate is the true target (features as ``pair_features`` gives them)."""
        b = self.bins(x)
        total = np.full(x.shape[0], self.intercept)
        for j, w in enumerate(self.weights):  # the same order of additions on every machine
            total = total + np.asarray(w)[b[:, j]]
        return total

    def document(self) -> bytes:
        """The stored form: canonical JSON (its sha256 is the recipe's ``match_learned``)."""
        return (canonical_json(self.model_dump(mode="json")) + "\n").encode()


def _edges(col: npt.NDArray[np.float64], y: npt.NDArray[np.bool_]) -> tuple[float, ...]:
    """Inner bin edges: the quantiles of the true pairs' values and of the wrong pairs', so the bins are
    fine where either concentrates (true targets' day gaps sit in a few days a wrong pair's bin would
    span), and the true pairs' range (its smallest value, and just above its largest), so values no
    true pair takes get bins of their own."""
    cuts: list[float] = []
    for part in (col[y], col[~y]):
        shown = part[~np.isnan(part)]
        if shown.size:
            cuts.extend(np.quantile(shown, np.linspace(0, 1, BINS + 1)[1:-1], method="lower").tolist())
    true = col[y][~np.isnan(col[y])]
    if true.size:
        cuts.extend([float(true.min()), float(np.nextafter(true.max(), np.inf))])
    shown = col[~np.isnan(col)]
    return tuple(float(c) for c in np.unique(cuts) if shown.size and c > shown.min())


def fit_scorer(x: npt.NDArray[np.float64], y: npt.NDArray[np.bool_], depth: int, version: int = SCORER_VERSION) -> Scorer:
    """Fit the binned logistic scorer to pairs ``x`` (``pair_features`` rows) labelled ``y`` (true pair or not).

    Parameters
    ----------
    x : numpy.ndarray
        One row of :data:`SURFACE_FEATURES` per (source, candidate) pair.
    y : numpy.ndarray of bool
        Whether the candidate is the source's true target.
    depth : int
        The pool depth the pairs come from (recorded in the scorer).
    version : int
        The design recorded in the scorer: :data:`SCORER_VERSION` (the nearest-neighbour draw's) or
        :data:`WEIGHTED_VERSION` (the weighted draw's).

    Returns
    -------
    Scorer
        Bin edges at the quantiles of ``x`` and the weights of an L2-penalised logistic regression on
        the bins' indicators (scikit-learn, lbfgs, on one BLAS thread: the same bytes on any machine).
    """
    from sklearn.linear_model import LogisticRegression  # only when a scorer is trained
    from threadpoolctl import threadpool_limits

    if x.shape[1] != len(SURFACE_FEATURES) or not y.any() or y.all():
        raise GraphNIAHError(f"cannot fit a matching scorer on {x.shape[0]} pairs ({int(y.sum())} true)")
    edges = tuple(_edges(x[:, j], y) for j in range(x.shape[1]))
    draft = Scorer(version=version, depth=depth, features=SURFACE_FEATURES, edges=edges,
                   weights=tuple((0.0,) * (len(e) + 2) for e in edges), intercept=0.0, pairs=int(y.size), caliper=0.0)
    b = draft.bins(x)
    widths = [len(e) + 2 for e in edges]
    offsets = np.concatenate([[0], np.cumsum(widths)[:-1]])
    onehot = np.zeros((x.shape[0], int(sum(widths))))
    onehot[np.arange(x.shape[0])[:, None], b + offsets] = 1.0
    # One BLAS thread: OpenBLAS splits its sums by thread count, and the last bits of the weights (so the
    # file's bytes and the recipes' hash) would depend on the machine's cores.
    with threadpool_limits(1):
        model = LogisticRegression(C=_C, max_iter=5000).fit(onehot, y)
    coef = model.coef_.ravel()
    weights = tuple(tuple(float(w) for w in coef[o:o + k]) for o, k in zip(offsets, widths, strict=True))
    fitted = draft.model_copy(update={"weights": weights, "intercept": float(model.intercept_[0])})
    return fitted.model_copy(update={"caliper": CALIPER_SDS * float(np.std(fitted.logits(x)))})


def training_pairs(sources: Sequence[int], candidates: Callable[[int], npt.NDArray[np.int64]], true_target: Callable[[int], int],
                   features: Callable[[int, npt.NDArray[np.int64]], npt.NDArray[np.float64]],
                   rng: np.random.Generator) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.bool_]]:
    """The training set: per source row, its true pair and up to :data:`NEGATIVES` of its candidates.

    ``candidates(src)`` are the rows the draw could offer as wrong answers for ``src`` (sources with
    none are left out), ``true_target(src)`` its true target's row, ``features(src, rows)`` the
    pairs' ``pair_features``. Returns the feature rows and whether each is a true pair.
    """
    xs: list[npt.NDArray[np.float64]] = []
    ys: list[npt.NDArray[np.bool_]] = []
    for src in sources:
        cand = candidates(src)
        if cand.size == 0:
            continue
        wrong = rng.choice(cand, size=min(NEGATIVES, cand.size), replace=False)
        rows = np.concatenate([[true_target(src)], wrong]).astype(np.int64)
        xs.append(features(src, rows))
        ys.append(np.arange(rows.size) == 0)
    if not xs:
        raise GraphNIAHError("no source of the pool has a candidate wrong answer: the matching scorer cannot be trained")
    return np.concatenate(xs), np.concatenate(ys)


def scorer_file(snapshot: Path, depth: int, weighted: bool = False) -> Path:
    """Where a snapshot keeps its matching scorer of ``depth`` (``weighted``: the weighted draw's)."""
    return Path(snapshot) / "matching" / f"learned-{'weighted-' if weighted else ''}depth={depth}.json"


def read_scorer(path: Path, version: int = SCORER_VERSION) -> tuple[Scorer, str] | None:
    """The stored scorer and its file's sha256; None when there is none or it is of another design."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return None
    try:
        scorer = Scorer.model_validate(json.loads(data))
    except (ValueError, ValidationError) as err:
        raise GraphNIAHError(f"{path}: not a matching scorer ({str(err).splitlines()[0]}); delete it to train it again") from None
    if scorer.version != version or scorer.features != SURFACE_FEATURES:
        return None
    return scorer, sha256_bytes(data)


@dataclass(frozen=True, eq=False)
class LearnedMatch:
    """A depth's frozen scorer and its pool endpoints as printed: called with a source row, candidate rows and
    their cosines to the source, the log-odds of each candidate (what :meth:`.similarity.MatchIndex.draw` ranks by)."""

    scorer: Scorer
    sha256: str  # of the stored scorer file: the recipe's ``match_learned``
    papers: tuple[PrintedPaper, ...]  # per endpoint row of the depth's MatchIndex

    def __call__(self, src: int, rows: npt.NDArray[np.int64], cos: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
        return self.scorer.logits(row_features(self.papers, src, rows, cos))


def row_features(papers: Sequence[PrintedPaper], src: int, rows: npt.NDArray[np.int64],
                 cos: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """``pair_features`` of endpoint ``src`` with endpoints ``rows`` (cosines ``cos`` to it)."""
    return pair_features(papers[src], [papers[r] for r in rows.tolist()], cos)


def load_or_train(path: Path, depth: int, papers: tuple[PrintedPaper, ...],
                  train: Callable[[np.random.Generator], tuple[npt.NDArray[np.float64], npt.NDArray[np.bool_]]],
                  version: int = SCORER_VERSION) -> LearnedMatch:
    """The scorer of design ``version`` stored at ``path``, or one trained from ``train``'s pairs (stream
    ``match-scorer``) and stored there."""
    found = read_scorer(path, version)
    if found is None:
        x, y = train(generator(Stream.MATCH_SCORER, DEFAULT_SEED, depth))
        doc = fit_scorer(x, y, depth, version).document()
        try:
            atomic_write_bytes(path, doc)
        except OSError as err:
            raise GraphNIAHError(f"cannot store the matching scorer at {path}: {err}") from None
        found = Scorer.model_validate(json.loads(doc)), sha256_bytes(doc)
    return LearnedMatch(found[0], found[1], papers)
