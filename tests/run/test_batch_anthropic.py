"""``graphniah run --batch`` for an ``anthropic/...`` model: Anthropic's Message Batches on the fake
service (graphniah.run.serve.batches), answers and scores as direct calls give, failed and expired
lines resent alone, a killed creation found again, and the key never written anywhere.
The SIGKILL tests are in tests/faults/test_batch_kill.py."""

from __future__ import annotations

import dataclasses
import json
from collections import Counter
from pathlib import Path

import pytest

from graphniah.errors import GraphNIAHError
from graphniah.formats.journal import read_batches
from graphniah.layout import journal_file
from graphniah.run import read_journal, run_suite
from graphniah.run.batch.anthropic import AnthropicBatches, read_results
from graphniah.run.batch.options import BatchOptions
from graphniah.run.runner import RunSummary
from graphniah.run.serve.batches import BatchFaults, BatchServer
from graphniah.run.serve.policies import PolicyServer
from tests.run.helpers import fast_options, local_entry

FAST = BatchOptions(poll_s=0.02)
KEY = "sk-ant-graphniah-test-5b1f0c9e7d"  # shaped like a key: the redactor's patterns match it too


def anthropic_entry(url: str, name: str = "claude-oracle"):
    return local_entry("local-oracle", name=name, litellm_model=f"anthropic/{name}", api_key_env="ANTHROPIC_API_KEY", api_base=url,
                       price={"standard": {"input": 3.0, "output": 15.0}})


def run(entry, suite, runs, batch=FAST, **opts) -> RunSummary:
    out = run_suite(entry, suite.path, runs_root=runs, snapshots_root=suite.snapshots,
                    options=fast_options(batch=batch, **opts))
    assert isinstance(out, RunSummary)
    return out


def records(runs, model="claude-oracle"):
    return read_journal(journal_file(runs, "demo", model))


def _files_text(*roots: Path) -> str:
    return "".join(p.read_text(errors="replace") for root in roots for p in root.rglob("*") if p.is_file())


def test_an_anthropic_batch_answers_and_scores_as_direct_calls(suite, tmp_path, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    ids = {e.id for e in suite.examples}
    with PolicyServer("oracle") as direct, BatchServer("oracle", api_key=KEY) as batched:
        run(local_entry("local-oracle", name="claude-oracle", api_base=direct.url), suite, tmp_path / "direct", batch=None)
        s = run(anthropic_entry(batched.url), suite, tmp_path / "batch")
        assert (s.sent, s.ok, s.failed, s.unsent) == (16, 16, 0, 0)
        # The service took every request with the key (401 otherwise), each example once.
        assert batched.submitted == Counter(dict.fromkeys(ids, 1)) == batched.answered
        state = Path(batched.batch_app.state.folder)
        batches = [b for b in batched.batch_app.state.batches.values() if b.get("_shape") == "anthropic"]
        assert len(batches) == 1 and batches[0]["status"] == "completed"
        assert KEY not in _files_text(tmp_path / "batch", state)  # nor in what the provider was sent
    d = {r.example_id: r for r in records(tmp_path / "direct")}
    b = {r.example_id: r for r in records(tmp_path / "batch")}
    assert set(d) == set(b) == ids
    for i in ids:
        assert (b[i].extracted, b[i].correct, b[i].response) == (d[i].extracted, d[i].correct, d[i].response)
        assert b[i].batch_id is not None and b[i].batch_id.startswith("msgbatch_") and b[i].service_tier == "batch"
        # Priced at the registry's standard price less Anthropic's 50% batch discount (3 and 15 USD per 1M).
        u = b[i].usage
        assert u is not None and u.prompt_tokens and u.completion_tokens
        assert b[i].cost_usd_registry == pytest.approx((u.prompt_tokens * 1.5 + u.completion_tokens * 7.5) / 1e6)
    assert all(r.correct for r in b.values())
    journal = read_batches(journal_file(tmp_path / "batch", "demo", "claude-oracle"))
    assert [x.event for x in journal][:2] == ["intent", "created"]  # no file to upload: the requests go in the creation
    assert {x.provider for x in journal if x.event == "intent"} == {"anthropic"}


def test_failed_and_expired_anthropic_lines_are_sent_again_alone(suite, tmp_path, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    ids = sorted(e.id for e in suite.examples)
    flaky = frozenset(ids[:3])
    # Batches of 5: the first expires whole (5 lines never run), three lines of the others fail once (api_error).
    faults = BatchFaults(fail_first=flaky, expire=frozenset({1}))
    with BatchServer("oracle", faults=faults, api_key=KEY) as srv:
        s = run(anthropic_entry(srv.url), suite, tmp_path / "runs", batch=BatchOptions(poll_s=0.02, max_requests=5))
        assert (s.ok, s.failed) == (16, 0)
        assert srv.answered == Counter(dict.fromkeys(ids, 1))
        intents = [b for b in read_batches(journal_file(tmp_path / "runs", "demo", "claude-oracle")) if b.event == "intent"]
        first = [b for b in intents if b.attempt == 1]
        expired = set(first[0].custom_ids)
        # The lines that did not run or failed go again, by themselves: the expired batch's five, and each
        # flaky line outside it (inside it, the line never ran, so it fails on its second submission).
        again = {i for b in intents if b.attempt == 2 for i in b.custom_ids}
        assert again == expired | (flaky - expired)
        assert srv.submitted == Counter({i: 1 + (i in again) + (i in flaky and i in expired) for i in ids})
    recs = {r.example_id: r for r in records(tmp_path / "runs")}
    assert all(r.correct for r in recs.values()) and set(recs) == set(ids)
    assert all(recs[i].attempts >= 2 for i in again)


def test_a_creation_whose_reply_was_lost_is_found_again_not_made_twice(suite, tmp_path, monkeypatch):
    """The service created the batch, the reply never came (the first creation fails with a 503 after
    taking effect is the same as a kill there): the run looks for the batch before creating one again."""
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    ids = {e.id for e in suite.examples}
    with BatchServer("oracle", api_key=KEY) as srv:
        entry = anthropic_entry(srv.url)
        api = AnthropicBatches(entry)
        refs = {r.id: r for r in _plan_refs(entry, suite, tmp_path)}
        data = b"".join(api.line(refs[i]) for i in sorted(ids))
        # Another model's batch of as many requests, made just before: never taken for ours.
        other = api.create_inline("ffffffff0000", data)
        made = api.create_inline("0123456789ab", data)
        found = api.find_batch("0123456789ab", made.created_at, len(ids), frozenset())
        assert found is not None and found.batch_id in (made.batch_id, other.batch_id)  # not ended: the oldest unclaimed
        assert api.find_batch("0123456789ab", made.created_at, len(ids), frozenset({other.batch_id})) == made
        assert api.find_batch("0123456789ab", made.created_at, len(ids) + 1, frozenset()) is None
        # Once ended, the results say whose a batch is.
        for b in (other, made):
            assert api.retrieve(b.batch_id).terminal
        assert api.find_batch("0123456789ab", made.created_at, len(ids), frozenset()).batch_id == made.batch_id
        mine = api.results(api.retrieve(made.batch_id), "0123456789ab")
        assert set(mine) == ids and all(r.ok for r in mine.values())
        assert api.results(api.retrieve(other.batch_id), "0123456789ab") == {}


def _plan_refs(entry, suite, tmp_path):
    from graphniah.formats.examples import index_examples
    from graphniah.run.plan import make_plan

    refs = list(index_examples(suite.path))
    return make_plan(entry, refs, tmp_path / "plan.jsonl", [], fast_options()).to_send


def test_the_key_never_reaches_a_file_or_an_error(suite, tmp_path, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    with BatchServer("oracle", api_key="sk-ant-the-right-one-000000") as srv:
        with pytest.raises(GraphNIAHError) as err:
            run(anthropic_entry(srv.url), suite, tmp_path / "runs")
        assert "auth" in str(err.value) and KEY not in str(err.value)
        assert KEY not in _files_text(tmp_path / "runs")
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    with BatchServer("oracle") as srv, pytest.raises(GraphNIAHError, match="ANTHROPIC_API_KEY"):
        run(anthropic_entry(srv.url), suite, tmp_path / "runs2")


def test_anthropic_result_lines():
    key = "abcdef0123456789"
    lines = [
        {"custom_id": "abcdef01-a", "result": {"type": "succeeded", "message": {
            "content": [{"type": "thinking", "thinking": "hmm"}, {"type": "text", "text": "YES"}],
            "usage": {"input_tokens": 10, "cache_read_input_tokens": 90, "output_tokens": 7}}}},
        {"custom_id": "abcdef01-b", "result": {"type": "errored", "error": {"type": "error", "error": {
            "type": "overloaded_error", "message": "Overloaded"}}}},
        {"custom_id": "abcdef01-c", "result": {"type": "errored", "error": {"type": "error", "error": {
            "type": "invalid_request_error", "message": "prompt is too long"}}}},
        {"custom_id": "abcdef01-d", "result": {"type": "expired"}},
        {"custom_id": "abcdef01-e", "result": {"type": "canceled"}},
        {"custom_id": "99999999-a", "result": {"type": "succeeded", "message": {"content": []}}},  # another batch's
    ]
    out = read_results(b"\n".join(json.dumps(x).encode() for x in lines), key, "f")
    assert set(out) == {"a", "b", "c", "d", "e"}
    a = out["a"].body
    assert a is not None and a["choices"][0]["message"] == {"content": "YES", "reasoning_content": "hmm"}
    assert a["usage"] == {"prompt_tokens": 100, "completion_tokens": 7}
    assert (out["b"].status, out["b"].retryable) == (529, True)
    assert (out["c"].status, out["c"].retryable, out["c"].message) == (400, False, "prompt is too long")
    assert (out["d"].status, out["d"].retryable, out["e"].retryable) == (None, True, True)
    with pytest.raises(GraphNIAHError, match="f:1"):
        read_results(b"{not json", key, "f")


def test_a_request_line_is_the_messages_body_a_direct_call_sends(suite, tmp_path, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    entry = anthropic_entry("http://127.0.0.1:9").model_copy(
        update={"params": local_entry(params={"temperature": 0.5, "top_k": 20, "max_tokens": 64}).params})
    api = AnthropicBatches(entry)
    ref = _plan_refs(entry, suite, tmp_path)[0]
    (system, user) = ref.messages()
    line = json.loads(api.line(ref))
    assert line["custom_id"] == f"________-{ref.id}"  # the key's part is filled in at creation
    assert line["params"] == {"model": "claude-oracle", "system": [{"type": "text", "text": system["content"]}],
                              "messages": [{"role": "user", "content": [{"type": "text", "text": user["content"]}]}],
                              "temperature": 0.5, "max_tokens": 64, "top_k": 20}
    with pytest.raises(GraphNIAHError, match="custom_id"):  # 8 + 1 + 56 characters: more than Anthropic's 64
        api.line(dataclasses.replace(ref, id="x" * 56))
    assert json.loads(api.line(dataclasses.replace(ref, id="x" * 55)))["custom_id"].endswith("x" * 55)
