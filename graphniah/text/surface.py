"""What a pair of printed papers shows besides the citations: the surface a reader can compare.

A paper in a prompt is printed either as a block of its own (title, authors, publication line with
venue and day) or only as reference lines inside other papers' blocks (authors, year, title,
source). :class:`PrintedPaper` is what one of those prints, and :func:`pair_features` turns a
source paper and its candidates into one row of numbers per candidate, the columns named by
:data:`SURFACE_FEATURES`:

=====================  ===============================================================================
column                 value (NaN where the text does not show it)
=====================  ===============================================================================
``title_similarity``   the caller's similarity of the candidate's title to the source's (each caller
                       has its own title space: the sampler its corpus TF-IDF, a reader the prompt's)
``shared_authors``     author names printed for both (NFKC, case-, punctuation- and spacing-blind);
                       NaN when either prints no author
``same_venue``         1 when both print the same venue (same blind form), else 0; NaN when either
                       prints none (arXiv is a source, not a venue)
``year_gap``           the candidate's printed year minus the source's
``day_gap``            the candidate's printed publication day minus the source's, in days; only
                       where both have a block that prints a day (a reference line prints the year)
``title_words``        words of the candidate's title (runs of the blind form)
``title_chars``        characters of the candidate's title as printed
``authors``            author names the candidate prints (0 when none)
=====================  ===============================================================================

The sampler builds these records from snapshot metadata before it renders, the learned-surface
shortcut (:mod:`graphniah.baselines.learned`) from the prompt text it parses; both must build
them so that equal printed text gives equal records. The module imports no stage.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from graphniah.text.textcheck import normalize

__all__ = ["SURFACE_FEATURES", "PrintedPaper", "pair_features"]

#: The columns of :func:`pair_features`, in order.
SURFACE_FEATURES: tuple[str, ...] = (
    "title_similarity",
    "shared_authors",
    "same_venue",
    "year_gap",
    "day_gap",
    "title_words",
    "title_chars",
    "authors",
)


@dataclass(frozen=True)
class PrintedPaper:
    """What a paper's block, or its reference line when it has no block, prints.

    Attributes
    ----------
    title : the title as printed.
    authors : the author names as printed, in order (empty when none is printed).
    venue : the printed venue (a block's "Published in ..." or a reference line's source), None when
        none is printed or the source is arXiv.
    year : the printed publication year (a block's date's year, a reference line's year), None for
        "n.d." or no date.
    date : the printed publication day; None when the paper has no block of its own (a reference
        line prints the year only) or its block prints no day.
    """

    title: str
    authors: tuple[str, ...] = ()
    venue: str | None = None
    year: int | None = None
    date: dt.date | None = None

    def author_keys(self) -> frozenset[str]:
        """The blind forms of the printed author names (what ``shared_authors`` compares)."""
        return frozenset(k for k in map(normalize, self.authors) if k)

    def venue_key(self) -> str | None:
        """The blind form of the printed venue (what ``same_venue`` compares), None without one."""
        return None if self.venue is None else normalize(self.venue) or None


def _gap(values: Sequence[float | None], origin: float | None) -> npt.NDArray[np.float64]:
    if origin is None:
        return np.full(len(values), np.nan)
    col = np.array([np.nan if v is None else v for v in values], dtype=np.float64)
    return col - origin


def pair_features(
    source: PrintedPaper, candidates: Sequence[PrintedPaper], title_similarity: npt.ArrayLike
) -> npt.NDArray[np.float64]:
    """The surface features of each (source, candidate) pair.

    Parameters
    ----------
    source : the paper the question starts from.
    candidates : the papers compared with it (a YES/NO target, the options, the context's papers).
    title_similarity : one similarity of each candidate's title to the source's, in the caller's
        title space (shape ``(len(candidates),)``).

    Returns
    -------
    numpy.ndarray
        Shape ``(len(candidates), len(SURFACE_FEATURES))``, float64, columns in the order of
        :data:`SURFACE_FEATURES`, NaN where the text does not show a value (module docstring).

    Raises
    ------
    ValueError
        When ``title_similarity`` does not hold one value per candidate.
    """
    n = len(candidates)
    sim = np.asarray(title_similarity, dtype=np.float64).reshape(-1)
    if sim.shape != (n,):
        raise ValueError(f"title_similarity has {sim.size} values for {n} candidates")
    src_authors, src_venue = source.author_keys(), source.venue_key()
    keys = [c.author_keys() for c in candidates]
    shared = np.array([len(k & src_authors) if k and src_authors else np.nan for k in keys], dtype=np.float64)
    venues = [c.venue_key() for c in candidates]
    same_venue = np.array([np.nan if v is None or src_venue is None else float(v == src_venue) for v in venues])
    days = [None if c.date is None else float(c.date.toordinal()) for c in candidates]
    src_day = None if source.date is None else float(source.date.toordinal())
    out = np.column_stack([
        sim,
        shared,
        same_venue.reshape(n),
        _gap([None if c.year is None else float(c.year) for c in candidates], None if source.year is None else float(source.year)),
        _gap(days, src_day),
        np.array([len(normalize(c.title).split()) for c in candidates], dtype=np.float64),
        np.array([len(c.title) for c in candidates], dtype=np.float64),
        np.array([len(c.authors) for c in candidates], dtype=np.float64),
    ]) if n else np.empty((0, len(SURFACE_FEATURES)))
    return np.asarray(out, dtype=np.float64)
