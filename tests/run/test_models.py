"""The model registry: the paper's appendix C settings, local entries, settings hash, validation."""

from __future__ import annotations

import datetime as dt

import numpy as np
import pytest
import yaml

from graphniah.errors import GraphNIAHError
from graphniah.run.models import LOCAL_DUMMY_KEY, ModelEntry, TierPrice, load_registry

PAPER = {
    # name: (cutoff, context, standard input/output price per 1M, tokenizer)
    "gpt-5.6-sol": (dt.date(2026, 2, 16), 1_050_000, (4.00, 20.00), "o200k_base"),
    "gpt-5.6-luna": (dt.date(2026, 2, 16), 1_050_000, (0.20, 1.20), "o200k_base"),
    "gemini-3.8-flash": (dt.date(2026, 3, 31), 1_048_576, (0.75, 3.75), "gemma"),
    "gemini-3.6-flash": (dt.date(2026, 3, 31), 1_048_576, (0.75, 3.75), "gemma"),
    "gemini-3.1-pro": (dt.date(2025, 1, 31), 1_048_576, (2.00, 12.00), "gemma"),
    "qwen3.5-397b-a17b": (dt.date(2026, 2, 16), 262_144, (0.39, 2.34), "qwen3.5"),
    "qwen3.5-122b-a10b": (dt.date(2026, 2, 24), 262_144, (0.26, 2.08), "qwen3.5"),
    "qwen3.5-35b-a3b": (dt.date(2026, 2, 24), 262_144, (0.16, 1.30), "qwen3.5"),
}


@pytest.fixture(scope="module")
def reg():
    return load_registry()


def test_the_papers_eight_models_with_appendix_c_settings(reg):
    for name, (cutoff, context, (pin, pout), tok) in PAPER.items():
        e = reg[name]
        assert e.knowledge_cutoff == cutoff and e.context_limit == context and e.tokenizer == tok
        assert (e.price.standard.input, e.price.standard.output) == (pin, pout)
        assert e.params.temperature == 1.0 and e.reasoning_effort == "low"
        if name.startswith("gpt"):
            assert e.params.top_p is None  # GPT-5.6 rejects top_p with reasoning on
            assert e.max_input_tokens == 922_000
        else:
            assert e.params.top_p == 0.95
        if name.startswith("qwen"):
            p = e.params
            assert (p.top_k, p.min_p, p.presence_penalty, p.max_tokens) == (20, 0.0, 1.5, 40_000)
            assert e.service_tier == "standard" and e.fallback_tier is None
            assert e.extra_body["provider"]["order"][0] == "alibaba"
        else:
            assert e.params.max_tokens is None  # no output limit
        # Tables 29-34 mark the models sent at flex (appendix C: resent at standard when flex has no
        # capacity); Gemini-3.8-Flash carries no mark, its costs are standard-price costs.
        flex = name in ("gpt-5.6-sol", "gpt-5.6-luna", "gemini-3.1-pro", "gemini-3.6-flash")
        assert (e.service_tier, e.fallback_tier) == (("flex", "standard") if flex else ("standard", None)), name
    assert len({reg[n].settings_hash for n in PAPER}) == len(PAPER)


def test_flex_prices_are_the_papers_or_litellms(reg):
    """Gemini-3.1-Pro's flex prices are the paper's (Table 4's caption); the flex prices the paper does not
    state, and GPT-5.6's price above 272k input tokens, are those of LiteLLM's price map (read here
    from the map itself); the Qwen3.5 models, sent at standard only, have none."""
    from graphniah.run.client import litellm_model_info

    for name in ("gpt-5.6-sol", "gpt-5.6-luna", "gemini-3.8-flash", "gemini-3.6-flash"):
        e = reg[name]
        info = litellm_model_info(e.litellm_model)
        assert info is not None and e.price.flex is not None and "LiteLLM" in e.price.note
        assert e.price.flex.input == pytest.approx(info["input_cost_per_token_flex"] * 1e6)
        assert e.price.flex.output == pytest.approx(info["output_cost_per_token_flex"] * 1e6)
        if name.startswith("gpt"):
            for tier, suffix in (("standard", ""), ("flex", "_flex")):
                p = e.price_at(tier)
                assert p is not None and p.above_input_tokens == 272_000
                assert p.input_above == pytest.approx(info[f"input_cost_per_token_above_272k_tokens{suffix}"] * 1e6)
                assert p.output_above == pytest.approx(info[f"output_cost_per_token_above_272k_tokens{suffix}"] * 1e6)
    for name in ("qwen3.5-397b-a17b", "qwen3.5-122b-a10b", "qwen3.5-35b-a3b"):
        assert reg[name].price.flex is None
    pro = reg["gemini-3.1-pro"]
    assert pro.price.flex.cost(200_000, 1_000) == pytest.approx((200_000 * 1.00 + 1_000 * 6.00) / 1e6)
    assert pro.price.flex.cost(200_001, 1_000) == pytest.approx((200_001 * 2.00 + 1_000 * 9.00) / 1e6)
    assert pro.price.standard.cost(500_000, 10_000) == pytest.approx((500_000 * 4.00 + 10_000 * 18.00) / 1e6)


def test_local_entries(reg):
    for name in ("local-oracle", "local-random", "local-always-no", "local-smollm2"):
        e = reg[name]
        assert e.is_local and e.api_base.startswith("http://127.0.0.1:") and e.price.standard.cost(10**6, 10**6) == 0
        assert e.litellm_model.startswith("openai/")
    assert reg["local-oracle"].knowledge_cutoff is None and reg["local-oracle"].baseline
    assert reg["local-smollm2"].knowledge_cutoff == dt.date(2024, 10, 31)
    assert LOCAL_DUMMY_KEY  # the key local endpoints get; they ignore it


def test_litellm_maps_every_registry_entry_as_the_paper_sent_it(reg):
    """Each entry's keywords pass LiteLLM's own parameter mapping (what ``acompletion`` runs first), at
    every tier it is sent at; Gemini 3 Flash keeps temperature 1.0 and top_p 0.95 (appendix C), which
    LiteLLM's map would otherwise refuse for it."""
    from litellm import get_llm_provider
    from litellm.utils import get_optional_params

    from graphniah.run.client import litellm_module

    litellm_module()  # the shipped price map, never a download
    for entry in reg.values():
        for tier in entry.tiers():
            kw = entry.completion_kwargs(tier)
            kw.pop("api_base", None)
            kw.pop("extra_body", None)
            model, provider, _, _ = get_llm_provider(kw.pop("model"))
            sent = get_optional_params(model=model, custom_llm_provider=provider, **kw)
            if entry.litellm_model.startswith("gemini/") and entry.params.temperature is not None:
                assert (sent["temperature"], sent["top_p"]) == (1.0, 0.95), entry.name
    flash = reg["gemini-3.8-flash"].completion_kwargs("standard")
    assert flash["allowed_openai_params"] == ["temperature", "top_p"]
    assert "allowed_openai_params" not in reg["qwen3.5-35b-a3b"].completion_kwargs("standard")


def test_completion_kwargs(reg):
    q = reg["qwen3.5-35b-a3b"].completion_kwargs("standard")
    assert q["model"] == "openrouter/qwen/qwen3.5-35b-a3b" and q["presence_penalty"] == 1.5 and q["max_tokens"] == 40_000
    assert q["extra_body"]["top_k"] == 20 and q["extra_body"]["min_p"] == 0.0 and "top_k" not in q
    assert "service_tier" not in q
    g = reg["gpt-5.6-sol"]
    assert g.completion_kwargs("flex")["service_tier"] == "flex"
    assert "service_tier" not in g.completion_kwargs("standard")
    assert g.tiers() == ("flex", "standard")
    local = reg["local-oracle"].with_overrides(api_base="http://127.0.0.1:9/v1")
    assert local.completion_kwargs("standard") == {"model": "openai/local-oracle", "api_base": "http://127.0.0.1:9/v1"}


def test_settings_hash_covers_what_changes_answers_only(reg):
    e = reg["gemini-3.1-pro"]
    h = e.settings_hash
    assert e.with_overrides(api_base="http://127.0.0.1:1/v1", timeout_s=5).settings_hash == h
    assert e.model_copy(update={"service_tier": "standard", "fallback_tier": None}).settings_hash == h
    assert e.with_overrides(reasoning_effort="high").settings_hash != h
    data = e.model_dump()
    data["params"]["top_p"] = 0.9
    assert ModelEntry.model_validate(data).settings_hash != h


def test_adding_a_model_is_one_entry(tmp_path):
    p = tmp_path / "models.yaml"
    p.write_text(yaml.safe_dump({"models": {"my-model": {
        "litellm_model": "openai/my-model", "api_key_env": "OPENAI_API_KEY", "knowledge_cutoff": "2025-06-30",
        "context_limit": 128000, "params": {"temperature": 0.5}, "price": {"standard": {"input": 1, "output": 2}}}}}))
    reg = load_registry(p)
    assert list(reg) == ["my-model"] and reg["my-model"].knowledge_cutoff == dt.date(2025, 6, 30)
    with pytest.raises(GraphNIAHError, match="no model 'gpt' in the registry"):
        reg["gpt"]


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"litellm_model": "openai/x", "context_limit": 10}, "knowledge_cutoff is required"),
        ({"litellm_model": "x", "context_limit": 10, "baseline": True}, "provider/model"),
        ({"litellm_model": "openai/x", "context_limit": 10, "baseline": True, "fallback_tier": "standard"}, "fallback_tier"),
        ({"litellm_model": "openai/x", "context_limit": 10, "baseline": True, "params": {"top_p": 2}}, "params.top_p"),
        ({"litellm_model": "openai/x", "context_limit": 10, "baseline": True, "colour": "red"}, "colour"),
        ({"litellm_model": "openai/x", "context_limit": 10, "baseline": True, "extra_body": {"top_k": 5}}, "under params"),
        ({"litellm_model": "openai/x", "context_limit": 10, "baseline": True,
          "output_tokens": [{"table": 29, "reasoning_effort": "low", "n": 400, "mean": -1.0, "std": 5.0}]}, "output_tokens.0.mean"),
    ],
)
def test_bad_entries_are_errors_naming_model_and_field(tmp_path, body, message):
    p = tmp_path / "models.yaml"
    p.write_text(yaml.safe_dump({"models": {"bad": body}}))
    with pytest.raises(GraphNIAHError, match=message) as err:
        load_registry(p)
    assert "'bad'" in str(err.value) and str(p) in str(err.value)


def test_tier_price_needs_all_long_context_fields():
    with pytest.raises(ValueError):
        TierPrice(input=1, output=2, above_input_tokens=100)


def test_costs_prices_many_requests_as_cost_prices_one():
    p = TierPrice(input=2.0, output=12.0, above_input_tokens=200_000, input_above=4.0, output_above=18.0)
    prompts = np.array([1_000, 200_000, 200_001])
    assert p.costs(prompts, 500).tolist() == pytest.approx(
        [(1_000 * 2 + 500 * 12) / 1e6, (200_000 * 2 + 500 * 12) / 1e6, (200_001 * 4 + 500 * 18) / 1e6])
    assert p.costs(prompts, 500).tolist() == pytest.approx([p.cost(int(t), 500) for t in prompts])
