"""The commands: ``graphniah demo-release --format openalex``, ``graphniah ingest --source openalex``,
``graphniah openalex fetch``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from graphniah.cli import app
from graphniah.formats.snapshot import Snapshot
from tests.ingest.openalex.conftest import CUTOFF, World
from tests.ingest.openalex.fake_api import FakeOpenAlex


def _run(*args: str) -> str:
    res = CliRunner().invoke(app, list(args))
    assert res.exit_code == 0, res.output
    return " ".join(res.output.split())


def test_demo_release_in_openalex_form_then_ingest(world: World, tmp_path: Path) -> None:
    out = _run("demo-release", "--format", "openalex", "--out", str(tmp_path / "oa"), "--papers", "3000", "--seed", "3", "--releases", "3")
    assert "SYNTHETIC demo world in OpenAlex form" in out and "merged away" in out
    assert (tmp_path / "oa" / "data" / "jsonl" / "manifest.json").is_file() and not list(tmp_path.glob(".*s2ag-form*"))
    out = _run("ingest", "--source", "openalex", "--release", str(tmp_path / "oa"), "--cutoff", str(CUTOFF), "--out", str(tmp_path / "snap"))
    assert "SYNTHETIC demo release in OpenAlex form" in out and "replaced by a newer record" in out
    # the same seed gives the same world: the snapshot the fixture built from its own conversion
    assert Snapshot.open(tmp_path / "snap").content_hash == world.openalex_snapshot.content_hash
    res = CliRunner().invoke(app, ["ingest", "--source", "crossref", "--release", str(tmp_path / "oa"), "--cutoff", str(CUTOFF), "--out", str(tmp_path / "x")])
    assert res.exit_code != 0 and "choose s2ag or openalex" in str(res.exception)


def test_openalex_fetch_command(served: list[dict[str, Any]], tmp_path: Path) -> None:
    with FakeOpenAlex(served[:300]) as srv:
        out = _run("openalex", "fetch", "--from-publication-date", "2000-01-01", "--to-publication-date", "2026-12-31",
                   "--out", str(tmp_path / "f"), "--api-base", srv.base_url, "--mailto", "x@example.org")
    n = sum(1 for w in served[:300] if w["publication_date"])
    assert f"{n:,} OpenAlex works published 2000-01-01 to 2026-12-31" in out and "graphniah ingest --source openalex" in out
    assert "x@example.org" not in out
