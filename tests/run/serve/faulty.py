"""The policy server with fault knobs and request counters: what the runner's tests serve against.

:class:`FaultServer` is :class:`graphniah.run.serve.policies.PolicyServer` whose app
(:class:`FaultApp`) injects :class:`Faults` through the server's three hooks and counts every request
in :class:`ServerStats`:

- ``reply``: a per-request *script* (the n-th time the same messages arrive, apply the n-th fault: a
  deterministic schedule under any concurrency), random fault rates drawn from a generator seeded with
  ``Faults.seed``, a context limit (400 ``context_length_exceeded`` above it), flex-tier capacity errors
  (429 ``resource_unavailable`` on ``service_tier=flex``), an API key check that answers 401 *echoing
  the key it got* (the worst a provider could do, so the runner's redaction is tested), and replies
  without an answer;
- ``refused``: counts the requests answered with an HTTP error;
- ``deliver``: delays (every reply by ``latency_s``; a ``timeout`` fault by ``delay_s``, so a client
  with a shorter timeout gives up) and cut connections.

Faults act on the normalised messages, so they apply to both APIs alike. Nothing here is part of the
package: no command serves faults.
"""

from __future__ import annotations

import hashlib
import json
import socket
import threading
import time
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from graphniah.errors import GraphNIAHError
from graphniah.run.serve.policies import Policy, PolicyApp, PolicyServer
from graphniah.run.serve.server import Api, Rejection, Reply, _Handler, approx_prompt_tokens

FAULT_KINDS: tuple[str, ...] = ("429", "500", "503", "timeout", "cut", "noanswer", "context", "flex", "auth")


@dataclass(frozen=True)
class Faults:
    """What the server does wrong, and when.

    ``script[n]`` is applied to the (n+1)-th arrival of the same messages (keyed by their sha256);
    arrivals after the script are answered normally (subject to ``rates``). ``rates`` maps a fault
    kind to its probability per request. ``flex`` faults apply only to requests sent with
    ``service_tier=flex`` (a standard-tier request passes). ``timeout`` sleeps ``delay_s`` before
    answering normally, so a client with a shorter timeout gives up. ``latency_s`` delays every
    reply (a model's thinking time), so a test can kill a client while calls are in flight. ``api_key``, when set, is the
    only bearer key accepted.
    """

    script: tuple[str, ...] = ()
    rates: Mapping[str, float] = field(default_factory=dict)
    seed: int = 0
    retry_after_s: float | None = 0.05
    delay_s: float = 2.0
    latency_s: float = 0.0
    context_limit: int | None = None
    flex_unavailable: bool = False
    api_key: str | None = None

    def __post_init__(self) -> None:
        bad = [k for k in (*self.script, *self.rates) if k not in FAULT_KINDS]
        if bad:
            raise GraphNIAHError(f"unknown fault kind(s) {bad}; known: {', '.join(FAULT_KINDS)}")
        for k, p in self.rates.items():
            if not 0 <= p <= 1:
                raise GraphNIAHError(f"fault rate of {k} must be in [0, 1], got {p}")


@dataclass
class ServerStats:
    """Counters the tests read: requests by outcome, by service tier and by API (``chat``/``responses``)."""

    requests: int = 0
    outcomes: Counter[str] = field(default_factory=Counter)
    tiers: Counter[str] = field(default_factory=Counter)
    apis: Counter[str] = field(default_factory=Counter)
    authorization_seen: int = 0


class FaultApp(PolicyApp):
    """A policy app that applies :class:`Faults` and counts requests (thread-safe)."""

    def __init__(self, policy: Policy, *, faults: Faults, **options: Any):
        super().__init__(policy, **options)
        self.faults = faults
        self.stats = ServerStats()
        self._count_lock = threading.Lock()
        # The generator of the former ``faults`` seed stream: its entropy was ``[seed]``.
        self._fault_rng = np.random.default_rng(faults.seed)
        self._arrivals: Counter[str] = Counter()
        self._pending = threading.local()  # the HTTP-level fault (timeout/cut) of the request this thread serves

    def fault_for(self, body_key: str, tier: str | None) -> str | None:
        """The fault to apply to this arrival (script first, then random rates), or None."""
        f = self.faults
        with self._count_lock:
            n = self._arrivals[body_key]
            self._arrivals[body_key] += 1
            kind = f.script[n] if n < len(f.script) else None
            if kind is None:
                for k, p in f.rates.items():
                    if p > 0 and self._fault_rng.random() < p:
                        kind = k
                        break
        if kind == "flex" and tier != "flex":
            return None
        return kind

    def record(self, outcome: str, tier: str | None, api: Api = "chat") -> None:
        with self._count_lock:
            self.stats.requests += 1
            self.stats.outcomes[outcome] += 1
            self.stats.tiers[tier or "default"] += 1
            self.stats.apis[api] += 1

    def reply(self, messages: Sequence[Mapping[str, str]], tier: str | None, authorization: str | None,
              api: Api = "chat") -> Reply:
        """Faults, then the policy. Raises :class:`Rejection` for the faults that are HTTP errors."""
        f = self.faults
        self._pending.fault = None
        if authorization is not None:
            with self._count_lock:
                self.stats.authorization_seen += 1
        # Only a script needs to recognise repeated messages; hashing 200 KB per request is not free.
        key = hashlib.sha256(json.dumps(list(messages), sort_keys=True).encode()).hexdigest() if f.script else ""
        fault = self.fault_for(key, tier) if (f.script or f.rates) else None
        given = (authorization or "").removeprefix("Bearer ").strip()
        if fault == "auth" or (f.api_key is not None and given != f.api_key):
            raise Rejection(401, f"Incorrect API key provided: {given}.", "invalid_api_key", "invalid_request_error")
        if (f.flex_unavailable and tier == "flex") or fault == "flex":
            raise Rejection(429, "Resource unavailable: the flex tier has no capacity right now, retry later or use the default tier.",
                            "resource_unavailable", "resource_unavailable")
        if fault == "429":
            headers = {"Retry-After": f"{f.retry_after_s:g}"} if f.retry_after_s is not None else {}
            raise Rejection(429, "Rate limit reached for requests. Please try again later.", "rate_limit_exceeded", "requests", headers)
        if fault in ("500", "503"):
            raise Rejection(int(fault), "The server had an error while processing your request.", "server_error", "server_error")
        prompt_tokens = approx_prompt_tokens(messages)
        if fault == "context" or (f.context_limit is not None and prompt_tokens > f.context_limit):
            limit = f.context_limit if f.context_limit is not None else prompt_tokens - 1
            raise Rejection(400, f"This model's maximum context length is {limit} tokens. However, your messages resulted in "
                            f"{prompt_tokens} tokens. Please reduce the length of the messages.",
                            "context_length_exceeded", "invalid_request_error")
        if fault == "noanswer":
            reply = Reply("I looked at the context but will not commit to an answer.", None, prompt_tokens, tier)
        else:
            reply = super().reply(messages, tier, authorization, api)
        self.record({"noanswer": "noanswer", "timeout": "timeout", "cut": "cut"}.get(fault or "", "ok"), tier, api)
        self._pending.fault = fault if fault in ("timeout", "cut") else None
        return reply

    def refused(self, rejection: Rejection, tier: str | None, api: Api) -> None:
        self.record("flex_unavailable" if rejection.code == "resource_unavailable" else f"http{rejection.status}", tier, api)

    def deliver(self, handler: _Handler, data: bytes, content_type: str) -> None:
        fault = getattr(self._pending, "fault", None)
        self._pending.fault = None
        if self.faults.latency_s:
            time.sleep(self.faults.latency_s)
        if fault == "timeout":
            time.sleep(self.faults.delay_s)
        if fault == "cut":
            # Promise the whole body, send half of it, and drop the connection.
            handler.send_response(200)
            handler.send_header("Content-Type", content_type)
            handler.send_header("Content-Length", str(len(data)))
            handler.end_headers()
            handler.wfile.write(data[: len(data) // 2])
            handler.wfile.flush()
            handler.close_connection = True
            try:
                handler.connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            return
        super().deliver(handler, data, content_type)


class FaultServer(PolicyServer):
    """A running :class:`FaultApp` on 127.0.0.1 (a background thread); use as a context manager."""

    app: FaultApp

    def __init__(self, policy: Policy, *, faults: Faults | None = None, **options: Any):
        self._faults = faults or Faults()
        super().__init__(policy, **options)

    def make_app(self, policy: Policy, *, seed: int, model_name: str | None, prompts: str | Path | None) -> FaultApp:
        return FaultApp(policy, faults=self._faults, seed=seed, model_name=model_name, prompts=prompts)

    @property
    def stats(self) -> ServerStats:
        return self.app.stats
