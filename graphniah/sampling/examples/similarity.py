"""Matched sampling: wrong answers whose titles are as close to the source as the true answer's.

In the paper's design a YES target lies on the source's own citation path and a NO target or a wrong
multiple-choice candidate in an independently drawn component, so it tends to be about something
else, and "answer YES when the titles look alike" beats random without reading a citation. With
``match_similarity`` the components that hold the NO target (YES/NO) and the wrong candidates (MC)
are chosen so that their target's similarity to the source follows the distribution of the true
target's, per task and depth. This module holds the similarity and the choice.

**Similarity** of papers ``u`` and ``v``: the cosine of their titles' TF-IDF vectors (lower-cased
word tokens of two or more characters, raw term counts, smoothed IDF ``ln((1 + N) / (1 + df)) + 1``
over the N eligible titles of the snapshot, rows L2-normalised), and — where the snapshot has S2
fields of study (``papers.parquet`` column ``fields_of_study``) — whether the two share a field:
``unknown`` (one of them has none), ``same`` or ``different``. With ``match_venue`` also their
**venue relation**: ``unknown`` when either prints no venue, ``same`` when both print the same one,
``different`` otherwise — on the venue exactly as blocks and reference entries print it
(``venue_codes``: ``clean_text(venue) or clean_text(journal)`` as ``PaperMeta.from_row`` takes
it, arXiv dropped as ``render.printed_venue`` drops it; equal codes are equal strings).

**Candidates.** A depth-k pool path ``p`` offers two (path, direction) choices; the source of a
component is ``p_k`` and its target ``p_{2k-1}``, and reversing a path of 3k−2 papers swaps the two.
So the pool's candidate targets are the 2n endpoints (``MatchIndex`` rows), each standing for one
path in one direction.

**Choice: a uniform rank among nearest neighbours.** Path 0 (the source's component) and its
direction are drawn uniformly; its target has cosine ``c0`` to the source and field relation ``f0``.
The other components' targets are taken among the candidates compatible with the paths chosen so far
(the pool's conflict matrix, :mod:`.backbones`) that have the same field relation ``f0`` (and with
``match_venue`` the same venue relation ``v0``), ordered by
cosine to the source (ties in a random order, the true target placed at a random position among its
ties). A rank ``r`` is drawn uniformly from ``0 … m`` (m the number of wrong answers: 1 for YES/NO,
3 for MC); the ``r`` candidates just below the true target and the ``m − r`` just above it are taken,
and their order among the components is shuffled. Only candidates within ``CALIPER`` of ``c0``
count, and a source is kept only when *each* side holds m of them; otherwise the whole tuple is
drawn again. That test comes before the rank is drawn: were the tuple redrawn whenever the drawn
side came up short, a very similar true target (few candidates above it) would keep mostly the ranks
with the wrong answers below it, and similarity would again point to the true answer.

Why this matches: the wrong targets sit next to ``c0`` in the same field relation, so their cosines
follow the true target's distribution up to the caliper — the AUC of the similarity for YES against
NO is 1/2 up to those gaps — and the true target's rank among the options by similarity is uniform
by construction, so "pick the most similar candidate" is right with probability 1/(m + 1) (ties go
either way). YES and NO examples draw their components the same way (only the asked target
differs), so the draw says nothing about the label. The price: sources whose true target has too
few close neighbours on either side (a title far more similar than any other candidate's) are
redrawn, so matched examples leave out the most similar true pairs of the pool;
``bench/matched.py`` prints the result on the demo.

**Venue** (``match_venue``). Matching cosine and field alone leaves the venue as a cue: a true
target shares the source's venue more often than a wrong one (citing papers often come from the same
venue), and the prompt prints every venue in the blocks and reference entries. With the rule every
wrong target has the true target's venue relation to the source (unknown, same or different), so
"shares the source's venue" is true of all candidates or of none and says nothing about the answer.
The rule only narrows the candidates and draws nothing, so the draw without it is unchanged; its
price is more redrawn sources. New matched YES/NO and multiple-choice examples use it
(``batch_specs``, matched suites) and the recipe records ``match_venue: true``; a recipe without the
key (matched examples built before the rule) replays the old draw byte for byte.

**Known residuals.** Title length is left unmatched: true targets' titles run a little shorter, so
"pick the shortest title" beats chance slightly on multiple choice, but requiring the exact word
count redraws a large share of sources and a one-word tolerance over-corrects. The publication-date
gap is not matched either. ``bench/leaks.py`` (its ``[draws]`` rows) measures both, with the venue.
Matched YES/NO and multiple-choice examples built since ``match_learned`` (:mod:`.learned`) rank the
candidates by a learned score of every printed cue (lengths, dates, authors, venue, similarity) instead
of the cosine, and ``bench/learned_matching.py`` measures what a classifier trained anew still finds.
With ``match_weighted`` (multiple choice's default) the wrong answers are drawn instead with weights on that score,
the density ratio (:meth:`MatchIndex.weighted_draw`, :mod:`.learned`), without the cosine caliper.

**Nothing else changes.** The chosen paths are pairwise compatible by the conflict matrix exactly as
:meth:`PoolIndex.draw`'s are, and ``sample.draw_paths`` puts them through the same checks
afterwards (room in the connected part, no mutual citation inside a path); growth, the forest
invariant check, rendering, packing and the text verifier run unchanged on them. Only the
distribution over path tuples differs. Every draw comes from the example's generator, and the
recipe records ``match_similarity`` and ``match_venue`` (each absent means false, so older examples
read and regenerate unchanged), so ``regenerate`` replays the same choice byte for byte.

Counting (and listing) has no target in the question; there the control acts on sizes instead
(``other_sizes`` in :mod:`.spec`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc
import scipy.sparse as sp

from graphniah.formats.examples import clean_text
from graphniah.sampling.examples.learned import MIN_EFFECTIVE, LearnedMatch, effective_size, ratio_weights
from graphniah.sampling.examples.render import printed_venue

CALIPER = 0.05  # largest cosine gap between a wrong target and the true one
_SPLIT = r"\W+"
UNKNOWN, SAME, DIFFERENT = 0, 1, 2  # field-of-study (and venue) relation of two papers
NO_VENUE = -1  # venue code of a paper whose block and references print no venue


def _tokens(titles: pa.Array | pa.ChunkedArray) -> tuple[npt.NDArray[np.int64], pa.Array]:
    """(row of each token, tokens): lower-cased words of at least two characters."""
    parts = pc.split_pattern_regex(pc.utf8_lower(titles), _SPLIT)
    parents = np.asarray(pc.list_parent_indices(parts), dtype=np.int64)
    flat = pc.list_flatten(parts)
    keep = np.asarray(pc.greater_equal(pc.utf8_length(flat), 2).fill_null(False), dtype=bool)
    tokens = flat.filter(pa.array(keep))
    return parents[keep], tokens if isinstance(tokens, pa.Array) else tokens.combine_chunks()


@dataclass(frozen=True, eq=False)
class TitleSpace:
    """The TF-IDF space of a snapshot's eligible titles: its terms and their IDF."""

    terms: pa.Array  # distinct tokens; a term's id is its position
    idf: npt.NDArray[np.float64]

    @classmethod
    def fit(cls, titles: pa.Array | pa.ChunkedArray) -> TitleSpace:
        rows, tokens = _tokens(titles)
        encoded = pc.dictionary_encode(tokens)
        ids = np.asarray(encoded.indices, dtype=np.int64)
        terms = encoded.dictionary
        n = len(titles)
        counts = sp.csr_matrix((np.ones(ids.size, dtype=np.int32), (rows, ids)), shape=(n, len(terms)))
        counts.sum_duplicates()  # one entry per (title, term): the document frequency counts entries
        df = np.bincount(counts.indices, minlength=len(terms))
        return cls(terms, np.log((1.0 + n) / (1.0 + df)) + 1.0)

    def vectors(self, titles: pa.Array | pa.ChunkedArray) -> sp.csr_matrix:
        """L2-normalised TF-IDF rows of ``titles`` (terms outside the space are dropped)."""
        rows, tokens = _tokens(titles)
        ids = np.asarray(pc.index_in(tokens, value_set=self.terms).fill_null(-1), dtype=np.int64)
        known = ids >= 0
        rows, ids = rows[known], ids[known]
        m = sp.csr_matrix((self.idf[ids], (rows, ids)), shape=(len(titles), len(self.terms)))  # duplicates sum: tf * idf
        norms = np.sqrt(np.asarray(m.multiply(m).sum(axis=1)).ravel())
        scale = np.divide(1.0, norms, out=np.zeros_like(norms), where=norms > 0)
        out: sp.csr_matrix = sp.csr_matrix(sp.diags(scale) @ m)
        return out


def title_words(titles: pa.Array | pa.ChunkedArray) -> npt.NDArray[np.int64]:
    """Number of words (``\\w+`` runs) of each title, as the question prints it."""
    return np.asarray(pc.count_substring_regex(titles, r"\w+").fill_null(0), dtype=np.int64)


def field_masks(fields: pa.Array | pa.ChunkedArray | None, n: int) -> npt.NDArray[np.int64]:
    """One bit per S2 field of study (0: none known) for each of ``n`` papers; all 0 without the column."""
    if fields is None:
        return np.zeros(n, dtype=np.int64)
    lists = fields.combine_chunks() if isinstance(fields, pa.ChunkedArray) else fields
    parents = np.asarray(pc.list_parent_indices(lists), dtype=np.int64)
    encoded = pc.dictionary_encode(pc.list_flatten(lists))
    if len(encoded.dictionary) > 62:
        raise ValueError(f"{len(encoded.dictionary)} distinct fields of study; at most 62 fit a bit mask")
    bits = np.left_shift(np.int64(1), np.asarray(encoded.indices, dtype=np.int64))
    out = np.zeros(n, dtype=np.int64)
    np.bitwise_or.at(out, parents, bits)
    return out


def field_relation(a: npt.NDArray[np.int64], b: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    """UNKNOWN where either has no field, SAME where they share one, DIFFERENT otherwise."""
    return np.where((a == 0) | (b == 0), UNKNOWN, np.where((a & b) != 0, SAME, DIFFERENT)).astype(np.int64)


def _codes(column: pa.Array | pa.ChunkedArray | None, n: int) -> tuple[npt.NDArray[np.int64], list[str | None]]:
    """(index of each row's value among the distinct values, -1 for null; the distinct values after ``clean_text``)."""
    if column is None:
        return np.full(n, -1, dtype=np.int64), []
    encoded = pc.dictionary_encode(column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column)
    return np.asarray(encoded.indices.fill_null(-1), dtype=np.int64), [clean_text(v) for v in encoded.dictionary.to_pylist()]


def venue_codes(venue: pa.Array | pa.ChunkedArray | None, journal: pa.Array | pa.ChunkedArray | None, n: int) -> npt.NDArray[np.int64]:
    """For each of ``n`` papers, an id of the venue its block and reference entries print, NO_VENUE when
    they print none: ``clean_text(venue) or clean_text(journal)`` as ``PaperMeta.from_row`` takes it,
    then arXiv dropped as ``render.printed_venue`` drops it. Equal ids are equal printed strings. The
    rule runs once per distinct value, not per paper."""
    v_idx, v_vals = _codes(venue, n)
    j_idx, j_vals = _codes(journal, n)
    ids: dict[str, int] = {}

    def code(text: str | None) -> int:
        shown = printed_venue(text)
        return NO_VENUE if shown is None else ids.setdefault(shown, len(ids))

    # A venue that cleans to nothing falls back to the journal (-2 marks it); arXiv as the venue does not.
    v_code = np.asarray([-2 if t is None else code(t) for t in v_vals] + [-2], dtype=np.int64)  # last: null venue
    j_code = np.asarray([code(t) for t in j_vals] + [NO_VENUE], dtype=np.int64)  # last: null journal
    out = v_code[v_idx]  # index -1 picks the trailing null entry
    return np.where(out == -2, j_code[j_idx], out)


def venue_relation(a: npt.NDArray[np.int64], b: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    """UNKNOWN where either prints no venue, SAME where both print the same one, DIFFERENT otherwise."""
    return np.where((a == NO_VENUE) | (b == NO_VENUE), UNKNOWN, np.where(a == b, SAME, DIFFERENT)).astype(np.int64)


@dataclass(frozen=True, eq=False)
class MatchIndex:
    """A depth's pool seen from its endpoints: rows 0..n−1 are the papers ``p_k`` of each path, rows
    n..2n−1 the papers ``p_{2k-1}``. As a target, row i < n is path i reversed and row n + i path i
    forward; as a source, the other way round."""

    vectors: sp.csr_matrix  # (2n, terms) TF-IDF rows of the endpoints
    fields: npt.NDArray[np.int64]  # (2n,) field masks of the endpoints
    venues: npt.NDArray[np.int64]  # (2n,) venue codes of the endpoints (venue_codes)
    words: npt.NDArray[np.int64]  # (2n,) words in the endpoints' titles (title_words)
    chars: npt.NDArray[np.int64]  # (2n,) characters in the endpoints' titles

    @classmethod
    def build(cls, paths: npt.NDArray[np.int64], depth: int, space: TitleSpace, titles: pa.Array, masks: npt.NDArray[np.int64],
              venues: npt.NDArray[np.int64] | None = None) -> MatchIndex:
        """``paths`` as vertex ids (n × (3k−2)); ``titles``, ``masks`` and ``venues`` (default: none
        known) indexed by vertex."""
        ends = np.concatenate([paths[:, depth - 1], paths[:, 2 * depth - 2]])
        codes = venues[ends] if venues is not None else np.full(ends.size, NO_VENUE, dtype=np.int64)
        chosen = titles.take(pa.array(ends))
        chars = np.asarray(pc.utf8_length(chosen).fill_null(0), dtype=np.int64)
        return cls(space.vectors(chosen), masks[ends], codes, title_words(chosen), chars)

    @property
    def n(self) -> int:
        return int(self.fields.size // 2)

    def cosines_from(self, row: int) -> npt.NDArray[np.float64]:
        """Cosine of endpoint ``row`` with every endpoint."""
        return np.asarray((self.vectors @ self.vectors[row].T).toarray()).ravel()

    def true_pair_cosines(self) -> npt.NDArray[np.float64]:
        """Cosine of each path's two endpoints (its true pair, whichever the direction)."""
        n = self.n
        return np.asarray(self.vectors[:n].multiply(self.vectors[n:]).sum(axis=1)).ravel()

    def draw(self, conflict: npt.NDArray[np.bool_], k: int, rng: np.random.Generator, *, match_venue: bool = False,
             partners: Callable[[int], npt.NDArray[np.bool_]] | None = None,
             learned: LearnedMatch | None = None, weighted: bool = False, source: int | None = None) -> list[tuple[int, bool]] | None:
        """``k`` pairwise compatible (path, reversed) pairs: the source's first, then the wrong answers'
        components matched to it (module docstring); None when the tuple must be drawn again.

        ``match_venue`` also keeps only candidates in the true target's venue relation to the source.
        ``partners`` (component matching, :mod:`.components`) maps the source's path to the paths its
        other components may come from; with it the wrong titles also have the true target's number
        of words, and the true title's rank by length in characters among the options is uniform
        (the rank rule below, applied to lengths as well as similarities). ``learned`` (matching on
        a learned score, :mod:`.learned`) ranks the candidates by that score instead of the cosine,
        keeps only those within its caliper of the true target's score, and replaces the rule on
        lengths (the score weighs them). With ``weighted`` as well the wrong answers are drawn with
        weights on that score instead (:meth:`weighted_draw`). Without any of them the draw is the same as before.
        ``source`` (a row, see the class docstring) fixes the source's path and direction instead of drawing them
        (:class:`DistinctSources`); None draws them uniformly, as before."""
        if learned is not None and weighted:
            return self.weighted_draw(conflict, k, rng, learned, match_venue=match_venue, partners=partners, source=source)
        n = self.n
        first, rev = self._source(source, rng)
        src, tgt = (first + n, first) if rev else (first, first + n)
        cos = self.cosines_from(src)
        near = self._near(src, cos, conflict, match_venue, partners)
        # Candidates in cosine order, ties in random order; the true target at a random place among its ties.
        tie = rng.random(2 * n)
        below = (cos < cos[tgt]) | ((cos == cos[tgt]) & (tie < tie[tgt]))
        key = cos
        if learned is not None:  # rank by the learned score; the caliper on it narrows the candidates
            key, near = _learned_key(learned, src, tgt, cos, near)
            below = (key < key[tgt]) | ((key == key[tgt]) & (tie < tie[tgt]))
        # The length side of each candidate (shorter than the true title, ties in random order), when
        # lengths are matched; otherwise one side holding every candidate.
        shorter = self._shorter(tgt, rng) if partners is not None and learned is None else None
        sides = [near & side for side in ((shorter, ~shorter) if shorter is not None else (near,))]
        # Keep the source only if each side could hold all wrong answers: the redraw must not
        # depend on the rank drawn next, or high-similarity true targets would keep only the
        # ranks with wrong answers below them.
        if min(np.count_nonzero(side & part) for side in sides for part in (below, ~below)) < k - 1:
            return None
        order = np.lexsort((tie, key))
        n_below = int(rng.integers(k))  # the true target's rank among the k options
        by_length = [0] * (k - 1)
        if shorter is not None:  # its rank by length, drawn the same way, the sides paired at random
            n_shorter = int(rng.integers(k))
            by_length = rng.permutation([0] * n_shorter + [1] * (k - 1 - n_shorter)).tolist()
        wrong: list[tuple[int, bool]] = []
        for side_below, length_side in zip([True] * n_below + [False] * (k - 1 - n_below), by_length, strict=True):
            pool = sides[length_side] & (below if side_below else ~below) & near
            ranked = order[pool[order]]
            if ranked.size == 0:  # the nearest ones conflict with a wrong answer already chosen
                return None
            row = int(ranked[-1] if side_below else ranked[0])  # the nearest on that side
            wrong.append((row % n, row < n))
            near &= np.concatenate([~conflict[row % n], ~conflict[row % n]])
        return [(first, rev)] + [wrong[i] for i in rng.permutation(len(wrong))]

    def _near(self, src: int, cos: npt.NDArray[np.float64], conflict: npt.NDArray[np.bool_], match_venue: bool,
              partners: Callable[[int], npt.NDArray[np.bool_]] | None, caliper: bool = True) -> npt.NDArray[np.bool_]:
        """The rows a draw from source row ``src`` may take as wrong targets (before any is chosen): compatible
        with its path, in its true target's field (and venue) relation, partners of its path with the true
        title's word count when ``partners`` is given, and (``caliper``) within ``CALIPER`` of the true target's cosine."""
        n = self.n
        first, tgt = src % n, (src + n) % (2 * n)
        usable = field_relation(np.full(2 * n, self.fields[src]), self.fields) == field_relation(self.fields[[src]], self.fields[[tgt]])[0]
        if match_venue:
            usable &= venue_relation(np.full(2 * n, self.venues[src]), self.venues) == venue_relation(self.venues[[src]], self.venues[[tgt]])[0]
        if partners is not None:
            allowed = partners(first)
            usable &= np.concatenate([allowed, allowed]) & (self.words == self.words[tgt])
        free = ~conflict[first]
        near: npt.NDArray[np.bool_] = np.concatenate([free, free]) & usable
        if caliper:
            near &= np.abs(cos - cos[tgt]) <= CALIPER
        near[tgt] = False
        return near

    def candidates(self, src: int, conflict: npt.NDArray[np.bool_],
                   partners: Callable[[int], npt.NDArray[np.bool_]] | None, caliper: bool = True) -> npt.NDArray[np.int64]:
        """The rows a matched draw (venue relation matched, ``partners`` as in :meth:`draw`) from source row
        ``src`` may offer as wrong targets, before the learned score: what the scorer is trained on (the
        weighted draw's scorer: without the cosine ``caliper``)."""
        return np.flatnonzero(self._near(src, self.cosines_from(src), conflict, True, partners, caliper)).astype(np.int64)

    def weighted_draw(self, conflict: npt.NDArray[np.bool_], k: int, rng: np.random.Generator, learned: LearnedMatch, *,
                      match_venue: bool = True, partners: Callable[[int], npt.NDArray[np.bool_]] | None = None,
                      source: int | None = None) -> list[tuple[int, bool]] | None:
        """Like :meth:`draw`, but each wrong target is drawn among the candidates (no cosine caliper)
        with probability proportional to the density ratio ``exp(logit)`` of ``learned`` (the module
        docstring of :mod:`.learned`); None when the source's candidates weigh less than
        :data:`.learned.MIN_EFFECTIVE` candidates (Kish's effective size), or run out. ``source`` as in :meth:`draw`."""
        n = self.n
        first, rev = self._source(source, rng)
        src = first + n if rev else first
        cos = self.cosines_from(src)
        near = self._near(src, cos, conflict, match_venue, partners, caliper=False)
        rows = np.flatnonzero(near).astype(np.int64)
        if rows.size == 0:
            return None
        w = ratio_weights(learned(src, rows, cos[rows]))
        if effective_size(w) < MIN_EFFECTIVE:
            return None
        wrong: list[tuple[int, bool]] = []
        for _ in range(k - 1):
            total = float(w.sum())
            if total <= 0:  # the candidates left all conflict with a wrong answer already chosen
                return None
            i = min(int(np.searchsorted(np.cumsum(w), rng.random() * total, side="right")), rows.size - 1)
            row = int(rows[i])
            wrong.append((row % n, row < n))
            free = ~conflict[row % n]
            w = w * np.concatenate([free, free])[rows]
        # Drawn in turn, the first wrong answer is the likeliest by weight: their order among the components is shuffled.
        return [(first, rev)] + [wrong[i] for i in rng.permutation(len(wrong))]

    def _source(self, source: int | None, rng: np.random.Generator) -> tuple[int, bool]:
        """(path, reversed) of the source: row ``source`` (path ``source mod n``, reversed when ``source >= n``), or
        drawn uniformly (path, then direction) when None."""
        if source is None:
            return int(rng.integers(self.n)), bool(rng.random() < 0.5)
        return source % self.n, source >= self.n

    def source_ok(self, src: int, conflict: npt.NDArray[np.bool_], k: int, *, match_venue: bool = False,
                  partners: Callable[[int], npt.NDArray[np.bool_]] | None = None, learned: LearnedMatch | None = None,
                  weighted: bool = False) -> bool:
        """Whether source row ``src`` passes the tests of :meth:`draw` (same arguments) that do not depend on the
        draw's randomness: enough candidates on each side of the true target (the weighted draw: at least
        ``k − 1`` candidates weighing :data:`.learned.MIN_EFFECTIVE` or more). Ties of the rank rule count on
        both sides, so a source passing here may still be redrawn by the draw; one failing here always is."""
        tgt = (src + self.n) % (2 * self.n)
        cos = self.cosines_from(src)
        if learned is not None and weighted:
            rows = np.flatnonzero(self._near(src, cos, conflict, match_venue, partners, caliper=False)).astype(np.int64)
            if rows.size < k - 1 or effective_size(ratio_weights(learned(src, rows, cos[rows]))) < MIN_EFFECTIVE:
                return False
            return self._compatible(rows, conflict) >= k - 1
        near = self._near(src, cos, conflict, match_venue, partners)
        key = cos
        if learned is not None:
            key, near = _learned_key(learned, src, tgt, cos, near)
        return bool(min(np.count_nonzero(near & (key <= key[tgt])), np.count_nonzero(near & (key >= key[tgt]))) >= k - 1)

    def _compatible(self, rows: npt.NDArray[np.int64], conflict: npt.NDArray[np.bool_]) -> int:
        """How many of ``rows`` a greedy pass takes pairwise compatible (no conflict between their paths): a
        lower bound on the wrong answers a draw among them can hold together."""
        free = np.ones(rows.size, dtype=bool)
        taken = 0
        for i in range(rows.size):
            if free[i]:
                taken += 1
                free &= ~conflict[rows[i] % self.n][rows % self.n]
        return taken

    def _shorter(self, tgt: int, rng: np.random.Generator) -> npt.NDArray[np.bool_]:
        """Candidates whose title is shorter in characters than the true target's (ties in random order)."""
        tie = rng.random(self.chars.size)
        out: npt.NDArray[np.bool_] = (self.chars < self.chars[tgt]) | ((self.chars == self.chars[tgt]) & (tie < tie[tgt]))
        return out


def _learned_key(learned: LearnedMatch, src: int, tgt: int, cos: npt.NDArray[np.float64],
                 near: npt.NDArray[np.bool_]) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.bool_]]:
    """(the learned score of the true target and of each candidate in ``near``, -inf elsewhere; ``near``
    narrowed to the candidates within the scorer's caliper of the true target's score)."""
    rows = np.concatenate([[tgt], np.flatnonzero(near)]).astype(np.int64)
    key = np.full(cos.size, -np.inf)
    key[rows] = learned(src, rows, cos[rows])
    return key, near & (np.abs(key - key[tgt]) <= learned.scorer.caliper)


@dataclass(eq=False)
class DistinctSources:
    """A batch's order of distinct sources (``source_slot``): slot ``j`` is the ``j``-th source row, in the
    order ``order`` (a uniform permutation of the 2n rows, stream ``source-order``), that passes ``ok`` and
    shares neither its paper nor its true target's paper with an earlier slot's source or true target
    (``papers``: the vertex of each row). Computed lazily, up to the slot asked; a slot beyond the rows the
    pool holds is None (the example then draws its source uniformly, as without the rule)."""

    order: npt.NDArray[np.int64]
    ok: Callable[[int], bool]
    papers: npt.NDArray[np.int64]
    taken: list[int] = field(default_factory=list)
    used: set[int] = field(default_factory=set)
    seen: int = 0  # rows of ``order`` examined so far

    def slot(self, j: int) -> int | None:
        """The source row of slot ``j``, or None when the pool holds fewer distinct sources."""
        n2 = self.papers.size
        while len(self.taken) <= j and self.seen < self.order.size:
            row = int(self.order[self.seen])
            self.seen += 1
            pair = {int(self.papers[row]), int(self.papers[(row + n2 // 2) % n2])}
            if self.used.isdisjoint(pair) and self.ok(row):
                self.taken.append(row)
                self.used |= pair
        return self.taken[j] if j < len(self.taken) else None
