"""Semantic Scholar Academic Graph (S2AG) data: reading release/diff folders and the release store.

- ``graphniah.ingest.s2ag.read``  — the on-disk layout, gzip integrity checks, and the normalising SQL
  that turns raw S2AG JSON lines (both the legacy and the current format) into typed rows.
- ``graphniah.ingest.s2ag.store`` — the release store: a DuckDB file that holds one release and is
  moved forward by applying diffs.
- ``graphniah.ingest.s2ag.titles`` — the title rule (MathML titles dropped, inline markup rendered
  away) as DuckDB expressions.
- ``graphniah.ingest.s2ag.preprints`` — the preprint rule (a paper's earliest public date from its
  arXiv id and bioRxiv/medRxiv or Preprints.org DOI) as DuckDB expressions.
- ``graphniah.ingest.s2ag.limits`` — the memory budget and thread count DuckDB works within.
- ``graphniah.ingest.s2ag.api``   — the Datasets API client and resumable downloader;
  (tests/ingest/s2ag/fake_api.py is a local HTTP server that stands in for it in tests.)
"""
