"""The inspect_ai task, run by the real inspect_ai against graphniah's policy servers on 127.0.0.1.

inspect's own log folder goes to a temporary directory, ``datasets``/hub access is off, and the
only HTTP server contacted is the local one. Models get plain local names (``openai/local-oracle``):
inspect takes a name it does not know for a new OpenAI model and talks to it through the Responses
API (``POST /v1/responses``, the system prompt as a ``developer`` item, after one capability probe);
with ``-M responses_api=false`` it uses chat completions, still with a ``developer`` message. The
policy servers speak both and answer whatever model a request names.
"""

from __future__ import annotations

import os

os.environ["HF_DATASETS_OFFLINE"] = "1"
os.environ["HF_HUB_OFFLINE"] = "1"

import subprocess
import sys
from pathlib import Path

import pytest

from graphniah.dataset import iter_dataset_examples, open_dataset, run_dataset
from graphniah.errors import GraphNIAHError
from graphniah.run import read_journal
from graphniah.scoring import score_records
from graphniah.stats import wilson_interval
from tests.dataset.conftest import exported_suite
from tests.run.helpers import fast_options, local_entry
from tests.run.serve.faulty import FaultServer

ORACLE = "openai/local-oracle"  # a name inspect does not know
ALWAYS_NO = "openai/local-always-no"


@pytest.fixture(scope="session")
def exported(tmp_path_factory: pytest.TempPathFactory):
    return exported_suite(tmp_path_factory)


@pytest.fixture
def inspect_env(tmp_path, monkeypatch) -> dict[str, str]:
    env = {
        "INSPECT_LOG_DIR": str(tmp_path / "inspect-logs"),
        "OPENAI_API_KEY": "not-a-key",  # the local server needs none; the OpenAI client insists on one
        "HF_DATASETS_OFFLINE": "1",
        "HF_HUB_OFFLINE": "1",
        "INSPECT_DISPLAY": "none",
    }
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    return env


def _eval_log(log_dir: Path):
    from inspect_ai.log import list_eval_logs, read_eval_log

    logs = list_eval_logs(str(log_dir))
    assert len(logs) == 1
    return read_eval_log(logs[0])


def _metrics(log) -> dict[str, float]:
    (score,) = log.results.scores
    return {name: m.value for name, m in score.metrics.items()}


@pytest.mark.slow
def test_inspect_eval_command_with_the_oracle_scores_one(exported, inspect_env, tmp_path):
    """The issue's command, run as a user would: the task is found through the entry point."""
    with FaultServer("oracle") as srv:
        cmd = [str(Path(sys.executable).with_name("inspect")), "eval", "graphniah/graphniah", "-T", f"dataset={exported.dataset}",
               "--model", ORACLE, "--model-base-url", srv.url, "--log-dir", inspect_env["INSPECT_LOG_DIR"], "--display", "none"]
        res = subprocess.run(cmd, capture_output=True, text=True, timeout=300, env=os.environ | inspect_env)
        assert res.returncode == 0, res.stdout + res.stderr
        apis = dict(srv.stats.apis)
    log = _eval_log(Path(inspect_env["INSPECT_LOG_DIR"]))
    n = sum(1 for _ in iter_dataset_examples(open_dataset(exported.dataset)))
    assert log.status == "success"
    assert apis == {"responses": n + 1}  # one capability probe, then one request per example
    assert log.eval.task == "graphniah/graphniah"
    m = _metrics(log)
    assert m["accuracy"] == 1.0 and m["all"] == 1.0
    for task in ("yesno", "mc", "count"):
        assert m[task] == 1.0
    assert (m["all_low"], m["all_high"]) == tuple(wilson_interval(n, n))
    samples = {s.id: s for s in log.samples}
    for ex in iter_dataset_examples(open_dataset(exported.dataset)):
        s = samples[ex.id]
        assert s.target == ex.answer and s.scores["graphniah_scorer"].answer == ex.answer
        assert [m.content for m in s.input] == [m.content for m in ex.messages]
        assert s.metadata["task"] == ex.task and s.metadata["depth"] == ex.depth


@pytest.mark.slow
def test_always_no_scores_what_graphniah_run_gives_and_filters_apply(exported, inspect_env, tmp_path):
    from inspect_ai import eval as inspect_eval

    from graphniah.integrations.inspect_task import graphniah

    with FaultServer("always-no") as srv:
        summary = run_dataset(local_entry("local-always-no", api_base=srv.url), exported.dataset,
                              runs_root=tmp_path / "runs", options=fast_options())
        [log] = inspect_eval(graphniah(dataset=str(exported.dataset)), model=ALWAYS_NO, model_base_url=srv.url,
                             log_dir=inspect_env["INSPECT_LOG_DIR"], display="none")
        # the same name forced onto chat completions (inspect then sends the system prompt as a developer message)
        [chat] = inspect_eval(graphniah(dataset=str(exported.dataset), task="count", depth=4), model=ALWAYS_NO,
                              model_base_url=srv.url, model_args={"responses_api": False}, log_dir=str(tmp_path / "filtered"),
                              display="none")
        # and streamed from the Responses API (inspect streams on -M streaming=true or --stream-idle-timeout)
        [streamed] = inspect_eval(graphniah(dataset=str(exported.dataset), task="count", depth=4), model=ALWAYS_NO,
                                  model_base_url=srv.url, model_args={"streaming": True}, log_dir=str(tmp_path / "streamed"),
                                  display="none")
        apis = dict(srv.stats.apis)
    assert apis == {"chat": summary.ok + len(chat.samples),
                    "responses": len(log.samples) + 1 + len(streamed.samples) + 1}  # + inspect's probe, once per eval
    journal = read_journal(tmp_path / "runs" / exported.name / "local-always-no.jsonl")
    sc = score_records(journal)
    assert summary.ok == len(journal) and sc.answered == len(log.samples)
    m = _metrics(log)
    assert m["accuracy"] == pytest.approx(sc.overall.estimate)
    assert (m["all_low"], m["all_high"]) == pytest.approx((sc.overall.interval.low, sc.overall.interval.high))
    for task, p in sc.by_task.items():
        assert m[task] == pytest.approx(p.estimate)
        assert (m[f"{task}_low"], m[f"{task}_high"]) == pytest.approx((p.interval.low, p.interval.high))
    # per example, the same verdict as the journal
    verdict = {r.example_id: r.correct for r in journal}
    assert {s.id: s.scores["graphniah_scorer"].value == "C" for s in log.samples} == verdict
    examples = list(iter_dataset_examples(open_dataset(exported.dataset)))
    assert {s.id for s in chat.samples} == {e.id for e in examples if e.task == "count" and e.depth == 4}
    assert _metrics(chat)["accuracy"] == 0.0  # NO is never a count
    assert {s.output.completion for s in chat.samples} == {"\\answer{NO}"}
    assert [s.id for s in streamed.samples] == [s.id for s in chat.samples] and _metrics(streamed)["accuracy"] == 0.0
    for s in streamed.samples:
        [call] = [e.call for e in s.events if e.event == "model"]
        assert call.request["stream"] is True and s.output.completion == "\\answer{NO}"


def test_samples_carry_messages_target_and_metadata(exported):
    from inspect_ai.model import ChatMessageSystem, ChatMessageUser

    from graphniah.integrations.inspect_task import dataset_samples

    examples = {e.id: e for e in iter_dataset_examples(open_dataset(exported.dataset))}
    samples = dataset_samples(str(exported.dataset))
    assert [s.id for s in samples] == list(examples)
    for s in samples:
        ex = examples[s.id]
        assert [type(m) for m in s.input] == [ChatMessageSystem if m.role == "system" else ChatMessageUser for m in ex.messages]
        assert [m.content for m in s.input] == [m.content for m in ex.messages]
        length = ex.recipe.params.get("context_length")
        assert s.target == ex.answer
        assert {k: s.metadata[k] for k in ("task", "depth", "component_size", "context_length", "distractor")} == {
            "task": ex.task, "depth": ex.depth, "component_size": ex.component_size, "context_length": length,
            "distractor": ex.recipe.params.get("distractor") or "none"}
    only = dataset_samples(str(exported.dataset), task="mc", depth="4")  # -T values may arrive as strings
    assert {s.id for s in only} == {i for i, e in examples.items() if e.task == "mc"}
    essays = {i for i, e in examples.items() if e.recipe.params.get("distractor") == "essays"}
    assert essays and {s.id for s in dataset_samples(str(exported.dataset), distractor="essays")} == essays
    packed = dataset_samples(str(exported.dataset), task="count", context_length="5000")
    assert {s.id for s in packed} == {i for i, e in examples.items()
                                      if e.task == "count" and e.recipe.params.get("context_length") == 5000} != set()
    with pytest.raises(GraphNIAHError, match="no example"):
        dataset_samples(str(exported.dataset), depth=16)
    with pytest.raises(GraphNIAHError, match="-T task"):
        dataset_samples(str(exported.dataset), task="sum")


def test_the_scorer_is_graphniah_scoring():
    import asyncio

    from inspect_ai.model import ModelOutput
    from inspect_ai.scorer import Target
    from inspect_ai.solver import TaskState

    from graphniah.integrations.inspect_task import graphniah_scorer
    from graphniah.scoring import score_response

    score = graphniah_scorer()
    cases = [("yesno", "YES", "so \\answer{\\textbf{yes}}."), ("mc", "C", "\\answer{(C)} then \\answer{Option B}"),
             ("count", "1234", "\\answer{1,234}"), ("count", "17", "\\answer{about 17}"), ("yesno", "NO", "no block")]
    for task, truth, reply in cases:
        state = TaskState(model="m", sample_id=1, epoch=1, input="q", messages=[], metadata={"task": task},
                          output=ModelOutput.from_content("m", reply))
        got = asyncio.run(score(state, Target(truth)))
        want = score_response(task, truth, reply)
        assert (got.value == "C", got.answer) == (want.correct, want.extracted)


def test_list_replies_are_scored_by_graphniah_scoring_with_an_f1_metric():
    import asyncio

    from inspect_ai.model import ModelOutput
    from inspect_ai.scorer import SampleScore, Target
    from inspect_ai.solver import TaskState

    from graphniah.integrations.inspect_task import graphniah_scorer, list_f1
    from graphniah.scoring import score_records, score_response

    truth = "First Title\nSecond Title\nThird Title\nFourth Title"
    replies = ["\\answer{\nFirst Title\nSecond Title\n}", "\\answer{\n" + truth + "\n}", "\\answer{\nfourth title\nNot a Title\n}"]
    score = graphniah_scorer()
    scores = []
    for i, reply in enumerate(replies):
        state = TaskState(model="m", sample_id=i, epoch=1, input="q", messages=[], metadata={"task": "list"},
                          output=ModelOutput.from_content("m", reply))
        got = asyncio.run(score(state, Target(truth)))
        want = score_response("list", truth, reply)
        assert (got.value == "C", got.answer, got.metadata["f1"]) == (want.correct, want.extracted, want.listing.f1)
        scores.append(SampleScore(score=got, sample_id=i, sample_metadata={"task": "list"}))
    assert scores[0].score.metadata["f1"] == pytest.approx(2 / 3)  # half the set
    m = list_f1(scores)

    class Rec:  # the same replies as journal records: the report's and the demo's F1
        def __init__(self, i: int, reply: str):
            self.example_id, self.model, self.settings_hash, self.task = f"e{i}", "m", "h", "list"
            self.answer, self.status, self.response = truth, "ok", reply

    f1 = score_records([Rec(i, r) for i, r in enumerate(replies)]).f1
    assert f1 is not None and (m["f1"], m["f1_low"], m["f1_high"]) == (f1.estimate, f1.interval.low, f1.interval.high)
    assert list_f1(scores[:0]) == {}
