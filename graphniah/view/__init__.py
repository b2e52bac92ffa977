"""The example viewer (``graphniah view``): a static site to look at examples, their graphs and every answer.

``build_viewer(examples, out, runs=..., snapshots=...)`` writes a folder that opens from disk
(``out/index.html``): an index of every example, filterable and sortable, with each run's accuracy
on the current selection and its Wilson interval; and one page per example with the question,
the runs' answers, the sampled forest (laid out in :mod:`graphniah.view.forest`), the
needle map and the prompt (found and counted in o200k tokens by :mod:`graphniah.view.needles`).
"""

from graphniah.view.pages import ViewerFiles, build_viewer, example_page_data

__all__ = ["ViewerFiles", "build_viewer", "example_page_data"]
