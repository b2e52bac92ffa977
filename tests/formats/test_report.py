"""summary.json and alpha.json: version 1 without the field, another version refused by name, round trips."""

from __future__ import annotations

import json

import pytest

from graphniah.errors import GraphNIAHError
from graphniah.formats.report import AlphaRun, read_alpha_run, read_report_summary, write_alpha_run

RUN = AlphaRun(selected=0.3, rows=({"alpha": 0.3, "kl_yesno": 0.01, "mean_kl": 0.02, "selected": True},),
               tasks=("yesno",), examples=[[20]], support=[0, 1, 2], reference_histogram=[0.5, 0.25, 0.25],
               generated_histograms=[[[10, 5, 5]]], config={"alphas": [0.3], "tasks": ["yesno"]}, seconds=1.5,
               source={"planted": True}, version="0.0.0")


def test_an_alpha_run_round_trips_without_a_version_field(tmp_path):
    path = tmp_path / "alpha.json"
    write_alpha_run(path, RUN)
    raw = json.loads(path.read_text())
    assert "format_version" not in raw and raw["selected"] == 0.3 and raw["examples"] == [[20]]
    back = read_alpha_run(path)
    assert back == RUN
    assert back.rows[0]["selected"] is True and isinstance(back.generated_histograms[0][0][0], int)


@pytest.mark.parametrize("reader, what", [(read_alpha_run, "select-alpha run"), (read_report_summary, "report summary")])
def test_a_file_of_another_version_names_the_file_and_the_version(tmp_path, reader, what):
    path = tmp_path / "x.json"
    path.write_text(json.dumps({"format_version": 2}))
    with pytest.raises(GraphNIAHError, match=rf"^{path}: {what} format_version 2 is not supported"):
        reader(path)


def test_an_alpha_run_missing_a_field_names_the_file_and_the_field(tmp_path):
    path = tmp_path / "alpha.json"
    path.write_text(json.dumps(RUN.model_dump(mode="json") | {"selected": None}))
    with pytest.raises(GraphNIAHError, match=rf"^{path}: not a valid select-alpha run \(.*selected"):
        read_alpha_run(path)
