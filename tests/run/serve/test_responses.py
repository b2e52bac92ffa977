"""The policy server's Responses API (``POST /v1/responses``), read by the real ``openai`` client.

Requests are shaped as inspect_ai's ``openai/`` provider sends them for a model name it does not
know (the system prompt as a ``developer`` item of ``input_text`` parts, ``store: false``, an
``include`` list, a ``reasoning`` request); replies are validated by the SDK's own ``Response``
model, and streams are consumed by the SDK's event parser and stream accumulator.
"""

from __future__ import annotations

import json

import httpx
import pytest
from openai import APIConnectionError, OpenAI
from openai.types.responses import (
    Response,
    ResponseCompletedEvent,
    ResponseCreatedEvent,
    ResponseOutputItemAddedEvent,
    ResponseOutputItemDoneEvent,
    ResponseReasoningTextDeltaEvent,
    ResponseStreamEvent,
    ResponseTextDeltaEvent,
)
from pydantic import TypeAdapter

from graphniah.run.serve.server import approx_prompt_tokens
from graphniah.text import solve
from tests.run.serve.faulty import Faults, FaultServer


def msgs(ex) -> list[dict]:
    return [m.model_dump() for m in ex.messages]


def inspect_input(ex) -> list[dict]:
    """The input items inspect_ai sends for an example's [system, user] messages."""
    return [{"type": "message", "role": "developer" if m.role == "system" else m.role,
             "content": [{"type": "input_text", "text": m.content}]} for m in ex.messages]


def respond(url: str, ex=None, **body) -> httpx.Response:
    payload = {"model": "local-oracle", "store": False, "include": ["reasoning.encrypted_content"], **body}
    if ex is not None:
        payload["input"] = inspect_input(ex)
    return httpx.post(f"{url}/responses", json=payload, timeout=30)


def chat(url: str, messages, **extra) -> httpx.Response:
    return httpx.post(f"{url}/chat/completions", json={"model": "m", "messages": messages, **extra}, timeout=30)


def test_oracle_answers_through_the_responses_api_as_through_chat_completions(suite):
    picks = [next(e for e in suite.examples if e.task == t) for t in ("yesno", "mc", "count")]
    with FaultServer("oracle") as srv:
        for ex in picks:
            r = respond(srv.url, ex, reasoning={"effort": "low", "summary": "auto"})
            assert r.status_code == 200
            resp = Response.model_validate(r.json())  # the SDK's own schema, not a lenient construct
            assert resp.status == "completed" and resp.error is None and resp.id.startswith("resp_")
            assert resp.model == "local-oracle" and resp.store is False
            reasoning, message = resp.output
            assert reasoning.type == "reasoning" and reasoning.content and reasoning.content[0].text
            assert message.type == "message" and message.role == "assistant" and message.content[0].type == "output_text"
            assert resp.output_text.endswith(f"\\answer{{{solve(ex.messages)}}}") and solve(ex.messages) == ex.answer
            # the same text, usage and reasoning as chat completions give for the same messages
            cc = chat(srv.url, msgs(ex)).json()
            assert resp.output_text == cc["choices"][0]["message"]["content"]
            assert reasoning.content[0].text == cc["choices"][0]["message"]["reasoning_content"]
            u = resp.usage
            assert u.input_tokens == approx_prompt_tokens(msgs(ex)) == cc["usage"]["prompt_tokens"]
            assert u.output_tokens == cc["usage"]["completion_tokens"] and u.total_tokens == u.input_tokens + u.output_tokens
            assert u.output_tokens_details.reasoning_tokens == cc["usage"]["completion_tokens_details"]["reasoning_tokens"] > 0
            assert resp.metadata["usage_rule"] == "chars/4"
        assert srv.stats.apis == {"responses": 3, "chat": 3} and srv.stats.outcomes == {"ok": 6}


def test_instructions_and_a_string_input_are_the_system_and_user_messages(suite):
    ex = suite.examples[0]
    system, user = (m.content for m in ex.messages)
    with FaultServer("oracle") as srv:
        text = Response.model_validate(respond(srv.url, instructions=system, input=user).json()).output_text
        assert text.endswith(f"\\answer{{{ex.answer}}}")
        # inspect's capability probe: a bare string, no system prompt -> answered, without an answer block
        probe = respond(srv.url, input="Please say 'hello, world'", reasoning={"effort": "low", "summary": "auto"})
        assert probe.status_code == 200 and "\\answer{" not in Response.model_validate(probe.json()).output_text


def test_developer_role_is_the_system_message_in_chat_completions(suite):
    ex = suite.examples[0]
    as_developer = [{"role": "developer" if m["role"] == "system" else m["role"], "content": m["content"]} for m in msgs(ex)]
    as_parts = [{"role": m["role"], "content": [{"type": "text", "text": m["content"]}]} for m in as_developer]
    with FaultServer("oracle") as srv:
        for messages in (as_developer, as_parts):
            r = chat(srv.url, messages)
            assert r.status_code == 200
            assert r.json()["choices"][0]["message"]["content"].endswith(f"\\answer{{{ex.answer}}}")
            assert r.json()["usage"]["prompt_tokens"] == approx_prompt_tokens(msgs(ex))


def test_streamed_response_through_the_openai_client(suite):
    ex = next(e for e in suite.examples if e.task == "mc")
    with FaultServer("oracle") as srv:
        client = OpenAI(base_url=srv.url, api_key="not-a-key", max_retries=0)
        events = list(client.responses.create(model="local-oracle", input=inspect_input(ex), store=False, stream=True))
        # the SDK's stream helper rebuilds the response from the deltas and checks it against the events
        with client.responses.stream(model="local-oracle", input=inspect_input(ex), store=False) as stream:
            deltas = [e.delta for e in stream if e.type == "response.output_text.delta"]
            final = stream.get_final_response()
        raw = respond(srv.url, ex, stream=True)
    # every event on the wire passes the SDK's schema strictly (the client itself parses leniently)
    assert raw.headers["content-type"] == "text/event-stream"
    strict = TypeAdapter(ResponseStreamEvent)
    for block, event in zip(raw.text.strip().split("\n\n"), events, strict=True):
        name, data = block.split("\n")
        parsed = strict.validate_python(json.loads(data.removeprefix("data: ")))
        assert name == f"event: {parsed.type}" and type(parsed) is type(event)
    assert isinstance(events[0], ResponseCreatedEvent) and isinstance(events[-1], ResponseCompletedEvent)
    assert [e.sequence_number for e in events] == list(range(len(events)))
    assert sum(isinstance(e, ResponseOutputItemAddedEvent) for e in events) == 2 == sum(isinstance(e, ResponseOutputItemDoneEvent) for e in events)
    text = "".join(e.delta for e in events if isinstance(e, ResponseTextDeltaEvent))
    assert text.endswith(f"\\answer{{{ex.answer}}}") and text == events[-1].response.output_text
    assert any(isinstance(e, ResponseReasoningTextDeltaEvent) for e in events)
    assert events[0].response.output == [] and events[-1].response.usage.input_tokens == approx_prompt_tokens(msgs(ex))
    assert "".join(deltas) == final.output_text == text


def test_random_and_always_no_draw_the_same_way_on_both_apis(suite):
    mc = next(e for e in suite.examples if e.task == "mc")
    with FaultServer("random", seed=7) as srv:
        by_chat = [chat(srv.url, msgs(mc)).json()["choices"][0]["message"]["content"] for _ in range(12)]
    with FaultServer("random", seed=7) as srv:
        by_responses = [Response.model_validate(respond(srv.url, mc).json()).output_text for _ in range(12)]
        assert respond(srv.url, input="hello").status_code == 400  # no task to draw for
    assert by_chat == by_responses and len(set(by_chat)) > 1
    with FaultServer("always-no") as srv:
        resp = Response.model_validate(respond(srv.url, mc).json())
        assert resp.output_text == "\\answer{NO}" and [o.type for o in resp.output] == ["message"]
        assert resp.usage.output_tokens_details.reasoning_tokens == 0


def test_what_the_server_refuses_and_faults_on_the_responses_api(suite):
    ex = suite.examples[0]
    user = ex.messages[1].content
    with FaultServer("oracle", faults=Faults(script=("429", "auth"), retry_after_s=0.5)) as srv:
        # the fault script counts arrivals of the same messages whichever API brings them
        assert chat(srv.url, msgs(ex)).status_code == 429
        r = respond(srv.url, ex)
        assert r.status_code == 401 and r.json()["error"]["code"] == "invalid_api_key"
        assert respond(srv.url, ex).status_code == 200
        refusals = {
            "previous_response_id": respond(srv.url, ex, previous_response_id="resp_1"),
            "function_call": respond(srv.url, input=[{"type": "function_call", "call_id": "c", "name": "f", "arguments": "{}"}]),
            "input_image": respond(srv.url, input=[{"role": "user", "content": [{"type": "input_image", "image_url": "x"}]}]),
            "'tool'": respond(srv.url, input=[{"role": "tool", "content": user}]),
            "neither input nor instructions": respond(srv.url),
            "background": respond(srv.url, ex, background=True),
        }
        for what, r in refusals.items():
            assert r.status_code == 400 and what in r.json()["error"]["message"], (what, r.text)
        r = chat(srv.url, msgs(ex), stream=True)
        assert r.status_code == 400 and r.json()["error"]["param"] == "stream"  # clients may retry unstreamed
        assert srv.stats.apis == {"responses": 8, "chat": 2} and srv.stats.outcomes["http400"] == 7
    with FaultServer("oracle", faults=Faults(context_limit=100)) as srv:
        r = respond(srv.url, ex)
        assert r.status_code == 400 and r.json()["error"]["code"] == "context_length_exceeded"


@pytest.mark.parametrize("stream", [False, True])
def test_a_cut_connection_fails_the_client(suite, stream):
    ex = suite.examples[0]
    with FaultServer("oracle", faults=Faults(script=("cut",))) as srv:
        client = OpenAI(base_url=srv.url, api_key="not-a-key", max_retries=0)
        # the SDK wraps the dropped connection; a stream cut after the headers may surface as httpx's own error
        with pytest.raises((APIConnectionError, httpx.HTTPError)):
            out = client.responses.create(model="local-oracle", input=inspect_input(ex), store=False, stream=stream)
            if stream:
                list(out)
        assert client.responses.create(model="local-oracle", input=inspect_input(ex), store=False).output_text.endswith(
            f"\\answer{{{ex.answer}}}")
