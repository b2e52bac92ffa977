"""``make refresh SOURCE=openalex``: the library refresh end to end on a small demo world in OpenAlex
form (no key, labelled synthetic), and on a fake OpenAlex API; examples sample from the result."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from graphniah.cli import app
from graphniah.formats.snapshot import source_name
from graphniah.refresh import refresh
from tests.ingest.openalex.conftest import CUTOFF, World
from tests.ingest.openalex.fake_api import FakeOpenAlex
from tests.progress_log import ProgressLog

PAPERS = 2000


@pytest.mark.slow
def test_refresh_openalex_demo_world_end_to_end(tmp_path: Path) -> None:
    root = tmp_path / "snapshots"
    # an S2AG demo refresh of another world first: the OpenAlex refresh generates the shared demo
    # release set again, and the S2AG store loaded from the old one must not be reused below
    refresh(CUTOFF, root, demo_papers=PAPERS - 100, depths=(4,), pool_size=10)
    log = ProgressLog()
    first = refresh(CUTOFF, root, source="openalex", demo_papers=PAPERS, depths=(4,), pool_size=10, progress=log)
    m = first.snapshot.manifest
    assert first.source == "demo-openalex" and m.synthetic and source_name(m) == "openalex"
    assert first.snapshot.path.parent.name == f"demo-openalex-{first.release_id}"
    assert any("SYNTHETIC demo world in OpenAlex form" in n for n in log.notes)
    assert first.pools == {4: 10} and m.source["superseded"] > 0
    # the same world in S2AG form gives the same papers and edges (a refresh of the other source)
    s2ag = refresh(CUTOFF, root, demo_papers=PAPERS, depths=(4,), pool_size=10)
    assert s2ag.snapshot.manifest.files["edges.parquet"]["content_sha256"] == m.files["edges.parquet"]["content_sha256"]
    assert s2ag.snapshot.manifest.rows["papers"] == m.rows["papers"]
    assert s2ag.pools == first.pools
    # again through the CLI: everything is reused, and the output says the data is synthetic
    res = CliRunner().invoke(app, ["refresh", "--source", "openalex", "--cutoff", str(CUTOFF), "--root", str(root),
                                   "--demo-papers", str(PAPERS), "--depth", "4", "--pool", "10"])
    assert res.exit_code == 0, res.output
    assert "SYNTHETIC demo release in OpenAlex form" in " ".join(res.output.split())
    assert "up to date" in res.output
    # the snapshot feeds the rest of the pipeline unchanged: examples sample and verify from their text
    out = tmp_path / "ex.jsonl"
    res = CliRunner().invoke(app, ["sample", "--task", "yesno", "--depth", "4", "-n", "2", "--snapshot", str(first.snapshot.path),
                                   "--out", str(out), "--component-size", "40"])
    assert res.exit_code == 0, res.output
    res = CliRunner().invoke(app, ["verify", str(out)])
    assert res.exit_code == 0, res.output
    # a suite built on it goes through journals (the shortcut baselines') to a report that names the source
    from graphniah.baselines.journals import write_baselines
    from graphniah.report import build_report, load_suite
    from graphniah.sampling.suites import build_suite, load_suite_spec

    (tmp_path / "tiny.yaml").write_text("name: tiny\ndescription: OpenAlex smoke suite\nvary: task\nvalues: [yesno, mc]\nper_value: 2\n"
                                        "draw:\n  depth: [4]\n  component_size: {min: 30, max: 40}\n  distractor: [none]\n", encoding="utf-8")
    built = build_suite(load_suite_spec(tmp_path / "tiny.yaml"), first.snapshot, 0, out_root=tmp_path / "examples", workers=1)
    write_baselines(built.examples_path, "tiny", tmp_path / "runs", training_per_task=4)  # learned-surface: a tiny training draw
    report = build_report(load_suite("tiny", runs_root=tmp_path / "runs", examples_root=tmp_path / "examples"))
    assert f"- data: OpenAlex release {first.release_id}, papers published on or after {CUTOFF} (SYNTHETIC demo data)" in report.markdown()


@pytest.mark.slow
def test_refresh_openalex_from_the_api(world: World, served: list[dict[str, Any]], tmp_path: Path) -> None:
    log = ProgressLog()
    with FakeOpenAlex(served) as srv:
        result = refresh(CUTOFF, tmp_path / "snapshots", source="openalex", api_base=srv.base_url, depths=(4,), pool_size=5, progress=log)
    m = result.snapshot.manifest
    today = dt.datetime.now(dt.UTC).date()
    assert result.source == "openalex" and not m.synthetic and result.release_id == f"openalex-{today}"
    assert result.snapshot.path.parent.name == f"openalex-{today}"
    assert m.files["papers.parquet"]["content_sha256"] == world.openalex_snapshot.manifest.files["papers.parquet"]["content_sha256"]
    assert result.pools == {4: 5}
    assert any("no key needed" in n for n in log.notes)
