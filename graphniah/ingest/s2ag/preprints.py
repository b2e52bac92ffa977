"""The preprint rule: a paper is as old as its earliest public version.

S2AG's ``publicationdate`` is usually the date of the version of record; a paper whose journal
version appeared after the cutoff may have been public, as a preprint, long before it, and could
then be in a model's training data. S2AG names the preprint in ``externalids``, so each paper's
**earliest public date** is the earliest of the dates these sources give:

* **arXiv** (``externalids.ArXiv``): the first day of the month the id was assigned in.

  - new-style ``YYMM.NNNN`` (April 2007 to December 2014) or ``YYMM.NNNNN`` (from January 2015),
    optionally with a version ``vN`` and an ``arXiv:`` prefix: ``2103.01234v2`` → 2021-03-01;
  - old-style ``archive(.XX)/YYMMNNN`` (August 1991 to March 2007), e.g. ``hep-th/9901001`` →
    1999-01-01, ``math.AG/0309136`` → 2003-09-01.

* **bioRxiv and medRxiv** (``externalids.DOI`` ``10.1101/YYYY.MM.DD.…``, the form these servers
  use since December 2019): that day. Their older DOIs (``10.1101/123456``) carry no date and
  Cold Spring Harbor's journals (``10.1101/gr.…``) are no preprints: neither matches.
* **Preprints.org** (DOI ``10.20944/preprintsYYYYMM.…``, in any letter case): the first day of that month.
* the record's ``publicationdate``, else 1 January of its ``year``.

An id that matches none of these forms, or names a month that does not exist (``2113.00001``,
``2103.1234`` — four digits after 2014 —, ``hep-th/0801001`` — old style after March 2007),
gives no date: it is ignored as a source, never an error, and the paper keeps the dates of its
other sources. A paper whose earliest public date is before the cutoff is not eligible
(``preprint_before_cutoff``, counted per source: the source that gave the earliest date, ties
in the order of ``SOURCES``). A month-precision source on the cutoff's own month counts as that
month's first day: with a cutoff on the 1st, that month's ids stay; with a cutoff on the 15th,
they go.

Everything is a DuckDB expression over the normalised ``arxiv_id`` and ``doi`` columns, so the
rule runs vectorised inside the snapshot query, and the regular expressions (RE2) run only on ids
that can match (a non-null arXiv id; a DOI with one of the two prefixes).
"""

from __future__ import annotations

from graphniah.ingest.s2ag.sql import sql_str

# The preprint servers, in the order that breaks ties between equal dates.
SOURCES: tuple[str, ...] = ("arxiv", "biorxiv", "preprints")

# arXiv new-style ids: YYMM, a dot, 4 or 5 digits (which one depends on the month), a version.
ARXIV_NEW_PATTERN = r"^(?i:arxiv:)?([0-9]{4})\.([0-9]{4,5})(?:v[0-9]+)?$"
# arXiv old-style ids: an archive (hep-th, cond-mat, math …), an optional two-letter subject
# class (math.AG, cs.AI), a slash, YYMM and a three-digit number, a version.
ARXIV_OLD_PATTERN = r"^(?i:arxiv:)?[a-z]+(?:-[a-z]+)*(?:\.[A-Za-z]{2})?/([0-9]{4})[0-9]{3}(?:v[0-9]+)?$"
BIORXIV_PREFIX = "10.1101/"
BIORXIV_PATTERN = r"^10\.1101/([0-9]{4})\.([0-9]{2})\.([0-9]{2})\."
PREPRINTS_PREFIX = "10.20944/"
PREPRINTS_PATTERN = r"^10\.20944/preprints([0-9]{4})([0-9]{2})\."

# First and last months of each arXiv numbering scheme, as YYMM (old style as YY-dependent years).
_NEW_4_DIGITS = (704, 1412)  # 0704.0001 … 1412.9999
_NEW_5_DIGITS_FROM = 1501  # 1501.00001 …
_OLD_FROM, _OLD_TO = 9108, 703  # hep-th/9108001 … math/0703999 (the two-digit year wraps at 2000)


def _group(expr: str, pattern: str, group: int) -> str:
    return f"regexp_extract({expr}, {sql_str(pattern)}, {group})"


def _month_start(year: str, month: str) -> str:
    """The first day of a month given as integer expressions; NULL when the month does not exist."""
    return f"try(make_date(TRY_CAST({year} AS INTEGER), TRY_CAST({month} AS INTEGER), 1))"


def arxiv_date_sql(arxiv_id: str) -> str:
    """The first day of the month of an arXiv id (new or old style), else NULL."""
    x = f"trim({arxiv_id})"
    new_yymm = f"TRY_CAST({_group(x, ARXIV_NEW_PATTERN, 1)} AS INTEGER)"
    new_digits = f"length({_group(x, ARXIV_NEW_PATTERN, 2)})"
    new_ok = (
        f"(({new_digits} = 4 AND {new_yymm} BETWEEN {_NEW_4_DIGITS[0]} AND {_NEW_4_DIGITS[1]})"
        f" OR ({new_digits} = 5 AND {new_yymm} >= {_NEW_5_DIGITS_FROM}))"
    )
    old_yymm = f"TRY_CAST({_group(x, ARXIV_OLD_PATTERN, 1)} AS INTEGER)"
    old_year = f"CASE WHEN {old_yymm} >= {_OLD_FROM} THEN 1900 ELSE 2000 END + {old_yymm} // 100"
    return f"""CASE
        WHEN {arxiv_id} IS NULL THEN NULL
        WHEN regexp_matches({x}, {sql_str(ARXIV_NEW_PATTERN)}) AND {new_ok}
            THEN {_month_start(f"2000 + {new_yymm} // 100", f"{new_yymm} % 100")}
        WHEN regexp_matches({x}, {sql_str(ARXIV_OLD_PATTERN)}) AND ({old_yymm} >= {_OLD_FROM} OR {old_yymm} <= {_OLD_TO})
            THEN {_month_start(old_year, f"{old_yymm} % 100")}
    END"""


def biorxiv_date_sql(doi: str) -> str:
    """The posting day in a dated bioRxiv/medRxiv DOI, else NULL."""
    x = f"trim({doi})"
    y, m, d = (f"TRY_CAST({_group(x, BIORXIV_PATTERN, g)} AS INTEGER)" for g in (1, 2, 3))
    return f"""CASE WHEN starts_with({x}, {sql_str(BIORXIV_PREFIX)}) AND regexp_matches({x}, {sql_str(BIORXIV_PATTERN)})
        THEN try(make_date({y}, {m}, {d})) END"""


def preprints_date_sql(doi: str) -> str:
    """The first day of the month in a Preprints.org DOI, else NULL."""
    x = f"lower(trim({doi}))"
    return f"""CASE WHEN starts_with(trim({doi}), {sql_str(PREPRINTS_PREFIX)}) AND regexp_matches({x}, {sql_str(PREPRINTS_PATTERN)})
        THEN {_month_start(_group(x, PREPRINTS_PATTERN, 1), _group(x, PREPRINTS_PATTERN, 2))} END"""


def source_dates_sql(arxiv_id: str, doi: str) -> dict[str, str]:
    """The date expression of each preprint source (``SOURCES`` order)."""
    return {"arxiv": arxiv_date_sql(arxiv_id), "biorxiv": biorxiv_date_sql(doi), "preprints": preprints_date_sql(doi)}


def record_date_sql(publication_date: str, year: str) -> str:
    """The record's own date: its (parsed) publication date, else 1 January of its year."""
    return f"COALESCE({publication_date}, try(make_date(CAST({year} AS INTEGER), 1, 1)))"


def earliest_sql(dates: list[str]) -> str:
    """The earliest of date expressions, NULLs ignored (NULL only when all are NULL)."""
    return f"least({', '.join(dates)})"


def earliest_source_sql(source_dates: dict[str, str], earliest: str) -> str:
    """Which preprint source gave ``earliest`` (first in ``SOURCES`` order on ties), else NULL."""
    whens = " ".join(f"WHEN {source_dates[s]} = {earliest} THEN {sql_str(s)}" for s in SOURCES)
    return f"CASE {whens} END"


def rule_json() -> dict[str, object]:
    """The rule as recorded in snapshot manifests."""
    return {
        "sources": list(SOURCES),
        "arxiv_new_pattern": ARXIV_NEW_PATTERN,
        "arxiv_new_4_digit_months": [f"{m:04d}" for m in _NEW_4_DIGITS],
        "arxiv_new_5_digit_months_from": f"{_NEW_5_DIGITS_FROM:04d}",
        "arxiv_old_pattern": ARXIV_OLD_PATTERN,
        "arxiv_old_months": [f"{_OLD_FROM:04d}", f"{_OLD_TO:04d}"],
        "biorxiv_pattern": BIORXIV_PATTERN,
        "preprints_pattern": PREPRINTS_PATTERN,
        "fallback": "publicationdate, else 1 January of year",
    }
