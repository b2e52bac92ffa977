r"""The OpenAI-compatible HTTP server of the local endpoints: chat completions and the Responses API on 127.0.0.1.

Two OpenAI APIs, one answer path:

- ``POST /v1/chat/completions`` (non-streaming; a ``stream`` request is refused with
  ``param: "stream"``, which clients such as inspect_ai take as "retry without streaming");
- ``POST /v1/responses``, the Responses API, non-streaming or streamed as server-sent events
  (``stream: true``). inspect_ai's ``openai/`` provider sends every model name it does not know
  (``openai/local-oracle``) here, with the system prompt as a ``developer`` input item and
  ``store: false``; it first probes the endpoint once with a plain-string input and a
  ``reasoning.summary`` request, which the server answers like any other request.

Both turn their request into the same list of ``{role, content}`` text messages
(:func:`chat_messages`, :func:`responses_messages`: the ``developer`` role and the Responses
``instructions`` field are the system message, text content parts are joined), and
:meth:`ServerApp.reply` hands that list to the app's :meth:`ServerApp.answer`; only the JSON the
reply is wrapped in differs. What answers is an app (:class:`ServerApp`); the keyless policies
oracle, random and always-NO are :class:`graphniah.run.serve.policies.PolicyApp`.

``GET /v1/models`` lists the app's model as the one model and ``GET /health`` says ``ok``. The
server answers whatever model a request names.

Usage block: prompt tokens are counted with a cheap rule, not a tokenizer: ceil(characters / 4) per
message plus 3 per message and 3 for the reply (the o200k chat overhead), so a 50k-token prompt costs
nothing to count. Chat completions say so in ``system_fingerprint`` (``usage=chars/4``), responses in
their ``metadata`` (``usage_rule``). A reply's reasoning text goes out as ``reasoning_content`` in
chat completions and as a ``reasoning`` output item with ``reasoning_text`` content in responses,
and its tokens count as reasoning tokens.

Three methods of :class:`ServerApp` are where a subclass changes what a request gets: ``reply``
(the answer to normalised messages; both APIs come through it), ``refused`` (told of every request
answered with an HTTP error, a :class:`Rejection`) and ``deliver`` (sends a reply's bytes). The
tests' server (``tests/run/serve/faulty.py``) injects faults and counts requests there.

The server is a ``ThreadingHTTPServer`` with HTTP/1.1 keep-alive (:class:`LocalServer` runs it in a
background thread). The oracle solve is pure Python and holds the GIL, so one server process
answers on one core; ``bench/runner.py`` runs it in its own process so the client under test gets
the other core.
"""

from __future__ import annotations

import json
import sys
import threading
import time
import uuid
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Literal, Self

from graphniah.errors import GraphNIAHError

Api = Literal["chat", "responses"]
USAGE_RULE = "chars/4"
_MAX_BODY = 64 << 20  # 64 MiB: a 1M-token prompt is ~4 MB of text
# Roles as the apps see them: OpenAI's ``developer`` role is the system message of newer models.
ROLES = {"system": "system", "developer": "system", "user": "user", "assistant": "assistant"}
# Text content parts: ``text`` in chat completions, ``input_text``/``output_text`` in responses.
_TEXT_PARTS = ("text", "input_text", "output_text")
_ROUTES: dict[str, Api] = {"/v1/chat/completions": "chat", "/chat/completions": "chat",
                           "/v1/responses": "responses", "/responses": "responses"}


def approx_tokens(text: str) -> int:
    """The server's cheap token count: ceil(characters / 4) (documented in the usage rule)."""
    return -(-len(text) // 4)


def approx_prompt_tokens(messages: Sequence[Mapping[str, Any]]) -> int:
    """Prompt tokens of a chat under the cheap rule: content tokens + 3 per message + 3 for the reply."""
    return sum(approx_tokens(str(m.get("content") or "")) + 3 for m in messages) + 3


class Rejection(Exception):
    """An HTTP error reply: status, OpenAI-style error body, extra headers."""

    def __init__(self, status: int, message: str, code: str, type_: str, headers: Mapping[str, str] | None = None,
                 param: str | None = None):
        super().__init__(message)
        self.status, self.message, self.code, self.type, self.param = status, message, code, type_, param
        self.headers = dict(headers or {})

    def body(self) -> bytes:
        return json.dumps({"error": {"message": self.message, "type": self.type, "code": self.code, "param": self.param}}).encode()


def invalid_request(message: str, param: str | None = None) -> Rejection:
    """A 400 ``invalid_messages`` rejection: the request's messages cannot be read."""
    return Rejection(400, message, "invalid_messages", "invalid_request_error", param=param)


def _text(content: Any, where: str) -> str:
    """The text of a message's content: a string, or a list of text parts (joined; any other part is refused)."""
    if isinstance(content, str):
        return content
    if content is None:
        return ""
    if isinstance(content, list):
        texts = []
        for part in content:
            if not isinstance(part, Mapping) or part.get("type") not in _TEXT_PARTS or not isinstance(part.get("text"), str):
                kind = part.get("type") if isinstance(part, Mapping) else type(part).__name__
                raise invalid_request(f"{where}: only text content is supported by this server, got a {kind!r} part")
            texts.append(part["text"])
        return "".join(texts)
    raise invalid_request(f"{where}: content must be a string or a list of text parts, got {type(content).__name__}")


def _message(item: Any, where: str) -> dict[str, str]:
    if not isinstance(item, Mapping) or item.get("role") not in ROLES:
        role = item.get("role") if isinstance(item, Mapping) else None
        raise invalid_request(f"{where}: expected a message with role {', '.join(ROLES)}, got role {role!r}")
    return {"role": ROLES[item["role"]], "content": _text(item.get("content"), where)}


def chat_messages(payload: Mapping[str, Any]) -> list[dict[str, str]]:
    """The text messages of a chat-completions request (``developer`` read as ``system``)."""
    messages = payload.get("messages")
    if not isinstance(messages, list) or not messages:
        raise invalid_request("messages must be a non-empty list", "messages")
    return [_message(m, f"messages[{i}]") for i, m in enumerate(messages)]


def responses_messages(payload: Mapping[str, Any]) -> list[dict[str, str]]:
    """The text messages of a Responses request: ``instructions`` as the system message, then ``input``.

    ``input`` is a string (one user message) or a list of message items (``type: message`` or no
    type, any role of :data:`ROLES`); other item types (tool calls, reasoning replays, ...) are
    refused, and so is ``previous_response_id``: the server keeps no conversation state.
    """
    if payload.get("previous_response_id"):
        raise invalid_request("previous_response_id is not supported: this server stores no responses", "previous_response_id")
    if payload.get("background"):
        raise invalid_request("background responses are not supported by this server", "background")
    out: list[dict[str, str]] = []
    instructions = payload.get("instructions")
    if instructions is not None:
        if not isinstance(instructions, str):
            raise invalid_request("instructions must be a string", "instructions")
        out.append({"role": "system", "content": instructions})
    items = payload.get("input")
    if isinstance(items, str):
        out.append({"role": "user", "content": items})
    elif isinstance(items, list):
        for i, item in enumerate(items):
            kind = item.get("type", "message") if isinstance(item, Mapping) else None
            if kind != "message":
                raise invalid_request(f"input[{i}]: only message items are supported by this server, got {kind!r}", "input")
            out.append(_message(item, f"input[{i}]"))
    elif items is not None:
        raise invalid_request(f"input must be a string or a list of items, got {type(items).__name__}", "input")
    if not out:
        raise invalid_request("the request has neither input nor instructions", "input")
    return out


@dataclass(frozen=True)
class Reply:
    """An app's answer to one request, before it is wrapped in either API's JSON."""

    content: str
    reasoning: str | None
    prompt_tokens: int
    tier: str | None

    @property
    def reasoning_tokens(self) -> int:
        return approx_tokens(self.reasoning) if self.reasoning else 0

    @property
    def completion_tokens(self) -> int:
        return approx_tokens(self.content) + self.reasoning_tokens


class ServerApp(ABC):
    """What answers the server's requests: :meth:`answer` (abstract) and the request plumbing around it (thread-safe).

    Parameters
    ----------
    name : str
        What the replies name as their server (``graphniah-<name>`` in ``system_fingerprint`` and
        the Responses ``metadata``).
    model_name : str
        The one model ``GET /v1/models`` lists.
    """

    def __init__(self, name: str, model_name: str):
        self.name = name
        self.model_name = model_name

    @abstractmethod
    def answer(self, messages: Sequence[Mapping[str, Any]]) -> tuple[str, str | None]:
        """``(content, reasoning)`` of the reply to normalised messages, or raise :class:`Rejection`."""

    # -- one request ----------------------------------------------------------------------------

    def reply(self, messages: Sequence[Mapping[str, str]], tier: str | None, authorization: str | None,
              api: Api = "chat") -> Reply:
        """The app's reply to normalised messages; both APIs come through here.

        Parameters
        ----------
        messages : sequence of {role, content}
            The request's messages, as :func:`chat_messages` or :func:`responses_messages` gave them.
        tier : str or None
            The request's ``service_tier``.
        authorization : str or None
            The request's ``Authorization`` header (no key is needed: the server is keyless).
        api : {"chat", "responses"}
            Which API the request came through.

        Returns
        -------
        Reply
            The answer and its usage; a :class:`Rejection` is raised for a request that cannot be answered.
        """
        content, reasoning = self.answer(messages)
        return Reply(content, reasoning, approx_prompt_tokens(messages), tier)

    def refused(self, rejection: Rejection, tier: str | None, api: Api) -> None:  # noqa: B027  # an optional hook
        """Told of every request answered with an HTTP error; nothing to do here (a test server counts them)."""

    def deliver(self, handler: _Handler, data: bytes, content_type: str) -> None:
        """Send a reply's bytes with status 200 (a test server delays or cuts them here)."""
        try:
            handler.send(200, data, content_type=content_type)
        except (BrokenPipeError, ConnectionResetError):
            handler.close_connection = True  # the client gave up: nothing to do

    def complete(self, payload: Mapping[str, Any], authorization: str | None) -> dict[str, Any]:
        """A chat-completions reply body, or raise :class:`Rejection`."""
        messages = chat_messages(payload)
        if payload.get("stream"):
            # param=stream: inspect_ai (and others) retry without streaming when only a display asked for it
            raise Rejection(400, "streaming chat completions are not supported by this server (the Responses API streams)",
                          "unsupported", "invalid_request_error", param="stream")
        reply = self.reply(messages, payload.get("service_tier"), authorization, "chat")
        return chat_body(reply, str(payload.get("model") or self.model_name), self.name)

    def respond(self, payload: Mapping[str, Any], authorization: str | None) -> dict[str, Any]:
        """A Responses API reply body (the finished response, streamed or not), or raise :class:`Rejection`."""
        reply = self.reply(responses_messages(payload), payload.get("service_tier"), authorization, "responses")
        return responses_body(reply, payload, str(payload.get("model") or self.model_name), self.name)


def chat_body(reply: Reply, model: str, name: str) -> dict[str, Any]:
    """A ``chat.completion`` object carrying the reply."""
    message: dict[str, Any] = {"role": "assistant", "content": reply.content}
    if reply.reasoning:
        message["reasoning_content"] = reply.reasoning
    body: dict[str, Any] = {
        "id": f"chatcmpl-{uuid.uuid4().hex}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "system_fingerprint": f"graphniah-{name};usage={USAGE_RULE}",
        "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
        "usage": {
            "prompt_tokens": reply.prompt_tokens,
            "completion_tokens": reply.completion_tokens,
            "total_tokens": reply.prompt_tokens + reply.completion_tokens,
            "completion_tokens_details": {"reasoning_tokens": reply.reasoning_tokens},
        },
    }
    if reply.tier is not None:
        body["service_tier"] = reply.tier
    return body


def responses_body(reply: Reply, payload: Mapping[str, Any], model: str, name: str) -> dict[str, Any]:
    """A completed ``response`` object carrying the reply: a reasoning item (if any), then the assistant message.

    Request fields a response echoes (instructions, sampling knobs, tools, metadata) are echoed;
    the server keeps nothing (``store: false``).
    """
    output: list[dict[str, Any]] = []
    if reply.reasoning:
        output.append({"type": "reasoning", "id": f"rs_{uuid.uuid4().hex}", "status": "completed", "summary": [],
                       "content": [{"type": "reasoning_text", "text": reply.reasoning}]})
    output.append({"type": "message", "id": f"msg_{uuid.uuid4().hex}", "role": "assistant", "status": "completed",
                   "content": [{"type": "output_text", "text": reply.content, "annotations": [], "logprobs": []}]})
    metadata = dict(payload.get("metadata") or {})
    metadata.update({"server": f"graphniah-{name}", "usage_rule": USAGE_RULE})
    reasoning = payload.get("reasoning")
    now = int(time.time())
    return {
        "id": f"resp_{uuid.uuid4().hex}",
        "object": "response",
        "created_at": now,
        "completed_at": now,
        "status": "completed",
        "error": None,
        "incomplete_details": None,
        "instructions": payload.get("instructions"),
        "max_output_tokens": payload.get("max_output_tokens"),
        "model": model,
        "output": output,
        "parallel_tool_calls": bool(payload.get("parallel_tool_calls", True)),
        "previous_response_id": None,
        "reasoning": {"effort": reasoning.get("effort"), "summary": reasoning.get("summary")} if isinstance(reasoning, Mapping) else None,
        "service_tier": reply.tier or "default",
        "store": False,
        "temperature": payload.get("temperature", 1.0),
        "text": {"format": {"type": "text"}},
        "tool_choice": payload.get("tool_choice", "auto"),
        "tools": list(payload.get("tools") or []),
        "top_p": payload.get("top_p", 1.0),
        "truncation": "disabled",
        "usage": {
            "input_tokens": reply.prompt_tokens,
            "input_tokens_details": {"cached_tokens": 0, "cache_write_tokens": 0},
            "output_tokens": reply.completion_tokens,
            "output_tokens_details": {"reasoning_tokens": reply.reasoning_tokens},
            "total_tokens": reply.prompt_tokens + reply.completion_tokens,
        },
        "metadata": metadata,
    }


def response_events(response: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The server-sent events that stream a finished response, in the Responses API's order.

    ``response.created`` and ``response.in_progress`` carry the response without output or usage;
    each output item is announced (``output_item.added``), its text part opened, its whole text
    sent as one delta and closed, the item finished (``output_item.done``); ``response.completed``
    carries the whole response, which is what clients keep. The answer is computed before the
    first byte is sent, so the stream adds no information, only the wire format.
    """
    events: list[dict[str, Any]] = []

    def emit(kind: str, **fields: Any) -> None:
        events.append({"type": kind, "sequence_number": len(events), **fields})

    pending = {**response, "status": "in_progress", "completed_at": None, "output": [], "usage": None}
    emit("response.created", response=pending)
    emit("response.in_progress", response=pending)
    for index, item in enumerate(response["output"]):
        emit("response.output_item.added", output_index=index, item={**item, "status": "in_progress", "content": []})
        ids = {"item_id": item["id"], "output_index": index, "content_index": 0}
        for part in item["content"]:
            text = part["text"]
            if item["type"] == "reasoning":
                emit("response.reasoning_text.delta", **ids, delta=text)
                emit("response.reasoning_text.done", **ids, text=text)
                continue
            emit("response.content_part.added", **ids, part={**part, "text": ""})
            emit("response.output_text.delta", **ids, delta=text, logprobs=[])
            emit("response.output_text.done", **ids, text=text, logprobs=[])
            emit("response.content_part.done", **ids, part=part)
        emit("response.output_item.done", output_index=index, item=item)
    emit("response.completed", response=response)
    return events


def sse(events: Sequence[Mapping[str, Any]]) -> bytes:
    """Events as a ``text/event-stream`` body (``event:`` names the type, ``data:`` is the JSON)."""
    return b"".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n".encode() for e in events)


class QuietHandler(BaseHTTPRequestHandler):
    """The local servers' request handler base: HTTP/1.1, nothing logged, one way to send a body."""

    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        """Silent: request lines would be noise, and headers (keys) must never be logged."""

    def send(self, status: int, body: bytes, headers: Mapping[str, str] | None = None,
             content_type: str = "application/json") -> None:
        """One response: status, content type and length, any extra headers, then the body."""
        try:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            for k, v in (headers or {}).items():
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True  # the client is gone (a killed run): nothing to answer


class _Handler(QuietHandler):
    server: _Server

    def do_GET(self) -> None:
        app = self.server.app
        if self.path.rstrip("/") in ("/health", "/v1/health"):
            self.send(200, b'{"status":"ok"}')
        elif self.path.rstrip("/") in ("/v1/models", "/models"):
            self.send(200, json.dumps({"object": "list", "data": [{"id": app.model_name, "object": "model", "owned_by": "graphniah"}]}).encode())
        else:
            self.send(404, Rejection(404, f"no route {self.path}", "not_found", "invalid_request_error").body())

    def do_POST(self) -> None:
        app = self.server.app
        length = int(self.headers.get("Content-Length") or 0)
        if length <= 0 or length > _MAX_BODY:
            self.close_connection = True
            self.send(400 if length <= 0 else 413, Rejection(400, "request body missing or too large", "invalid_body", "invalid_request_error").body())
            return
        raw = self.rfile.read(length)
        api = _ROUTES.get(self.path.rstrip("/"))
        if api is None:
            self.send(404, Rejection(404, f"no route {self.path}", "not_found", "invalid_request_error").body())
            return
        payload: Any = None
        try:
            payload = json.loads(raw)
            if not isinstance(payload, dict):
                raise ValueError("not an object")
            body = app.complete(payload, self.headers.get("Authorization")) if api == "chat" else \
                app.respond(payload, self.headers.get("Authorization"))
        except Rejection as rej:
            app.refused(rej, payload.get("service_tier") if isinstance(payload, dict) else None, api)
            self.send(rej.status, rej.body(), rej.headers)
            return
        except ValueError as err:
            bad = Rejection(400, f"request body is not a JSON object ({err})", "invalid_json", "invalid_request_error")
            app.refused(bad, None, api)
            self.send(400, bad.body())
            return
        streamed = api == "responses" and bool(payload.get("stream"))
        data = sse(response_events(body)) if streamed else json.dumps(body).encode()
        content_type = "text/event-stream" if streamed else "application/json"
        app.deliver(self, data, content_type)


class AppServer(ThreadingHTTPServer):
    """A threading server on 127.0.0.1 holding the app its handlers answer from (the local endpoints' and
    the fake batch service's); a client that vanishes mid-request is not an error."""

    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 256

    def __init__(self, address: tuple[str, int], handler: type[BaseHTTPRequestHandler], app: Any):
        super().__init__(address, handler)
        self.app = app

    def handle_error(self, request: Any, client_address: Any) -> None:
        if isinstance(sys.exc_info()[1], ConnectionError):
            return  # a client killed in the middle of a request (the kill tests and bench/batch.py do it on purpose)
        super().handle_error(request, client_address)


class _Server(AppServer):
    app: ServerApp

    def __init__(self, address: tuple[str, int], app: ServerApp):
        super().__init__(address, _Handler, app)


class LocalServer:
    """A running server of an app on 127.0.0.1 (a background thread); use as a context manager.

    ``port=0`` picks a free port; ``url`` is the OpenAI-style base URL (``http://127.0.0.1:P/v1``).
    """

    def __init__(self, app: ServerApp, *, port: int = 0, host: str = "127.0.0.1"):
        self.app = app
        try:
            self._httpd = _Server((host, port), self.app)
        except OSError as err:
            raise GraphNIAHError(f"cannot listen on {host}:{port}: {err.strerror}") from None
        self._thread: threading.Thread | None = None

    @property
    def port(self) -> int:
        return int(self._httpd.server_address[1])

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def start(self) -> Self:
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self._thread.start()
        return self

    def serve_forever(self) -> None:
        """Serve in the calling thread until interrupted (the CLI's mode)."""
        try:
            self._httpd.serve_forever(poll_interval=0.2)
        finally:
            self._httpd.server_close()

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def wait_until_healthy(base_url: str, timeout_s: float = 60.0, interval_s: float = 0.1) -> None:
    """Poll ``<root>/health`` until it answers 200 (``base_url`` may end in ``/v1``)."""
    import httpx

    root = base_url.rstrip("/").removesuffix("/v1")
    deadline = time.monotonic() + timeout_s
    last = "no answer"
    while time.monotonic() < deadline:
        try:
            r = httpx.get(f"{root}/health", timeout=2.0)
            if r.status_code == 200:
                return
            last = f"HTTP {r.status_code}"
        except httpx.HTTPError as err:
            last = type(err).__name__
        time.sleep(interval_s)
    raise GraphNIAHError(f"server at {root} did not become healthy within {timeout_s:.0f} s (last: {last})")

