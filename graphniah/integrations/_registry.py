"""inspect_ai's entry point (``[project.entry-points.inspect_ai]``): importing the task registers it as ``graphniah/graphniah``."""

from graphniah.integrations.inspect_task import graphniah  # noqa: F401
