"""The runner against real HTTP servers on 127.0.0.1: baselines, faults, flex fallback, budget, guard, keys."""

from __future__ import annotations

import datetime as dt
import logging

import numpy as np
import pytest
import yaml
from typer.testing import CliRunner

from graphniah.cli import app
from graphniah.errors import GraphNIAHError
from graphniah.formats.examples import write_examples
from graphniah.formats.snapshot import snapshot_at_or_under
from graphniah.layout import journal_file
from graphniah.run import RetryPolicy, read_journal, run_suite
from graphniah.run.models import ModelEntry
from graphniah.run.plan import RunPlan
from graphniah.run.runner import RunSummary
from graphniah.run.serve.server import approx_prompt_tokens
from graphniah.scoring import counted_records, score_records
from tests.run.helpers import CUTOFF, DemoSuite, fast_options, local_entry
from tests.run.serve.faulty import Faults, FaultServer
from tests.secret_scan import assert_secret_absent

SECRET = "sk-test-SECRET123"


def run(entry: ModelEntry, suite: DemoSuite, runs, path=None, **opts) -> RunSummary:
    out = run_suite(entry, path or suite.path, runs_root=runs, snapshots_root=suite.snapshots, options=fast_options(**opts))
    assert isinstance(out, RunSummary)
    return out


def records(runs, model="local-oracle", suite="demo"):
    return read_journal(journal_file(runs, suite, model))


def prompt_tokens(ex) -> int:
    return approx_prompt_tokens([m.model_dump() for m in ex.messages])


def test_oracle_scores_100_percent_and_a_rerun_sends_nothing(suite, tmp_path):
    runs = tmp_path / "runs"
    with FaultServer("oracle") as srv:
        entry = local_entry(api_base=srv.url)
        s = run(entry, suite, runs)
        assert (s.sent, s.ok, s.failed, s.unsent, s.stopped_by) == (16, 16, 0, 0, None)
        recs = records(runs)
        assert sorted(r.example_id for r in recs) == sorted(e.id for e in suite.examples)
        sc = score_records(recs)
        assert sc.overall.k == sc.overall.n == 16 and sc.failed == 0
        assert {t: p.k for t, p in sc.by_task.items()} == {"count": 4, "mc": 4, "yesno": 8}
        assert sc.counting.exact == 4 and sc.counting.median_ratio == 1.0
        by_id = {e.id: e for e in suite.examples}
        for r in recs:
            ex = by_id[r.example_id]
            assert (r.task, r.answer, r.extracted, r.correct) == (ex.task, ex.answer, ex.answer, True)
            assert r.status == "ok" and r.attempts == 1 and r.errors == () and r.service_tier == "standard"
            assert r.settings_hash == entry.settings_hash and r.model == "local-oracle"
            assert r.usage.prompt_tokens == prompt_tokens(ex) and r.usage.reasoning_tokens > 0
            assert r.usage.completion_tokens > r.usage.reasoning_tokens
            assert r.reasoning and r.response_time_s > 0 and r.cost_usd_registry == 0.0 and r.cost_usd == 0.0
        sent_before = srv.stats.requests
        again = run(entry, suite, runs)
        assert (again.sent, srv.stats.requests) == (0, sent_before)
    # the sidecar says what the settings hash stands for
    side = (runs / "demo" / "local-oracle.settings.json").read_text()
    assert entry.settings_hash in side and "openai/local-oracle" in side


def test_always_no_scores_exactly_the_no_label_share(suite, tmp_path):
    runs = tmp_path / "runs"
    with FaultServer("always-no") as srv:
        run(local_entry("local-always-no", api_base=srv.url), suite, runs)
    sc = score_records(records(runs, "local-always-no"))
    yesno = [e for e in suite.examples if e.task == "yesno"]
    assert sc.by_task["yesno"].n == len(yesno)
    assert sc.by_task["yesno"].k == sum(e.answer == "NO" for e in yesno)
    assert sc.no_share.k == sc.no_share.n == len(yesno)
    assert sc.by_task["mc"].k == sc.by_task["count"].k == 0
    assert sc.no_answer == 8  # "NO" is neither an option letter nor a count
    assert sc.counting.no_number == 4


def test_random_draws_from_the_answer_set_of_each_task(suite, tmp_path):
    runs = tmp_path / "runs"
    with FaultServer("random", seed=11) as srv:
        run(local_entry("local-random", api_base=srv.url), suite, runs)
    recs = records(runs, "local-random")
    assert len(recs) == 16 and all(r.status == "ok" and r.extracted is not None for r in recs)
    for r in recs:
        if r.task == "yesno":
            assert r.extracted in ("YES", "NO")
        elif r.task == "mc":
            assert r.extracted in "ABCD"
        else:
            assert 99 <= int(r.extracted) <= 249  # the benchmark's counting answers (sizes 100-250)


def test_transient_faults_are_retried_and_the_successful_attempt_is_timed(suite, tmp_path):
    runs = tmp_path / "runs"
    faults = Faults(script=("429", "500", "503", "timeout", "cut"), retry_after_s=0.3, delay_s=1.0)
    with FaultServer("oracle", faults=faults) as srv:
        s = run(local_entry(api_base=srv.url, timeout_s=0.5), suite, runs, concurrency=8)
        assert srv.stats.requests == 16 * 6  # exactly our attempts: LiteLLM and openai retry nothing themselves
    assert (s.ok, s.failed) == (16, 0)
    for r in records(runs):
        assert r.correct and r.attempts == 6
        assert [e.kind for e in r.errors] == ["rate_limit", "server_error", "server_error", "timeout", "connection"]
        assert [e.status for e in r.errors[:3]] == [429, 500, 503]
        assert r.errors[0].waited_s >= 0.3  # the server's Retry-After is a floor for the backoff
        assert all(0 < e.waited_s <= 0.3 for e in r.errors[1:])
        assert r.response_time_s < 0.5  # the successful attempt only, not the 0.5 s timeout before it


def test_a_429_storm_ends_within_the_attempt_bound(suite, tmp_path):
    runs = tmp_path / "runs"
    pol = RetryPolicy(max_attempts=3, base_s=0.002, cap_s=0.01)
    with FaultServer("oracle", faults=Faults(rates={"429": 0.7}, seed=5, retry_after_s=None)) as srv:
        s = run(local_entry(api_base=srv.url), suite, runs, retry=pol, concurrency=8)
        recs = records(runs)
        assert sum(r.attempts for r in recs) == srv.stats.requests
    assert s.ok + s.failed == 16 and s.failed > 0  # P(no failure at all) = (1 - 0.7^3)^16 < 0.2%
    for r in recs:
        assert 1 <= r.attempts <= 3 and all(e.kind == "rate_limit" and e.status == 429 for e in r.errors)
        if r.status == "ok":
            assert len(r.errors) == r.attempts - 1 and r.correct
        else:
            assert r.attempts == 3 and len(r.errors) == 3 and r.errors[-1].waited_s == 0 and r.response is None


def test_recorded_failures_are_resent_only_with_retry_failed(suite, tmp_path):
    runs = tmp_path / "runs"
    entry = local_entry()
    with FaultServer("oracle", faults=Faults(script=("500", "500"))) as srv:
        s = run(entry.with_overrides(api_base=srv.url), suite, runs, retry=RetryPolicy(max_attempts=2, base_s=0, cap_s=0))
        assert (s.ok, s.failed) == (0, 16)
        again = run(entry.with_overrides(api_base=srv.url), suite, runs)
        assert again.sent == 0  # failures are recorded, not re-sent by a plain re-run
        retried = run(entry.with_overrides(api_base=srv.url), suite, runs, retry_failed=True)
        assert (retried.sent, retried.ok) == (16, 16)
    recs = records(runs)
    assert len(recs) == 32
    final = counted_records(recs)
    assert len(final) == 16 and all(r.status == "ok" and r.correct for r in final.values())


def test_context_too_long_is_recorded_and_not_retried(suite, tmp_path):
    runs = tmp_path / "runs"
    sizes = sorted(prompt_tokens(e) for e in suite.examples)
    limit = sizes[len(sizes) // 2]
    too_long = {e.id for e in suite.examples if prompt_tokens(e) > limit}
    assert 0 < len(too_long) < 16
    with FaultServer("oracle", faults=Faults(context_limit=limit)) as srv:
        run(local_entry(api_base=srv.url), suite, runs)
        assert srv.stats.requests == 16
    for r in records(runs):
        if r.example_id in too_long:
            assert r.status == "failed" and r.attempts == 1 and r.usage is None
            assert (r.errors[0].kind, r.errors[0].status) == ("context_length", 400)
            assert "maximum context length" in r.errors[0].message
        else:
            assert r.status == "ok" and r.correct


def test_flex_capacity_errors_are_resent_at_the_standard_tier(suite, tmp_path):
    runs = tmp_path / "runs"
    entry = local_entry(service_tier="flex", fallback_tier="standard",
                        price={"standard": {"input": 1.0, "output": 2.0}, "flex": {"input": 0.5, "output": 1.0}})
    assert entry.settings_hash == local_entry().settings_hash  # the tier changes cost, not answers
    with FaultServer("oracle", faults=Faults(flex_unavailable=True)) as srv:
        run(entry.with_overrides(api_base=srv.url), suite, runs)
        assert srv.stats.outcomes["flex_unavailable"] == 16
        assert srv.stats.tiers == {"flex": 16, "default": 16}  # the standard tier is the provider default: no service_tier sent
    for r in records(runs):
        assert r.status == "ok" and r.correct and r.attempts == 2 and r.service_tier == "standard"
        assert [(e.kind, e.tier, e.waited_s) for e in r.errors] == [("flex_capacity", "flex", 0.0)]
        assert r.cost_usd_registry == pytest.approx((r.usage.prompt_tokens * 1.0 + r.usage.completion_tokens * 2.0) / 1e6)


def test_flex_without_fallback_retries_at_flex(suite, tmp_path):
    runs = tmp_path / "runs"
    entry = local_entry(service_tier="flex", price={"standard": {"input": 1.0, "output": 2.0}, "flex": {"input": 0.5, "output": 1.0}})
    with FaultServer("oracle", faults=Faults(script=("flex",))) as srv:
        run(entry.with_overrides(api_base=srv.url), suite, runs)
        assert srv.stats.tiers == {"flex": 32}  # both attempts at flex: no fallback configured
    for r in records(runs):
        assert r.service_tier == "flex" and r.attempts == 2 and r.errors[0].kind == "rate_limit"
        assert r.cost_usd_registry == pytest.approx((r.usage.prompt_tokens * 0.5 + r.usage.completion_tokens * 1.0) / 1e6)


def test_a_response_without_an_answer_block_is_answered_but_unscored(suite, tmp_path):
    runs = tmp_path / "runs"
    with FaultServer("oracle", faults=Faults(script=("noanswer",))) as srv:
        s = run(local_entry(api_base=srv.url), suite, runs)
    assert (s.ok, s.no_answer) == (16, 16)
    sc = score_records(records(runs))
    assert sc.answered == 16 and sc.overall.k == 0 and sc.no_answer == 16 and sc.counting.no_number == 4


def _priced_suite(suite: DemoSuite, tmp_path):
    """The demo examples with token counts stored (the server's own rule, so estimates are exact)."""
    exs = [e.model_copy(update={"token_counts": {"o200k_base": prompt_tokens(e)}}) for e in suite.examples]
    path = tmp_path / "priced.jsonl"
    write_examples(path, exs)
    return exs, path


def test_budget_stops_before_the_estimate_would_pass_it(suite, tmp_path):
    runs = tmp_path / "runs"
    exs, path = _priced_suite(suite, tmp_path)
    price = {"input": 1000.0, "output": 1000.0}  # USD per 1M tokens: ~3 USD per example
    entry = local_entry(price={"standard": price})
    out = 60  # assumed output tokens; the oracle writes fewer, so the estimate bounds the spend
    est = [(prompt_tokens(e) + out) * 1000.0 / 1e6 for e in exs]
    budget = sum(est[:5]) + 0.5 * est[5]
    plan = run_suite(entry, path, runs_root=runs, snapshots_root=suite.snapshots, dry_run=True,
                     options=fast_options(assume_output_tokens=out))
    assert isinstance(plan, RunPlan) and plan.estimate.usd == pytest.approx(sum(est))
    with FaultServer("oracle") as srv:
        s = run(entry.with_overrides(api_base=srv.url), suite, runs, path=path, concurrency=1, budget_usd=budget,
                assume_output_tokens=out)
        assert (s.sent, s.ok, s.unsent, s.stopped_by) == (5, 5, 11, "budget")
        spent = sum(r.spent_usd for r in records(runs, suite="priced"))
        assert 0 < spent <= budget and s.spent_usd == pytest.approx(spent)
        again = run(entry.with_overrides(api_base=srv.url), suite, runs, path=path, budget_usd=budget)
        assert (again.sent, again.stopped_by) == (0, "budget")  # the journal's spend counts against the budget
        rest = run(entry.with_overrides(api_base=srv.url), suite, runs, path=path, budget_usd=10 * sum(est))
        assert (rest.sent, rest.stopped_by) == (11, None)


def test_dry_run_estimates(suite, tmp_path, monkeypatch):
    _, path = _priced_suite(suite, tmp_path)
    flex = local_entry(service_tier="flex", fallback_tier="standard", price={"standard": {"input": 2.0, "output": 10.0}})
    plan = run_suite(flex, path, runs_root=tmp_path / "runs", snapshots_root=suite.snapshots, dry_run=True,
                     options=fast_options(assume_output_tokens=100))
    total_in = sum(prompt_tokens(e) for e in suite.examples)
    assert plan.estimate.input_tokens == total_in and plan.estimate.tier == "flex"
    assert plan.estimate.usd is None  # no flex price: unknown, bounded at the standard price
    assert plan.estimate.usd_upper == pytest.approx((total_in * 2.0 + 16 * 100 * 10.0) / 1e6)
    assert not (tmp_path / "runs").exists()  # a dry run writes nothing
    # Without stored counts and without tokenizer assets the estimate is honestly unknown.
    monkeypatch.setenv("GRAPHNIAH_DATA", str(tmp_path / "empty-data"))
    plan = run_suite(local_entry(price={"standard": {"input": 1.0, "output": 1.0}}), suite.path,
                     runs_root=tmp_path / "runs", snapshots_root=suite.snapshots, dry_run=True, options=fast_options())
    assert plan.estimate.usd is None and plan.estimate.usd_upper is None and "cannot estimate" in plan.estimate.note
    with pytest.raises(GraphNIAHError, match="cannot enforce --budget-usd"):
        run_suite(local_entry(price={"standard": {"input": 1.0, "output": 1.0}}), suite.path, runs_root=tmp_path / "runs",
                  snapshots_root=suite.snapshots, options=fast_options(budget_usd=1.0))


def test_the_cutoff_guard_names_both_dates(suite, tmp_path):
    runs = tmp_path / "runs"
    for cutoff in (CUTOFF, CUTOFF + dt.timedelta(days=30)):
        entry = local_entry(baseline=False, knowledge_cutoff=cutoff)
        with pytest.raises(GraphNIAHError) as err:
            run_suite(entry, suite.path, runs_root=runs, snapshots_root=suite.snapshots, dry_run=True)
        assert cutoff.isoformat() in str(err.value) and CUTOFF.isoformat() in str(err.value)
    ok = local_entry(baseline=False, knowledge_cutoff=CUTOFF - dt.timedelta(days=1))
    plan = run_suite(ok, suite.path, runs_root=runs, snapshots_root=suite.snapshots, dry_run=True)
    assert len(plan.to_send) == 16
    with pytest.raises(GraphNIAHError, match="no snapshot with hash"):
        run_suite(ok, suite.path, runs_root=runs, snapshots_root=tmp_path / "nowhere", dry_run=True)


def _registry_with(path, entry: ModelEntry) -> None:
    body = entry.model_dump(mode="json", exclude={"name"})
    path.write_text(yaml.safe_dump({"models": {entry.name: body}}))


def test_api_keys_never_reach_files_logs_or_output(suite, tmp_path, monkeypatch, caplog):
    caplog.set_level(logging.DEBUG)
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    runs = tmp_path / "runs"
    registry = tmp_path / "models.yaml"
    entry = local_entry(name="keyed", api_key_env="OPENAI_API_KEY", baseline=False,
                        knowledge_cutoff=dt.date(2025, 1, 1))
    cli = CliRunner()
    args = ["run", "--model", "keyed", "--examples", str(suite.path), "--runs", str(runs), "--snapshots",
            str(suite.snapshots), "--registry", str(registry), "--no-progress", "--max-attempts", "2"]
    outputs = []
    # 1. A provider that rejects the key and echoes it back in its error message.
    with FaultServer("oracle", faults=Faults(api_key="sk-test-the-right-one")) as srv:
        _registry_with(registry, entry.with_overrides(api_base=srv.url))
        res = cli.invoke(app, args)
        outputs.append(res.output + (res.stderr or ""))
        assert res.exit_code == 0, res.output
        assert srv.stats.outcomes["http401"] == 16  # auth failures are not retried
    recs = read_journal(journal_file(runs, "demo", "keyed"))
    assert all(r.status == "failed" and r.attempts == 1 and r.errors[0].kind == "auth" for r in recs)
    assert all("Incorrect API key provided" in r.errors[0].message for r in recs)
    # 2. A provider that accepts exactly this key: it was sent, and still appears nowhere.
    with FaultServer("oracle", faults=Faults(api_key=SECRET)) as srv:
        _registry_with(registry, entry.with_overrides(api_base=srv.url))
        res = cli.invoke(app, [*args, "--retry-failed"])
        outputs.append(res.output + (res.stderr or ""))
        assert res.exit_code == 0, res.output
        assert srv.stats.outcomes["ok"] == 16 and srv.stats.authorization_seen == 16
    files = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert any(p.suffix == ".jsonl" for p in files)
    assert_secret_absent(tmp_path, "SECRET123")  # journals, their gzip/Parquet/DuckDB forms, logs
    for text in (*outputs, caplog.text):
        assert "SECRET123" not in text
    # 3. A missing key is named by its variable, never by a value.
    monkeypatch.delenv("OPENAI_API_KEY")
    res = cli.invoke(app, [*args, "--retry-failed"])
    assert isinstance(res.exception, GraphNIAHError) and "OPENAI_API_KEY" in str(res.exception)


def test_a_snapshot_is_found_by_hash_under_the_root_or_as_the_root_itself(suite: DemoSuite):
    under = snapshot_at_or_under(suite.snapshots, suite.snapshot_hash)
    assert under.content_hash == suite.snapshot_hash and under.path != suite.snapshots
    assert snapshot_at_or_under(under.path, suite.snapshot_hash).path == under.path
    with pytest.raises(GraphNIAHError, match="no snapshot with hash 000000000000"):
        snapshot_at_or_under(suite.snapshots, "0" * 64)
    with pytest.raises(GraphNIAHError, match="no snapshot with hash 000000000000"):
        snapshot_at_or_under(under.path, "0" * 64)  # the root is a snapshot, but not that one


def test_the_cutoff_guard_refuses_a_snapshot_built_without_the_preprint_guard(tmp_path):
    """A snapshot manifest of format 2 (before earliest_public_date) is refused; format 3 gives the
    earlier of its cutoff and its papers' earliest public date."""
    import json

    import numpy as np

    from graphniah.formats.snapshot import MANIFEST_FILE
    from graphniah.run.guard import snapshot_cutoffs
    from tests.graph.synthetic import write_snapshot

    folder = write_snapshot(tmp_path / "r" / "cutoff=2026-04-01", 3, np.array([1]), np.array([0]), snapshot_hash="h" * 64)
    assert snapshot_cutoffs(["h" * 64], tmp_path) == {"h" * 64: dt.date(2026, 4, 1)}
    m = json.loads((folder / MANIFEST_FILE).read_text())
    (folder / MANIFEST_FILE).write_text(json.dumps(m | {"earliest_public_date": {"min": "2026-03-01", "max": "2026-04-03"}}))
    assert snapshot_cutoffs(["h" * 64], tmp_path) == {"h" * 64: dt.date(2026, 3, 1)}  # a paper public before the cutoff
    del m["earliest_public_date"]
    (folder / MANIFEST_FILE).write_text(json.dumps(m | {"format_version": 2}))
    with pytest.raises(GraphNIAHError, match=r"built before the preprint guard .* rebuild it with graphniah refresh"):
        snapshot_cutoffs(["h" * 64], tmp_path)


def _suite_file(path, examples) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    write_examples(path, examples)


def test_a_run_reuses_the_answers_another_suites_journal_holds_for_the_same_example_bytes(suite, tmp_path):
    runs, exs = tmp_path / "runs", list(suite.examples)
    _suite_file(tmp_path / "first.jsonl", exs)
    # the second suite: ten examples byte for byte, two with the same id and other bytes, one new to both
    changed = [e.model_copy(update={"token_counts": {"o200k_base": prompt_tokens(e)}}) for e in exs[10:12]]
    _suite_file(tmp_path / "second.jsonl", [*exs[:10], *changed, *suite.small[:1]])
    with FaultServer("oracle") as srv:
        entry = local_entry(api_base=srv.url)
        first = run(entry, suite, runs, path=tmp_path / "first.jsonl")
        assert (first.sent, first.reused, srv.stats.requests) == (16, 0, 16)
        second = run(entry, suite, runs, path=tmp_path / "second.jsonl")
        assert (second.sent, second.ok, second.reused, srv.stats.requests) == (3, 3, 10, 19)  # only 3 reached the server
        recs = records(runs, suite="second")
        reused = [r for r in recs if r.reused_from is not None]
        assert sorted(r.example_id for r in reused) == sorted(e.id for e in exs[:10])
        source = {r.example_id: r for r in records(runs, suite="first")}
        for r in reused:
            assert r.reused_from == str(journal_file(runs, "first", "local-oracle"))
            assert (r.response, r.extracted, r.example_sha256) == (source[r.example_id].response, source[r.example_id].extracted,
                                                                   source[r.example_id].example_sha256)
            assert r.spent_usd == 0 and r.settings_hash == entry.settings_hash
        assert score_records(recs).overall.k == 13  # the oracle's answers, reused or sent, all count
        # a rerun of the second suite finds everything done; other settings reuse nothing
        assert (run(entry, suite, runs, path=tmp_path / "second.jsonl").sent, srv.stats.requests) == (0, 19)
        other = run(entry.with_overrides(reasoning_effort="low"), suite, runs, path=tmp_path / "second.jsonl")
        assert (other.sent, other.reused, srv.stats.requests) == (13, 0, 32)
        # --no-reuse sends anyway
        _suite_file(tmp_path / "third.jsonl", exs)
        forced = run(entry, suite, runs, path=tmp_path / "third.jsonl", reuse=False)
        assert (forced.sent, forced.reused, srv.stats.requests) == (16, 0, 48)
        assert all(r.reused_from is None for r in records(runs, suite="third"))


def test_a_dry_run_shows_what_reuse_saves_and_sends_nothing(suite, tmp_path):
    runs = tmp_path / "runs"
    exs, path = _priced_suite(suite, tmp_path)
    price = {"standard": {"input": 1000.0, "output": 1000.0}}
    with FaultServer("oracle") as srv:
        entry = local_entry(api_base=srv.url, price=price)
        run(entry, suite, runs, path=path)
        _suite_file(tmp_path / "copy.jsonl", exs[:6])
        plan = run_suite(entry, tmp_path / "copy.jsonl", runs_root=runs, snapshots_root=suite.snapshots, dry_run=True,
                         options=fast_options(assume_output_tokens=60))
        assert isinstance(plan, RunPlan) and (len(plan.reused), len(plan.to_send)) == (6, 0)
        assert plan.reuse_saves is not None and plan.reuse_saves.input_tokens == sum(prompt_tokens(e) for e in exs[:6])
        # The first run's calls (the same settings, journaled for suite "priced") replace the assumed 60
        # output tokens per example: the estimate takes their median.
        out = round(float(np.median([r.usage.completion_tokens for r in records(runs, suite="priced")])))
        assert plan.reuse_saves.output_tokens_per_example == out != 60
        assert plan.reuse_saves.usd == pytest.approx(sum((prompt_tokens(e) + out) * 1000.0 / 1e6 for e in exs[:6]))
        registry = tmp_path / "models.yaml"
        _registry_with(registry, entry)
        base = ["run", "--model", "local-oracle", "--examples", str(tmp_path / "copy.jsonl"), "--runs", str(runs),
                "--snapshots", str(suite.snapshots), "--registry", str(registry), "--dry-run"]
        shown = CliRunner().invoke(app, base)
        assert shown.exit_code == 0, shown.output
        text = " ".join(shown.output.split())
        assert "6 reused, 0 to send" in text and f"{journal_file(runs, 'priced', 'local-oracle')} (6)" in text
        assert "reuse saves:" in text
        forced = CliRunner().invoke(app, [*base, "--no-reuse"])
        assert "0 reused, 6 to send" in " ".join(forced.output.split())
        assert srv.stats.requests == 16  # the first run's calls only
    assert not journal_file(runs, "copy", "local-oracle").exists()  # a dry run writes nothing


def _journal(path, records) -> None:  # type: ignore[no-untyped-def]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(r.model_dump_json() + "\n" for r in records))


def test_reuse_takes_only_ok_records_of_the_same_example_bytes_and_settings_first_journal_first(tmp_path):
    """The rule of ``reusable_answers`` case by case, on hand-written journals: a failed record is never
    taken (the example is sent again), nor one of other bytes, another id with the same bytes, or other
    settings; of two journals holding an ok answer for the same bytes, the first in name order is taken
    (not the last read), and the run's own journal is never a source, while those after it still are."""
    from graphniah.formats.examples import ExampleRef
    from graphniah.formats.journal import RunRecord
    from graphniah.run.reuse import reusable_answers

    entry = local_entry()
    runs = tmp_path / "runs"
    sha = {e: f"{e}-bytes".ljust(64, "0") for e in ("e1", "e2", "e3", "e4", "e5")}
    refs = [ExampleRef(e, "yesno", "YES", "s" * 64, sha256=sha[e]) for e in sha]

    def rec(eid: str, response: str, **kw):  # type: ignore[no-untyped-def]
        fields = {"example_id": eid, "model": entry.name, "settings_hash": entry.settings_hash, "status": "ok",
                  "task": "yesno", "answer": "YES", "response": response, "attempts": 1,
                  "finished_at": "2026-11-01T00:00:00+00:00", "example_sha256": sha.get(eid)} | kw
        return RunRecord(**fields)

    mine = journal_file(runs, "mine", entry.name)
    _journal(runs / "a-suite" / f"{entry.name}.jsonl", [
        rec("e1", "\\answer{YES} from a"),
        rec("e2", "failed in a", status="failed", errors=()),  # failed: never reused
        rec("e3", "\\answer{NO} other bytes", example_sha256="x" * 64),  # other bytes: not the same prompt
        rec("e4", "\\answer{YES} other settings", settings_hash="0" * 64),  # sorts before any other hash
        rec("e4", "\\answer{YES} other settings", settings_hash="f" * 64),  # ... and after any other
        rec("e1", "\\answer{NO} a's second record for e1"),  # the first ok record of the first journal wins
    ])
    _journal(runs / "b-suite" / f"{entry.name}.jsonl", [
        rec("e1", "\\answer{NO} from b"),  # the same bytes in a later journal: not taken over a's
        rec("e2", "\\answer{YES} from b"),  # a's failed record does not hide b's ok one
        rec("e4", "\\answer{YES} e4 under e5's bytes", example_sha256=sha["e5"]),  # another id with e5's bytes
        rec("f9", "\\answer{YES} f9 under e5's bytes", example_sha256=sha["e5"]),  # ... whose id sorts after e5
    ])
    _journal(runs / "z-suite" / f"{entry.name}.jsonl", [rec("e3", "\\answer{YES} from z")])  # read after the run's own
    _journal(mine, [rec("e3", "\\answer{YES} in the run's own journal")])
    found = reusable_answers(entry, refs, mine, runs)
    assert sorted(found) == ["e1", "e2", "e3"]
    assert found["e3"].response == "\\answer{YES} from z"
    assert found["e1"].response == "\\answer{YES} from a" and found["e1"].reused_from == str(runs / "a-suite" / f"{entry.name}.jsonl")
    assert found["e2"].response == "\\answer{YES} from b" and found["e2"].reused_from == str(runs / "b-suite" / f"{entry.name}.jsonl")
    assert all(r.cost_usd == 0.0 and r.cost_usd_registry == 0.0 and r.status == "ok" for r in found.values())
