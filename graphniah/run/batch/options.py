"""How ``graphniah run --batch`` sends: which providers take batches, their limits, poll interval.

Kept apart from the sending code so that :class:`graphniah.run.plan.RunOptions` can carry a
:class:`BatchOptions` without importing LiteLLM or the batch loop.
"""

from __future__ import annotations

from dataclasses import dataclass

from graphniah.errors import GraphNIAHError


@dataclass(frozen=True)
class Limits:
    """A provider's limits on one batch: requests and bytes of its input file."""

    max_requests: int
    max_bytes: int


#: Providers whose batches go through LiteLLM's files and batches API (``/v1/files`` + ``/v1/batches``),
#: with their limits per batch (OpenAI: 50,000 requests and 200 MB per input file).
LITELLM_BATCH_PROVIDERS: dict[str, Limits] = {
    "openai": Limits(50_000, 200 * 1024 * 1024),
    "hosted_vllm": Limits(50_000, 200 * 1024 * 1024),
    "litellm_proxy": Limits(50_000, 200 * 1024 * 1024),
}
#: Providers whose batches go to the provider's own endpoint (LiteLLM 1.110.2 retrieves an Anthropic
#: batch but cannot create one, and cannot list Gemini batches): Anthropic's Message Batches, 100,000
#: requests and 256 MB per batch (counted here as 256,000,000 bytes of request lines, below either
#: reading of "MB"); Gemini batch mode with its requests inline, 20 MB per creation (20,000,000 bytes
#: less 64 KB for the envelope; no count of requests is set here, the bytes bound it).
NATIVE_BATCH_PROVIDERS: dict[str, Limits] = {"anthropic": Limits(100_000, 256_000_000),
                                             "gemini": Limits(1_000_000, 20_000_000 - 65_536)}
#: Every provider ``graphniah run --batch`` sends to.
BATCH_PROVIDERS: dict[str, Limits] = {**LITELLM_BATCH_PROVIDERS, **NATIVE_BATCH_PROVIDERS}
#: The price of a batched call as a share of the standard price (each of these providers bills half).
BATCH_DISCOUNT: dict[str, float] = {"openai": 0.5, "hosted_vllm": 0.5, "litellm_proxy": 0.5, "anthropic": 0.5,
                                    "gemini": 0.5}


@dataclass(frozen=True)
class BatchOptions:
    """Batch mode's settings.

    Parameters
    ----------
    poll_s : float
        Seconds between two polls of the batches in flight.
    max_requests : int or None
        Requests per batch at most (None: the provider's limit; a smaller figure makes batches that
        finish sooner).
    """

    poll_s: float = 60.0
    max_requests: int | None = None

    def __post_init__(self) -> None:
        if self.poll_s < 0:
            raise GraphNIAHError(f"the poll interval must be non-negative, got {self.poll_s}")
        if self.max_requests is not None and self.max_requests < 1:
            raise GraphNIAHError(f"a batch holds at least one request, got --batch-size {self.max_requests}")


def provider_of(litellm_model: str) -> str:
    """The LiteLLM provider of a ``provider/model`` string."""
    return litellm_model.split("/", 1)[0]


def batch_limits(litellm_model: str, model_name: str, options: BatchOptions) -> Limits:
    """The limits a batch of this model must keep, or an error naming a provider without batches here."""
    provider = provider_of(litellm_model)
    limits = BATCH_PROVIDERS.get(provider)
    if limits is None:
        raise GraphNIAHError(
            f"{model_name} ({litellm_model}) cannot be run with --batch: batches are sent to OpenAI-compatible "
            f"/v1/files + /v1/batches endpoints ({', '.join(sorted(LITELLM_BATCH_PROVIDERS))}), to Anthropic's "
            f"Message Batches and to Gemini batch mode, not to {provider}; run it without --batch (and without batch: true in the registry)")
    if options.max_requests is not None:
        return Limits(min(limits.max_requests, options.max_requests), limits.max_bytes)
    return limits
