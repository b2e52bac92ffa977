"""CLI commands for the ingest stage."""

from graphniah.cli.app import app  # noqa: F401
