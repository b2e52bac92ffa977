"""What a batched call costs: the provider's batch price (half the standard price for OpenAI-compatible
batches), from LiteLLM's cost map where it states one (``*_cost_per_token_batches``), else the
standard price times the provider's discount; and the registry's standard price times that discount.
"""

from __future__ import annotations

from typing import Any

from graphniah.formats.journal import Usage
from graphniah.run.batch.options import BATCH_DISCOUNT, provider_of
from graphniah.run.client import litellm_module
from graphniah.run.models import ModelEntry, TierPrice
from graphniah.run.plan import RunPlan


def discount(entry: ModelEntry) -> float:
    """The share of the standard price a batched call of this model pays."""
    return BATCH_DISCOUNT.get(provider_of(entry.litellm_model), 1.0)


def batch_price(entry: ModelEntry) -> TierPrice | None:
    """The registry's standard price with the provider's batch discount (None when no standard price is known)."""
    p = entry.price.standard
    if p is None:
        return None
    d = discount(entry)
    return TierPrice(input=p.input * d, output=p.output * d, above_input_tokens=p.above_input_tokens,
                     input_above=None if p.input_above is None else p.input_above * d,
                     output_above=None if p.output_above is None else p.output_above * d)


def _litellm_cost(entry: ModelEntry, prompt: int, completion: int) -> float | None:
    lit: Any = litellm_module()
    info = lit.model_cost.get(entry.litellm_model) or lit.model_cost.get(entry.litellm_model.split("/", 1)[1])
    if not info:
        return None
    bi, bo = info.get("input_cost_per_token_batches"), info.get("output_cost_per_token_batches")
    if bi is not None and bo is not None:
        return float(prompt * bi + completion * bo)
    si, so = info.get("input_cost_per_token"), info.get("output_cost_per_token")
    if si is None or so is None:
        return None
    return float(prompt * si + completion * so) * discount(entry)


def batch_cost(entry: ModelEntry, usage: Usage | None) -> tuple[float | None, float | None]:
    """``(LiteLLM's cost, the registry's cost)`` of one batched call with this usage (None where unknown)."""
    if usage is None or usage.prompt_tokens is None or usage.completion_tokens is None:
        return None, None
    price = batch_price(entry)
    reg = None if price is None else price.cost(usage.prompt_tokens, usage.completion_tokens)
    return _litellm_cost(entry, usage.prompt_tokens, usage.completion_tokens), reg


def batch_estimates(plan: RunPlan) -> dict[str, float]:
    """Each example's estimated cost at the batch price (empty when the plan has no per-example estimate).

    The plan's estimates are at the price of the tier direct calls go to; each is scaled by the ratio
    of the batch price to that price for the plan's mean example (input tokens per example and the
    output tokens it assumes).
    """
    est, entry = plan.estimate, plan.entry
    per = est.per_example
    tier_price = entry.price_at(est.tier)  # type: ignore[arg-type]  # Estimate.tier is one of the registry's tiers
    price = batch_price(entry)
    if not per or price is None or tier_price is None or est.input_tokens is None or est.examples == 0:
        return {}
    mean_in = est.input_tokens // max(est.examples, 1)
    direct = tier_price.cost(mean_in, est.output_tokens_per_example)
    ratio = price.cost(mean_in, est.output_tokens_per_example) / direct if direct > 0 else 0.0
    return {k: v * ratio for k, v in per.items()}
