"""The normalising SQL shared by the direct ingest and the release store, and the DuckDB helpers around it.

**One normalising query per dataset.** ``papers_sql``/``citations_sql``/``venues_sql`` turn raw
records of either S2AG format into the same typed columns: ids that are JSON strings (legacy) or
integers (current) both become ``BIGINT``; ``journal`` may be null or a struct; fields we do not
use (``intents`` flat or nested, ``contexts``, ``updated``) are not read at all. The direct ingest
path and the release store both use exactly these queries, so they cannot disagree. A query reads
a :class:`Scan`: gzip files, or the named pipes of :class:`graphniah.ingest.s2ag.read.VerifiedRead`.
Duplicate rows of one primary key are resolved by content (``DEDUP_RULES``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import duckdb

from graphniah.ingest.s2ag.layout import CITATIONS, PAPERS, VENUES

# Table names of the normalised datasets, in the store and in the direct ingest's scratch database.
TABLES = {PAPERS: "papers", CITATIONS: "citations", VENUES: "venues"}


@dataclass(frozen=True)
class Scan:
    """What DuckDB reads for a set of shards: file paths (or pipes) and their compression."""

    paths: tuple[str, ...]
    compression: str = "gzip"

    @classmethod
    def of(cls, files: Scan | Sequence[str | Path]) -> Scan:
        return files if isinstance(files, Scan) else cls(tuple(str(p) for p in files), "gzip")


# Raw S2AG columns we read, with explicit types. DuckDB casts digit strings to BIGINT, so both
# formats land in the same types; unknown keys in a record are ignored.
PAPERS_RAW = {
    "corpusid": "BIGINT",
    "title": "VARCHAR",
    "authors": "STRUCT(authorId VARCHAR, name VARCHAR)[]",  # renamed to {id, name} on output
    "venue": "VARCHAR",
    "publicationvenueid": "VARCHAR",
    "year": "INTEGER",
    "publicationdate": "VARCHAR",
    "journal": "STRUCT(name VARCHAR)",
    "externalids": "STRUCT(ArXiv VARCHAR, DOI VARCHAR)",
    "s2fieldsofstudy": "STRUCT(category VARCHAR, source VARCHAR)[]",
}
CITATIONS_RAW = {"citationid": "BIGINT", "citingcorpusid": "BIGINT", "citedcorpusid": "BIGINT"}
VENUES_RAW = {"id": "VARCHAR", "name": "VARCHAR"}

# Primary keys (layout contract). Citations: citationid when present, else the (citing, cited) pair.
KEY_COLUMNS = {
    PAPERS: {"corpusid": "BIGINT"},
    CITATIONS: CITATIONS_RAW,
    VENUES: {"id": "VARCHAR"},
}

_RAW_AUTHOR = "STRUCT(authorId VARCHAR, name VARCHAR)"
# Titles are trimmed of white space at both ends, Unicode separators included (DuckDB's trim()
# strips only ' '). The regex runs only on titles whose first or last character is white space
# (an ord() test, three times cheaper than running the regex on every title).
_WHITESPACE = (0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x20, 0x85, 0xA0, 0x1680, *range(0x2000, 0x200C), 0x2028, 0x2029, 0x202F, 0x205F, 0x3000, 0xFEFF)
_WS_CLASS = "[" + "".join(f"\\x{{{c:04X}}}" for c in _WHITESPACE) + "]"
_WS_CODES = ", ".join(str(c) for c in _WHITESPACE)


def sql_str(s: str | Path) -> str:
    """A SQL string literal."""
    return "'" + str(s).replace("'", "''") + "'"


def strip_ws_sql(expr: str) -> str:
    """``expr`` without white space (Unicode separators included) at either end."""
    return f"regexp_replace({expr}, '^{_WS_CLASS}+|{_WS_CLASS}+$', '', 'g')"


def trim_title_sql(expr: str) -> str:
    """``expr`` without white space at either end; the regex runs only when the first or last character is white space."""
    return f"CASE WHEN ord({expr}[1]) IN ({_WS_CODES}) OR ord({expr}[-1]) IN ({_WS_CODES}) THEN {strip_ws_sql(expr)} ELSE {expr} END"


def _clean(expr: str) -> str:
    """Names with spaces trimmed; an empty string becomes NULL."""
    return f"NULLIF(trim({expr}), '')"


def _nonempty(expr: str) -> str:
    """Identifiers: an empty string becomes NULL."""
    return f"NULLIF({expr}, '')"


def _fields_of_study(expr: str) -> str:
    """The distinct S2 field-of-study categories of ``s2fieldsofstudy`` (any source), sorted; [] for none."""
    cats = f"list_transform({expr}, lambda f: NULLIF(trim(f.category), ''))"
    return f"COALESCE(list_sort(list_distinct({cats})), CAST([] AS VARCHAR[]))"


def fetch_one(con: duckdb.DuckDBPyConnection, sql: str) -> tuple[Any, ...] | None:
    """The first row of ``sql`` (or None), with the result fully consumed so the connection is free."""
    rows = con.execute(sql).fetchall()
    return rows[0] if rows else None


def fetch_row(con: duckdb.DuckDBPyConnection, sql: str) -> tuple[Any, ...]:
    """The one row of an aggregate query (``count(*)`` and the like return exactly one row)."""
    row = fetch_one(con, sql)
    if row is None:
        raise RuntimeError(f"internal error: the aggregate query returned no row: {sql}")
    return row


def scan_sql(files: Scan | Sequence[str | Path], columns: dict[str, str]) -> str:
    """A table expression over JSON-lines shards with the given raw columns (empty if no files)."""
    scan = Scan.of(files)
    if not scan.paths:
        cols = ", ".join(f"CAST(NULL AS {t}) AS {c}" for c, t in columns.items())
        return f"(SELECT {cols} WHERE false)"
    col_spec = ", ".join(f"{c}: {sql_str(t)}" for c, t in columns.items())
    file_list = "[" + ", ".join(sql_str(p) for p in scan.paths) + "]"
    return (
        f"read_json({file_list}, format='newline_delimited', compression={sql_str(scan.compression)}, "
        f"ignore_errors=false, columns={{{col_spec}}})"
    )


def papers_sql(files: Scan | Sequence[str | Path]) -> str:
    """Normalised paper rows: one per input record (duplicates kept; the snapshot query counts them).

    Columns: corpusid BIGINT, title (trimmed, '' kept so it can be counted as empty), authors
    list<{authorId, name}> ([] for null; renamed to {id, name} only for the eligible papers
    written out), venue / journal (trimmed, '' → NULL), publicationvenueid / arxiv_id / doi
    ('' → NULL), year INTEGER, publicationdate VARCHAR (validated by the snapshot query),
    fields_of_study VARCHAR[] (the distinct s2fieldsofstudy categories, sorted; [] for none).
    """
    return f"""
        SELECT
            corpusid,
            {trim_title_sql("title")} AS title,
            COALESCE(authors, CAST([] AS {_RAW_AUTHOR}[])) AS authors,
            {_clean("venue")} AS venue,
            {_clean("journal.name")} AS journal,
            {_nonempty("publicationvenueid")} AS publicationvenueid,
            year,
            publicationdate,
            {_nonempty("externalids.ArXiv")} AS arxiv_id,
            {_nonempty("externalids.DOI")} AS doi,
            {_fields_of_study("s2fieldsofstudy")} AS fields_of_study
        FROM {scan_sql(files, PAPERS_RAW)}
    """


def citations_sql(files: Scan | Sequence[str | Path]) -> str:
    """Normalised citation rows: citationid (NULL in the legacy format), citing, cited (may be NULL)."""
    return f"SELECT citationid, citingcorpusid AS citing, citedcorpusid AS cited FROM {scan_sql(files, CITATIONS_RAW)}"


def venues_sql(files: Scan | Sequence[str | Path]) -> str:
    """Normalised publication venues: id, name ('' → NULL)."""
    return f"SELECT {_clean('id')} AS id, {_clean('name')} AS name FROM {scan_sql(files, VENUES_RAW)}"


def delete_keys_sql(dataset: str, files: Scan | Sequence[str | Path]) -> str:
    """Primary keys listed in delete files, in the normalised column names."""
    if dataset == PAPERS:
        return f"SELECT corpusid FROM {scan_sql(files, KEY_COLUMNS[PAPERS])}"
    if dataset == CITATIONS:
        return citations_sql(files)
    if dataset == VENUES:
        return f"SELECT {_clean('id')} AS id FROM {scan_sql(files, KEY_COLUMNS[VENUES])}"
    raise ValueError(f"no delete keys for dataset {dataset!r}")


NORMALISE_SQL = {PAPERS: papers_sql, CITATIONS: citations_sql, VENUES: venues_sql}

# Which of several rows with one primary key is kept: the first in a content order. Ordering
# by content (not by file order) makes the choice independent of shard names and read order, so
# the full ingest and the store keep the same row. (Real duplicates are normally identical.)
# Per dataset: the key expressions (citations: citationid, else the (citing, cited) pair) and
# the order; for papers it lists every other normalised column, so ties are identical rows.
DEDUP_RULES = {
    PAPERS: (("corpusid",), "title, publicationdate, year, venue, journal, publicationvenueid, arxiv_id, doi, authors, fields_of_study"),
    CITATIONS: (("citationid", "CASE WHEN citationid IS NULL THEN citing END", "CASE WHEN citationid IS NULL THEN cited END"), "citing, cited"),
    VENUES: (("id",), "name"),
}


def duplicate_losers_sql(dataset: str, table: str) -> str:
    """The ``rowid`` (as ``_rid``) of every row of ``table`` that another row with the same primary
    key beats under ``DEDUP_RULES``; deleting them leaves exactly one row per key.

    Only keys that occur more than once are ranked (found by a GROUP BY, in which NULLs are equal,
    matched back with IS NOT DISTINCT FROM): ranking every row would sort the whole table by
    all its columns, while duplicates are rare or absent.
    """
    keys, order = DEDUP_RULES[dataset]
    named = ", ".join(f"{k} AS _k{i}" for i, k in enumerate(keys))
    on = " AND ".join(f"t._k{i} IS NOT DISTINCT FROM d._k{i}" for i in range(len(keys)))
    part = ", ".join(f"_k{i}" for i in range(len(keys)))
    return f"""
        SELECT _rid FROM (
            SELECT t._rid, row_number() OVER (PARTITION BY {part} ORDER BY {order}) AS _rank
            FROM (SELECT rowid AS _rid, *, {named} FROM {table}) t
            SEMI JOIN (SELECT {named} FROM {table} GROUP BY ALL HAVING count(*) > 1) d ON {on})
        WHERE _rank > 1
    """


def drop_duplicates(con: duckdb.DuckDBPyConnection, dataset: str, table: str) -> None:
    """Keep one row per primary key in ``table`` (the store's loads and diff updates)."""
    con.execute(f"DELETE FROM {table} WHERE rowid IN ({duplicate_losers_sql(dataset, table)})")
