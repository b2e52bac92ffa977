"""OpenAlex works → the normalised ``papers``/``citations``/``venues`` tables the snapshot query reads.

The snapshot query of ``graphniah.ingest.build`` runs unchanged on OpenAlex: this module only
fills its three tables, so the drop reasons, the title rule and the preprint guard are the very
expressions the S2AG path runs. The field mapping (``docs/openalex.md``):

- ``corpusid``: the number of the work id ``https://openalex.org/W…`` (a work without a usable id
  is an error naming file and line); ``doi``: the DOI without its ``https://doi.org/`` prefix;
- ``title``: ``title``, else ``display_name`` (then the S2AG title rule);
- ``publicationdate``: ``publication_date`` (only complete dates are eligible); ``year``:
  ``publication_year``. ``created_date`` is never read;
- ``venue``: ``primary_location.source.display_name``; ``journal``: the same when the source's
  type is ``journal``;
- ``authors``: ``authorships[].author`` (``A…`` id, ``display_name``);
- ``fields_of_study``: the distinct ``topics[].field.display_name``, else the level-0
  ``concepts[].display_name``, sorted;
- citations: ``referenced_works`` (each entry must be a work id; an entry that is not is an error
  naming file and line), kept by the snapshot query only where both ends are eligible.

**Preprint guard.** OpenAlex gives no date per location, so the earliest public date comes from the
identifiers the locations carry (``PREPRINT_URL_PATTERNS``): arXiv landing pages and PDF links
(``arxiv.org/abs/<id>``, ``arxiv.org/pdf/<id>``) and arXiv DOIs (``10.48550/arXiv.<id>``) give an
arXiv id; a ``doi.org`` link, a bioRxiv/medRxiv ``/content/10.1101/…`` page or a Preprints.org
``/manuscript/YYYYMM.NNNN`` page give a DOI. The dates of these ids are those of
``graphniah.ingest.s2ag.preprints`` (the earliest of each kind counts), so the drop reasons and
counts are those of S2AG.

**Records of one work.** Every partition is read with its index (oldest first); of several
records of one work, the one of the newest partition wins (then the newest ``updated_date``),
the others are counted as ``superseded``; works listed in ``merged_ids`` are removed and
counted as ``merged``. Only then are the papers counted by the snapshot query, so its invariant
(read = kept + dropped) holds for the works that exist.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import duckdb
import pyarrow.parquet as pq

from graphniah.atomic import sha256_file
from graphniah.errors import GraphNIAHError
from graphniah.ingest.openalex.layout import Part, WorksFolder
from graphniah.ingest.s2ag import preprints
from graphniah.ingest.s2ag.integrity import iter_lines
from graphniah.ingest.s2ag.layout import CITATIONS, PAPERS, VENUES, InputFile, Source
from graphniah.ingest.s2ag.read import VerifiedRead
from graphniah.ingest.s2ag.sql import TABLES, fetch_one, fetch_row, scan_sql, sql_str, trim_title_sql

DATASET = "works"
WORK_ID_PATTERN = r"^(?:https?://openalex\.org/)?[Ww]([0-9]+)$"
_WORK_ID = re.compile(WORK_ID_PATTERN)
AUTHOR_ID_PATTERN = r"(A[0-9]+)$"
DOI_URL_PATTERN = r"^(?i:https?://(?:dx\.)?doi\.org/)"
# Location URLs and DOIs that name a preprint (group 1: the id); recorded in the snapshot manifest's source.
ARXIV_URL_PATTERN = r"^(?i:https?://(?:www\.|export\.)?arxiv\.org/(?:abs|pdf)/)([^?#]+?)(?:v[0-9]+)?(?:\.pdf)?/?(?:[?#].*)?$"
ARXIV_DOI_PATTERN = r"^(?i:10\.48550/arxiv\.)(.+)$"
RXIV_URL_PATTERN = r"^(?i:https?://(?:www\.)?(?:bio|med)rxiv\.org/content/)(10\.1101/[0-9]{4}\.[0-9]{2}\.[0-9]{2}\.[0-9]+)"
PREPRINTS_URL_PATTERN = r"^(?i:https?://(?:www\.)?preprints\.org/manuscript/)([0-9]{6}\.[0-9]+)"
PREPRINT_URL_PATTERNS = {"arxiv": ARXIV_URL_PATTERN, "arxiv_doi": ARXIV_DOI_PATTERN, "biorxiv": RXIV_URL_PATTERN, "preprints": PREPRINTS_URL_PATTERN}

WORKS_RAW = {
    "id": "VARCHAR",
    "doi": "VARCHAR",
    "title": "VARCHAR",
    "display_name": "VARCHAR",
    "publication_date": "VARCHAR",
    "publication_year": "INTEGER",
    "type": "VARCHAR",
    "primary_location": "STRUCT(source STRUCT(display_name VARCHAR, type VARCHAR))",
    "locations": "STRUCT(landing_page_url VARCHAR, pdf_url VARCHAR)[]",
    "authorships": "STRUCT(author STRUCT(id VARCHAR, display_name VARCHAR))[]",
    "topics": "STRUCT(field STRUCT(display_name VARCHAR))[]",
    "concepts": "STRUCT(display_name VARCHAR, level INTEGER)[]",
    "referenced_works": "VARCHAR[]",
    "updated_date": "VARCHAR",
}
WORKS_TABLE = "_oa_works"
_NO_DATE = "DATE '9999-12-31'"  # sorts an arXiv id whose form gives no date after every dated one


def work_id_sql(expr: str) -> str:
    """The number of an OpenAlex work id (``https://openalex.org/W123`` or ``W123``) as BIGINT, else NULL."""
    return f"TRY_CAST(regexp_extract({expr}, {sql_str(WORK_ID_PATTERN)}, 1) AS BIGINT)"


def _doi_sql(expr: str) -> str:
    return f"NULLIF(regexp_replace(trim({expr}), {sql_str(DOI_URL_PATTERN)}, ''), '')"


def _url_doi_sql(u: str) -> str:
    """The DOI a location URL names (a doi.org link, a bioRxiv/medRxiv or Preprints.org page), else NULL."""
    return f"""CASE
        WHEN regexp_matches({u}, {sql_str(DOI_URL_PATTERN)}) THEN {_doi_sql(u)}
        WHEN contains(lower({u}), 'rxiv.org/content/10.1101/') THEN NULLIF(regexp_extract({u}, {sql_str(RXIV_URL_PATTERN)}, 1), '')
        WHEN contains(lower({u}), 'preprints.org/manuscript/')
            THEN '10.20944/preprints' || NULLIF(regexp_extract({u}, {sql_str(PREPRINTS_URL_PATTERN)}, 1), '')
    END"""


def _arxiv_of_sql(u: str) -> str:
    """The arXiv id a location URL or DOI names, else NULL."""
    return f"""CASE
        WHEN contains(lower({u}), 'arxiv.org/') THEN NULLIF(regexp_extract({u}, {sql_str(ARXIV_URL_PATTERN)}, 1), '')
        WHEN starts_with(lower({u}), '10.48550/arxiv.') THEN NULLIF(regexp_extract({u}, {sql_str(ARXIV_DOI_PATTERN)}, 1), '')
    END"""


def _names_sql(expr: str) -> str:
    """Distinct, sorted, trimmed non-empty strings of a list expression ([] for none)."""
    return f"COALESCE(list_sort(list_distinct(list_transform({expr}, lambda x: NULLIF(trim(x), '')))), CAST([] AS VARCHAR[]))"


def works_sql(scan: str, part: int) -> str:
    """Normalised rows of one partition's works (``scan``: a table expression with ``WORKS_RAW``).

    Columns: those of ``graphniah.ingest.s2ag.sql.papers_sql`` (so the snapshot query reads them
    as it reads S2AG papers), plus ``_dois`` (every DOI the work and its locations name),
    ``_arxiv_date0`` (the earliest date of its arXiv ids), ``_refs`` (the referenced work ids),
    ``_bad_refs`` (entries that are no work id), ``_is_preprint``, ``_updated`` and
    ``_part`` (the partition's index, oldest first).
    """
    urls = "list_filter(flatten(list_transform(COALESCE(locations, []), lambda l: [l.landing_page_url, l.pdf_url])), lambda u: u IS NOT NULL)"
    topics = _names_sql("list_transform(topics, lambda t: t.field.display_name)")
    concepts = _names_sql("list_transform(list_filter(concepts, lambda c: c.level = 0), lambda c: c.display_name)")
    author = f"struct_pack(authorId := NULLIF(regexp_extract(a.author.id, {sql_str(AUTHOR_ID_PATTERN)}, 1), ''), name := a.author.display_name)"
    stage1 = f"""
        SELECT
            {work_id_sql("id")} AS corpusid,
            {trim_title_sql("COALESCE(title, display_name)")} AS title,
            COALESCE(list_transform(authorships, lambda a: {author}), CAST([] AS STRUCT(authorId VARCHAR, name VARCHAR)[])) AS authors,
            NULLIF(trim(primary_location.source.display_name), '') AS venue,
            CASE WHEN primary_location.source.type = 'journal' THEN NULLIF(trim(primary_location.source.display_name), '') END AS journal,
            CAST(NULL AS VARCHAR) AS publicationvenueid,
            publication_year AS year,
            publication_date AS publicationdate,
            {_doi_sql("doi")} AS doi,
            CASE WHEN len({topics}) > 0 THEN {topics} ELSE {concepts} END AS fields_of_study,
            list_transform(COALESCE(referenced_works, []), lambda r: {work_id_sql("r")}) AS _refs,
            {urls} AS _urls,
            type = 'preprint' AS _is_preprint,
            updated_date AS _updated,
            {int(part)} AS _part
        FROM {scan}"""
    dois = f"list_distinct(list_filter(list_prepend(doi, list_transform(_urls, lambda u: {_url_doi_sql('u')})), lambda d: d IS NOT NULL))"
    stage2 = f"""
        SELECT *, {dois} AS _dois,
               len(_refs) - list_count(_refs) AS _bad_refs
        FROM ({stage1})"""
    arxiv_ids = f"list_filter(list_concat(list_transform(_urls, lambda u: {_arxiv_of_sql('u')}), list_transform(_dois, lambda d: {_arxiv_of_sql('d')})), lambda x: x IS NOT NULL)"
    keyed = f"list_sort(list_transform({arxiv_ids}, lambda x: struct_pack(k := COALESCE({preprints.arxiv_date_sql('x')}, {_NO_DATE}), id := x)))"
    return f"""
        SELECT * EXCLUDE (_arx, _urls), _arx[1].id AS arxiv_id, NULLIF(_arx[1].k, {_NO_DATE}) AS _arxiv_date0
        FROM (SELECT *, {keyed} AS _arx FROM ({stage2}))"""


def source_dates_sql() -> dict[str, str]:
    """The date expression of each preprint source over the columns of ``works_sql`` (the
    ``source_dates`` of ``graphniah.ingest.build.derived_papers_sql``): the earliest per source."""
    return {
        "arxiv": "_arxiv_date0",
        "biorxiv": f"list_min(list_transform(_dois, lambda d: {preprints.biorxiv_date_sql('d')}))",
        "preprints": f"list_min(list_transform(_dois, lambda d: {preprints.preprints_date_sql('d')}))",
    }


@dataclass(frozen=True)
class WorkCounts:
    """Records read, older records of a work that a newer one replaced, works removed as merged,
    and works of type ``preprint`` among those that remain."""

    records: int
    superseded: int
    merged: int
    preprint_type: int

    def to_json(self, preprint_type_kept: int) -> dict[str, Any]:
        return {"records_read": self.records, "superseded": self.superseded, "merged": self.merged,
                "works": self.records - self.superseded - self.merged,
                "type_preprint": {"works": self.preprint_type, "kept": preprint_type_kept}}


def _parquet_scan(paths: list[Path]) -> str:
    """The works columns of Parquet files: scalars cast to the JSON reader's types, nested fields read
    by name, and a column the files lack (a field OpenAlex retired, ``concepts``) NULL, as a missing
    JSON key is."""
    present = set(pq.read_schema(paths[0]).names)
    cols = ", ".join(
        f"CAST(NULL AS {t}) AS {c}" if c not in present else f"CAST({c} AS {t}) AS {c}" if t in ("VARCHAR", "INTEGER") else c
        for c, t in WORKS_RAW.items())
    return f"(SELECT {cols} FROM read_parquet([{', '.join(sql_str(p) for p in paths)}], union_by_name=true))"


def load_works(con: duckdb.DuckDBPyConnection, folder: WorksFolder, derive: Callable[[str], str]) -> tuple[WorkCounts, tuple[InputFile, ...]]:
    """Read every works file of ``folder`` into the snapshot query's tables (``papers``,
    ``citations``, an empty ``venues``), one record per work (module docstring).

    Parameters
    ----------
    con : duckdb.DuckDBPyConnection
        The scratch database of the ingest.
    folder : WorksFolder
        The checked folder (``graphniah.ingest.openalex.layout.open_works``).
    derive : callable
        Wraps a normalised table expression with the derived columns of the paper rules
        (``graphniah.ingest.build.derived_papers_sql`` with ``source_dates_sql()``).

    Returns
    -------
    (WorkCounts, inputs)
        The counts before the snapshot query, and every input file with its size and sha256.

    Raises
    ------
    GraphNIAHError
        Damaged gzip (file and offset), invalid JSON, a work without an id or a
        ``referenced_works`` entry that is not a work id (file and line), a record count other
        than the manifest's.
    """
    parquet = folder.layout == "parquet"
    partitions = folder.partitions()
    sources = [Source(DATASET, "release", p.path, p.relpath) for _, parts in partitions for p in parts]
    if parquet:
        inputs = tuple(InputFile(DATASET, "release", s.relpath, s.path.stat().st_size, sha256_file(s.path)) for s in sources)
        for i, (_, parts) in enumerate(partitions):
            _insert(con, i, derive(f"({works_sql(_parquet_scan([p.path for p in parts]), i)})"))
    else:
        with VerifiedRead(con, sources) as vr:
            for i, (_, parts) in enumerate(partitions):
                scan = vr.scan([s for s in sources if s.path in {p.path for p in parts}])
                _insert(con, i, derive(f"({works_sql(scan_sql(scan, WORKS_RAW), i)})"))
        inputs = vr.inputs
    records = fetch_row(con, f"SELECT count(*) FROM {WORKS_TABLE}")[0]
    if folder.listed_records is not None and records != folder.listed_records:
        raise GraphNIAHError(f"{folder.manifest} lists {folder.listed_records:,} works records, its files hold {records:,}: download the folder again")
    _refuse_bad_records(con, partitions, parquet)
    superseded = _keep_newest(con)
    merged, merged_inputs = _remove_merged(con, folder)
    con.execute(f"ALTER TABLE {WORKS_TABLE} RENAME TO {TABLES[PAPERS]}")
    con.execute(f"CREATE TABLE {TABLES[CITATIONS]} AS SELECT corpusid AS citing, unnest(_refs) AS cited FROM {TABLES[PAPERS]}")
    con.execute(f"CREATE TABLE {TABLES[VENUES]} (id VARCHAR, name VARCHAR)")
    preprint_type = fetch_row(con, f"SELECT count(*) FILTER (WHERE _is_preprint) FROM {TABLES[PAPERS]}")[0]
    if records - superseded - merged == 0:
        raise GraphNIAHError(f"OpenAlex folder {folder.root} holds no works once merged ones are removed")
    return WorkCounts(records, superseded, merged, preprint_type), (*inputs, *merged_inputs)


def _insert(con: duckdb.DuckDBPyConnection, part: int, sql: str) -> None:
    if part == 0:
        con.execute(f"CREATE TABLE {WORKS_TABLE} AS {sql}")
    else:
        con.execute(f"INSERT INTO {WORKS_TABLE} {sql}")


def preprint_type_kept(con: duckdb.DuckDBPyConnection) -> int:
    """Works of type ``preprint`` among the eligible papers (after the snapshot query made ``_eligible``)."""
    return int(fetch_row(con, f"SELECT count(*) FROM {TABLES[PAPERS]} WHERE _is_preprint AND corpusid IN (SELECT corpusid FROM _eligible)")[0])


def _keep_newest(con: duckdb.DuckDBPyConnection) -> int:
    """Delete every record of a work but the newest (partition, then ``updated_date``, then content); returns how many."""
    t = WORKS_TABLE
    losers = f"""
        SELECT _rid FROM (
            SELECT w.rowid AS _rid, row_number() OVER (
                PARTITION BY w.corpusid ORDER BY w._part DESC, w._updated DESC NULLS LAST, w.title, w.publicationdate, w.doi) AS _rank
            FROM {t} w SEMI JOIN (SELECT corpusid FROM {t} GROUP BY corpusid HAVING count(*) > 1) d ON w.corpusid = d.corpusid)
        WHERE _rank > 1"""
    con.execute(f"CREATE OR REPLACE TEMP TABLE _oa_superseded AS {losers}")
    n = int(fetch_row(con, "SELECT count(*) FROM _oa_superseded")[0])
    if n:
        con.execute(f"DELETE FROM {t} WHERE rowid IN (SELECT _rid FROM _oa_superseded)")
    con.execute("DROP TABLE _oa_superseded")
    return n


def _remove_merged(con: duckdb.DuckDBPyConnection, folder: WorksFolder) -> tuple[int, tuple[InputFile, ...]]:
    """Delete the works listed in ``merged_ids/works/*.csv.gz`` (column ``id``); returns how many, and the files."""
    if not folder.merged:
        return 0, ()
    files = "[" + ", ".join(sql_str(p) for p in folder.merged) + "]"
    try:
        con.execute(f"""CREATE OR REPLACE TEMP TABLE _oa_merged AS
            SELECT DISTINCT {work_id_sql("CAST(id AS VARCHAR)")} AS corpusid
            FROM read_csv({files}, header=true, union_by_name=true, all_varchar=true)""")
    except (duckdb.IOException, duckdb.InvalidInputException, duckdb.BinderException) as e:
        raise GraphNIAHError(f"merged ids ({', '.join(str(p) for p in folder.merged[:3])}): not a CSV with an id column ({str(e).splitlines()[0]})") from None
    before = fetch_row(con, f"SELECT count(*) FROM {WORKS_TABLE}")[0]
    con.execute(f"DELETE FROM {WORKS_TABLE} WHERE corpusid IN (SELECT corpusid FROM _oa_merged WHERE corpusid IS NOT NULL)")
    after = fetch_row(con, f"SELECT count(*) FROM {WORKS_TABLE}")[0]
    con.execute("DROP TABLE _oa_merged")
    inputs = tuple(InputFile("merged_ids", "delete", p.relative_to(folder.root).as_posix(), p.stat().st_size, sha256_file(p)) for p in folder.merged)
    return int(before - after), inputs


# ---------------------------------------------------------------------------------------------
# Bad records (failure path only): found by SQL, located by reading the file again in Python
# ---------------------------------------------------------------------------------------------


def _refuse_bad_records(con: duckdb.DuckDBPyConnection, partitions: list[tuple[dt.date, tuple[Part, ...]]], parquet: bool) -> None:
    row = fetch_one(con, f"SELECT min(_part) FROM {WORKS_TABLE} WHERE corpusid IS NULL OR _bad_refs > 0")
    if row is None or row[0] is None:
        return
    for part in partitions[int(row[0])][1]:
        found = find_bad_work(part.path, parquet)
        if found is not None:
            raise GraphNIAHError(found)
    raise GraphNIAHError(f"a work without a usable id, or a referenced_works entry that is no work id, in partition {partitions[int(row[0])][0]}")  # pragma: no cover - the scan above finds it


def _records(path: Path, parquet: bool) -> Iterator[tuple[str, Any]]:
    """(where, record) of every record of a works file: ``line N`` of JSON lines, ``row N`` of Parquet."""
    if parquet:
        table = pq.read_table(path, columns=["id", "referenced_works"])
        for i, rec in enumerate(table.to_pylist(), start=1):
            yield f"row {i}", rec
        return
    for lineno, raw in iter_lines(path):
        if raw.strip():
            try:
                yield f"line {lineno}", json.loads(raw)
            except (json.JSONDecodeError, UnicodeDecodeError) as e:
                yield f"line {lineno}", e


def find_bad_work(path: Path, parquet: bool = False) -> str | None:
    """The first record of ``path`` without a work id or with a ``referenced_works`` entry that is
    no work id, described with file and line (row for Parquet); None when every record is fine."""
    for where, rec in _records(path, parquet):
        if isinstance(rec, Exception):
            return f"{path}, {where}: not valid JSON ({rec})"
        if not isinstance(rec, dict):
            return f"{path}, {where}: expected a JSON object (a work), got {type(rec).__name__}"
        wid = rec.get("id")
        if not isinstance(wid, str) or not _WORK_ID.match(wid):
            what = "has no id" if wid is None else f"has id {wid!r}, which is not an OpenAlex work id (https://openalex.org/W…)"
            return f"{path}, {where}: the work {what}"
        for ref in rec.get("referenced_works") or ():
            if not isinstance(ref, str) or not _WORK_ID.match(ref):
                return f"{path}, {where}: referenced_works entry {ref!r} of work {wid} is not a work id (https://openalex.org/W…)"
    return None

