"""Semantic Scholar Academic Graph (S2AG) data: reading release/diff folders and the release store.

- ``graphniah.ingest.s2ag.layout`` — the on-disk layout of release and diff folders: dataset names,
  release ids (descriptor, option or folder name), shard lists.
- ``graphniah.ingest.s2ag.sql``   — the normalising SQL that turns raw S2AG JSON lines (both the legacy
  and the current format) into typed rows, and the duplicate rule.
- ``graphniah.ingest.s2ag.integrity`` — gzip checks (ISA-L, every member's CRC) and, when a read
  fails, the byte offset of the damage or the line of the bad record.
- ``graphniah.ingest.s2ag.read``  — verified reads (DuckDB fed through named pipes by CRC-checking
  threads) and loading a whole release into tables.
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
