"""CLI commands for the s2ag stage."""

from graphniah.cli.app import app  # noqa: F401
