"""The demo world as an OpenAlex snapshot folder (``graphniah demo-release --format openalex``).

The S2AG form of a world (``write_demo_releases``) is rewritten record by record as OpenAlex
works, so both forms describe one world and must give one snapshot (``tests/ingest/openalex``):

- work ``https://openalex.org/W<corpusid>``, ``doi`` as a ``https://doi.org/`` link, ``title`` and
  ``display_name``; ``publication_date`` (null where S2AG has only a year) and ``publication_year``;
- the venue S2AG's ingest would take (``venue``, else the journal's name, else the publication
  venue's) as ``primary_location.source.display_name`` (type ``journal`` when S2AG names a journal);
- the arXiv id as a location (an ``arxiv.org/abs/`` landing page with its PDF link, or, for every
  third work, only a versioned ``arxiv.org/pdf/…v1.pdf`` link); a bioRxiv/medRxiv DOI also as a
  ``biorxiv.org/content/`` page, a Preprints.org DOI also as a ``doi.org`` location;
- authors as ``authorships`` (``A<authorId>``), fields of study as ``topics[].field``;
- the citation rows of a paper as its ``referenced_works`` (a row present twice in S2AG's shards is
  an entry present twice). Rows S2AG could not resolve (no cited paper) are left out, as OpenAlex
  lists only resolved works.

The releases become ``updated_date`` partitions: the oldest release's works all go to its date,
and each later release adds the works that are new or whose record changed; a work missing from
the newest release is listed in ``merged_ids/works/<date it went>.csv.gz``. So reading the folder
(newest record wins, merged works removed) gives the newest release. ``openalex.json`` names that
release and says the data is synthetic.
"""

from __future__ import annotations

import datetime as dt
import gzip
import math
import shutil
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa
import pyarrow.compute as pc

from graphniah import __version__
from graphniah.atomic import atomic_dir
from graphniah.errors import GraphNIAHError
from graphniah.formats.release import OpenAlexDescriptor, read_openalex_descriptor, write_descriptor
from graphniah.ingest.demo_release.generate import GENERATOR, GZIP_LEVEL, SYNTHETIC_NOTE, DemoReleaseSet, write_demo_releases
from graphniah.ingest.demo_release.serialize import to_bytes
from graphniah.ingest.openalex.layout import DESCRIPTOR, Layout, works_file, write_manifest
from graphniah.ingest.openalex.read import WORKS_RAW
from graphniah.ingest.s2ag.layout import CITATIONS, PAPERS, VENUES, shard_files
from graphniah.ingest.s2ag.sql import citations_sql, papers_sql, sql_str, venues_sql

FORMAT = "openalex"
_W = "https://openalex.org/W"


def _work_sql(release_dir: Path, updated: str) -> str:
    """One row per paper of an S2AG-form release: ``corpusid``, ``content`` (the work without its
    ``updated_date``, to tell changed records) and ``rec`` (the JSON line)."""
    p = papers_sql(shard_files(release_dir / PAPERS))
    c = citations_sql(shard_files(release_dir / CITATIONS))
    v = venues_sql(shard_files(release_dir / VENUES)) if (release_dir / VENUES).is_dir() else "SELECT NULL::VARCHAR AS id, NULL::VARCHAR AS name WHERE false"
    arxiv = """CASE
        WHEN p.arxiv_id IS NULL THEN []
        WHEN p.corpusid % 3 = 0 THEN [struct_pack(landing_page_url := NULL::VARCHAR, pdf_url := 'https://arxiv.org/pdf/' || p.arxiv_id || 'v1.pdf')]
        ELSE [struct_pack(landing_page_url := 'https://arxiv.org/abs/' || p.arxiv_id, pdf_url := 'https://arxiv.org/pdf/' || p.arxiv_id)]
    END"""
    preprint_doi = """CASE
        WHEN starts_with(p.doi, '10.1101/') THEN [struct_pack(landing_page_url := 'https://www.biorxiv.org/content/' || p.doi || 'v1', pdf_url := NULL::VARCHAR)]
        WHEN starts_with(lower(p.doi), '10.20944/') THEN [struct_pack(landing_page_url := 'https://doi.org/' || p.doi, pdf_url := NULL::VARCHAR)]
        ELSE []
    END"""
    journal_loc = "CASE WHEN p.doi IS NOT NULL THEN [struct_pack(landing_page_url := 'https://doi.org/' || p.doi, pdf_url := NULL::VARCHAR)] ELSE [] END"
    venue = "COALESCE(p.venue, p.journal, v.name)"
    kind = "CASE WHEN starts_with(lower(p.doi), '10.48550/') OR starts_with(p.doi, '10.1101/') OR starts_with(lower(p.doi), '10.20944/') THEN 'preprint' ELSE 'article' END"
    work = f"""struct_pack(
            id := '{_W}' || p.corpusid,
            doi := CASE WHEN p.doi IS NOT NULL THEN 'https://doi.org/' || p.doi END,
            title := p.title,
            display_name := p.title,
            publication_date := p.publicationdate,
            publication_year := p.year,
            type := {kind},
            primary_location := struct_pack(source := CASE WHEN {venue} IS NOT NULL THEN struct_pack(
                display_name := {venue}, type := CASE WHEN p.journal IS NOT NULL THEN 'journal' ELSE 'conference' END) END),
            locations := list_concat(list_concat({journal_loc}, {preprint_doi}), {arxiv}),
            authorships := list_transform(p.authors, lambda a: struct_pack(author := struct_pack(
                id := CASE WHEN a.authorId IS NOT NULL THEN 'https://openalex.org/A' || a.authorId END, display_name := a.name))),
            topics := list_transform(p.fields_of_study, lambda f: struct_pack(field := struct_pack(display_name := f))),
            referenced_works := COALESCE(r.refs, CAST([] AS VARCHAR[])))"""
    return f"""
        SELECT p.corpusid, CAST(to_json({work}) AS VARCHAR) AS content,
               CAST(to_json(struct_insert({work}, updated_date := {sql_str(updated)})) AS VARCHAR) AS rec
        FROM ({p}) p
        LEFT JOIN (SELECT id, min(name) AS name FROM ({v}) WHERE id IS NOT NULL GROUP BY id) v ON v.id = p.publicationvenueid
        LEFT JOIN (SELECT citing, list('{_W}' || cited ORDER BY cited) AS refs FROM ({c}) WHERE cited IS NOT NULL GROUP BY citing) r
               ON r.citing = p.corpusid
        WHERE p.corpusid IS NOT NULL"""


def _write_lines(con: duckdb.DuckDBPyConnection, sql: str, root: Path, layout: Layout, updated: dt.date, shard_rows: int) -> list[tuple[str, int]]:
    """Write the ``rec`` lines of ``sql`` (sorted by id) as the partition's works files; returns (path, records) each."""
    lines = con.sql(f"SELECT rec FROM ({sql}) ORDER BY corpusid").to_arrow_table().column("rec").combine_chunks()
    lines = pc.binary_join_element_wise(lines.cast(pa.large_string()), pa.scalar("\n", pa.large_string()), pa.scalar("", pa.large_string()))
    files = []
    for k in range(math.ceil(len(lines) / shard_rows)):
        rel = works_file(layout, updated, k)
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        chunk = lines.slice(k * shard_rows, shard_rows)
        data = gzip.compress(to_bytes(chunk).to_pybytes(), compresslevel=GZIP_LEVEL, mtime=0)
        if layout == "parquet":
            tmp = path.with_suffix(".json.gz")
            tmp.write_bytes(data)
            spec = ", ".join(f"{c}: {sql_str(t)}" for c, t in WORKS_RAW.items())
            con.execute(f"COPY (SELECT * FROM read_json({sql_str(tmp)}, format='newline_delimited', columns={{{spec}}})) TO {sql_str(path)} (FORMAT parquet)")
            tmp.unlink()
        else:
            path.write_bytes(data)
        files.append((rel, len(chunk)))
    return files


def convert_demo_releases(rs: DemoReleaseSet, out: Path, *, layout: Layout = "jsonl", shard_rows: int = 50_000, replace: bool = False) -> Path:
    """Write the world of a demo release set as an OpenAlex snapshot folder (module docstring).

    Parameters
    ----------
    rs : DemoReleaseSet
        The world in S2AG form (``write_demo_releases``).
    out : path
        The folder to create (``data/…``, ``openalex.json``).
    layout : {"jsonl", "works", "parquet"}
        The newer layout (``data/jsonl``, default), the older one (``data/works`` with its
        Redshift manifest), or the newer Parquet copy.
    shard_rows, replace
        Works per file; whether an existing demo folder may be replaced.

    Returns
    -------
    Path
        ``out``.
    """
    out = Path(out)
    _check_target(out, replace)
    ids = rs.release_ids
    first = rs.manifest(ids[0])
    with atomic_dir(out, replace=replace) as tmp, duckdb.connect(":memory:") as con:
        files: list[tuple[str, int]] = []
        # seen: the last release (index) each work is in, to list the works gone by the newest one
        con.execute("CREATE TABLE seen (corpusid BIGINT, last INTEGER)")
        for k, rid in enumerate(ids):
            updated = dt.date.fromisoformat(rid)
            con.execute(f"CREATE OR REPLACE TABLE w{k} AS {_work_sql(rs.release_dir(rid), rid + 'T00:00:00')}")
            changed = f"SELECT * FROM w{k}" if k == 0 else f"SELECT w.* FROM w{k} w LEFT JOIN w{k - 1} o USING (corpusid) WHERE o.content IS DISTINCT FROM w.content"
            files += _write_lines(con, changed, tmp, layout, updated, shard_rows)
            con.execute(f"CREATE OR REPLACE TABLE seen AS SELECT corpusid, max(k) AS last FROM (SELECT corpusid, {k} AS k FROM w{k} UNION ALL SELECT * FROM seen) GROUP BY corpusid")
            if k >= 1:
                con.execute(f"DROP TABLE w{k - 1}")
        gone = 0
        rows = con.execute(f"SELECT last, list(corpusid ORDER BY corpusid) FROM seen WHERE last < {len(ids) - 1} GROUP BY last ORDER BY last").fetchall()
        for seen_last, works in rows:
            went = ids[int(seen_last) + 1]
            path = tmp / "data" / "merged_ids" / "works" / f"{went}.csv.gz"
            path.parent.mkdir(parents=True, exist_ok=True)
            text = "merge_date,id,merge_into_id\n" + "".join(f"{went},W{w},\n" for w in works)
            path.write_bytes(gzip.compress(text.encode(), mtime=0))
            gone += len(works)
        write_manifest(tmp, layout, files)
        write_descriptor(tmp / DESCRIPTOR, OpenAlexDescriptor(
            release_id=ids[-1],
            synthetic=True,
            note=SYNTHETIC_NOTE,
            format=FORMAT,
            layout=layout,
            generator=GENERATOR,
            generator_version=__version__,
            seed=first.seed,
            world_version=first.world_version,
            papers_newest_release=first.papers_newest_release,
            partitions=tuple(ids),
            works_records=sum(n for _, n in files),
            merged=gone,
        ))
    return out


def _check_target(out: Path, replace: bool) -> None:
    if not out.exists():
        return
    if not replace:
        raise GraphNIAHError(f"{out} already exists; pass --replace (replace=True) to regenerate the demo there")
    if any(out.iterdir()):
        desc = out / DESCRIPTOR
        if not desc.is_file() or not read_openalex_descriptor(desc).synthetic:
            raise GraphNIAHError(f"{out} is not a synthetic OpenAlex demo folder (no {DESCRIPTOR} marked synthetic): refusing to replace it")


def write_openalex_demo(out: Path, *, papers: int = 100_000, seed: int = 0, releases: int = 2, first_release: str = "2026-10-06",
                        shard_rows: int = 50_000, layout: Layout = "jsonl", replace: bool = False) -> Path:
    """Generate a demo world (``write_demo_releases`` with these arguments) and write it only in
    OpenAlex form into ``out`` (``convert_demo_releases``); the S2AG form is a temporary beside it."""
    out = Path(out)
    _check_target(out, replace)
    s2ag = out.parent / f".{out.name}.s2ag-form.tmp"
    if s2ag.exists():
        shutil.rmtree(s2ag)
    try:
        rs = write_demo_releases(s2ag, papers=papers, seed=seed, releases=releases, first_release=first_release, shard_rows=shard_rows)
        return convert_demo_releases(rs, out, layout=layout, shard_rows=shard_rows, replace=replace)
    finally:
        shutil.rmtree(s2ag, ignore_errors=True)


def demo_summary(out: Path) -> dict[str, Any]:
    """The descriptor of a demo folder in OpenAlex form (for the CLI summary)."""
    return read_openalex_descriptor(Path(out) / DESCRIPTOR).model_dump(mode="json", exclude_unset=True)
