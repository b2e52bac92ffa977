"""Preprint shares: how many S2AG records carry an arXiv id or a preprint DOI, real and demo.

Measures, with the project's own reader (``read.papers_sql``) and preprint rule
(``graphniah.ingest.s2ag.preprints``):

1. **real S2AG records** (``--samples``, default ``../shared/fixtures/s2ag-samples``: the
   official 2022 sample files, never committed): of the ``papers`` records, the share with an
   arXiv id, a dated bioRxiv/medRxiv DOI, a Preprints.org DOI, any DOI, and an earliest public
   date before the record's own date, each with its 95 % Wilson interval; as a cross-check the
   arXiv ids in the ``abstracts`` records' ``openaccessinfo.externalids``. The demo release's
   targets (``demo_release.metadata.P_ARXIV``, ``P_PREPRINT_DOI``) are the centres of these
   intervals: with no record showing a preprint, the interval's centre is the estimate that
   stays inside what the sample allows.
2. **the demo release** (``--papers``, default the demo's size, one release, the demo seed): the
   same shares on its newest release, and the snapshot at the demo cutoff: papers dropped as
   ``preprint_before_cutoff`` per source, as the manifest counts them.

    .venv/bin/python bench/preprint_shares.py [--samples DIR] [--papers 300000] [--skip-demo]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import duckdb

from graphniah.formats.snapshot import Snapshot
from graphniah.ingest.build import ingest_release
from graphniah.ingest.demo_release import write_demo_releases
from graphniah.ingest.demo_release.metadata import P_ARXIV, P_PREPRINT_DOI
from graphniah.ingest.demo_release.records import DEMO_CUTOFF
from graphniah.ingest.s2ag import preprints
from graphniah.ingest.s2ag.layout import shard_files
from graphniah.ingest.s2ag.sql import papers_sql, sql_str
from graphniah.refresh import DEMO_PAPERS
from graphniah.stats import wilson_interval

REPO = Path(__file__).resolve().parents[1]
SAMPLES = REPO.parent / "shared" / "fixtures" / "s2ag-samples"


def shares_sql(papers: str) -> str:
    """Counts over a normalised papers table expression: n, arXiv, bioRxiv/medRxiv, Preprints.org,
    any DOI, and earliest public date before the record's own date."""
    dates = preprints.source_dates_sql("arxiv_id", "doi")
    record = preprints.record_date_sql("TRY_CAST(publicationdate AS DATE)", "year")
    earliest = preprints.earliest_sql([*dates.values(), record])
    return f"""
        SELECT count(*), count(*) FILTER (WHERE arxiv_id IS NOT NULL), count(*) FILTER (WHERE {dates["biorxiv"]} IS NOT NULL),
               count(*) FILTER (WHERE {dates["preprints"]} IS NOT NULL), count(*) FILTER (WHERE doi IS NOT NULL),
               count(*) FILTER (WHERE {earliest} < {record})
        FROM ({papers})"""


def _counts(sql: str) -> tuple[int, ...]:
    rows = duckdb.execute(sql).fetchall()
    return tuple(int(v) for v in rows[0])


def _line(label: str, k: int, n: int) -> str:
    ci = wilson_interval(k, n)
    centre = (ci.low + ci.high) / 2  # the Wilson interval is symmetric about (k + z²/2) / (n + z²)
    return f"  {label:<44} {k:>7,} / {n:<9,} {k / n:7.2%}  95% Wilson [{ci.low:.2%}, {ci.high:.2%}]  Wilson centre {centre:.2%}"


def report(name: str, counts: tuple[int, ...]) -> None:
    n, arxiv, biorxiv, preprint_org, doi, earlier = counts
    print(f"{name}: {n:,} paper records")
    for label, k in (("arXiv id", arxiv), ("bioRxiv/medRxiv DOI (10.1101/YYYY.MM.DD.)", biorxiv),
                     ("Preprints.org DOI (10.20944/preprintsYYYYMM.)", preprint_org),
                     ("preprint DOI (either)", biorxiv + preprint_org), ("any DOI", doi),
                     ("earliest public date before its own date", earlier)):
        print(_line(label, k, n))


def real_samples(samples: Path) -> None:
    release = samples / "release-2022-samples"
    files = shard_files(release / "papers")
    report(f"real S2AG 2022 sample ({release / 'papers'})", _counts(shares_sql(papers_sql(files))))
    abstracts = shard_files(release / "abstracts")
    file_list = "[" + ", ".join(sql_str(p) for p in abstracts) + "]"
    n, k = _counts(f"""SELECT count(*), count(*) FILTER (WHERE NULLIF(openaccessinfo.externalids.ArXiv, '') IS NOT NULL)
        FROM read_json({file_list}, format='newline_delimited',
                       columns={{openaccessinfo: 'STRUCT(externalids STRUCT(ArXiv VARCHAR))'}})""")
    print("cross-check, abstracts records (openaccessinfo.externalids):")
    print(_line("arXiv id", k, n))


def demo(papers: int) -> None:
    with tempfile.TemporaryDirectory(prefix="bench-preprints.") as tmp:
        rs = write_demo_releases(Path(tmp) / "releases", papers=papers, releases=1)
        release = rs.release_dir(rs.release_ids[-1])
        report(f"demo release ({papers:,} papers, seed 0)", _counts(shares_sql(papers_sql(shard_files(release / "papers")))))
        print(f"demo model targets: P_ARXIV {P_ARXIV:.2%}, P_PREPRINT_DOI {P_PREPRINT_DOI:.2%}")
        snap = ingest_release(release, DEMO_CUTOFF, Path(tmp) / "snap")
        rows = Snapshot.open(snap).manifest.rows["papers"]
        print(f"snapshot at {DEMO_CUTOFF}: kept {rows['kept']:,}, preprint_before_cutoff {rows['dropped']['preprint_before_cutoff']:,} "
              f"(by source {rows['preprint_before_cutoff_by_source']}), before_cutoff {rows['dropped']['before_cutoff']:,}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--samples", type=Path, default=SAMPLES)
    ap.add_argument("--papers", type=int, default=DEMO_PAPERS)
    ap.add_argument("--skip-demo", action="store_true")
    args = ap.parse_args()
    if args.samples.is_dir():
        real_samples(args.samples)
    else:
        print(f"real S2AG samples not found at {args.samples}; skipped")
    if not args.skip_demo:
        demo(args.papers)


if __name__ == "__main__":
    main()
