"""Anthropic's Message Batches through Anthropic's own endpoint (LiteLLM 1.110.2 cannot create one).

The flow (``https://api.anthropic.com`` or the entry's ``api_base``):

- ``POST /v1/messages/batches`` with ``{"requests": [{"custom_id", "params"}, ...]}``: the requests
  go in the creation itself, so there is no file to upload; ``params`` is the Messages API body a
  direct call sends, made by LiteLLM's own Anthropic translation of the entry's settings;
- ``GET /v1/messages/batches/{id}``: ``processing_status`` (``in_progress``, ``canceling``,
  ``ended``) and ``request_counts`` (``processing``, ``succeeded``, ``errored``, ``canceled``,
  ``expired``); once ended, ``results_url``;
- ``results_url``: JSON lines ``{"custom_id", "result": {"type": "succeeded" | "errored" |
  "expired" | "canceled", ...}}``;
- ``GET /v1/messages/batches`` (newest first, ``limit``, ``after_id``) to find a batch again.

A batch carries no metadata, so the journal key goes into the custom ids: the wire id of an example
is ``<first 8 characters of the key>-<example id>``. A run killed after the provider created a batch
but before the journal heard of it looks, on resuming, for a batch created since its intent (an hour
of clock skew allowed) with as many requests and not journaled already; an ended one is only taken
if its results carry the key, and results are always read through the key (a line of another batch
is never taken for an answer). The key is read from the entry's environment variable and sent as
``x-api-key``; it never reaches an error message (httpx's errors name the URL, never the headers).
"""

from __future__ import annotations

import datetime as dt
import json
import re
from collections.abc import Iterable, Mapping
from typing import Any

from graphniah.errors import GraphNIAHError
from graphniah.formats.examples import ExampleRef
from graphniah.formats.journal import BatchCounts
from graphniah.run.batch.client import Remote, api_key
from graphniah.run.batch.lines import LineResult, json_lines
from graphniah.run.models import ModelEntry

API_BASE = "https://api.anthropic.com"
VERSION = "2023-06-01"
#: The key's share of a wire custom id, and what stands for it until the key is known (same length).
PREFIX_LEN = 8
_PLACEHOLDER = b'{"custom_id":"' + b"_" * PREFIX_LEN + b"-"
_CUSTOM_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
_LIST_PAGE = 100
_LOOKBACK_S = 3600
_STATES = {"in_progress": "in_progress", "canceling": "cancelling", "ended": "ended"}
#: The HTTP status an ``errored`` result's error type stands for (what decides a resend).
_ERROR_STATUS = {"invalid_request_error": 400, "authentication_error": 401, "permission_error": 403,
                 "not_found_error": 404, "request_too_large": 413, "rate_limit_error": 429, "api_error": 500,
                 "overloaded_error": 529}


def _epoch(stamp: Any) -> float:
    if not isinstance(stamp, str) or not stamp:
        return 0.0
    return dt.datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp()


def remote_of(obj: Mapping[str, Any]) -> Remote:
    """A Message Batch as :class:`Remote` (``ended`` is its terminal state; errored, expired and canceled
    requests count as failed)."""
    rc: Mapping[str, Any] = obj.get("request_counts") or {}
    n = {k: int(rc.get(k) or 0) for k in ("processing", "succeeded", "errored", "canceled", "expired")}
    counts = BatchCounts(total=sum(n.values()), completed=n["succeeded"],
                         failed=n["errored"] + n["canceled"] + n["expired"])
    status = str(obj.get("processing_status") or "")
    return Remote(batch_id=str(obj["id"]), status=_STATES.get(status, status), counts=counts,
                  created_at=_epoch(obj.get("created_at")), results_url=obj.get("results_url") or None)


def _as_chat(message: Mapping[str, Any]) -> dict[str, Any]:
    """A Messages API reply in the chat-completion shape the loop reads (text, thinking, usage)."""
    blocks = [b for b in message.get("content") or [] if isinstance(b, Mapping)]
    text = "".join(str(b.get("text") or "") for b in blocks if b.get("type") == "text")
    thinking = "".join(str(b.get("thinking") or "") for b in blocks if b.get("type") == "thinking")
    u: Mapping[str, Any] = message.get("usage") or {}
    # Anthropic bills cached prompt tokens apart from input_tokens; the prompt is all three.
    prompt = sum(int(u.get(k) or 0) for k in ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens"))
    usage = {"prompt_tokens": prompt, "completion_tokens": u.get("output_tokens")} if u else None
    return {"choices": [{"message": {"content": text, "reasoning_content": thinking or None}}],
            **({"usage": usage} if usage else {})}


def _result(ex_id: str, result: Mapping[str, Any]) -> LineResult:
    kind = str(result.get("type") or "")
    if kind == "succeeded" and isinstance(result.get("message"), Mapping):
        return LineResult(ex_id, _as_chat(result["message"]))
    if kind == "errored":
        outer = result.get("error")
        err = outer.get("error") if isinstance(outer, Mapping) and isinstance(outer.get("error"), Mapping) else outer
        err = err if isinstance(err, Mapping) else {}
        code = str(err.get("type") or "api_error")
        return LineResult(ex_id, None, _ERROR_STATUS.get(code, 500), code, str(err.get("message") or ""))
    return LineResult(ex_id, None, None, kind or "not_run", f"the request was {kind or 'not run'} before it ran")


def read_results(data: bytes, key: str, where: str) -> dict[str, LineResult]:
    """The results of the batch of ``key``, by example id; lines whose custom id is not of this key are left out."""
    prefix = key[:PREFIX_LEN] + "-"
    out: dict[str, LineResult] = {}
    for at, obj in json_lines(data, where):
        cid = obj.get("custom_id")
        if not isinstance(cid, str) or not isinstance(obj.get("result"), Mapping):
            raise GraphNIAHError(f"{at}: a batch result line without a custom_id and a result")
        if cid.startswith(prefix):
            out[cid[len(prefix):]] = _result(cid[len(prefix):], obj["result"])
    return out


class AnthropicBatches:
    """Anthropic's Message Batches endpoints for one model (the interface :class:`graphniah.run.batch.client.Batches` has)."""

    uploads = False

    def __init__(self, entry: ModelEntry):
        import httpx

        key = api_key(entry, "the Anthropic key")
        base = (entry.api_base or API_BASE).rstrip("/")
        self.base = base[:-3] if base.endswith("/v1") else base
        self.http = httpx.Client(timeout=entry.timeout_s, headers={"x-api-key": key, "anthropic-version": VERSION})
        self.entry = entry
        self._model, self._params, self._extra = self._settings(entry)

    @staticmethod
    def _settings(entry: ModelEntry) -> tuple[str, dict[str, Any], dict[str, Any]]:
        """The model name, the sampling parameters as LiteLLM maps them for a direct call, and the extra
        body fields (``top_k``, ``min_p`` and the entry's own), which a direct call adds to the body as they are."""
        from litellm.utils import get_optional_params

        kw = entry.completion_kwargs("standard")
        kw.pop("api_base", None)
        extra = dict(kw.pop("extra_body", {}))
        model = str(kw.pop("model")).split("/", 1)[1]
        return model, dict(get_optional_params(model=model, custom_llm_provider="anthropic", **kw)), extra

    def line(self, ref: ExampleRef) -> bytes:
        """One request of the batch (its custom id's key part a placeholder until :meth:`create_inline`)."""
        from litellm.llms.anthropic.chat.transformation import AnthropicConfig

        if not _CUSTOM_ID.match(f"{'_' * PREFIX_LEN}-{ref.id}"):
            raise GraphNIAHError(f"example {ref.id}: its id cannot be part of an Anthropic custom_id (letters, digits, "
                                 f"'_' and '-', at most {63 - PREFIX_LEN} characters); run it without --batch")
        messages: Any = list(ref.messages())  # LiteLLM's message TypedDicts, in shape
        params = AnthropicConfig().transform_request(model=self._model, messages=messages,
                                                     optional_params=dict(self._params), litellm_params={}, headers={})
        params.update(self._extra)
        line = {"custom_id": f"{'_' * PREFIX_LEN}-{ref.id}", "params": params}
        return json.dumps(line, ensure_ascii=False, separators=(",", ":")).encode() + b"\n"

    def _request(self, method: str, url: str, **kw: Any) -> Any:
        resp = self.http.request(method, url if url.startswith("http") else self.base + url, **kw)
        resp.raise_for_status()
        return resp

    def create_inline(self, key: str, data: bytes) -> Remote:
        """Create the batch of these request lines, their custom ids carrying ``key``."""
        # An unescaped '{"custom_id":"' only starts a line: inside a JSON string every quote is escaped.
        lines = data.replace(_PLACEHOLDER, b'{"custom_id":"' + key[:PREFIX_LEN].encode() + b"-").splitlines()
        body = b'{"requests":[' + b",".join(x for x in lines if x.strip()) + b"]}"
        obj = self._request("POST", "/v1/messages/batches", content=body,
                            headers={"content-type": "application/json"}).json()
        return remote_of(obj)

    def retrieve(self, batch_id: str) -> Remote:
        return remote_of(self._request("GET", f"/v1/messages/batches/{batch_id}").json())

    def results(self, remote: Remote, key: str) -> dict[str, LineResult]:
        """The ended batch's results of ``key``'s requests, by example id (empty before it ends)."""
        if remote.results_url is None:
            return {}
        return read_results(self._request("GET", remote.results_url).content, key, f"{remote.batch_id} results")

    def _listed(self) -> Iterable[Remote]:
        after: str | None = None
        while True:
            page = self._request("GET", "/v1/messages/batches",
                                 params={"limit": _LIST_PAGE, **({"after_id": after} if after else {})}).json()
            data = [remote_of(b) for b in page.get("data") or []]
            yield from data
            if not data or not page.get("has_more"):
                return
            after = data[-1].batch_id

    def find_batch(self, key: str, since: float, requests: int, claimed: frozenset[str]) -> Remote | None:
        """The batch a killed run may have created for ``key``: created since ``since`` (an hour of skew
        allowed), of ``requests`` requests, not ``claimed`` by the journal; an ended one only if its results
        carry the key. Of several not yet ended, the oldest."""
        found: Remote | None = None
        for r in self._listed():
            if r.created_at < since - _LOOKBACK_S:
                break
            if r.batch_id in claimed or r.counts.total != requests:
                continue
            if not r.terminal:
                found = r  # newest first: the last one kept is the oldest
            elif self.results(r, key):
                return r
        return found
