"""Backoff bounds, Retry-After, classification of provider errors, and redaction of secrets."""

from __future__ import annotations

import datetime as dt
import email.utils

import httpx
import numpy as np
import openai
import pytest

from graphniah.errors import GraphNIAHError
from graphniah.run.failures import REDACTED, ErrorKind, Redactor, RetryPolicy, classify


def test_backoff_is_exponential_jittered_and_capped():
    pol = RetryPolicy(base_s=1.0, cap_s=8.0)
    rng = np.random.default_rng(7)
    for retry, b in [(0, 1.0), (1, 2.0), (2, 4.0), (3, 8.0), (4, 8.0), (10, 8.0)]:
        ds = [pol.delay(retry, None, rng) for _ in range(200)]
        assert min(ds) >= b / 2 and max(ds) <= b  # equal jitter: half fixed, half random
        assert len(set(ds)) > 100  # actually random, so concurrent retries spread out


def test_retry_after_is_a_floor_with_a_ceiling():
    pol = RetryPolicy(base_s=0.1, cap_s=0.2, max_retry_after_s=30)
    rng = np.random.default_rng(0)
    assert pol.delay(0, 5.0, rng) == 5.0
    assert pol.delay(0, 3600.0, rng) == 30.0  # a provider asking for an hour does not stall the run
    assert pol.delay(3, 0.0, rng) >= 0.1


def test_policy_validation():
    with pytest.raises(GraphNIAHError):
        RetryPolicy(max_attempts=0)
    with pytest.raises(GraphNIAHError):
        RetryPolicy(base_s=5, cap_s=1)


def _status_error(cls, status: int, message: str, headers: dict | None = None):
    req = httpx.Request("POST", "http://127.0.0.1/v1/chat/completions")
    resp = httpx.Response(status, headers=headers or {}, request=req, json={"error": {"message": message}})
    return cls(message, response=resp, body=None)


@pytest.mark.parametrize(
    ("exc", "tier", "kind"),
    [
        (_status_error(openai.RateLimitError, 429, "Rate limit reached"), "standard", ErrorKind.RATE_LIMIT),
        (_status_error(openai.RateLimitError, 429, "Resource unavailable: no capacity"), "flex", ErrorKind.FLEX_CAPACITY),
        (_status_error(openai.RateLimitError, 429, "Resource unavailable: no capacity"), "standard", ErrorKind.RATE_LIMIT),
        (_status_error(openai.InternalServerError, 503, "The model is overloaded"), "flex", ErrorKind.FLEX_CAPACITY),
        (_status_error(openai.InternalServerError, 502, "bad gateway"), "standard", ErrorKind.SERVER),
        (_status_error(openai.BadRequestError, 400, "This model's maximum context length is 8 tokens"), "standard", ErrorKind.CONTEXT),
        (_status_error(openai.BadRequestError, 400, "unknown parameter top_q"), "standard", ErrorKind.BAD_REQUEST),
        (_status_error(openai.AuthenticationError, 401, "Incorrect API key"), "standard", ErrorKind.AUTH),
        (_status_error(openai.PermissionDeniedError, 403, "forbidden"), "standard", ErrorKind.AUTH),
        (openai.APITimeoutError(httpx.Request("POST", "http://127.0.0.1/")), "standard", ErrorKind.TIMEOUT),
        (openai.APIConnectionError(request=httpx.Request("POST", "http://127.0.0.1/")), "standard", ErrorKind.CONNECTION),
        (httpx.RemoteProtocolError("peer closed connection"), "standard", ErrorKind.CONNECTION),
        (ValueError("a bug"), "standard", ErrorKind.OTHER),
    ],
)
def test_classify(exc, tier, kind):
    assert classify(exc, tier).kind is kind


def test_a_status_error_caused_by_a_transport_failure_is_a_connection_error():
    # LiteLLM re-raises a cut connection as a 500; the cause chain tells the truth.
    try:
        try:
            raise httpx.ReadError("payload not completed")
        except httpx.ReadError as inner:
            raise _status_error(openai.InternalServerError, 500, "Connection error.") from inner
    except openai.InternalServerError as exc:
        assert classify(exc, "standard").kind is ErrorKind.CONNECTION


def test_retry_after_header_is_read():
    exc = _status_error(openai.RateLimitError, 429, "slow down", {"Retry-After": "7"})
    assert classify(exc, "standard").retry_after_s == 7.0
    exc = _status_error(openai.RateLimitError, 429, "slow down", {"retry-after-ms": "250"})
    assert classify(exc, "standard").retry_after_s == 0.25


def test_retry_after_http_date_is_read():
    when = email.utils.format_datetime(dt.datetime.now(dt.UTC) + dt.timedelta(seconds=30), usegmt=True)
    exc = _status_error(openai.RateLimitError, 429, "slow down", {"Retry-After": when})
    assert 28.0 <= classify(exc, "standard").retry_after_s <= 30.0  # HTTP-dates have whole seconds


def test_redactor_removes_env_secrets_bearer_tokens_and_key_shapes():
    env = {"OPENAI_API_KEY": "sk-test-SECRET123", "MY_TOKEN": "tok-abcdefgh", "HOME": "/root", "SHORT_KEY": "abc"}
    red = Redactor(["extra-secret-value"], environ=env)
    text = ("Incorrect API key provided: sk-test-SECRET123. header Authorization: Bearer xyz.abc-123 "
            "and tok-abcdefgh and extra-secret-value and AIzaSyA1234567890abcdefghijklmnopqrstu and /root")
    out = red(text)
    for secret in ("sk-test-SECRET123", "SECRET123", "xyz.abc-123", "tok-abcdefgh", "extra-secret-value", "AIzaSyA1234567890abcdefghijklmnopqrstu"):
        assert secret not in out
    assert out.count(REDACTED) >= 5
    assert "/root" in out  # values of non-secret variables are left alone
