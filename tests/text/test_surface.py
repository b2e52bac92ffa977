"""The surface pair features against values worked out by hand."""

from __future__ import annotations

import datetime as dt

import numpy as np
import pytest

from graphniah.text import SURFACE_FEATURES, PrintedPaper, pair_features


def _col(rows: np.ndarray, name: str) -> list[float]:
    return [float(v) for v in rows[:, SURFACE_FEATURES.index(name)]]


SOURCE = PrintedPaper("Graph Search, Revisited", ("Ada Lovelace", "Alan Turing"), "NeurIPS", 2025, dt.date(2025, 9, 1))
CANDIDATES = [
    # a block of its own: day printed; one shared author whose name is spelled with other case and spacing
    PrintedPaper("Deep graphs", ("alan  TURING",), "neurips", 2025, dt.date(2025, 10, 11)),
    # a reference line: year only, no authors, arXiv (no venue)
    PrintedPaper("A much longer title: on forty-two things", (), None, 2024, None),
    # "n.d." and another venue, three authors, none shared
    PrintedPaper("X", ("B C", "D E", "F G"), "ICML", None, None),
]


def test_pair_features_by_hand() -> None:
    rows = pair_features(SOURCE, CANDIDATES, [0.5, 0.25, 0.0])
    assert rows.shape == (3, len(SURFACE_FEATURES))
    assert _col(rows, "title_similarity") == [0.5, 0.25, 0.0]
    shared = _col(rows, "shared_authors")
    assert shared[0] == 1.0 and np.isnan(shared[1]) and shared[2] == 0.0
    venue = _col(rows, "same_venue")
    assert venue[0] == 1.0 and np.isnan(venue[1]) and venue[2] == 0.0
    years = _col(rows, "year_gap")
    assert years[:2] == [0.0, -1.0] and np.isnan(years[2])
    days = _col(rows, "day_gap")
    assert days[0] == 40.0  # September 1 -> October 11: 29 + 11 days
    assert np.isnan(days[1]) and np.isnan(days[2])
    # "a much longer title on forty two things": the hyphen and colon are word breaks
    assert _col(rows, "title_words") == [2.0, 8.0, 1.0]
    assert _col(rows, "title_chars") == [11.0, 40.0, 1.0]
    assert _col(rows, "authors") == [1.0, 0.0, 3.0]


def test_source_without_day_or_year_gives_nan_gaps() -> None:
    rows = pair_features(PrintedPaper("S"), CANDIDATES[:1], [0.1])
    assert np.isnan(rows[0, SURFACE_FEATURES.index("day_gap")])
    assert np.isnan(rows[0, SURFACE_FEATURES.index("year_gap")])
    assert np.isnan(rows[0, SURFACE_FEATURES.index("shared_authors")])


def test_empty_and_mismatched() -> None:
    assert pair_features(SOURCE, [], []).shape == (0, len(SURFACE_FEATURES))
    with pytest.raises(ValueError, match="2 values for 3 candidates"):
        pair_features(SOURCE, CANDIDATES, [0.1, 0.2])
