"""``graphniah run --batch`` for a ``gemini/...`` model: Gemini batch mode on the fake service
(graphniah.run.serve.batches), answers and scores as direct calls give, failed and expired lines
resent alone, a killed creation found again by its display name, another batch's results never
taken, and the key never written anywhere. The SIGKILL tests are in tests/faults/test_batch_kill.py."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from graphniah.errors import GraphNIAHError
from graphniah.formats.journal import BatchCounts, read_batches
from graphniah.layout import journal_file
from graphniah.run import read_journal
from graphniah.run.batch.gemini import GeminiBatches, read_results, remote_of
from graphniah.run.batch.lines import split
from graphniah.run.batch.options import BatchOptions, batch_limits
from graphniah.run.serve.batches import BatchFaults, BatchServer
from graphniah.run.serve.policies import PolicyServer
from tests.run.helpers import local_entry
from tests.run.test_batch_anthropic import _files_text, _plan_refs, run

KEY = "AIzaSyGraphNIAH-test-0c9e7d5b1f2a3e4d"  # shaped like a Google API key


#: A model LiteLLM's map knows to take a system instruction (for a name it does not know, LiteLLM folds the
#: system message into the user's turn, and the oracle then cannot read the question).
MODEL = "gemini-3.1-pro-preview"


def gemini_entry(url: str, name: str = "gemini-oracle", model: str = MODEL, **changes):
    return local_entry("local-oracle", name=name, litellm_model=f"gemini/{model}", api_key_env="GEMINI_API_KEY", api_base=url,
                       price={"standard": {"input": 0.75, "output": 3.75}}, **changes)


def records(runs, model="gemini-oracle"):
    return read_journal(journal_file(runs, "demo", model))


def test_a_gemini_batch_answers_and_scores_as_direct_calls(suite, tmp_path, monkeypatch):
    monkeypatch.setenv("GEMINI_API_KEY", KEY)
    ids = {e.id for e in suite.examples}
    with PolicyServer("oracle") as direct, BatchServer("oracle", api_key=KEY) as batched:
        run(local_entry("local-oracle", name="gemini-oracle", api_base=direct.url), suite, tmp_path / "direct", batch=None)
        s = run(gemini_entry(batched.url), suite, tmp_path / "batch")
        assert (s.sent, s.ok, s.failed, s.unsent) == (16, 16, 0, 0)
        # The service took every request with the key (403 otherwise), each example once.
        assert batched.submitted == Counter(dict.fromkeys(ids, 1)) == batched.answered
        state = Path(batched.batch_app.state.folder)
        batches = [b for b in batched.batch_app.state.batches.values() if b.get("_shape") == "gemini"]
        assert len(batches) == 1 and batches[0]["status"] == "completed"
        assert batches[0]["model"] == f"models/{MODEL}" and batches[0]["display_name"].startswith("graphniah-")
        assert KEY not in _files_text(tmp_path / "batch", state)  # nor in what the provider was sent
    d = {r.example_id: r for r in records(tmp_path / "direct")}
    b = {r.example_id: r for r in records(tmp_path / "batch")}
    assert set(d) == set(b) == ids
    for i in ids:
        assert (b[i].extracted, b[i].correct, b[i].response) == (d[i].extracted, d[i].correct, d[i].response)
        assert b[i].batch_id is not None and b[i].batch_id.startswith("batches/") and b[i].service_tier == "batch"
        # Priced at LiteLLM's batch price for the model (its map: 1 and 6 USD per 1M, half of the standard 2 and 12).
        u = b[i].usage
        assert u is not None and u.prompt_tokens and u.completion_tokens
        assert (u.prompt_tokens, u.completion_tokens) == (d[i].usage.prompt_tokens, d[i].usage.completion_tokens)
        assert b[i].cost_usd_registry == pytest.approx((u.prompt_tokens * 1.0 + u.completion_tokens * 6.0) / 1e6)
        assert b[i].cost_usd == pytest.approx((u.prompt_tokens * 1.0 + u.completion_tokens * 6.0) / 1e6)
    assert all(r.correct for r in b.values())
    journal = read_batches(journal_file(tmp_path / "batch", "demo", "gemini-oracle"))
    assert [x.event for x in journal][:2] == ["intent", "created"]  # no file to upload: the requests go inline
    assert {x.provider for x in journal if x.event == "intent"} == {"gemini"}
    created = next(x for x in journal if x.event == "created")
    assert batches[0]["display_name"] == f"graphniah-{created.key}" and created.batch_id == batches[0]["id"]


def test_failed_and_expired_gemini_lines_are_sent_again_alone(suite, tmp_path, monkeypatch):
    monkeypatch.setenv("GEMINI_API_KEY", KEY)
    ids = sorted(e.id for e in suite.examples)
    flaky = frozenset(ids[:3])
    # Batches of 5: the first expires whole (5 lines never run), three lines of the others fail once (INTERNAL).
    faults = BatchFaults(fail_first=flaky, expire=frozenset({1}))
    with BatchServer("oracle", faults=faults, api_key=KEY) as srv:
        s = run(gemini_entry(srv.url), suite, tmp_path / "runs", batch=BatchOptions(poll_s=0.02, max_requests=5))
        assert (s.ok, s.failed) == (16, 0)
        assert srv.answered == Counter(dict.fromkeys(ids, 1))
        intents = [b for b in read_batches(journal_file(tmp_path / "runs", "demo", "gemini-oracle")) if b.event == "intent"]
        first = [b for b in intents if b.attempt == 1]
        assert [len(b.custom_ids) for b in first] == [5, 5, 5, 1]
        expired = set(first[0].custom_ids)
        again = {i for b in intents if b.attempt == 2 for i in b.custom_ids}
        assert again == expired | (flaky - expired)
        assert srv.submitted == Counter({i: 1 + (i in again) + (i in flaky and i in expired) for i in ids})
    recs = {r.example_id: r for r in records(tmp_path / "runs")}
    assert all(r.correct for r in recs.values()) and set(recs) == set(ids)
    assert all(recs[i].attempts >= 2 for i in again)
    assert all(recs[i].errors and recs[i].errors[0].status in (None, 500) for i in again)


def test_a_lost_creation_is_found_by_its_display_name_and_another_batch_is_never_taken(suite, tmp_path, monkeypatch):
    monkeypatch.setenv("GEMINI_API_KEY", KEY)
    ids = {e.id for e in suite.examples}
    with BatchServer("oracle", api_key=KEY) as srv:
        entry = gemini_entry(srv.url)
        api = GeminiBatches(entry)
        refs = {r.id: r for r in _plan_refs(entry, suite, tmp_path)}
        data = b"".join(api.line(refs[i]) for i in sorted(ids))
        # Another run's batch of the same requests, made just before: never taken for ours.
        other = api.create_inline("ffffffff0000", data)
        made = api.create_inline("0123456789ab", data)
        assert made.tag == "graphniah-0123456789ab" and made.status == "validating" and made.counts.total == 16
        assert api.find_batch("0123456789ab", made.created_at) == made
        assert api.find_batch("0123456789ab", made.created_at, claimed=frozenset({made.batch_id})) is None
        assert api.find_batch("000000000000", made.created_at) is None
        # Listing follows nextPageToken: one batch a page, the older batch on the second.
        monkeypatch.setattr("graphniah.run.batch.gemini._LIST_PAGE", 1)
        assert api.find_batch("ffffffff0000", made.created_at) == other
        for b in (other, made):
            done = api.retrieve(b.batch_id)
            assert done.terminal and done.status == "completed" and done.counts == BatchCounts(total=16, completed=16, failed=0)
        mine = api.results(api.retrieve(made.batch_id), "0123456789ab")
        assert set(mine) == ids and all(r.ok for r in mine.values())
        # The other batch's results are not taken for our key, even when asked by its id.
        assert api.results(api.retrieve(other.batch_id), "0123456789ab") == {}
        assert srv.submitted == Counter(dict.fromkeys(ids, 2))


def test_the_key_never_reaches_a_file_or_an_error(suite, tmp_path, monkeypatch):
    monkeypatch.setenv("GEMINI_API_KEY", KEY)
    with BatchServer("oracle", api_key="AIzaSy-the-right-one-0000000000") as srv:
        with pytest.raises(GraphNIAHError) as err:
            run(gemini_entry(srv.url), suite, tmp_path / "runs")
        assert "auth" in str(err.value) and KEY not in str(err.value)
        assert KEY not in _files_text(tmp_path / "runs")
        assert sum(srv.submitted.values()) == 0
    monkeypatch.delenv("GEMINI_API_KEY")
    with BatchServer("oracle") as srv, pytest.raises(GraphNIAHError, match="GEMINI_API_KEY"):
        run(gemini_entry(srv.url), suite, tmp_path / "runs2")
    with pytest.raises(GraphNIAHError, match=r"gemini-oracle: the environment variable GEMINI_API_KEY .* is not set"):
        GeminiBatches(gemini_entry("http://127.0.0.1:9"))


def test_gemini_operations_and_inlined_responses():
    """A hand-written Operation as Google's batch mode returns it (int64 counts as strings)."""
    op = {"name": "batches/abc123", "done": True, "metadata": {
        "@type": "type.googleapis.com/google.ai.generativelanguage.v1beta.GenerateContentBatch",
        "model": "models/gemini-x", "displayName": "graphniah-k1", "name": "batches/abc123", "state": "BATCH_STATE_SUCCEEDED",
        "createTime": "2026-04-02T10:00:00.123456789Z",
        "batchStats": {"requestCount": "6", "successfulRequestCount": "3", "failedRequestCount": "3"}},
        "response": {"inlinedResponses": {"inlinedResponses": [
            {"response": {"candidates": [{"content": {"parts": [{"text": "hmm", "thought": True}, {"text": "YES"}],
                                                      "role": "model"}}],
                          "usageMetadata": {"promptTokenCount": 100, "candidatesTokenCount": 7, "thoughtsTokenCount": 30}},
             "metadata": {"key": "a"}},
            {"error": {"code": 13, "message": "Internal error encountered.", "status": "INTERNAL"}, "metadata": {"key": "b"}},
            {"error": {"code": 3, "message": "prompt too long", "status": "INVALID_ARGUMENT"}, "metadata": {"key": "c"}},
            {"error": {"code": 8, "message": "quota", "status": "RESOURCE_EXHAUSTED"}, "metadata": {"key": "d"}},
            {"response": {"promptFeedback": {"blockReason": "SAFETY"}}, "metadata": {"key": "e"}},
            {"response": {"candidates": [{"content": {"parts": [{"text": "NO"}]}}]}, "metadata": {"key": "f"}},
        ]}}}
    r = remote_of(op)
    assert (r.batch_id, r.status, r.terminal, r.tag) == ("batches/abc123", "completed", True, "graphniah-k1")
    assert r.counts == BatchCounts(total=6, completed=3, failed=3)
    assert r.created_at == pytest.approx(1775124000.123456)  # 2026-04-02T10:00:00Z, nanoseconds cut to micro
    out = read_results(op, "k1")
    assert set(out) == set("abcdef")
    a = out["a"].body
    assert a is not None and a["choices"][0]["message"] == {"content": "YES", "reasoning_content": "hmm"}
    assert a["usage"] == {"prompt_tokens": 100, "completion_tokens": 37, "completion_tokens_details": {"reasoning_tokens": 30}}
    assert (out["b"].status, out["b"].retryable) == (500, True)
    assert (out["c"].status, out["c"].retryable, out["c"].message) == (400, False, "prompt too long")
    assert (out["d"].status, out["d"].retryable) == (429, True)
    assert (out["e"].ok, out["e"].status, out["e"].retryable) == (False, 400, False) and "SAFETY" in out["e"].message
    assert out["f"].body is not None and out["f"].body["choices"][0]["message"]["content"] == "NO"
    assert read_results(op, "k2") == {}  # another key's batch: nothing taken
    for state, status in [("BATCH_STATE_PENDING", "validating"), ("BATCH_STATE_RUNNING", "in_progress"),
                          ("BATCH_STATE_EXPIRED", "expired"), ("BATCH_STATE_FAILED", "failed"),
                          ("BATCH_STATE_CANCELLED", "cancelled")]:
        got = remote_of({"name": "batches/x", "metadata": {**op["metadata"], "state": state}})
        assert (got.status, got.terminal) == (status, state not in ("BATCH_STATE_PENDING", "BATCH_STATE_RUNNING"))
    no_key = {**op, "response": {"inlinedResponses": {"inlinedResponses": [{"response": {}}]}}}
    with pytest.raises(GraphNIAHError, match=r"metadata\.key"):
        read_results(no_key, "k1")


def test_a_request_is_the_generate_content_body_a_direct_call_sends(suite, tmp_path, monkeypatch):
    monkeypatch.setenv("GEMINI_API_KEY", KEY)
    # A model LiteLLM's map knows to take a system instruction; top_k goes into the body as a direct call's extra body.
    entry = gemini_entry("http://127.0.0.1:9", reasoning_effort="low",
                         params=local_entry(params={"temperature": 0.5, "top_k": 20, "max_tokens": 64}).params)
    api = GeminiBatches(entry)
    ref = _plan_refs(entry, suite, tmp_path)[0]
    (system, user) = ref.messages()
    line = json.loads(api.line(ref))
    assert line == {"metadata": {"key": ref.id}, "request": {
        "contents": [{"role": "user", "parts": [{"text": user["content"]}]}],
        "system_instruction": {"parts": [{"text": system["content"]}]},
        "generationConfig": {"temperature": 0.5, "max_output_tokens": 64,
                             "thinkingConfig": {"thinkingLevel": "low", "includeThoughts": True}},
        "top_k": 20}}


def test_batches_keep_googles_20_mb_inline_limit(monkeypatch):
    """Google takes at most 20 MB of inlined requests per batch: larger runs go as several batches."""
    limits = batch_limits("gemini/gemini-3.8-flash", "gemini-3.8-flash", BatchOptions())
    assert limits.max_bytes < 20_000_000
    line = b"x" * 1_000_000
    groups = list(split(((f"e{i}", line) for i in range(45)), limits))
    assert [len(g) for g in groups] == [19, 19, 7]


def test_the_papers_gemini_settings_reach_the_request_and_a_refused_one_is_a_clear_error(monkeypatch):
    monkeypatch.setenv("GEMINI_API_KEY", KEY)
    # LiteLLM's map flags gemini-3.8-flash supports_sampling_params: false; the paper sent temperature 1.0
    # and top_p 0.95 (appendix C), so the entry names them and they reach the generation config.
    entry = gemini_entry("http://127.0.0.1:9", name="gemini-3.8-flash", model="gemini-3.8-flash",
                         params=local_entry(params={"temperature": 1.0, "top_p": 0.95}).params)
    config = GeminiBatches(entry)._params
    assert (config["temperature"], config["top_p"]) == (1.0, 0.95)
    # A keyword LiteLLM refuses for Gemini (logit bias) is an error naming the entry, without the key.
    kwargs = type(entry).completion_kwargs
    monkeypatch.setattr(type(entry), "completion_kwargs", lambda self, tier: {**kwargs(self, tier), "logit_bias": {"1": 1}})
    with pytest.raises(GraphNIAHError, match=r"gemini-3.8-flash: LiteLLM's Gemini translation refuses its settings") as err:
        GeminiBatches(entry)
    assert KEY not in str(err.value)


def _gemini_requests(n: int, text: str = "Is it?") -> dict:
    """A hand-written batchGenerateContent body of ``n`` inlined requests keyed c0, c1, ..."""
    req = {"contents": [{"role": "user", "parts": [{"text": text}]}]}
    return {"batch": {"display_name": "graphniah-k", "input_config": {"requests": {"requests": [
        {"request": req, "metadata": {"key": f"c{i}"}} for i in range(n)]}}}}


def test_the_fake_service_speaks_gemini_batch_mode_with_its_faults(tmp_path):
    """Over plain HTTP: 429 on the first creation, completion on the 2nd poll, a failed line, an expired
    batch, paging by pageToken, the key required, and a restart keeping the batches and counts."""
    import httpx

    state = tmp_path / "state"
    faults = BatchFaults(polls_to_complete=2, fail_first=frozenset({"c1"}), expire=frozenset({2}), rate_limit_creates=1)
    with BatchServer("always-no", state_dir=state, faults=faults, api_key="k-1") as srv, \
            httpx.Client(base_url=f"{srv.url}/v1beta", headers={"x-goog-api-key": "k-1"}) as c:
        create = "/models/gemini-x:batchGenerateContent"
        assert c.post(create, json=_gemini_requests(3), headers={"x-goog-api-key": "wrong"}).status_code == 403
        assert c.post(create, json=_gemini_requests(3)).status_code == 429 and srv.submitted == {}
        assert c.post(create, json={"batch": {"display_name": "x"}}).status_code == 400
        op = c.post(create, json=_gemini_requests(3)).json()
        assert op["name"].startswith("batches/") and op["done"] is False
        assert (op["metadata"]["state"], op["metadata"]["displayName"], op["metadata"]["model"]) == (
            "BATCH_STATE_PENDING", "graphniah-k", "models/gemini-x")
        assert c.get(f"/{op['name']}").json()["metadata"]["state"] == "BATCH_STATE_RUNNING"
        expired = c.post(create, json=_gemini_requests(2)).json()  # the second batch created expires
        ops = c.get("/batches", params={"pageSize": 1}).json()
        assert [o["name"] for o in ops["operations"]] == [expired["name"]]
        rest = c.get("/batches", params={"pageSize": 1, "pageToken": ops["nextPageToken"]}).json()
        assert [o["name"] for o in rest["operations"]] == [op["name"]] and "nextPageToken" not in rest
    with BatchServer("always-no", state_dir=state, faults=faults, api_key="k-1") as again, \
            httpx.Client(base_url=f"{again.url}/v1beta", headers={"x-goog-api-key": "k-1"}) as c:
        done = c.get(f"/{op['name']}").json()  # the second poll, counted across the restart
        assert done["done"] is True and done["metadata"]["state"] == "BATCH_STATE_SUCCEEDED"
        assert done["metadata"]["batchStats"] == {"requestCount": "3", "successfulRequestCount": "2",
                                                  "failedRequestCount": "1", "pendingRequestCount": "0"}
        items = done["response"]["inlinedResponses"]["inlinedResponses"]
        assert [x["metadata"]["key"] for x in items] == ["c0", "c1", "c2"]
        assert items[1]["error"]["code"] == 13 and "response" not in items[1]
        assert {x["response"]["candidates"][0]["content"]["parts"][0]["text"] for x in (items[0], items[2])} == {"\\answer{NO}"}
        gone = c.get(f"/{expired['name']}").json()
        gone = c.get(f"/{expired['name']}").json()
        assert gone["metadata"]["state"] == "BATCH_STATE_EXPIRED" and gone["done"] and "response" not in gone
        assert c.get("/batches/nope").status_code == 404
        assert again.submitted == {"c0": 2, "c1": 2, "c2": 1} and again.answered == {"c0": 1, "c2": 1}
