"""``graphniah power``: the examples per group (or pairs) an exact test needs, as text and as JSON."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from graphniah.cli import app
from graphniah.stats import fisher_sample_size, mcnemar_sample_size


def test_power_json_is_the_exact_fisher_sample_size() -> None:
    res = CliRunner().invoke(app, ["power", "--p1", "0.5", "--p2", "0.7", "--json"])
    assert res.exit_code == 0, res.output
    got = json.loads(res.output)
    size = fisher_sample_size(0.5, 0.7)
    assert got["n_per_group"] == size.n_per_group and got["test"] == "fisher_exact"
    assert got["power"] >= 0.8 and got["alpha"] == 0.05 and got["target_power"] == 0.8
    assert got["n_per_group"] > got["normal_approximation"]  # the exact test is conservative here


def test_power_paired_and_options() -> None:
    res = CliRunner().invoke(app, ["power", "--p1", "0.5", "--p2", "0.7", "--paired", "--discordant", "0.3",
                                   "--alpha", "0.01", "--power", "0.9", "--json"])
    assert res.exit_code == 0, res.output
    got = json.loads(res.output)
    assert got["n_per_group"] == mcnemar_sample_size(0.5, 0.7, 0.3, 0.01, 0.9).n_per_group
    assert got["test"] == "mcnemar_exact" and got["discordant"] == 0.3
    text = CliRunner().invoke(app, ["power", "--p1", "0.5", "--p2", "0.7"]).output
    assert text.startswith(f"{fisher_sample_size(0.5, 0.7).n_per_group} examples per group")
