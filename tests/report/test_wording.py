"""The wording report (graphniah.report.wording): a real suite asked in three template sets, answered by
real policy servers over HTTP, one of which plants an accuracy that depends on the wording."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from statsmodels.stats.contingency_tables import cochrans_q
from typer.testing import CliRunner

from graphniah.atomic import sha256_bytes
from graphniah.cli import app
from graphniah.formats.journal import read_journal
from graphniah.formats.suites import Draw, SizeRange, SuiteSpec
from graphniah.report import build_report, load_suite
from graphniah.report.wording import wording_runs
from graphniah.run import RunOptions, run_suite
from graphniah.run.models import ModelEntry, get_model
from graphniah.run.serve.policies import PolicyApp, PolicyServer
from graphniah.sampling.suites import build_suite
from graphniah.scoring import score_records, suite_answer_formats
from graphniah.text import solve, split_messages
from graphniah.text.normalize import write_answer

SETS = ("default", "plain", "tagged")
PLANTED = {"default": 0.95, "plain": 0.35, "tagged": 0.7}  # right this often, by the wording
BLIND = dict.fromkeys(SETS, 0.7)  # the same in every wording


class PlantedApp(PolicyApp):
    """The oracle's answer with a probability that depends on the template set, else the other answer.

    Whether a prompt is answered right is a fixed function of its text (a hash, uniform in [0, 1)), so
    the outcome does not depend on the order in which concurrent requests arrive."""

    def __init__(self, rates: Mapping[str, float], salt: str, **kwargs: Any) -> None:
        super().__init__("oracle", **kwargs)
        self.rates = rates
        self.salt = salt

    def answer(self, messages: Sequence[Mapping[str, Any]]) -> tuple[str, str | None]:
        msgs = self._messages(messages)
        pr = self._prompt_set(msgs)
        truth = solve(msgs, pr)
        draw = int(sha256_bytes((self.salt + msgs[-1].content).encode())[:8], 16) / 16**8
        right = draw < self.rates[pr.name]
        task = split_messages(msgs, pr)[0]
        return write_answer(task, truth if right else {"YES": "NO", "NO": "YES"}[truth], pr.answer), None


class PlantedServer(PolicyServer):
    def __init__(self, rates: Mapping[str, float], seed: int) -> None:
        self.rates = rates
        super().__init__("oracle", seed=seed)

    def make_app(self, policy, *, seed, model_name, prompts):  # type: ignore[no-untyped-def]
        return PlantedApp(self.rates, str(seed), seed=seed, model_name=model_name, prompts=prompts)


@pytest.fixture(scope="module")
def suite(demo_snapshot, tmp_path_factory) -> Path:
    spec = SuiteSpec(name="wording", vary="task", values=("yesno",), per_value=36, template=SETS,
                     draw=Draw(depth=(4,), component_size=SizeRange(min=10, max=12), distractor=("none",)))
    out = tmp_path_factory.mktemp("examples")
    build_suite(spec, demo_snapshot, 7, out_root=out, workers=1)
    return out


def _run(suite: Path, runs: Path, snapshots: Path, name: str, rates: Mapping[str, float], seed: int) -> None:
    with PlantedServer(rates, seed) as server:
        base = get_model("local-oracle").with_overrides(api_base=server.url)
        entry = ModelEntry.model_validate(base.model_dump() | {"name": name})
        run_suite(entry, suite / "wording.jsonl", suite="wording", runs_root=runs, snapshots_root=snapshots,
                  options=RunOptions(concurrency=4))


@pytest.mark.slow
def test_the_report_finds_a_planted_wording_effect_and_no_effect_where_there_is_none(suite: Path, demo_snapshot,
                                                                                      tmp_path: Path) -> None:
    snapshots = demo_snapshot.path.parent.parent
    _run(suite, tmp_path, snapshots, "planted", PLANTED, seed=1)
    _run(suite, tmp_path, snapshots, "blind", BLIND, seed=2)
    data = load_suite("wording", runs_root=tmp_path, examples_root=suite)
    runs = {w.label: w for w in wording_runs(build_report(data).context)}
    planted, blind = runs["planted"], runs["blind"]
    assert planted.sets == ("default", "plain", "tagged") and planted.correct.shape == (36, 3)
    # The answers were read in each set's own format: the observed rates are the planted ones.
    assert abs(planted.accuracy - np.array([PLANTED[s] for s in planted.sets])).max() < 0.2
    assert planted.spread.best == "default" and planted.spread.worst == "plain" and planted.spread.interval.low > 0.2
    # Cochran's Q as statsmodels computes it on the same table; it rejects for the planted policy only.
    for w in (planted, blind):
        ref = cochrans_q(w.correct)
        assert w.cochran_q == pytest.approx(ref.statistic) and w.cochran == pytest.approx(ref.pvalue)
    assert planted.cochran < 0.001 and blind.cochran > 0.05
    assert any(c.pvalue_holm < 0.05 and {c.first, c.second} == {"default", "plain"} for c in planted.pairs)
    assert all(c.pvalue_holm > 0.05 for c in blind.pairs)
    report = build_report(data)
    table = report.table("wording")
    assert table.header == ("Model", "default", "plain", "tagged", "Spread", "Cochran's Q p")
    k = int(planted.correct[:, 1].sum())
    assert table.value("planted", "plain", "accuracy").k == k and table.value("planted", "plain").n == 36
    sentence = next(v for v in table.verdicts if v.startswith("The wording moves planted's"))
    s = planted.spread
    assert f"by {100 * s.value:.1f} points [{100 * s.interval.low:.1f}, {100 * s.interval.high:.1f}]" in sentence
    ranking = next(v for v in table.verdicts if v.startswith("The ranking of"))
    wins = int((planted.accuracy > blind.accuracy).sum())
    first, k_of = ("planted", wins) if 2 * wins >= 3 else ("blind", int((blind.accuracy > planted.accuracy).sum()))
    assert ranking.startswith(f"The ranking of {first} over") and ranking.endswith(f"holds in {k_of} of 3 wordings.")
    assert "wording_pairs" in report.keys and "Accuracy by wording" in report.markdown()
    assert table.caption.endswith("The context is one text in every set for 36 examples.")  # packed for all three sets
    # graphniah report prints the wording table and its sentences after the accuracy table.
    res = CliRunner().invoke(app, ["report", "--suite", "wording", "--runs", str(tmp_path), "--examples-root", str(suite),
                                   "--out", str(tmp_path / "report"), "--no-figures", "--no-html"], env={"COLUMNS": "400"})
    assert res.exit_code == 0, res.output
    assert "Accuracy by wording (template set)" in res.output and sentence in res.output.replace("\n", " ")
    # graphniah score, from the journal alone, reads each reply in its set's format through the suite manifest.
    scored = score_records(read_journal(tmp_path / "wording" / "planted.jsonl"), formats=suite_answer_formats(suite / "wording.json"))
    assert scored.overall is not None and scored.overall.k == int(planted.correct.sum()) and scored.no_answer == 0
    assert score_records(read_journal(tmp_path / "wording" / "planted.jsonl")).no_answer == 72  # read as default: plain, tagged lost
