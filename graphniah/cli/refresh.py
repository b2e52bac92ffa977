"""CLI commands for the refresh stage."""

from graphniah.cli.app import app  # noqa: F401
