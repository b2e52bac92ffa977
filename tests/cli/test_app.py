"""``graphniah --help`` lists every command once, under its pipeline stage, stages in pipeline order."""

from __future__ import annotations

import re

import typer.main
from typer.testing import CliRunner

from graphniah.cli import app

# The order a month is made, written out here: data in, graph, examples, models, results, then the demo.
STAGES = ["Data", "Graph", "Examples", "Models", "Results", "The whole pipeline"]


def test_help_groups_every_command_by_stage_in_pipeline_order() -> None:
    out = CliRunner().invoke(app, ["--help"], terminal_width=100).output
    sections: dict[str, list[str]] = {}
    current = None
    for line in out.splitlines():
        if line and not line.startswith(" ") and line.endswith(":") and not line.startswith(("Usage", "Options")):
            current = line[:-1]
            sections[current] = []
        elif current and (m := re.match(r"  (\S+)\s", line + " ")):
            sections[current].append(m.group(1))
    assert [next(s for s in STAGES if title.startswith(s)) for title in sections] == STAGES
    listed = [c for names in sections.values() for c in names]
    group = typer.main.get_command(app)
    assert sorted(listed) == sorted(n for n, c in group.commands.items() if not c.hidden)  # type: ignore[attr-defined]
    assert len(listed) == len(set(listed))
    # a command of each stage where a reader looks for it
    where = {c: title for title, names in sections.items() for c in names}
    assert where["ingest"].startswith("Data") and where["paths"].startswith("Graph") and where["sample"].startswith("Examples")
    assert where["run"].startswith("Models") and where["report"].startswith("Results") and where["demo"] == "The whole pipeline"
    assert listed.index("ingest") < listed.index("prune") < listed.index("sample") < listed.index("run") < listed.index("report")
