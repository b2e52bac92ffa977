"""The embedded default data source: deterministic synthetic S2AG-format releases and their diffs.

Other stages call ``write_demo_releases`` (or ``DemoReleaseSet.open`` on a folder it wrote);
``openalex.convert_demo_releases`` writes the same world as an OpenAlex works folder.
"""

from graphniah.ingest.demo_release.generate import DATASETS, DemoReleaseSet, write_demo_releases

__all__ = ["DATASETS", "DemoReleaseSet", "write_demo_releases"]
