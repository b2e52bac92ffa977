"""CLI commands for the graph stage."""

from graphniah.cli.app import app  # noqa: F401
