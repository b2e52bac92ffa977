"""Classifying a failed call, deciding whether and when to retry it, and keeping secrets out of messages.

Kinds and what the runner does with them:

=================  =========================================================  ==========================
kind               raised for                                                 action
=================  =========================================================  ==========================
``rate_limit``     HTTP 429                                                   back off, retry
``server_error``   HTTP 5xx                                                   back off, retry
``timeout``        no response within the timeout                             back off, retry
``connection``     refused, reset or cut connections, truncated bodies        back off, retry
``flex_capacity``  429/503 at the flex tier saying it has no capacity         resend at the fallback tier
``context_length`` prompt longer than the model accepts                       record, do not retry
``auth``           HTTP 401/403                                               record, do not retry
``bad_request``    other HTTP 4xx (bad parameters, unknown model)             record, do not retry
``other``          anything else (a bug, not a provider hiccup)               record, do not retry
=================  =========================================================  ==========================

Backoff follows the project's one policy, :class:`graphniah.retry.RetryPolicy` (exponential with equal
jitter from an explicit ``numpy.random.Generator``, ``Retry-After`` honoured as a floor with a ceiling);
it is re-exported here for the runner's callers.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from enum import StrEnum

from graphniah.retry import RetryPolicy, retry_after_from_headers

__all__ = ["RETRYABLE", "Classified", "ErrorKind", "Redactor", "RetryPolicy", "classify"]


class ErrorKind(StrEnum):
    RATE_LIMIT = "rate_limit"
    SERVER = "server_error"
    TIMEOUT = "timeout"
    CONNECTION = "connection"
    FLEX_CAPACITY = "flex_capacity"
    CONTEXT = "context_length"
    AUTH = "auth"
    BAD_REQUEST = "bad_request"
    OTHER = "other"


RETRYABLE = frozenset({ErrorKind.RATE_LIMIT, ErrorKind.SERVER, ErrorKind.TIMEOUT, ErrorKind.CONNECTION})
_CAPACITY = re.compile(r"resource[_ ]?(?:unavailable|exhausted)|capacity|overloaded", re.I)
_CONTEXT = re.compile(r"context[_ ]length[_ ]exceeded|maximum context length|context window|too many tokens|prompt is too long", re.I)


@dataclass(frozen=True, slots=True)
class Classified:
    kind: ErrorKind
    status: int | None
    retry_after_s: float | None


def _status(exc: BaseException) -> int | None:
    for attr in ("status_code", "status"):
        v = getattr(exc, attr, None)
        if isinstance(v, int) and 100 <= v <= 599:
            return v
    resp = getattr(exc, "response", None)
    v = getattr(resp, "status_code", None)
    return v if isinstance(v, int) else None


def _retry_after(exc: BaseException) -> float | None:
    """Seconds from the ``retry-after-ms`` / ``Retry-After`` headers (delta-seconds or an HTTP-date)
    of the error's response, if any."""
    headers = getattr(exc, "litellm_response_headers", None)
    if headers is None:
        headers = getattr(getattr(exc, "response", None), "headers", None)
    return retry_after_from_headers(headers)


def _causes(exc: BaseException) -> Iterator[BaseException]:
    """The exception and everything it was raised from (``__cause__``, else ``__context__``)."""
    seen: set[int] = set()
    e: BaseException | None = exc
    while e is not None and id(e) not in seen:
        seen.add(id(e))
        yield e
        e = e.__cause__ or e.__context__


def classify(exc: BaseException, tier: str) -> Classified:
    """The kind of a failure raised by ``litellm.acompletion`` (or the transport under it)."""
    import httpx
    import openai

    status = _status(exc)
    text = str(exc)
    retry_after = _retry_after(exc)

    def out(kind: ErrorKind) -> Classified:
        return Classified(kind, status, retry_after)

    capacity = tier == "flex" and bool(_CAPACITY.search(text))
    # LiteLLM re-raises transport failures as status errors (a cut connection arrives as a 500
    # "Connection error."), so the cause chain decides first. Order matters: a timeout is also a
    # connection error in the openai hierarchy, and a context-window error is also a bad request.
    chain = list(_causes(exc))
    if any(isinstance(e, openai.APITimeoutError | httpx.TimeoutException | TimeoutError) for e in chain):
        return out(ErrorKind.TIMEOUT)
    if any(isinstance(e, openai.APIConnectionError | httpx.TransportError | ConnectionError) for e in chain):
        return out(ErrorKind.CONNECTION)
    if status == 429 or isinstance(exc, openai.RateLimitError):
        return out(ErrorKind.FLEX_CAPACITY if capacity else ErrorKind.RATE_LIMIT)
    if status is not None and status >= 500:
        return out(ErrorKind.FLEX_CAPACITY if capacity and status == 503 else ErrorKind.SERVER)
    if type(exc).__name__ == "ContextWindowExceededError" or (status == 400 and _CONTEXT.search(text)):
        return out(ErrorKind.CONTEXT)
    if status in (401, 403) or isinstance(exc, openai.AuthenticationError | openai.PermissionDeniedError):
        return out(ErrorKind.AUTH)
    if (status is not None and 400 <= status < 500) or isinstance(exc, openai.BadRequestError):
        return out(ErrorKind.BAD_REQUEST)
    if isinstance(exc, openai.APIError) and _CONTEXT.search(text):
        return out(ErrorKind.CONTEXT)
    return out(ErrorKind.OTHER)


# ------------------------------------------------------------------------------------------------
# Secrets
# ------------------------------------------------------------------------------------------------

_SECRET_ENV = re.compile(r"(?:API_?KEY|_KEY|TOKEN|SECRET|PASSWORD)$", re.I)
_BEARER = re.compile(r"(?i)(bearer\s+)[^\s'\"]+")
_KEYLIKE = re.compile(r"\b(?:(?:sk|pk|rk)[-_][A-Za-z0-9_\-]{8,}|AIza[A-Za-z0-9_\-]{20,})")
REDACTED = "[redacted]"


class Redactor:
    """Removes secrets from text before it is stored or printed.

    Three layers: the exact values of every environment variable that looks like a credential (and
    any extra values given), anything after ``Bearer``, and strings shaped like provider keys
    (``sk-...``, ``AIza...``). Error messages are the only provider text the runner keeps besides
    responses, and some providers echo part or all of a rejected key in them.
    """

    def __init__(self, extra: Iterable[str] = (), environ: dict[str, str] | None = None):
        env = os.environ if environ is None else environ
        values = {v for k, v in env.items() if _SECRET_ENV.search(k) and len(v) >= 8}
        values.update(v for v in extra if v and len(v) >= 6)
        # Longest first, so a key that contains another key is removed whole.
        self._values = sorted(values, key=len, reverse=True)

    def __call__(self, text: str) -> str:
        for v in self._values:
            if v in text:
                text = text.replace(v, REDACTED)
        text = _BEARER.sub(lambda m: m.group(1) + REDACTED, text)
        return _KEYLIKE.sub(REDACTED, text)
