"""Ingest benchmark: ``graphniah ingest`` against bare DuckDB doing the same job, its memory, and its scaling.

On demo releases of ``--base-papers`` (1,000,000) and ``--papers`` papers (e.g. 4,000,000), each
job runs in its own subprocess (so its peak RSS, DuckDB included, is its own ``ru_maxrss``), after
one untimed pass that brings the files into the page cache. Every job runs under the same
``--memory-limit`` (the process budget; DuckDB gets its share, ``graphniah.ingest.s2ag.limits``)
and thread count.

- **bare** (at the base size): plain DuckDB statements straight over the gzip shards that write
  the same two Parquet files — same inputs, same rules (duplicates, dates, titles, preprints),
  same columns (``earliest_public_date`` and ``fields_of_study`` included), same order
  (``bare_snapshot``); after every round the bench checks that its files hold exactly the rows
  the ingest wrote (content hashes), so the baseline cannot skip work the ingest must do;
- **ingest**: ``ingest_release`` — CRC-verified, hashed inputs, every output column, drop-reason
  counts, sorted Parquet files streamed with their content hash, manifest, atomic rename.

- **OpenAlex** (issue 28, ``--openalex-papers``, default the base size; ``--only-openalex`` skips the
  S2AG runs): the same demo world written as an OpenAlex works folder (``convert_demo_releases``)
  read by ``ingest_openalex``, against one bare DuckDB job over the same gzip files
  (``bare_openalex``: reading and filtering the works, unnesting ``referenced_works``, with the
  same mapping and rule expressions and the same output, checked by content hash), target 1.3.

``--repeat`` rounds (3) of (bare, ingest) run interleaved, so a burst of load from elsewhere hits
both jobs of a round; the ratio ingest/bare is printed for every round against the target (issue
19: at most 1.3 in each of three runs). Also printed: the peak RSS of every job against the
budget, the time per GB of gzip input at each size, and from the slope between the two sizes a
projection for the full S2AG (45 GB papers + 255 GB citations, gzip): once as total time per GB,
once stage by stage (reading and classifying papers scale with the papers gzip, reading
citations and the edge query with the citations gzip; writing is scaled with the papers too, an
upper bound: the demo keeps ~60% of its papers, a 6-month S2AG window far fewer).
Releases are cached under ``bench/.data/`` (outside git).

    .venv/bin/python bench/ingest.py [--papers 4000000] [--base-papers 1000000] [--memory-limit 2GB] [--repeat 3]
    .venv/bin/python bench/ingest.py --only-openalex --openalex-papers 300000 [--repeat 3]
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BENCH_DIR = Path(__file__).resolve().parent
DATA = BENCH_DIR / ".data"
TARGET = 1.3  # issue 19: ingest at most 1.3x the bare DuckDB job, in each of three runs
# The full S2AG release (gzip), for the projection.
S2AG_PAPERS_GB = 45.0
S2AG_CITATIONS_GB = 255.0


def demo_release(papers: int, seed: int) -> Path:
    """The newest release of a cached demo release set (generated on first use)."""
    from graphniah.ingest.demo_release import DemoReleaseSet, write_demo_releases

    root = DATA / f"demo-{papers}-seed{seed}"
    if (root / "releases").is_dir():
        rs = DemoReleaseSet.open(root)
    else:
        t0 = time.perf_counter()
        print(f"generating a {papers:,}-paper demo release under {root} (cached for later runs) …", flush=True)
        rs = write_demo_releases(root, papers=papers, seed=seed, releases=1)
        print(f"  done in {time.perf_counter() - t0:,.0f} s", flush=True)
    return rs.release_dir(rs.release_ids[-1])


def openalex_demo(papers: int, seed: int) -> Path:
    """The demo world of ``demo_release(papers, seed)`` as an OpenAlex works folder (cached)."""
    from graphniah.ingest.demo_release import DemoReleaseSet
    from graphniah.ingest.demo_release.openalex import convert_demo_releases

    release = demo_release(papers, seed)
    root = DATA / f"openalex-{papers}-seed{seed}"
    if not (root / "openalex.json").is_file():
        t0 = time.perf_counter()
        print(f"writing it as OpenAlex works under {root} (cached) …", flush=True)
        convert_demo_releases(DemoReleaseSet.open(release.parent.parent), root, replace=True)
        print(f"  done in {time.perf_counter() - t0:,.0f} s", flush=True)
    return root


def bare_openalex(folder: Path, cutoff: dt.date, out: Path, memory_limit: str, threads: int | None) -> tuple[int, int]:
    """The OpenAlex baseline: one DuckDB job straight over the works files (DuckDB inflates them
    itself) that reads the works with the reader's mapping (``works_sql``) and the rules' derived
    columns (``derived_papers_sql`` with the OpenAlex preprint dates), keeps the newest record of
    each work (only works seen twice are ranked, as the ingest does), filters by every drop rule,
    unnests ``referenced_works`` and writes the same two sorted Parquet files (checked by
    ``_same_output``). Left out: CRC checks and hashes of inputs, the manifest's checks (sizes,
    record count), the id and reference checks, merged ids (none in a one-release world), counts,
    content hashes, the manifest, the atomic rename."""
    import duckdb

    from graphniah.ingest.build import derived_papers_sql
    from graphniah.ingest.openalex.layout import open_works
    from graphniah.ingest.openalex.read import WORKS_RAW, source_dates_sql, works_sql
    from graphniah.ingest.s2ag.sql import scan_sql, sql_str

    works = open_works(folder)
    parts = [p.path for p in works.parts]
    cut = f"DATE {sql_str(cutoff.isoformat())}"
    parquet = "(FORMAT parquet, COMPRESSION zstd)"
    out.mkdir(parents=True)
    con = duckdb.connect()
    with tempfile.TemporaryDirectory(prefix=".bare-spill.", dir=DATA) as spill:
        _limits(memory_limit, threads).configure(con, Path(spill))
        con.execute(f"CREATE TEMP TABLE w AS {derived_papers_sql(f'({works_sql(scan_sql(parts, WORKS_RAW), 0)})', source_dates_sql())}")
        newest = """rowid NOT IN (SELECT _rid FROM (SELECT w.rowid AS _rid, row_number() OVER (PARTITION BY w.corpusid ORDER BY w._part DESC,
                    w._updated DESC NULLS LAST, w.title, w.publicationdate, w.doi) AS _rank
                    FROM w SEMI JOIN (SELECT corpusid FROM w GROUP BY corpusid HAVING count(*) > 1) d ON w.corpusid = d.corpusid) WHERE _rank > 1)"""
        con.execute(f"""CREATE TEMP TABLE eligible AS SELECT * FROM w
            WHERE corpusid IS NOT NULL AND _pdate >= {cut} AND _epd >= {cut} AND _title <> '' AND NOT _mathml AND {newest}""")
        con.execute(f"""
            COPY (
                SELECT corpusid, _title AS title, list_transform(authors, lambda a: struct_pack(id := a.authorId, name := a.name)) AS authors,
                       venue, journal, _pdate AS publication_date, CAST(COALESCE(year, year(_pdate)) AS INTEGER) AS year, arxiv_id, doi,
                       _epd AS earliest_public_date, fields_of_study
                FROM eligible ORDER BY corpusid
            ) TO {sql_str(out / "papers.parquet")} {parquet}""")
        con.execute(f"""
            COPY (
                SELECT DISTINCT citing, cited FROM (SELECT corpusid AS citing, unnest(_refs) AS cited FROM eligible)
                WHERE citing <> cited AND cited IN (SELECT corpusid FROM eligible)
                ORDER BY citing, cited
            ) TO {sql_str(out / "edges.parquet")} {parquet}""")
        papers, edges = (con.execute(f"SELECT count(*) FROM {sql_str(out / f)}").fetchall()[0][0] for f in ("papers.parquet", "edges.parquet"))
    con.close()
    return int(papers), int(edges)


def _limits(memory_limit: str, threads: int | None):
    from graphniah.ingest.s2ag.limits import Limits

    return Limits.resolve(memory_limit, threads)


def bare_snapshot(release: Path, cutoff: dt.date, out: Path, memory_limit: str, threads: int | None) -> tuple[int, int]:
    """The baseline: the snapshot's two Parquet files written by plain DuckDB statements straight
    from the gzip shards (DuckDB inflates them itself), with DuckDB's share of the budget and the
    same threads. Same inputs (papers, publication-venues, citations), same rules (the
    normalising SQL, the duplicate rule, every drop reason incl. the title rule and the preprint
    rule, via the same SQL expressions), the same output columns (title as rendered, authors,
    venue with the publication-venues fallback, earliest_public_date, fields_of_study …) sorted
    the same way — checked by ``_same_output`` against what the ingest wrote. What it leaves
    out is what the ingest adds on top: CRC checks and sha256 of the inputs, drop-reason counts,
    content hashes, the manifest, the atomic rename.

    Papers are loaded once into a table with their derived columns (the duplicate rule needs a
    second look at the rows of a repeated corpusid, and the edges need the eligible ids);
    citations are filtered and de-duplicated as they are read.
    """
    import duckdb

    from graphniah.ingest.s2ag import preprints, titles
    from graphniah.ingest.s2ag.layout import CITATIONS, PAPERS, VENUES, shard_files
    from graphniah.ingest.s2ag.sql import citations_sql, duplicate_losers_sql, papers_sql, sql_str, venues_sql

    def gz(ds: str) -> tuple[Path, ...]:
        return shard_files(release / ds)

    cut = f"DATE {sql_str(cutoff.isoformat())}"
    marked = titles.has_markup_sql("title")
    epd = preprints.earliest_sql([*preprints.source_dates_sql("arxiv_id", "doi").values(), preprints.record_date_sql("_pdate", "year")])
    eligible = f"""corpusid IS NOT NULL AND _pdate >= {cut} AND _epd >= {cut} AND _title <> '' AND NOT _mathml
        AND rowid NOT IN (SELECT _rid FROM ({duplicate_losers_sql(PAPERS, "p")}))"""
    parquet = "(FORMAT parquet, COMPRESSION zstd)"
    out.mkdir(parents=True)
    con = duckdb.connect()
    with tempfile.TemporaryDirectory(prefix=".bare-spill.", dir=DATA) as spill:
        _limits(memory_limit, threads).configure(con, Path(spill))
        con.execute(f"""
            CREATE TEMP TABLE p AS
            SELECT * EXCLUDE (_unescaped), {epd} AS _epd FROM (
                SELECT *, CASE WHEN _marked THEN {titles.render_sql("_unescaped")} ELSE title END AS _title,
                       _marked AND {titles.is_mathml_sql("_unescaped")} AS _mathml
                FROM (SELECT *, TRY_CAST(publicationdate AS DATE) AS _pdate, {marked} AS _marked,
                             CASE WHEN {marked} THEN {titles.unescape_sql("title")} END AS _unescaped
                      FROM ({papers_sql(gz(PAPERS))})))""")
        con.execute(f"CREATE TEMP VIEW eligible AS SELECT * FROM p WHERE {eligible}")
        con.execute(f"""
            COPY (
                SELECT e.corpusid, e._title AS title,
                       list_transform(e.authors, lambda a: struct_pack(id := a.authorId, name := a.name)) AS authors,
                       COALESCE(e.venue, e.journal, v.name) AS venue, e.journal, e._pdate AS publication_date,
                       CAST(COALESCE(e.year, year(e._pdate)) AS INTEGER) AS year, e.arxiv_id, e.doi,
                       e._epd AS earliest_public_date, e.fields_of_study
                FROM eligible e
                LEFT JOIN (SELECT id, min(name) AS name FROM ({venues_sql(gz(VENUES))}) WHERE id IS NOT NULL GROUP BY id) v
                       ON v.id = e.publicationvenueid
                ORDER BY e.corpusid
            ) TO {sql_str(out / "papers.parquet")} {parquet}""")
        con.execute(f"""
            COPY (
                SELECT DISTINCT citing, cited FROM ({citations_sql(gz(CITATIONS))})
                WHERE citing <> cited AND citing IN (SELECT corpusid FROM eligible) AND cited IN (SELECT corpusid FROM eligible)
                ORDER BY citing, cited
            ) TO {sql_str(out / "edges.parquet")} {parquet}""")
        papers, edges = (con.execute(f"SELECT count(*) FROM {sql_str(out / f)}").fetchall()[0][0] for f in ("papers.parquet", "edges.parquet"))
    con.close()
    return int(papers), int(edges)


def child(mode: str, release: Path, cutoff: dt.date, out: Path, memory_limit: str, threads: int | None) -> None:
    """Run one measured job in this (fresh) process and print a JSON line with its figures."""
    t0 = time.perf_counter()
    stages = spilled = None
    if mode == "bare":
        papers, edges = bare_snapshot(release, cutoff, out, memory_limit, threads)
    elif mode == "bare-openalex":
        papers, edges = bare_openalex(release, cutoff, out, memory_limit, threads)
    elif mode == "ingest-openalex":
        from graphniah.formats.snapshot import Snapshot
        from graphniah.ingest.build import ingest_openalex

        manifest = Snapshot.open(ingest_openalex(release, cutoff, out, limits=_limits(memory_limit, threads))).manifest
        rows, stages = manifest.rows, manifest.timings
        spilled = (manifest.resources or {})["spilled_bytes_at_stage_ends"]
        papers, edges = rows["papers"]["kept"], rows["edges"]["kept"]
    else:
        from graphniah.formats.snapshot import Snapshot
        from graphniah.ingest.build import ingest_release

        manifest = Snapshot.open(ingest_release(release, cutoff, out, limits=_limits(memory_limit, threads))).manifest
        rows, stages = manifest.rows, manifest.timings
        spilled = (manifest.resources or {})["spilled_bytes_at_stage_ends"]
        papers, edges = rows["papers"]["kept"], rows["edges"]["kept"]
    seconds = time.perf_counter() - t0
    use = resource.getrusage(resource.RUSAGE_SELF)
    print(json.dumps({
        "mode": mode, "seconds": seconds, "cpu_seconds": use.ru_utime + use.ru_stime,
        "peak_rss_bytes": use.ru_maxrss * 1024,  # Linux: KiB
        "papers": papers, "edges": edges, "stages": stages, "spilled_bytes": spilled,
    }))


def _run_child(mode: str, release: Path, cutoff: dt.date, out: Path, memory_limit: str, threads: int | None) -> dict:
    cmd = [sys.executable, str(Path(__file__).resolve()), "--child", mode, "--release", str(release), "--cutoff", cutoff.isoformat(),
           "--out", str(out), "--memory-limit", memory_limit]
    if threads:
        cmd += ["--threads", str(threads)]
    r = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if r.returncode != 0:
        raise SystemExit(f"{mode} failed:\n{r.stderr}")
    return json.loads(r.stdout.strip().splitlines()[-1])


def _input_gb(release: Path) -> dict[str, float]:
    """Gzip GB read per dataset (papers including the small publication-venues)."""
    from graphniah.ingest.s2ag.layout import CITATIONS, READ_DATASETS, shard_files

    out = {"papers": 0.0, "citations": 0.0}
    for ds in READ_DATASETS:
        out["citations" if ds == CITATIONS else "papers"] += sum(p.stat().st_size for p in shard_files(release / ds)) / 1e9
    return out


def _warm(release: Path) -> None:
    """Read every shard once, so that no measured run pays for the disk."""
    for f in sorted(release.rglob("*.gz")):
        with open(f, "rb") as fh:
            while fh.read(1 << 24):
                pass


# Which input each ingest stage scales with, for the stage-by-stage projection.
STAGE_INPUT = {"read": "papers", "read_citations": "citations", "papers": "papers", "edges": "citations", "write": "papers"}


def _same_output(bare: Path, snapshot: Path) -> bool:
    """Whether the bare job's Parquet files hold exactly the rows, in the order, that the ingest
    wrote: their content hashes (read back as the snapshot schema) equal the manifest's."""
    import pyarrow.parquet as pq

    from graphniah.formats.snapshot import EDGES_FILE, EDGES_SCHEMA, PAPERS_FILE, PAPERS_SCHEMA, Snapshot
    from graphniah.ingest.build import table_content_hash

    files = Snapshot.open(snapshot).manifest.files
    return all(table_content_hash(pq.read_table(bare / name).cast(schema)) == files[name]["content_sha256"]
               for name, schema in ((PAPERS_FILE, PAPERS_SCHEMA), (EDGES_FILE, EDGES_SCHEMA)))


def _measure(papers: int, args: argparse.Namespace, cutoff: dt.date, bare: bool) -> dict:
    release = demo_release(papers, args.seed)
    gb = _input_gb(release)
    print(f"\n{papers:,} papers: {release} ({gb['papers']:.2f} GB papers + {gb['citations']:.2f} GB citations gzip), load {os.getloadavg()[0]:.1f}", flush=True)
    runs: dict[str, list[dict]] = {"bare": [], "ingest": []}
    same: list[bool] = []
    with tempfile.TemporaryDirectory(prefix="ingest-bench.", dir=DATA) as tmp:
        job = lambda mode, out: _run_child(mode, release, cutoff, Path(tmp) / out, args.memory_limit, args.threads)
        _warm(release)  # page cache
        for i in range(args.repeat if bare else args.repeat_large):  # interleaved: a burst of load from elsewhere hits both
            if bare:
                runs["bare"].append(job("bare", f"bare-{i}"))
            runs["ingest"].append(job("ingest", f"snapshot-{i}"))
            if bare:
                same.append(_same_output(Path(tmp) / f"bare-{i}", Path(tmp) / f"snapshot-{i}"))
                r = runs["ingest"][-1]["seconds"] / runs["bare"][-1]["seconds"]
                print(f"  run {i + 1}: bare {runs['bare'][-1]['seconds']:7.2f} s, ingest {runs['ingest'][-1]['seconds']:7.2f} s, ratio {r:.2f}"
                      f"; same output: {'yes' if same[-1] else 'NO'}", flush=True)
            for d in (f"bare-{i}", f"snapshot-{i}"):
                shutil.rmtree(Path(tmp) / d, ignore_errors=True)
    for name, label in (("bare", "bare DuckDB query"), ("ingest", "graphniah ingest ")):
        if runs[name]:
            times = ", ".join(f"{r['seconds']:.2f}" for r in runs[name])
            best = min(runs[name], key=lambda r: r["seconds"])
            rss = max(r["peak_rss_bytes"] for r in runs[name])
            print(f"  {label} : best {best['seconds']:7.2f} s of [{times}]  (CPU {best['cpu_seconds']:7.2f} s)   peak RSS {rss / 1e6:7,.0f} MB")
    ing = min(runs["ingest"], key=lambda r: r["seconds"])
    wall, cpu = ing["stages"]["wall"], ing["stages"]["cpu"]
    print("  ingest stages     : " + ", ".join(f"{k} {wall[k]:.1f} s (CPU {cpu[k]:.1f} s)" for k in cpu))
    print(f"  eligible papers {ing['papers']:,}, edges {ing['edges']:,}; spilled at stage ends {ing['spilled_bytes'] / 1e6:,.0f} MB; "
          f"{ing['seconds'] / (gb['papers'] + gb['citations']):.1f} s ({ing['cpu_seconds'] / (gb['papers'] + gb['citations']):.1f} CPU s) per GB of gzip input")
    return {"papers": papers, "gb": gb, "runs": runs, "best": ing, "same": same, "load": os.getloadavg()[0]}


def _measure_openalex(papers: int, args: argparse.Namespace, cutoff: dt.date) -> list[float]:
    """Interleaved rounds of (bare_openalex, ingest_openalex) on the demo world in OpenAlex form;
    prints each round's ratio and returns them."""
    folder = openalex_demo(papers, args.seed)
    gb = sum(p.stat().st_size for p in folder.rglob("*.gz")) / 1e9
    print(f"\nOpenAlex form, {papers:,} papers: {folder} ({gb:.2f} GB gzip), load {os.getloadavg()[0]:.1f}", flush=True)
    ratios: list[float] = []
    with tempfile.TemporaryDirectory(prefix="ingest-bench.", dir=DATA) as tmp:
        _warm(folder)
        for i in range(args.repeat):
            bare = _run_child("bare-openalex", folder, cutoff, Path(tmp) / f"bare-{i}", args.memory_limit, args.threads)
            ing = _run_child("ingest-openalex", folder, cutoff, Path(tmp) / f"snapshot-{i}", args.memory_limit, args.threads)
            same = _same_output(Path(tmp) / f"bare-{i}", Path(tmp) / f"snapshot-{i}")
            ratios.append(ing["seconds"] / bare["seconds"])
            stages = ", ".join(f"{k} {v:.1f}" for k, v in ing["stages"]["wall"].items())
            print(f"  run {i + 1}: bare {bare['seconds']:7.2f} s (CPU {bare['cpu_seconds']:.1f}), ingest {ing['seconds']:7.2f} s "
                  f"(CPU {ing['cpu_seconds']:.1f}; {stages}), ratio {ratios[-1]:.2f}; same output: {'yes' if same else 'NO'}; "
                  f"papers {ing['papers']:,}, edges {ing['edges']:,}", flush=True)
            if not same:
                raise SystemExit("ingest_openalex and the bare DuckDB job wrote different rows: the baseline is not the same job")
            for d in (f"bare-{i}", f"snapshot-{i}"):
                shutil.rmtree(Path(tmp) / d, ignore_errors=True)
    print(f"ratio ingest_openalex/bare at {papers:,} papers, run by run: {', '.join(f'{r:.2f}' for r in ratios)}; "
          f"target <= {TARGET} in every run: {'MET' if all(r <= TARGET for r in ratios) else 'NOT MET'}")
    return ratios


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--papers", type=int, default=1_000_000, help="the large release (peak RSS, scaling)")
    ap.add_argument("--base-papers", type=int, default=1_000_000, help="the base release (ratio ingest/bare)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--cutoff", default="2026-04-01")
    ap.add_argument("--memory-limit", default="2GB", help="process budget of every job")
    ap.add_argument("--threads", type=int, default=None, help="DuckDB threads (default: the CPUs available)")
    ap.add_argument("--repeat", type=int, default=3, help="rounds of (bare, ingest) at the base size; each round's ratio is held against the target")
    ap.add_argument("--repeat-large", type=int, default=1, help="ingest rounds at the large size")
    ap.add_argument("--openalex-papers", type=int, default=None, help="size of the OpenAlex run (default: --base-papers)")
    ap.add_argument("--only-openalex", action="store_true", help="run only the OpenAlex comparison")
    ap.add_argument("--child", choices=["bare", "ingest", "bare-openalex", "ingest-openalex"], help=argparse.SUPPRESS)
    ap.add_argument("--release", type=Path, help=argparse.SUPPRESS)
    ap.add_argument("--out", type=Path, help=argparse.SUPPRESS)
    args = ap.parse_args()
    cutoff = dt.date.fromisoformat(args.cutoff)
    if args.child:
        child(args.child, args.release, cutoff, args.out, args.memory_limit, args.threads)
        return

    limits = _limits(args.memory_limit, args.threads)
    print(f"budget --memory-limit {args.memory_limit} ({limits.memory / 1e6:,.0f} MB; DuckDB {limits.duckdb_memory / 1e6:,.0f} MB), "
          f"{limits.threads} threads, {os.cpu_count()} CPUs, load {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    if args.only_openalex:
        _measure_openalex(args.openalex_papers or args.base_papers, args, cutoff)
        return
    base = _measure(args.base_papers, args, cutoff, bare=True)
    sizes = [base] + ([_measure(args.papers, args, cutoff, bare=False)] if args.papers != args.base_papers else [])

    pairs = list(zip(base["runs"]["bare"], base["runs"]["ingest"], strict=True))
    ratios = [i["seconds"] / b["seconds"] for b, i in pairs]
    cpu_ratios = [i["cpu_seconds"] / b["cpu_seconds"] for b, i in pairs]
    agree = all((b["papers"], b["edges"]) == (i["papers"], i["edges"]) for b, i in pairs) and all(base["same"])
    met = all(r <= TARGET for r in ratios)
    print(f"\nratio ingest/bare at {base['papers']:,} papers, run by run: {', '.join(f'{r:.2f}' for r in ratios)} wall "
          f"({', '.join(f'{r:.2f}' for r in cpu_ratios)} in CPU time); target <= {TARGET} in every run: {'MET' if met else 'NOT MET'}; "
          f"output {'identical' if agree else 'DIFFERENT'}")
    for m in sizes:
        rss = max(r["peak_rss_bytes"] for r in m["runs"]["ingest"])
        print(f"peak RSS of ingest at {m['papers']:,} papers: {rss / 1e6:,.0f} MB of {limits.memory / 1e6:,.0f} MB budget: {'UNDER' if rss <= limits.memory else 'OVER'} the limit")
    if len(sizes) == 2:
        # Wall time on a shared machine mostly measures the others' load; CPU time (this process's
        # threads, DuckDB's and the feeders') is the steadier figure, so both are projected.
        a, b = sizes
        ga, gb_ = (sum(m["gb"].values()) for m in (a, b))
        target = {"papers": S2AG_PAPERS_GB, "citations": S2AG_CITATIONS_GB}
        print(f"projection for the full S2AG ({S2AG_PAPERS_GB:.0f} GB papers + {S2AG_CITATIONS_GB:.0f} GB citations gzip):")
        for key, stage_key, unit in (("seconds", "wall", "h wall on this machine at this load"), ("cpu_seconds", "cpu", "CPU-hours")):
            ta, tb = a["best"][key], b["best"][key]
            slope = (tb - ta) / (gb_ - ga)
            linear = ta + slope * (target["papers"] + target["citations"] - ga)
            staged = 0.0
            for stage, ds in STAGE_INPUT.items():
                sa, sb = a["best"]["stages"][stage_key][stage], b["best"]["stages"][stage_key][stage]
                staged += sa + (sb - sa) / (b["gb"][ds] - a["gb"][ds]) * (target[ds] - a["gb"][ds])
            print(f"  {key.replace('_', ' ')}: {ta / ga:.1f} per GB at {a['papers']:,} papers, {tb / gb_:.1f} at {b['papers']:,}; slope {slope:.1f} per extra GB "
                  f"-> {linear / 3600:.1f} {unit} by total slope, {staged / 3600:.1f} stage by stage")
    if not agree:
        raise SystemExit("the ingest and the bare DuckDB job wrote different rows: the baseline is not the same job")
    _measure_openalex(args.openalex_papers or args.base_papers, args, cutoff)


if __name__ == "__main__":
    main()
