"""What a batched call costs, on :mod:`graphniah.run.cost`'s batch price (:func:`~graphniah.run.cost.price_for`
with ``batch=True``: LiteLLM's batch price where its map states one, else the registry's standard price
less the provider's batch discount, half for the OpenAI-compatible batches sent here).
"""

from __future__ import annotations

from graphniah.formats.journal import Usage
from graphniah.run.batch.options import BATCH_DISCOUNT, provider_of
from graphniah.run.client import litellm_model_info
from graphniah.run.cost import price_per_token
from graphniah.run.models import ModelEntry
from graphniah.run.plan import RunPlan


def _litellm_cost(entry: ModelEntry, prompt: int, completion: int) -> float | None:
    """LiteLLM's own figure: its batch prices, else its standard prices less the provider's discount (None if unknown)."""
    info = litellm_model_info(entry.litellm_model)
    if not info:
        return None
    for suffix, share in (("_batches", 1.0), ("", BATCH_DISCOUNT.get(provider_of(entry.litellm_model)))):
        i, o = info.get(f"input_cost_per_token{suffix}"), info.get(f"output_cost_per_token{suffix}")
        if i is not None and o is not None and share is not None:
            return float(prompt * i + completion * o) * share
    return None


def batch_cost(entry: ModelEntry, usage: Usage | None) -> tuple[float | None, float | None]:
    """``(LiteLLM's cost, the batch price's cost)`` of one batched call with this usage (None where unknown).

    The second is :func:`graphniah.run.cost.price_per_token`'s batch price (long prompts at their price);
    the journal keeps it as ``cost_usd_registry``, and the budget counts the larger of the two.
    """
    if usage is None or usage.prompt_tokens is None or usage.completion_tokens is None:
        return None, None
    per = price_per_token(entry, usage.prompt_tokens, batch=True)
    reg = None if per is None else usage.prompt_tokens * per[0] + usage.completion_tokens * per[1]
    return _litellm_cost(entry, usage.prompt_tokens, usage.completion_tokens), reg


def batch_estimates(plan: RunPlan) -> dict[str, float]:
    """Each example's estimated cost at the batch price (empty when the plan has no per-example estimate).

    The plan's per-example estimates bound a direct call; each is scaled by the ratio of the plan's
    batched cost to their sum (the estimate's ``batch`` line, over the same examples and output tokens).
    """
    est = plan.estimate
    line = next((c for c in est.lines if c.label == "batch"), None)
    if not est.per_example or line is None or line.usd is None:
        return {}
    total = sum(est.per_example.values())
    ratio = line.usd / total if total > 0 else 0.0
    return {k: v * ratio for k, v in est.per_example.items()}
