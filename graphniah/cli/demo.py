"""CLI commands for the demo stage."""

from graphniah.cli.app import app  # noqa: F401
