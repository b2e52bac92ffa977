"""The one retry/backoff policy: how long to wait before a retry, and how to read ``Retry-After``.

Both network clients use it: the S2AG Datasets client (``graphniah.ingest.s2ag.api``, synchronous
downloads) and the model runner (``graphniah.run.runner``, asynchronous LiteLLM calls). Each keeps
its own loop, because what a failure means differs (the runner records every attempt in the
journal and may switch service tier; the downloader resets its budget whenever a file grows), but
the numbers come from here.

Backoff is exponential with "equal jitter": before retry ``n`` (0-based) the wait is
``b/2 + U(0, b/2)`` with ``b = min(cap, base * 2**n)``, and at least what the server asked for in
``Retry-After`` (itself capped at ``max_retry_after_s``, so a server asking for an hour does not
stall a run). Half the delay is fixed so a storm of 429s spreads out; half is random so concurrent
requests do not retry in lock-step. The jitter is drawn from an explicit
``numpy.random.Generator``, so a seeded run waits the same amounts every time.

``tenacity`` was considered and not used: its jitter draws from the global ``random`` module (not
a seeded generator), and both loops need to act between attempts (journal the error, change tier,
refresh an expired link, reset the budget on progress) — which would turn its decorator into a
hand-driven ``Retrying`` object around the same few lines of arithmetic kept here.
"""

from __future__ import annotations

import datetime as dt
import email.utils
import math
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from graphniah.errors import GraphNIAHError

__all__ = ["RetryPolicy", "parse_retry_after", "retry_after_from_headers"]


def parse_retry_after(value: str | None, now: dt.datetime) -> float | None:
    """Seconds to wait from a ``Retry-After`` header value (RFC 9110 §10.2.3), or ``None``.

    The value is either delay-seconds (a non-negative integer; a decimal is accepted too, as some
    servers send one) or an HTTP-date: the preferred IMF-fixdate (``Sun, 06 Nov 1994 08:49:37
    GMT``) or the obsolete RFC 850 (``Sunday, 06-Nov-94 08:49:37 GMT``) and asctime
    (``Sun Nov  6 08:49:37 1994``) forms, all in GMT. A date in the past means "now" (0 s).
    ``now`` is an aware datetime (naive is taken as UTC). Anything unreadable gives ``None``: the
    caller then relies on its own backoff rather than failing over a malformed header.
    """
    if value is None:
        return None
    text = value.strip()
    if not text:
        return None
    try:
        seconds = float(text)
    except ValueError:
        pass
    else:
        return max(0.0, seconds) if math.isfinite(seconds) else None
    try:
        when = email.utils.parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:  # HTTP-dates are GMT by definition; asctime carries no zone
        when = when.replace(tzinfo=dt.UTC)
    if now.tzinfo is None:
        now = now.replace(tzinfo=dt.UTC)
    return max(0.0, (when - now).total_seconds())


def retry_after_from_headers(headers: Mapping[str, str] | None, now: dt.datetime | None = None) -> float | None:
    """Seconds a response's headers ask us to wait: ``retry-after-ms`` (OpenAI-style, milliseconds)
    if present and readable, else ``Retry-After`` through :func:`parse_retry_after`."""
    if headers is None:
        return None
    now = now if now is not None else dt.datetime.now(dt.UTC)
    try:
        ms = headers.get("retry-after-ms")
        if ms is not None:
            v = float(ms)
            if math.isfinite(v):
                return max(0.0, v / 1000)
        return parse_retry_after(headers.get("retry-after"), now)
    except (TypeError, ValueError, AttributeError):
        return None


@dataclass(frozen=True)
class RetryPolicy:
    """Bounds on retries and the backoff between them.

    ``max_attempts`` counts every send of one operation (the first one included); ``base_s`` is the
    first backoff scale, ``cap_s`` the largest, ``max_retry_after_s`` the longest a server may make
    us wait with ``Retry-After``.
    """

    max_attempts: int = 8
    base_s: float = 2.0
    cap_s: float = 120.0
    max_retry_after_s: float = 600.0

    def __post_init__(self) -> None:
        if self.max_attempts < 1:
            raise GraphNIAHError(f"max_attempts must be at least 1, got {self.max_attempts}")
        if not (0 <= self.base_s <= self.cap_s):
            raise GraphNIAHError(f"backoff needs 0 <= base ({self.base_s}) <= cap ({self.cap_s})")
        if self.max_retry_after_s < 0:
            raise GraphNIAHError(f"max_retry_after_s must be >= 0, got {self.max_retry_after_s}")

    @property
    def max_retries(self) -> int:
        return self.max_attempts - 1

    def delay(self, retry: int, retry_after_s: float | None, rng: np.random.Generator) -> float:
        """Seconds to wait before retry number ``retry`` (0-based).

        Always within ``[b/2, max(b, min(retry_after_s, max_retry_after_s))]`` for
        ``b = min(cap, base * 2**retry)``; one uniform draw from ``rng`` per call.
        """
        b = min(self.cap_s, self.base_s * 2.0 ** min(retry, 64))  # past 2**64 the cap has long won; bounded so 2**n stays finite
        d = b / 2 + float(rng.uniform(0, b / 2))
        if retry_after_s is not None:
            d = max(d, min(retry_after_s, self.max_retry_after_s))
        return d
