"""Ingest stage: S2AG releases (downloaded, user-supplied or the synthetic demo) become a snapshot.

Takes an S2AG release folder, a release store moved forward by diffs (``s2ag``), an OpenAlex works
folder (``openalex``: a snapshot sync or a fetched window, no key needed), or the embedded demo
release in either form (``demo_release``); gives a snapshot folder for one cutoff — ``papers.parquet`` and
``edges.parquet`` of the eligible post-cutoff papers and their citations, plus ``manifest.json``
with input hashes, drop counts and the content hash (their format is ``graphniah.formats.snapshot``).
``build`` is the DuckDB query that turns raw JSON lines into those tables.
"""
