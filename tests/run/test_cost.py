"""Cost estimates (graphniah.run.cost): priors from the paper, journals replacing them, prices, the dry run.

The acceptance check of issue 37 is ``test_the_depth_dry_run_against_table_29``: the paper's Table 29
(cost per example of each model in its question-depth experiment, typed in here from the paper) is the
independent source; the suite's input-token counts come from a fixture of the ``depth`` suite's
examples (``data/depth-200k-token-counts.json``, see its ``made_by``).
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import yaml
from typer.testing import CliRunner

from graphniah.cli import app
from graphniah.formats.examples import ExampleRef
from graphniah.formats.journal import RunRecord, Usage
from graphniah.run import run_suite
from graphniah.run.client import litellm_model_info
from graphniah.run.cost import (
    DEFAULT_OUTPUT_TOKENS,
    estimate_cost,
    gamma_quantile,
    output_guess,
    pooled,
    price_for,
    price_per_token,
)
from graphniah.run.models import ModelEntry, OutputTokens, load_registry
from graphniah.run.plan import RunPlan, make_plan
from tests.run.helpers import fast_options, local_entry

FIXTURE = Path(__file__).parent / "data" / "depth-200k-token-counts.json"

#: Table 29 of the paper: cost per example in US cents, its standard deviation over the examples, the
#: number of examples answered, and whether the model was sent at the flex tier (the table's asterisk).
TABLE_29 = {
    "gpt-5.6-sol": (44.12, 6.39, 300, True),
    "gpt-5.6-luna": (2.19, 0.29, 400, True),
    "gemini-3.1-pro": (20.88, 3.81, 400, True),
    "gemini-3.8-flash": (20.91, 8.19, 400, False),
    "gemini-3.6-flash": (7.79, 3.68, 400, True),
    "qwen3.5-397b-a17b": (12.21, 3.08, 400, False),
    "qwen3.5-122b-a10b": (7.87, 1.56, 400, False),
    "qwen3.5-35b-a3b": (5.10, 1.54, 400, False),
}
#: Table 2 of the paper: mean input tokens of the question-depth experiment's prompts (the whole prompt,
#: counted with o200k_base), per depth.
TABLE_2_INPUT = {4: 174_790, 8: 171_800, 16: 171_550, 32: 169_960}


def _depth_suite_refs(paper_lengths: bool = False) -> list[ExampleRef]:
    """The ``depth`` suite's 400 examples as the runner sees them before any call: ids and stored token counts.

    The fixture holds the first examples the suite builds for each depth; they are repeated to the
    suite's 100 per depth (the estimate sums per example, so this keeps each depth's share). With
    ``paper_lengths``, every count of a depth's examples is scaled so that their o200k_base mean is
    Table 2's for that depth: the same prompts, as long as the paper's.
    """
    doc = json.loads(FIXTURE.read_text())
    rows = doc["examples"]
    per_depth: dict[int, list[dict[str, Any]]] = {}
    for r in rows:
        per_depth.setdefault(int(r["depth"]), []).append(r)
    assert sorted(per_depth) == [4, 8, 16, 32]
    refs = []
    for depth, rs in per_depth.items():
        assert all(max(r["token_counts"].values()) <= 200_000 for r in rs), depth
        scale = TABLE_2_INPUT[depth] / np.mean([r["token_counts"]["o200k_base"] for r in rs]) if paper_lengths else 1.0
        for i in range(100):
            r = rs[i % len(rs)]
            counts = {k: round(v * scale) for k, v in r["token_counts"].items()}
            refs.append(ExampleRef(f"{r['id']}-{i}", r["task"], r["answer"], "fixture", counts))
    return refs


def _cents(tmp_path: Path, refs: list[ExampleRef]) -> dict[str, tuple[float, float | None, float]]:
    """Each of Table 29's models planned over ``refs`` with no journal: US cents per example, expected at
    the standard price, expected at the flex price (None without one), 90th percentile at the standard price."""
    reg = load_registry()
    out = {}
    for name, (_, _, _, flex) in TABLE_29.items():
        entry = reg[name]
        assert (entry.service_tier == "flex") == flex, name  # the registry sends each model at Table 29's tier
        est = make_plan(entry, refs, tmp_path / "runs" / "depth" / f"{name}.jsonl", [], fast_options()).estimate
        assert est.examples == 400 and "prior from the paper's" in est.output_basis
        lines = {line.label.split(" (")[0]: line for line in est.lines}
        per = 100 / len(refs)
        flex_usd = lines["direct, flex"].usd if "direct, flex" in lines else None
        out[name] = (per * lines["direct, standard"].usd, None if flex_usd is None else per * flex_usd,
                     per * lines["direct, standard"].usd_p90)
    return out


def test_the_depth_dry_run_against_table_29(tmp_path):
    """Standard-tier models: expected cost per example within 10% of Table 29. Flex-tier models: the
    range from the expected cost at the flex price to the 90th-percentile cost at the standard price
    (the fallback) holds Table 29's figure, except for the two Gemini flex models, whose floors are
    above it: this suite's prompts are 6.6% longer than the paper's (docs/cost.md, section 5)."""
    refs = _depth_suite_refs()
    assert len(refs) == 400
    cents = _cents(tmp_path, refs)
    for name, (paid, _, _, flex) in TABLE_29.items():
        expected, low, high = cents[name]
        if not flex:
            assert abs(expected / paid - 1) <= 0.10, (name, expected, paid)
        elif name.startswith("gpt-"):
            assert low is not None and low <= paid <= high, (name, low, high, paid)
        else:
            assert low is not None and paid < low < high, (name, low, paid)
    # The fixture's prompts against the paper's (Table 2): 183,412 against 172,025 o200k_base tokens.
    o200k = np.mean([r.token_counts["o200k_base"] for r in refs])
    assert o200k / np.mean(list(TABLE_2_INPUT.values())) == pytest.approx(1.066, abs=0.001)


def test_with_the_papers_prompt_lengths_only_gemini_3_6_flash_costs_less_than_its_flex_price(tmp_path):
    """The same suite with its prompts scaled to Table 2's lengths. Their Gemma count is what Table 29's
    Gemini-3.8-Flash was billed for (its cost at Table 4's standard price, less its output tokens): the
    input side of the estimate is right. Each flex model's range then holds Table 29's figure, the floor
    taken two standard errors of Table 29's mean lower (the figure is a mean over the examples answered),
    except Gemini-3.6-Flash's: the paper paid less than LiteLLM's flex price for it (docs/cost.md)."""
    refs = _depth_suite_refs(paper_lengths=True)
    gemma = np.mean([r.token_counts["gemma"] for r in refs])
    billed = (20.91 / 100 - 19_412.21 * 3.75 / 1e6) / (0.75 / 1e6)  # Table 29 and Table 4: 181,739 tokens
    assert gemma == pytest.approx(billed, rel=0.002)
    cents = _cents(tmp_path, refs)
    outside = []
    for name, (paid, std, n, flex) in TABLE_29.items():
        _, low, high = cents[name]
        if flex:
            assert low is not None
            if not low - 2 * std / math.sqrt(n) <= paid <= high:
                outside.append(name)
    assert outside == ["gemini-3.6-flash"]
    low = cents["gemini-3.6-flash"][1]
    assert low is not None and low / 7.79 - 1 == pytest.approx(0.133, abs=0.005)


def _record(i: int, out: int | None, *, settings: str, status: str = "ok", reused: str | None = None) -> RunRecord:
    return RunRecord(example_id=f"e{i}", model="m", settings_hash=settings, task="yesno", answer="YES", status=status,
                     usage=Usage(prompt_tokens=1000, completion_tokens=out) if out is not None else None,
                     reused_from=reused, attempts=1, finished_at="2026-12-06T00:00:00.000+00:00")


def test_journals_replace_the_prior_with_their_median_and_90th_percentile():
    entry = load_registry()["gemini-3.8-flash"]
    h = entry.settings_hash
    history = [_record(i, out, settings=h) for i, out in enumerate([400, 100, 1000, 300, 200])]
    history += [_record(9, 10**6, settings="other settings"), _record(10, 10**6, settings=h, status="failed"),
                _record(11, 10**6, settings=h, reused="runs/x/m.jsonl"), _record(12, None, settings=h)]
    guess = output_guess(entry, history)
    # Sorted 100, 200, 300, 400, 1000: median 300; the 90th percentile lies 0.6 of the way from the
    # 4th value to the 5th (position 0.9 * 4 = 3.6): 400 + 0.6 * 600 = 760.
    assert (guess.expected, guess.p90) == (300, 760)
    assert "your journals" in guess.basis and "5 finished call" in guess.basis
    # --assume-output-tokens does not override the journals; it replaces the prior when there are none
    # (the prior: Tables 29-33 at low effort, 34,947,045 tokens over 1,700 calls = 20,557.1).
    assert output_guess(entry, history, assume_output_tokens=50).expected == 300
    assert (output_guess(entry, [], assume_output_tokens=50).expected, output_guess(entry, []).expected) == (50, 20_557)


def test_the_estimate_uses_the_journals_figures_at_each_price():
    entry = load_registry()["gemini-3.8-flash"]  # standard 0.75 / 3.75, LiteLLM batch 0.375 / 1.875 per 1M
    h = entry.settings_hash
    history = [_record(i, out, settings=h) for i, out in enumerate([1000, 2000, 3000, 4000, 10_000])]
    refs = [ExampleRef(f"x{i}", "yesno", "YES", "s", {"gemma": n}) for i, n in enumerate([100_000, 150_000])]
    est = estimate_cost(entry, refs, history)
    assert (est.output_tokens_per_example, est.output_tokens_p90) == (3000, 7600)
    lines = {line.label: line for line in est.lines}
    assert lines["direct, standard"].usd == pytest.approx((250_000 * 0.75 + 2 * 3000 * 3.75) / 1e6)
    assert lines["direct, standard"].usd_p90 == pytest.approx((250_000 * 0.75 + 2 * 7600 * 3.75) / 1e6)
    assert lines["batch"].usd == pytest.approx((250_000 * 0.375 + 2 * 3000 * 1.875) / 1e6)
    assert lines["batch"].price_basis == "LiteLLM's batch price"
    assert est.usd == lines["direct, standard"].usd and est.per_example == pytest.approx(
        {"x0": (100_000 * 0.75 + 3000 * 3.75) / 1e6, "x1": (150_000 * 0.75 + 3000 * 3.75) / 1e6})


def test_other_suites_journals_of_the_same_settings_replace_the_prior(suite, tmp_path):
    """A suite never run before is estimated from the model's calls journaled for other suites."""
    entry = local_entry(price={"standard": {"input": 1.0, "output": 1.0}})
    runs = tmp_path / "runs"
    other = runs / "earlier" / f"{entry.name}.jsonl"
    other.parent.mkdir(parents=True)
    recs = [_record(i, out, settings=entry.settings_hash) for i, out in enumerate([10, 20, 30])]
    recs.append(_record(7, 5000, settings="other settings"))
    other.write_text("".join(r.model_copy(update={"model": entry.name}).model_dump_json() + "\n" for r in recs))
    plan = run_suite(entry, suite.path, runs_root=runs, snapshots_root=suite.snapshots, dry_run=True, options=fast_options())
    assert isinstance(plan, RunPlan)
    assert (plan.estimate.output_tokens_per_example, plan.estimate.output_tokens_p90) == (20, 28)  # 20 + 0.8 * 10
    assert "3 finished call" in plan.estimate.output_basis


def test_pooling_the_papers_rows_equals_pooling_their_samples():
    rng = np.random.default_rng(7)
    samples = [rng.gamma(2.0, 500.0, size=n) for n in (400, 300, 120)]
    rows = [OutputTokens(table=29 + i, reasoning_effort="low", n=len(s), mean=float(s.mean()), std=float(s.std(ddof=1)))
            for i, s in enumerate(samples)]
    n, mean, std = pooled(rows)
    joined = np.concatenate(samples)
    assert n == 820 and mean == pytest.approx(joined.mean()) and std == pytest.approx(joined.std(ddof=1))


def test_the_prior_90th_percentile_is_a_gamma_quantile():
    # Mean equal to the spread is the exponential distribution: its 90th percentile is mean * ln 10.
    assert gamma_quantile(1000.0, 1000.0, 0.9) == pytest.approx(1000.0 * math.log(10))
    assert gamma_quantile(500.0, 0.0, 0.9) == 500.0
    mean, std = DEFAULT_OUTPUT_TOKENS
    unknown = local_entry(output_tokens=())
    guess = output_guess(unknown, [])
    assert (guess.expected, guess.p90) == (20_000, round(20_000 * math.log(10))) and mean == std == 20_000
    assert "conservative default" in guess.basis
    capped = output_guess(local_entry(params={"max_tokens": 256}), [])
    assert (capped.expected, capped.p90) == (256, 256)


def test_the_prior_follows_the_reasoning_effort_and_the_context_length():
    reg = load_registry()
    luna = reg["gpt-5.6-luna"]
    medium = output_guess(luna.with_overrides(reasoning_effort="medium"), [])
    assert medium.expected == 1937 and "Table 33" in medium.basis and "100 calls" in medium.basis
    flash = reg["gemini-3.8-flash"]
    long = output_guess(flash, [], prompt_tokens=480_000)
    assert long.expected == 31_639 and "Table 34" in long.basis and "500k" in long.basis
    low = output_guess(flash, [], prompt_tokens=190_000)
    # Tables 29-33 at low effort, 200k: n-weighted mean of the five rows (hand-computed from the paper).
    n = 400 + 400 + 300 + 500 + 100
    mean = (400 * 19412.21 + 400 * 20513.35 + 300 * 20248.57 + 500 * 21187.22 + 100 * 23086.40) / n
    assert low.expected == round(mean) and "1,700 calls" in low.basis


def test_batch_and_flex_prices():
    reg = load_registry()
    luna = reg["gpt-5.6-luna"]
    # LiteLLM's map states GPT-5.6-Luna's batch price, with a higher one above 272,000 input tokens.
    info = litellm_model_info(luna.litellm_model)
    assert info is not None
    assert price_per_token(luna, 100_000, batch=True) == pytest.approx(
        (info["input_cost_per_token_batches"], info["output_cost_per_token_batches"]))
    assert price_per_token(luna, 300_000, batch=True) == pytest.approx(
        (info["input_cost_per_token_above_272k_tokens_batches"], info["output_cost_per_token_above_272k_tokens_batches"]))
    assert price_per_token(luna, 100_000, tier="flex") == pytest.approx((0.10e-6, 0.60e-6))
    assert price_per_token(luna, 300_000) == pytest.approx((0.40e-6, 1.80e-6))
    # A model LiteLLM does not price: the registry's standard price less the provider's 50% discount.
    own = local_entry(litellm_model="openai/not-in-litellms-map", price={"standard": {"input": 2.0, "output": 10.0}})
    p = price_for(own, batch=True)
    assert p is not None and (p.per_million.input, p.per_million.output) == (1.0, 5.0) and "50%" in p.basis
    # OpenRouter has no batch API: no batch price, rather than a guess.
    assert price_for(reg["qwen3.5-35b-a3b"], batch=True) is None
    assert price_per_token(reg["qwen3.5-35b-a3b"], 1000) == pytest.approx((0.16e-6, 1.30e-6))


def test_the_dry_run_prints_expected_and_90th_percentile_costs_direct_and_batch_with_their_basis(suite, tmp_path):
    entry = local_entry(price={"standard": {"input": 1.0, "output": 2.0}},
                        output_tokens=[{"table": 29, "reasoning_effort": "low", "n": 10, "mean": 1000.0, "std": 1000.0}],
                        baseline=True, reasoning_effort="low")
    registry = tmp_path / "models.yaml"
    registry.write_text(yaml.safe_dump({"models": {entry.name: entry.model_dump(mode="json", exclude={"name"})}}))
    res = CliRunner().invoke(app, ["run", "--model", entry.name, "--examples", str(suite.path), "--runs", str(tmp_path / "runs"),
                                   "--snapshots", str(suite.snapshots), "--registry", str(registry), "--dry-run"])
    assert res.exit_code == 0, res.output
    text = " ".join(res.output.split())
    assert "1,000 expected, 2,303 at the 90th percentile" in text  # exponential: 1000 * ln 10
    assert "prior from the paper's Table 29: 10 calls at low effort" in text
    assert "expected 90th percentile price" in text
    assert "direct, standard" in text and "the registry's standard price" in text
    assert "batch" in text and "the registry's standard price less the provider's 50% batch discount" in text
    assert not (tmp_path / "runs").exists()


def test_an_entry_without_prices_has_no_cost():
    entry = ModelEntry.model_validate({**local_entry().model_dump(), "price": {}})
    refs = [ExampleRef("a", "yesno", "YES", "s", {"o200k_base": 10})]
    est = estimate_cost(entry, refs, [])
    assert est.usd is None and est.per_example is None and "no price" in est.note
