"""Cost estimates of the calls still to send.

The estimate uses each example's stored token counts (or counts them with
``graphniah.text.tokenizers`` when it can) and the registry's price at the tier requests go to.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from graphniah.errors import GraphNIAHError
from graphniah.formats.examples import ExampleRef
from graphniah.formats.journal import RunRecord
from graphniah.run.models import ModelEntry, Tier


@dataclass(frozen=True)
class Estimate:
    """Expected cost of the calls still to send.

    ``usd`` is at the price of the tier requests go to; when that price is unknown (flex prices the
    paper does not state) it is None and ``usd_upper`` bounds the cost at the standard price.
    ``per_example`` holds the bound the budget check reserves for each example (None if unknown).
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


def estimate_cost(entry: ModelEntry, refs: Sequence[ExampleRef], history: Sequence[RunRecord],
                  assume_output_tokens: int, *, count_missing: bool = True) -> Estimate:
    """Estimate the cost of sending ``refs``; output tokens are the mean of finished calls if any.

    Examples without stored token counts are tokenized only when ``count_missing`` (a dry run or a
    budget needs the figure; a plain run should not spend minutes tokenizing a 1M-token suite first).
    """
    finished = [r.usage.completion_tokens for r in history
                if r.status == "ok" and r.usage is not None and r.usage.completion_tokens is not None]
    if finished:
        out_tokens = round(float(np.mean(finished)))
        basis = f"mean of {len(finished)} finished call(s) of this model"
    else:
        out_tokens = int(assume_output_tokens)
        basis = "assumed (--assume-output-tokens)"
    tier: Tier = entry.service_tier
    price = entry.price_at(tier)
    bound = price or entry.price.standard
    counter = _TokenCounter(entry)
    notes = []
    if entry.price.note:
        notes.append(entry.price.note)
    if not count_missing and not all(_stored_count(entry, r) is not None for r in refs):
        notes.append("not estimated: some examples have no stored token counts (--dry-run counts them)")
        return Estimate(len(refs), None, out_tokens, basis, tier, None, None, None, "; ".join(notes))
    tokens = {r.id: counter(r) for r in refs}
    if any(v is None for v in tokens.values()):
        notes.append(f"cannot estimate: some examples have no stored token counts and {counter.unavailable}")
        return Estimate(len(refs), None, out_tokens, basis, tier, None, None, None, "; ".join(notes))
    known = {i: t for i, t in tokens.items() if t is not None}  # all of them (checked above), typed as int
    total_in = int(sum(known.values()))
    if bound is None:
        notes.append(f"no price for {entry.name} in the registry: cost unknown")
        return Estimate(len(refs), total_in, out_tokens, basis, tier, None, None, None, "; ".join(notes))
    per = {i: bound.cost(t, out_tokens) for i, t in known.items()}
    usd = float(sum(price.cost(t, out_tokens) for t in known.values())) if price else None
    upper = float(sum(per.values()))
    return Estimate(len(refs), total_in, out_tokens, basis, tier, usd, upper, per, "; ".join(notes))
