"""A batch's input and output lines: one chat-completions request per example, split by the limits.

The input file of an OpenAI-compatible batch holds one JSON line per request,
``{"custom_id", "method": "POST", "url": "/v1/chat/completions", "body"}``. The body is what a
direct call sends (:meth:`graphniah.run.models.ModelEntry.completion_kwargs` at the standard tier:
the batch is a tier of its own): the model without its LiteLLM provider prefix, the messages, the
sampling parameters, the reasoning effort, and the extra body fields at the top level (where the
HTTP request puts them). The custom id is the example id.

Output lines are ``{"custom_id", "response": {"status_code", "body"}, "error"}``; a line the
batch never ran (expired, cancelled) has no response and an ``error`` object. :func:`read_results`
turns both files into one :class:`LineResult` per custom id.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from graphniah.errors import GraphNIAHError
from graphniah.formats.examples import ExampleRef
from graphniah.run.batch.options import Limits
from graphniah.run.models import ModelEntry

ENDPOINT = "/v1/chat/completions"


def request_body(entry: ModelEntry, ref: ExampleRef) -> dict[str, Any]:
    """The chat-completions body of one example, as a direct call at the standard tier would send it."""
    kw = entry.completion_kwargs("standard")
    kw.pop("api_base", None)
    extra = kw.pop("extra_body", {})
    model = str(kw.pop("model")).split("/", 1)[1]
    return {"model": model, "messages": list(ref.messages()), **kw, **extra}


def request_line(entry: ModelEntry, ref: ExampleRef) -> bytes:
    """One input-file line (compact JSON and a newline)."""
    line = {"custom_id": ref.id, "method": "POST", "url": ENDPOINT, "body": request_body(entry, ref)}
    return json.dumps(line, ensure_ascii=False, separators=(",", ":")).encode() + b"\n"


def split(lines: Iterable[tuple[str, bytes]], limits: Limits) -> Iterator[list[tuple[str, bytes]]]:
    """Consecutive groups of ``(custom id, line)`` that each keep the limits (requests and bytes), one at a time.

    Raises
    ------
    GraphNIAHError
        When one line alone is larger than a batch may be (once the groups before it are given).
    """
    group: list[tuple[str, bytes]] = []
    size = 0
    for cid, line in lines:
        if len(line) > limits.max_bytes:
            raise GraphNIAHError(f"example {cid}: its batch request takes {len(line):,} bytes, more than a batch file "
                                 f"may hold ({limits.max_bytes:,}); run it without --batch")
        if group and (len(group) >= limits.max_requests or size + len(line) > limits.max_bytes):
            yield group
            group, size = [], 0
        group.append((cid, line))
        size += len(line)
    if group:
        yield group


@dataclass(frozen=True)
class LineResult:
    """What a batch did with one request.

    ``body`` is the chat completion of a request that succeeded (HTTP 200); otherwise ``status``
    (None for a request that never ran), ``code`` and ``message`` say what happened.
    """

    custom_id: str
    body: Mapping[str, Any] | None
    status: int | None = None
    code: str = ""
    message: str = ""

    @property
    def ok(self) -> bool:
        return self.body is not None

    @property
    def retryable(self) -> bool:
        """A request that never ran, was rate-limited or met a server error: send it again."""
        return self.status is None or self.status == 429 or self.status >= 500


def _result(obj: Mapping[str, Any], where: str) -> LineResult:
    cid = obj.get("custom_id")
    if not isinstance(cid, str):
        raise GraphNIAHError(f"{where}: a batch result line without a custom_id")
    resp = obj.get("response")
    error = obj.get("error")
    if isinstance(resp, Mapping) and resp.get("status_code") == 200 and isinstance(resp.get("body"), Mapping):
        return LineResult(cid, resp["body"])
    if isinstance(resp, Mapping):
        body = resp.get("body")
        err = body.get("error") if isinstance(body, Mapping) else None
        err = err if isinstance(err, Mapping) else {}
        status = resp.get("status_code")
        return LineResult(cid, None, int(status) if isinstance(status, int) else 500, str(err.get("code") or ""),
                          str(err.get("message") or ""))
    err = error if isinstance(error, Mapping) else {}
    return LineResult(cid, None, None, str(err.get("code") or "not_run"), str(err.get("message") or ""))


def json_lines(data: bytes, where: str) -> Iterator[tuple[str, Mapping[str, Any]]]:
    """``(where:line, object)`` of each non-blank line of a results file (one that is not a JSON object is an error)."""
    for n, line in enumerate(data.splitlines(), 1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except ValueError as err:
            raise GraphNIAHError(f"{where}:{n}: a batch result line is not JSON ({err})") from None
        if not isinstance(obj, Mapping):
            raise GraphNIAHError(f"{where}:{n}: a batch result line is not a JSON object")
        yield f"{where}:{n}", obj


def read_results(data: bytes, where: str) -> dict[str, LineResult]:
    """The result lines of an output or error file, by custom id (a line that is not JSON is an error naming ``where``)."""
    out: dict[str, LineResult] = {}
    for at, obj in json_lines(data, where):
        res = _result(obj, at)
        out[res.custom_id] = res
    return out
