"""The one retry policy: Retry-After in both RFC 9110 forms, and the backoff bounds."""

from __future__ import annotations

import datetime as dt
import email.utils

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from graphniah.errors import GraphNIAHError
from graphniah.retry import RetryPolicy, parse_retry_after, retry_after_from_headers

NOW = dt.datetime(2026, 11, 6, 8, 49, 37, tzinfo=dt.UTC)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("120", 120.0),
        ("  7 ", 7.0),
        ("0", 0.0),
        ("1.5", 1.5),  # not RFC delay-seconds, but sent by some servers
        ("-3", 0.0),
        # the three HTTP-date forms of RFC 9110 §5.6.7, all meaning 90 s after NOW
        ("Fri, 06 Nov 2026 08:51:07 GMT", 90.0),  # IMF-fixdate
        ("Friday, 06-Nov-26 08:51:07 GMT", 90.0),  # obsolete RFC 850
        ("Fri Nov  6 08:51:07 2026", 90.0),  # obsolete asctime (no zone: GMT)
        ("Fri, 06 Nov 2026 08:00:00 GMT", 0.0),  # in the past: retry now
        ("", None),
        ("soon", None),
        ("nan", None),
        ("Fri, 32 Nov 2026 08:51:07 GMT", None),
        (None, None),
    ],
)
def test_parse_retry_after(value: str | None, expected: float | None) -> None:
    assert parse_retry_after(value, NOW) == expected


def test_naive_now_is_utc() -> None:
    assert parse_retry_after("Fri, 06 Nov 2026 08:51:07 GMT", NOW.replace(tzinfo=None)) == 90.0


@given(st.integers(min_value=0, max_value=10**7))
def test_http_date_and_delta_seconds_agree(seconds: int) -> None:
    when = NOW + dt.timedelta(seconds=seconds)
    assert parse_retry_after(email.utils.format_datetime(when, usegmt=True), NOW) == float(seconds)
    assert parse_retry_after(str(seconds), NOW) == float(seconds)


def test_headers_prefer_milliseconds_then_retry_after() -> None:
    assert retry_after_from_headers({"retry-after-ms": "250", "retry-after": "9"}, NOW) == 0.25
    assert retry_after_from_headers({"retry-after": "Fri, 06 Nov 2026 08:50:07 GMT"}, NOW) == 30.0
    assert retry_after_from_headers({"retry-after-ms": "junk", "retry-after": "4"}, NOW) is None
    assert retry_after_from_headers({}, NOW) is None
    assert retry_after_from_headers(None, NOW) is None


@given(st.integers(min_value=0, max_value=200), st.floats(min_value=0, max_value=1e4) | st.none(), st.integers(0, 2**32))
def test_delay_bounds(retry: int, retry_after: float | None, seed: int) -> None:
    pol = RetryPolicy(base_s=0.5, cap_s=30.0, max_retry_after_s=60.0)
    d = pol.delay(retry, retry_after, np.random.default_rng(seed))
    b = min(30.0, 0.5 * 2.0**retry)
    floor = b / 2 if retry_after is None else max(b / 2, min(retry_after, 60.0))
    assert floor <= d <= max(b, floor)


def test_delay_is_reproducible_from_the_generator() -> None:
    pol = RetryPolicy()
    a = [pol.delay(i, None, np.random.default_rng(3)) for i in range(6)]
    b = [pol.delay(i, None, np.random.default_rng(3)) for i in range(6)]
    assert a == b


def test_bad_policies_are_refused() -> None:
    with pytest.raises(GraphNIAHError):
        RetryPolicy(max_attempts=0)
    with pytest.raises(GraphNIAHError):
        RetryPolicy(base_s=2, cap_s=1)
    with pytest.raises(GraphNIAHError):
        RetryPolicy(max_retry_after_s=-1)
