"""Cost estimates of the calls still to send: prices per tier and for batches, output-token priors.

An estimate multiplies three things (``docs/cost.md`` explains each):

- **input tokens**: each example's stored count under the model's tokenizer (counted with
  ``graphniah.text.tokenizers`` when none is stored and it can);
- **output tokens per example** (reasoning tokens included), :func:`output_guess`: once the user's
  journals hold finished calls of the model's settings, their median and 90th percentile; before that
  the registry's prior (``output_tokens``: the paper's measured means and spreads, pooled over its
  tables, with a gamma distribution of that mean and spread for the 90th percentile); a conservative
  default for a model without one;
- **prices**, :func:`price_for`: the registry's price at each tier requests may go to, and the batch
  price (LiteLLM's price map where it states one, else the registry's standard price less the
  provider's batch discount). :func:`price_per_token` is the same as USD per token.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from graphniah.errors import GraphNIAHError
from graphniah.formats.examples import ExampleRef
from graphniah.formats.journal import RunRecord
from graphniah.run.batch.options import BATCH_DISCOUNT, BATCH_PROVIDERS, provider_of
from graphniah.run.client import litellm_model_info
from graphniah.run.models import ModelEntry, OutputTokens, Tier, TierPrice

#: The percentile the upper cost figure is at.
UPPER_QUANTILE = 0.9
#: Output tokens per example assumed for a model the registry holds no measurement of (mean, std):
#: about the most the paper measured at low effort (Gemini-3.8-Flash: 19,412 ± 20,609 in Table 29),
#: so that a new model's estimate errs high rather than low.
DEFAULT_OUTPUT_TOKENS = (20_000.0, 20_000.0)
#: The context length the paper's output rows default to (its experiments run at 200k tokens).
_PAPER_CONTEXT = 200_000


@dataclass(frozen=True)
class OutputGuess:
    """Output tokens per example (reasoning included) an estimate assumes, and where they come from.

    ``expected`` is what the expected cost uses (the prior's mean, or the journals' median);
    ``p90`` what the 90th-percentile cost uses; ``basis`` names the source for the user.
    """

    expected: int
    p90: int
    basis: str


@dataclass(frozen=True)
class Price:
    """A price in USD per million tokens and where it comes from."""

    per_million: TierPrice
    basis: str


@dataclass(frozen=True)
class CostLine:
    """One way of sending the examples (direct at a tier, or batched) and what it would cost.

    ``usd`` uses the expected output tokens, ``usd_p90`` the 90th percentile; both None when the price
    is unknown, and ``price_basis`` then says why.
    """

    label: str
    price_basis: str
    usd: float | None
    usd_p90: float | None


@dataclass(frozen=True)
class Estimate:
    """Expected cost of the calls still to send.

    ``usd`` is at the price of the tier requests go to; when that price is unknown it is None and
    ``usd_upper`` bounds the cost at the standard price. ``per_example`` holds the bound the budget
    check reserves for each example (None if unknown). ``lines`` holds the expected and
    90th-percentile costs of each way to send them: direct at each tier the request may go to, and
    batched.
    """

    examples: int
    input_tokens: int | None
    output_tokens_per_example: int
    output_basis: str
    tier: str
    usd: float | None
    usd_upper: float | None
    per_example: Mapping[str, float] | None
    note: str = ""
    output_tokens_p90: int = 0
    lines: tuple[CostLine, ...] = ()


# ------------------------------------------------------------------------------------------------
# Prices
# ------------------------------------------------------------------------------------------------

_BATCH_ABOVE = re.compile(r"^input_cost_per_token_above_(\d+)k_tokens_batches$")


def _per_million(usd_per_token: Any) -> float:
    return round(float(usd_per_token) * 1e6, 9)  # 1e-07 * 1e6 is 0.09999999999999999 in binary


def _litellm_batch_price(info: Mapping[str, Any]) -> TierPrice | None:
    """The batch price LiteLLM's map states for a model (with its long-prompt price, if any)."""
    i, o = info.get("input_cost_per_token_batches"), info.get("output_cost_per_token_batches")
    if i is None or o is None:
        return None
    long = sorted((int(m[1]), m[1]) for m in (_BATCH_ABOVE.match(k) for k in info) if m)
    for threshold, k in long:
        oi, oo = info[f"input_cost_per_token_above_{k}k_tokens_batches"], info.get(f"output_cost_per_token_above_{k}k_tokens_batches")
        if oo is not None:
            return TierPrice(input=_per_million(i), output=_per_million(o), above_input_tokens=threshold * 1000,
                             input_above=_per_million(oi), output_above=_per_million(oo))
    return TierPrice(input=_per_million(i), output=_per_million(o))


def _discounted(price: TierPrice, share: float) -> TierPrice:
    return TierPrice(input=price.input * share, output=price.output * share, above_input_tokens=price.above_input_tokens,
                     input_above=None if price.input_above is None else price.input_above * share,
                     output_above=None if price.output_above is None else price.output_above * share)


def price_for(entry: ModelEntry, tier: Tier = "standard", *, batch: bool = False) -> Price | None:
    """The price of one of ``entry``'s requests, sent directly at ``tier`` or (``batch``) in a provider batch.

    Parameters
    ----------
    entry : ModelEntry
        The model.
    tier : "standard" or "flex"
        The service tier of a direct request (ignored for a batch, which has its own price).
    batch : bool
        Price a batched request: LiteLLM's batch price for the model where its price map states one,
        else the registry's standard price less the provider's batch discount
        (:data:`graphniah.run.batch.options.BATCH_DISCOUNT`).

    Returns
    -------
    Price or None
        USD per million tokens with its source; None when no price is known (no registry price at
        that tier, or a provider without batches).
    """
    if not batch:
        p = entry.price_at(tier)
        return None if p is None else Price(p, f"the registry's {tier} price")
    info = litellm_model_info(entry.litellm_model)
    stated = _litellm_batch_price(info) if info is not None else None
    if stated is not None:
        return Price(stated, "LiteLLM's batch price")
    share = BATCH_DISCOUNT.get(provider_of(entry.litellm_model))
    if share is None or entry.price.standard is None:
        return None
    return Price(_discounted(entry.price.standard, share),
                 f"the registry's standard price less the provider's {1 - share:.0%} batch discount")


def price_per_token(entry: ModelEntry, prompt_tokens: int, *, tier: Tier = "standard",
                    batch: bool = False) -> tuple[float, float] | None:
    """USD per input token and per output token of a request with ``prompt_tokens`` input tokens.

    The price is :func:`price_for`'s (so ``batch=True`` gives the batch price); a long prompt pays the
    long-prompt price where the model has one. None when the price is unknown.
    """
    price = price_for(entry, tier, batch=batch)
    if price is None:
        return None
    p = price.per_million
    if p.above_input_tokens is not None and prompt_tokens > p.above_input_tokens and p.input_above is not None \
            and p.output_above is not None:
        return p.input_above / 1e6, p.output_above / 1e6
    return p.input / 1e6, p.output / 1e6


# ------------------------------------------------------------------------------------------------
# Output tokens
# ------------------------------------------------------------------------------------------------


def pooled(rows: Iterable[OutputTokens]) -> tuple[int, float, float]:
    """``(n, mean, standard deviation)`` of the union of the rows' samples, from their sizes, means and
    standard deviations (sample standard deviations, ``n - 1`` in the denominator)."""
    rs = list(rows)
    n = np.array([r.n for r in rs], dtype=np.float64)
    means = np.array([r.mean for r in rs])
    stds = np.array([r.std for r in rs])
    total = float(n.sum())
    mean = float((n * means).sum() / total)
    ss = float(((n - 1) * stds**2 + n * (means - mean) ** 2).sum())
    return int(total), mean, float(np.sqrt(ss / (total - 1)))


def gamma_quantile(mean: float, std: float, q: float) -> float:
    """The ``q`` quantile of the gamma distribution with this mean and standard deviation.

    Output lengths are positive and skewed to the right (a few answers think far longer), which a
    gamma distribution of the same mean and spread follows better than a normal one.
    """
    if std <= 0 or mean <= 0:
        return mean
    from scipy.special import gammaincinv  # the quantile without importing scipy.stats (a second of CPU)

    shape = (mean / std) ** 2
    return float(gammaincinv(shape, q)) * std**2 / mean


def _tables(rows: Sequence[OutputTokens]) -> str:
    ts = sorted({r.table for r in rows})
    return f"Table {ts[0]}" if len(ts) == 1 else "Tables " + ", ".join(map(str, ts))


def output_prior(entry: ModelEntry, prompt_tokens: float | None = None) -> tuple[int, float, float, str] | None:
    """The registry's prior for ``entry``: ``(n, mean, std, basis)``, or None when it has no row that fits.

    Rows of the entry's reasoning effort are used; of those, the rows whose context length is
    nearest (by ratio) to ``prompt_tokens`` (the run's typical prompt; 200k when unknown), pooled.
    """
    rows = [r for r in entry.output_tokens if r.reasoning_effort == entry.reasoning_effort]
    if not rows:
        return None
    target = prompt_tokens if prompt_tokens and prompt_tokens > 0 else _PAPER_CONTEXT
    nearest = min({r.context_length for r in rows}, key=lambda c: abs(np.log(c / target)))
    chosen = [r for r in rows if r.context_length == nearest]
    n, mean, std = pooled(chosen)
    basis = (f"prior from the paper's {_tables(chosen)}: {n:,} calls at {entry.reasoning_effort} effort and "
             f"{nearest // 1000}k-token prompts")
    return n, mean, std, basis


def _capped(entry: ModelEntry, tokens: float) -> int:
    cap = entry.params.max_tokens
    return round(tokens if cap is None else min(tokens, cap))


def output_guess(entry: ModelEntry, history: Iterable[RunRecord], assume_output_tokens: int | None = None,
                 prompt_tokens: float | None = None) -> OutputGuess:
    """Output tokens per example for an estimate of ``entry``'s calls.

    In order: the finished calls of ``history`` with the entry's settings hash (their median and 90th
    percentile; reused answers are not counted again); else ``assume_output_tokens`` when given; else
    the registry's prior (:func:`output_prior`: its mean, and the 90th percentile of a gamma
    distribution of its mean and spread); else :data:`DEFAULT_OUTPUT_TOKENS` the same way. Figures
    are capped at the entry's ``max_tokens``.
    """
    h = entry.settings_hash
    finished = np.array([r.usage.completion_tokens for r in history
                         if r.status == "ok" and r.settings_hash == h and r.reused_from is None
                         and r.usage is not None and r.usage.completion_tokens is not None], dtype=np.float64)
    if finished.size:
        return OutputGuess(_capped(entry, float(np.median(finished))),
                           _capped(entry, float(np.percentile(finished, 100 * UPPER_QUANTILE))),
                           f"your journals: median and 90th percentile of {finished.size:,} finished call(s)")
    if assume_output_tokens is not None:
        return OutputGuess(int(assume_output_tokens), int(assume_output_tokens), "assumed (--assume-output-tokens)")
    prior = output_prior(entry, prompt_tokens)
    if prior is None:
        mean, std = DEFAULT_OUTPUT_TOKENS
        basis = (f"conservative default ({mean:,.0f} ± {std:,.0f}): the registry has no measured output tokens "
                 f"for {entry.name} at {entry.reasoning_effort or 'its default'} effort")
    else:
        _, mean, std, basis = prior
    return OutputGuess(_capped(entry, mean), _capped(entry, gamma_quantile(mean, std, UPPER_QUANTILE)), basis)


# ------------------------------------------------------------------------------------------------
# The estimate
# ------------------------------------------------------------------------------------------------


def _stored_count(entry: ModelEntry, ref: ExampleRef) -> int | None:
    """The example's stored input-token count under the model's tokenizer, if the packer stored one."""
    counts = ref.token_counts or {}
    if entry.tokenizer is not None:
        return int(counts[entry.tokenizer]) if entry.tokenizer in counts else None
    return max(int(v) for v in counts.values()) if counts else None  # unknown tokenizer: the largest bounds it


class _TokenCounter:
    """Input tokens of an example under the model's tokenizer: stored counts first, else counted."""

    def __init__(self, entry: ModelEntry):
        self.entry = entry
        self._tok: Any = None
        self.unavailable: str | None = None

    def _tokenizer(self) -> Any:
        if self._tok is None and self.unavailable is None:
            try:
                from graphniah.text import load_tokenizer

                self._tok = load_tokenizer(self.entry.tokenizer or "o200k_base")
            except ImportError:
                self.unavailable = "graphniah.text.tokenizers is not available"
            except GraphNIAHError as err:
                self.unavailable = f"the {self.entry.tokenizer or 'o200k_base'} tokenizer cannot be loaded ({err})"
        return self._tok

    def __call__(self, ref: ExampleRef) -> int | None:
        stored = _stored_count(self.entry, ref)
        if stored is not None:
            return stored
        tok = self._tokenizer()
        if tok is None:
            return None
        return int(tok.chat_count([(m["role"], m["content"]) for m in ref.messages()]))


def cost_lines(entry: ModelEntry, prompt_tokens: Sequence[int], output: OutputGuess) -> tuple[CostLine, ...]:
    """The expected and 90th-percentile cost of sending examples of these prompt lengths: directly at each
    tier a request may go to (the configured tier, then its fallback), and batched."""
    inputs = np.asarray(prompt_tokens, dtype=np.int64)
    ways: list[tuple[str, Price | None, str]] = []
    for tier in entry.tiers():
        label = f"direct, {tier}" + (" (fallback)" if tier != entry.service_tier else "")
        ways.append((label, price_for(entry, tier), f"no {tier} price in the registry"))
    provider = provider_of(entry.litellm_model)
    ways.append(("batch", price_for(entry, batch=True), f"no batch price: {provider} has no batch discount known here"))
    lines = []
    for label, price, missing in ways:
        if price is None:
            lines.append(CostLine(label, missing, None, None))
            continue
        p = price.per_million
        basis = price.basis
        if label == "batch" and provider not in BATCH_PROVIDERS:
            basis += f" (graphniah run --batch does not send to {provider} yet)"
        lines.append(CostLine(label, basis, float(p.costs(inputs, output.expected).sum()),
                              float(p.costs(inputs, output.p90).sum())))
    return tuple(lines)


def _input_tokens(entry: ModelEntry, refs: Sequence[ExampleRef], count_missing: bool) -> tuple[dict[str, int] | None, str]:
    """Each example's input tokens, or None and why not."""
    if not count_missing and not all(_stored_count(entry, r) is not None for r in refs):
        return None, "not estimated: some examples have no stored token counts (--dry-run counts them)"
    counter = _TokenCounter(entry)
    tokens = {r.id: counter(r) for r in refs}
    known = {i: t for i, t in tokens.items() if t is not None}
    if len(known) < len(tokens):
        return None, f"cannot estimate: some examples have no stored token counts and {counter.unavailable}"
    return known, ""


def estimate_cost(entry: ModelEntry, refs: Sequence[ExampleRef], history: Sequence[RunRecord],
                  assume_output_tokens: int | None = None, *, count_missing: bool = True) -> Estimate:
    """Estimate the cost of sending ``refs``.

    Parameters
    ----------
    entry : ModelEntry
        The model, with its prices and output-token prior.
    refs : sequence of ExampleRef
        The examples to send.
    history : sequence of RunRecord
        Journaled calls; the finished ones of ``entry``'s settings replace the prior (:func:`output_guess`).
    assume_output_tokens : int, optional
        Output tokens per example to assume while no call has finished (``--assume-output-tokens``).
    count_missing : bool
        Tokenize examples without stored token counts (a dry run or a budget needs the figure; a plain
        run should not spend minutes tokenizing a 1M-token suite first).

    Returns
    -------
    Estimate
    """
    tier: Tier = entry.service_tier
    notes = [entry.price.note] if entry.price.note else []
    tokens, why = _input_tokens(entry, refs, count_missing)
    typical = float(np.median(list(tokens.values()))) if tokens else None
    out = output_guess(entry, history, assume_output_tokens, typical)
    if tokens is None:
        return Estimate(len(refs), None, out.expected, out.basis, tier, None, None, None, "; ".join([*notes, why]),
                        out.p90)
    ids = list(tokens)
    inputs = np.array([tokens[i] for i in ids], dtype=np.int64)
    total_in = int(inputs.sum())
    price = entry.price_at(tier)
    bound = price or entry.price.standard
    if bound is None:
        notes.append(f"no price for {entry.name} in the registry: cost unknown")
        return Estimate(len(refs), total_in, out.expected, out.basis, tier, None, None, None, "; ".join(notes), out.p90)
    per_example = bound.costs(inputs, out.expected)
    usd = float(price.costs(inputs, out.expected).sum()) if price else None
    return Estimate(len(refs), total_in, out.expected, out.basis, tier, usd, float(per_example.sum()),
                    dict(zip(ids, per_example.tolist(), strict=True)), "; ".join(notes), out.p90,
                    cost_lines(entry, inputs.tolist(), out))
