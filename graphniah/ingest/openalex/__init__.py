"""OpenAlex works as a second source of the citation graph (no key needed): reading both snapshot
layouts (``layout``, ``read``), fetching a publication-date window from the API (``api``).
The snapshot is built by ``graphniah.ingest.build.ingest_openalex``; docs/openalex.md maps the fields."""
