"""Gemini batch mode through Google's own Generative Language API (LiteLLM 1.110.2 cannot list Gemini batches).

The flow (``https://generativelanguage.googleapis.com`` or the entry's ``api_base``), every request
carrying the key as ``x-goog-api-key``:

- ``POST /v1beta/models/{model}:batchGenerateContent`` with ``{"batch": {"display_name",
  "input_config": {"requests": {"requests": [{"request", "metadata": {"key"}}, ...]}}}}``: the
  requests go inline in the creation (at most 20 MB together; larger runs are split into several
  inline batches rather than uploaded as a file); each ``request`` is the ``GenerateContentRequest``
  a direct call sends, made by LiteLLM's own Gemini translation of the entry's settings, and
  ``metadata.key`` is the example id. The reply is an Operation named ``batches/{id}`` whose
  ``metadata`` is the batch;
- ``GET /v1beta/batches/{id}``: the Operation again, ``metadata.state`` (``BATCH_STATE_PENDING``,
  ``_RUNNING``, ``_SUCCEEDED``, ``_FAILED``, ``_CANCELLED``, ``_EXPIRED``) and ``metadata.batchStats``;
  once done, ``response.inlinedResponses.inlinedResponses``, one ``{"response" | "error",
  "metadata": {"key"}}`` per request;
- ``GET /v1beta/batches`` (``pageSize``, ``pageToken``; ``operations`` and ``nextPageToken``) to
  find a batch again.

The journal key goes into the batch's ``display_name`` (``graphniah-<key>``): a run killed after
Google created a batch but before the journal heard of it finds the batch by that name, and a
batch's results are only read when its name carries the key (another batch's answers are never
taken). The key is read from the entry's environment variable and only ever sent as a header (never
in a URL, so httpx's errors, which name the URL, cannot show it).
"""

from __future__ import annotations

import copy
import datetime as dt
import json
from collections.abc import Iterable, Mapping
from typing import Any

from graphniah.errors import GraphNIAHError
from graphniah.formats.examples import ExampleRef
from graphniah.formats.journal import BatchCounts
from graphniah.run.batch.client import Remote, api_key
from graphniah.run.batch.lines import LineResult
from graphniah.run.models import ModelEntry

API_BASE = "https://generativelanguage.googleapis.com"
VERSION = "v1beta"
_LIST_PAGE = 100
#: The batch states as the loop names them (its terminal ones: completed, failed, cancelled, expired).
_STATES = {"BATCH_STATE_PENDING": "validating", "BATCH_STATE_RUNNING": "in_progress",
           "BATCH_STATE_SUCCEEDED": "completed", "BATCH_STATE_FAILED": "failed",
           "BATCH_STATE_CANCELLED": "cancelled", "BATCH_STATE_EXPIRED": "expired"}
#: The HTTP status a per-request error's google.rpc code stands for (what decides a resend); CANCELLED
#: (1) and ABORTED (10) did not run.
_RPC_STATUS: dict[int, int | None] = {1: None, 2: 500, 3: 400, 4: 504, 5: 404, 6: 409, 7: 403, 8: 429, 9: 400,
                                      10: None, 11: 400, 12: 501, 13: 500, 14: 503, 15: 500, 16: 401}


def display_name(key: str) -> str:
    """The display name of the batch of journal key ``key``."""
    return f"graphniah-{key}"


def _epoch(stamp: Any) -> float:
    if not isinstance(stamp, str) or not stamp:
        return 0.0
    # RFC 3339 with up to nine decimals: fromisoformat takes six at most.
    head, _, tail = stamp.replace("Z", "+00:00").partition(".")
    if tail:
        digits = "".join(c for c in tail if c.isdigit())
        head = f"{head}.{digits[:6]}{tail[len(digits):]}"
    return dt.datetime.fromisoformat(head).timestamp()


def _batch(obj: Mapping[str, Any]) -> Mapping[str, Any]:
    """The batch of an Operation (its ``metadata``), or the object itself when it is the batch."""
    meta = obj.get("metadata")
    return meta if isinstance(meta, Mapping) and "state" in meta else obj


def remote_of(obj: Mapping[str, Any]) -> Remote:
    """An Operation (or batch) as :class:`Remote`; failed requests count as failed."""
    b = _batch(obj)
    stats: Mapping[str, Any] = b.get("batchStats") or {}
    n = {k: int(stats.get(k) or 0) for k in ("requestCount", "successfulRequestCount", "failedRequestCount")}
    counts = BatchCounts(total=n["requestCount"], completed=n["successfulRequestCount"], failed=n["failedRequestCount"])
    state = str(b.get("state") or "")
    name = str(b.get("name") or obj.get("name") or "")
    if not name.startswith("batches/"):
        raise GraphNIAHError(f"a Gemini batch reply without a batches/... name: {sorted(obj)}")
    return Remote(batch_id=name, status=_STATES.get(state, state), counts=counts, created_at=_epoch(b.get("createTime")),
                  tag=str(b.get("displayName") or b.get("display_name") or "") or None)


def _as_chat(response: Mapping[str, Any]) -> dict[str, Any] | None:
    """A GenerateContentResponse in the chat-completion shape the loop reads (None: no candidate)."""
    candidates = [c for c in response.get("candidates") or [] if isinstance(c, Mapping)]
    if not candidates:
        return None
    content: Mapping[str, Any] = candidates[0].get("content") or {}
    parts = [p for p in content.get("parts") or [] if isinstance(p, Mapping)]
    text = "".join(str(p.get("text") or "") for p in parts if not p.get("thought"))
    thinking = "".join(str(p.get("text") or "") for p in parts if p.get("thought"))
    u: Mapping[str, Any] = response.get("usageMetadata") or {}
    # Google bills thinking tokens as output, apart from candidatesTokenCount (LiteLLM adds them the same way).
    thoughts = int(u.get("thoughtsTokenCount") or 0)
    usage = {"prompt_tokens": int(u.get("promptTokenCount") or 0),
             "completion_tokens": int(u.get("candidatesTokenCount") or 0) + thoughts,
             "completion_tokens_details": {"reasoning_tokens": thoughts} if thoughts else {}} if u else None
    return {"choices": [{"message": {"content": text, "reasoning_content": thinking or None}}],
            **({"usage": usage} if usage else {})}


def _result(ex_id: str, item: Mapping[str, Any]) -> LineResult:
    response, error = item.get("response"), item.get("error")
    if isinstance(response, Mapping):
        chat = _as_chat(response)
        if chat is not None:
            return LineResult(ex_id, chat)
        feedback: Mapping[str, Any] = response.get("promptFeedback") or {}
        reason = str(feedback.get("blockReason") or "no candidate")
        return LineResult(ex_id, None, 400, "blocked", f"the response has no candidate ({reason})")
    err: Mapping[str, Any] = error if isinstance(error, Mapping) else {}
    code = err.get("code")
    status = _RPC_STATUS.get(code, 500) if isinstance(code, int) else None
    return LineResult(ex_id, None, status, str(err.get("status") or code or "not_run"), str(err.get("message") or ""))


def _inlined(obj: Mapping[str, Any]) -> list[Any] | None:
    """The inlined responses of a done Operation (or batch), None if it holds none."""
    for holder in (obj.get("response"), _batch(obj).get("output")):
        if isinstance(holder, Mapping):
            inner = holder.get("inlinedResponses")
            items = inner.get("inlinedResponses") if isinstance(inner, Mapping) else None
            if isinstance(items, list):
                return items
            if holder.get("responsesFile"):
                raise GraphNIAHError(f"{obj.get('name')}: its results are in a file ({holder['responsesFile']}); "
                                     "graphniah sends Gemini batches inline and reads inline results only")
    return None


def read_results(obj: Mapping[str, Any], key: str) -> dict[str, LineResult]:
    """The results of a done Operation of ``key``'s batch by example id (empty when it is another batch's)."""
    b = _batch(obj)
    if str(b.get("displayName") or b.get("display_name") or "") != display_name(key):
        return {}
    out: dict[str, LineResult] = {}
    for n, item in enumerate(_inlined(obj) or []):
        meta = item.get("metadata") if isinstance(item, Mapping) else None
        ex_id = meta.get("key") if isinstance(meta, Mapping) else None
        if not isinstance(ex_id, str):
            raise GraphNIAHError(f"{obj.get('name')}: inlined response {n} carries no metadata.key")
        out[ex_id] = _result(ex_id, item)
    return out


class GeminiBatches:
    """Gemini batch mode's endpoints for one model (the interface :class:`graphniah.run.batch.client.Batches` has)."""

    uploads = False

    def __init__(self, entry: ModelEntry):
        import httpx

        key = api_key(entry, "the Gemini API key")
        base = (entry.api_base or API_BASE).rstrip("/")
        self.base = base.removesuffix(f"/{VERSION}")
        self.http = httpx.Client(timeout=entry.timeout_s, headers={"x-goog-api-key": key})
        self.entry = entry
        self.model, self._params = self._settings(entry)
        self._done: dict[str, Mapping[str, Any]] = {}  # the last poll's reply of a done batch: its results came with it

    @staticmethod
    def _settings(entry: ModelEntry) -> tuple[str, dict[str, Any]]:
        """The model name and the generation settings as LiteLLM maps them for a direct call (the entry's extra
        body fields included: LiteLLM merges them into the request body, as a direct call's)."""
        from litellm.utils import get_optional_params

        kw = entry.completion_kwargs("standard")
        kw.pop("api_base", None)
        model = str(kw.pop("model")).split("/", 1)[1]
        try:
            params = get_optional_params(model=model, custom_llm_provider="gemini", **kw)
        except Exception as exc:  # LiteLLM's UnsupportedParamsError: the same refusal a direct call meets
            raise GraphNIAHError(f"{entry.name}: LiteLLM's Gemini translation refuses its settings "
                                 f"({type(exc).__name__}: {str(exc).splitlines()[0][:300]}); a direct call is refused "
                                 "the same way: change the entry's params") from None
        return model, dict(params)

    def request(self, ref: ExampleRef) -> dict[str, Any]:
        """The GenerateContentRequest of one example, as LiteLLM builds a direct call's body."""
        from litellm.llms.vertex_ai.gemini.transformation import transform_request_body

        messages: Any = list(ref.messages())  # LiteLLM's message TypedDicts, in shape
        return dict(transform_request_body(messages=messages, model=self.model, optional_params=copy.deepcopy(self._params),
                                           custom_llm_provider="gemini", litellm_params={}, cached_content=None))

    def line(self, ref: ExampleRef) -> bytes:
        """One inlined request of the batch: ``{"request", "metadata": {"key": <example id>}}`` and a newline."""
        line = {"request": self.request(ref), "metadata": {"key": ref.id}}
        return json.dumps(line, ensure_ascii=False, separators=(",", ":")).encode() + b"\n"

    def _request(self, method: str, path: str, **kw: Any) -> Any:
        resp = self.http.request(method, f"{self.base}/{VERSION}/{path}", **kw)
        resp.raise_for_status()
        return resp.json()

    def create_inline(self, key: str, data: bytes) -> Remote:
        """Create the batch of these request lines, named after ``key``."""
        lines = b",".join(x for x in data.splitlines() if x.strip())
        head = json.dumps({"display_name": display_name(key)})[:-1].encode()
        body = b'{"batch":' + head + b',"input_config":{"requests":{"requests":[' + lines + b"]}}}}"
        obj = self._request("POST", f"models/{self.model}:batchGenerateContent", content=body,
                            headers={"content-type": "application/json"})
        return remote_of(obj)

    def retrieve(self, batch_id: str) -> Remote:
        obj = self._request("GET", batch_id)
        remote = remote_of(obj)
        if remote.terminal:
            self._done[batch_id] = obj
        return remote

    def results(self, remote: Remote, key: str) -> dict[str, LineResult]:
        """A done batch's results of ``key``'s requests, by example id (empty for a batch not named after ``key``)."""
        if remote.tag is not None and remote.tag != display_name(key):
            return {}
        obj = self._done.pop(remote.batch_id, None)  # read once: a retried download asks Google again
        return read_results(obj if obj is not None else self._request("GET", remote.batch_id), key)

    def _listed(self) -> Iterable[Remote]:
        token: str | None = None
        while True:
            page = self._request("GET", "batches", params={"pageSize": _LIST_PAGE, **({"pageToken": token} if token else {})})
            yield from (remote_of(op) for op in page.get("operations") or [])
            token = page.get("nextPageToken") or None
            if token is None:
                return

    def find_batch(self, key: str, since: float, requests: int = 0, claimed: frozenset[str] = frozenset()) -> Remote | None:
        """The batch named after ``key`` a killed run may have created, not ``claimed`` by the journal.

        (Google lists batches without a stated order, so every page is read; ``since`` and ``requests``
        serve providers whose batches carry no name.)
        """
        for r in self._listed():
            if r.tag == display_name(key) and r.batch_id not in claimed:
                return r
        return None
