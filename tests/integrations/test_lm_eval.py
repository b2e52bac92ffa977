"""The lm-eval task folder, run by the real ``lm-eval`` command against graphniah's policy servers on 127.0.0.1.

One export (the run tests' demo suite, two packed examples and three list questions) and three
``lm-eval run`` processes, started together once for the module: the oracle with the README's own
line, from a folder that is not the dataset's; the random policy with a relative ``--include_path``
from the dataset's parent and three requests at a time; always-NO with ``--apply_chat_template``. Every check reads their results,
their per-sample logs (``--log_samples``), what the servers received, and the modules each process
imported (``PYTHONPROFILEIMPORTTIME`` lists every import on stderr). Nothing reaches a hub: the
``datasets`` and hub libraries are told to stay offline.
"""

from __future__ import annotations

import os

os.environ["HF_DATASETS_OFFLINE"] = "1"
os.environ["HF_HUB_OFFLINE"] = "1"

import importlib.metadata as md
import json
import re
import shlex
import subprocess
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from packaging.requirements import Requirement
from typer.testing import CliRunner

from graphniah.cli import app
from graphniah.dataset import export_suite, open_dataset
from graphniah.formats.dataset import check_files
from graphniah.formats.examples import Example, read_examples, write_examples
from graphniah.formats.journal import Journal, RunRecord, read_journal
from graphniah.run.models import load_registry
from graphniah.run.serve.policies import PolicyServer
from graphniah.scoring import counted_records, score_record, score_records
from tests.dataset.conftest import exported_suite

REPO = Path(__file__).resolve().parents[2]
LM_EVAL = str(Path(sys.executable).with_name("lm-eval"))
TASKS = ("yesno", "mc", "count", "list")
POLICIES = ("oracle", "random", "always-no")


@dataclass(frozen=True)
class LmRun:
    policy: str
    results: dict[str, Any]  # results_<date>.json
    samples: dict[str, list[dict[str, Any]]]  # task -> the samples_graphniah_<task>_<date>.jsonl lines
    received: list[str]  # the messages of each request the server answered, as JSON
    settings: list[dict[str, Any]]  # the generation settings of each request (max_tokens, stop), as lm-eval sent them
    imported: frozenset[str]  # every module the lm-eval process imported


@dataclass(frozen=True)
class LmSetup:
    dataset: Path
    examples: dict[str, Example]  # by id, from the examples file the dataset was exported from
    runs: dict[str, LmRun]


def _readme_command() -> list[str]:
    """The one ``lm-eval run`` line of the README, split as a shell would."""
    lines = [ln for ln in (REPO / "README.md").read_text(encoding="utf-8").splitlines() if ln.startswith("lm-eval run ")]
    assert len(lines) == 1, lines
    return shlex.split(lines[0])


def _recording(server: PolicyServer) -> tuple[list[str], list[dict[str, Any]]]:
    """Keep the messages and the generation settings of every request the server answers (its policy
    answers them as before, ignoring the settings)."""
    seen: list[str] = []
    settings: list[dict[str, Any]] = []
    answer, complete = server.app.answer, server.app.complete

    def record(messages: Any) -> Any:
        seen.append(json.dumps([{"role": m["role"], "content": m["content"]} for m in messages], ensure_ascii=False))
        return answer(messages)

    def record_settings(payload: Any, authorization: Any) -> Any:
        settings.append({k: payload.get(k) for k in ("max_tokens", "max_completion_tokens", "stop")})
        return complete(payload, authorization)

    server.app.answer = record  # type: ignore[method-assign]
    server.app.complete = record_settings  # type: ignore[method-assign]
    return seen, settings


def _with(cmd: list[str], include_path: str, base_url: str, more_args: str = "") -> list[str]:
    """The command with its --include_path and its model's base_url replaced (and more model arguments)."""
    out = list(cmd)
    out[out.index("--include_path") + 1] = include_path
    i = out.index("--model_args") + 1
    out[i] = re.sub(r"base_url=[^,]+", f"base_url={base_url}", out[i]) + more_args
    return out


def _imports(stderr: str) -> frozenset[str]:
    return frozenset(m.group(1).strip() for m in re.finditer(r"^import time:\s+\d+ \|\s+\d+ \|\s*(\S+)", stderr, re.M))


def _read_outputs(out: Path) -> tuple[dict[str, Any], dict[str, list[dict[str, Any]]]]:
    [results] = list(out.rglob("results_*.json"))
    samples = {}
    for task in TASKS:
        [path] = list(out.rglob(f"samples_graphniah_{task}_*.jsonl"))
        samples[task] = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    return json.loads(results.read_text(encoding="utf-8")), samples


@pytest.fixture(scope="session")
def exported(tmp_path_factory: pytest.TempPathFactory):
    return exported_suite(tmp_path_factory)


@pytest.fixture(scope="module")
def lm(tmp_path_factory: pytest.TempPathFactory) -> LmSetup:
    from graphniah.formats.snapshot import find_snapshot_by_hash
    from graphniah.sampling.examples.sample import build_example
    from graphniah.sampling.examples.spec import ExampleSpec, SamplingContext

    exported = exported_suite(tmp_path_factory)
    ctx = SamplingContext(find_snapshot_by_hash(exported.suite.snapshots, exported.suite.snapshot_hash))
    lists = [build_example(ctx, ExampleSpec("list", 4, 20), 31, i) for i in range(3)]
    root = tmp_path_factory.mktemp("lm-eval")
    src = root / "examples" / "month.jsonl"
    examples = [*read_examples(exported.examples), *lists]
    write_examples(src, examples)
    dataset = export_suite(src, root / "data" / "month-dataset", snapshots_root=exported.suite.snapshots).out
    elsewhere = root / "elsewhere"
    elsewhere.mkdir()

    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}  # lm-eval's import of utils.py writes bytecode
    env |= {"HF_DATASETS_OFFLINE": "1", "HF_HUB_OFFLINE": "1", "PYTHONPROFILEIMPORTTIME": "1", "OPENAI_API_KEY": "not-a-key"}
    readme = _readme_command()
    servers = {p: PolicyServer(p, seed=0) for p in POLICIES}  # type: ignore[arg-type]
    received = {p: _recording(s) for p, s in servers.items()}
    procs = {}
    try:
        for s in servers.values():
            s.start()
        url = {p: f"{s.url}/chat/completions" for p, s in servers.items()}
        # the README's line as it stands, from a folder that is neither the dataset nor its parent
        cmds = {"oracle": (_with(readme, str(dataset / "lm_eval"), url["oracle"]), elsewhere),
                # a relative --include_path, from the dataset's parent; concurrent requests (lm-eval's async path)
                "random": (_with(readme, f"{dataset.name}/lm_eval", url["random"], ",num_concurrent=3"), dataset.parent),
                # lm-eval's chat template route: the same messages must arrive
                "always-no": (_with(readme, str(dataset / "lm_eval"), url["always-no"]) + ["--apply_chat_template"], elsewhere)}
        logs = root / "logs"
        logs.mkdir()
        for policy, (cmd, cwd) in cmds.items():
            assert cmd[0] == "lm-eval"
            full = [LM_EVAL, *cmd[1:], "--log_samples", "--output_path", str(root / "out" / policy)]
            # output to files, not pipes: the import log is larger than a pipe holds, and all three run at once
            with open(logs / f"{policy}.out", "wb") as out, open(logs / f"{policy}.err", "wb") as err:
                procs[policy] = subprocess.Popen(full, cwd=cwd, env=env, stdout=out, stderr=err)
        for proc in procs.values():
            proc.wait(timeout=300)
    finally:
        for proc in procs.values():
            if proc.poll() is None:
                proc.kill()
        for s in servers.values():
            s.stop()
    runs = {}
    for policy, proc in procs.items():
        stdout, stderr = ((logs / f"{policy}.{k}").read_text(encoding="utf-8", errors="replace") for k in ("out", "err"))
        tail = "\n".join(ln for ln in stderr.splitlines() if not ln.startswith("import time:"))[-4000:]
        assert proc.returncode == 0, f"lm-eval against {policy}: {stdout}\n{tail}"
        results, samples = _read_outputs(root / "out" / policy)
        runs[policy] = LmRun(policy, results, samples, received[policy][0], received[policy][1], _imports(stderr))
    return LmSetup(dataset, {e.id: e for e in examples}, runs)


def _acc(run: LmRun, name: str, metric: str = "acc") -> float:
    return float(run.results["results"][name][f"{metric},none"])


@pytest.mark.slow
def test_the_oracle_scores_one_on_every_task(lm):
    oracle = lm.runs["oracle"]
    for task in TASKS:
        assert _acc(oracle, f"graphniah_{task}") == 1.0
    assert _acc(oracle, "graphniah_list", "f1") == 1.0
    assert _acc(oracle, "graphniah") == 1.0
    # every example once, in the task it belongs to
    per_task = Counter(e.task for e in lm.examples.values())
    assert {t: len(oracle.samples[t]) for t in TASKS} == dict(per_task) and per_task["list"] == 3
    assert sorted(s["doc"]["id"] for t in TASKS for s in oracle.samples[t]) == sorted(lm.examples)
    assert all(s["doc"]["task"] == t and s["target"] == lm.examples[s["doc"]["id"]].answer for t in TASKS for s in oracle.samples[t])


@pytest.mark.slow
def test_each_request_carries_the_examples_own_messages(lm):
    want = Counter(json.dumps([{"role": m.role, "content": m.content} for m in e.messages], ensure_ascii=False)
                   for e in lm.examples.values())
    for policy, run in lm.runs.items():
        assert Counter(run.received) == want, policy  # one request per example, system then user, unchanged
        assert {json.loads(m)[0]["role"] for m in run.received} == {"system"}


@pytest.mark.slow
def test_each_request_asks_for_a_long_reply_with_no_stop_sequence(lm):
    """What lm-eval sends, recorded at the server: the 16,384 reply tokens the docs promise (lm-eval's own
    default is 256) and no stop sequence (lm-eval's default stops at a blank line, and replies reason in
    paragraphs before the answer line). The policy servers ignore both, so only this record shows them."""
    for policy, run in lm.runs.items():
        assert len(run.settings) == len(run.received) == len(lm.examples), policy
        assert all(s == {"max_tokens": 16384, "max_completion_tokens": None, "stop": []} for s in run.settings), (policy, run.settings[:2])


def _journal(run: LmRun, lm: LmSetup, runs_root: Path) -> Path:
    """The lm-eval run's replies as a graphniah journal (what ``graphniah run`` would have written for them)."""
    path = runs_root / "month" / f"lm-eval-{run.policy}.jsonl"
    records = [RunRecord(example_id=s["doc"]["id"], model=f"lm-eval-{run.policy}", settings_hash="lm-eval", status="ok",
                         task=lm.examples[s["doc"]["id"]].task, answer=lm.examples[s["doc"]["id"]].answer,
                         response=s["resps"][0][0], attempts=1, finished_at="2026-12-04T00:00:00Z")
               for t in TASKS for s in run.samples[t]]
    with Journal(path) as j:
        j.append(records)
    return path


@pytest.mark.slow
@pytest.mark.parametrize("policy", ["random", "always-no"])
def test_random_and_always_no_are_scored_as_graphniah_score_scores_them(lm, policy, tmp_path):
    run = lm.runs[policy]
    journal = read_journal(_journal(run, lm, tmp_path))
    verdict = {i: score_record(r) for i, r in counted_records(journal).items()}
    samples = {s["doc"]["id"]: s for t in TASKS for s in run.samples[t]}
    assert set(samples) == set(verdict) == set(lm.examples)
    for i, s in samples.items():  # example by example
        assert s["acc"] == (1.0 if verdict[i].correct else 0.0), i
        if lm.examples[i].task == "list":
            assert verdict[i].listing is not None and s["f1"] == pytest.approx(verdict[i].listing.f1)
    sc = score_records(journal)
    for task, p in sc.by_task.items():
        assert _acc(run, f"graphniah_{task}") == pytest.approx(p.estimate)
    assert sc.overall is not None and _acc(run, "graphniah") == pytest.approx(sc.overall.estimate)
    assert sc.f1 is not None and _acc(run, "graphniah_list", "f1") == pytest.approx(sc.f1.estimate)
    # `graphniah score` on that journal prints the same accuracies
    res = CliRunner().invoke(app, ["score", "--model", f"lm-eval-{policy}", "--suite", "month", "--runs", str(tmp_path)],
                             env={"COLUMNS": "200"})
    assert res.exit_code == 0, res.output
    for task, p in sc.by_task.items():
        assert re.search(rf"{task}\s.*\s{100 * p.estimate:.2f}\s", res.output), (task, res.output)
    if policy == "always-no":
        # independently of any scorer: NO is right exactly for the YES/NO questions whose answer is NO
        assert {s["resps"][0][0] for s in samples.values()} == {"\\answer{NO}"}
        assert {i: s["acc"] for i, s in samples.items()} == {
            i: float(e.task == "yesno" and e.answer == "NO") for i, e in lm.examples.items()}
    else:
        assert {s["acc"] for s in samples.values()} == {0.0, 1.0}  # the guesses are right and wrong: the check can fail
        assert 0 < _acc(run, "graphniah_list", "f1") < 1


@pytest.mark.slow
def test_no_torch_or_transformers_installed_or_imported(lm):
    for name in ("torch", "transformers"):
        with pytest.raises(md.PackageNotFoundError):
            md.distribution(name)
    for policy, run in lm.runs.items():
        assert {"lm_eval", "graphniah.scoring", "graphniah.integrations.lm_eval_task"} <= run.imported, policy  # the log is complete
        assert not {m for m in run.imported if m.split(".")[0] in ("torch", "transformers")}, policy


def _closure(requirements: list[str], extras: set[str]) -> set[str]:
    """Every installed distribution the requirements pull in, markers evaluated for this interpreter."""
    seen: set[str] = set()
    todo = [(Requirement(r), extras) for r in requirements]
    while todo:
        req, active = todo.pop()
        if req.marker is not None and not any(req.marker.evaluate({"extra": e}) for e in (active or {""})):
            continue
        name = req.name.lower().replace("_", "-")
        if name in seen:
            continue
        seen.add(name)
        todo += [(Requirement(r), set(req.extras)) for r in md.requires(name) or []]
    return seen


def test_the_extra_pulls_lm_eval_api_and_never_torch():
    [req] = [r for r in md.requires("graphniah") or [] if 'extra == "lm-eval"' in r]
    assert Requirement(req).name == "lm_eval" and Requirement(req).extras == {"api"}
    pulled = _closure([req.split(";")[0]], set())
    assert {"lm-eval", "aiohttp", "tenacity", "requests", "datasets"} <= pulled
    assert not pulled & {"torch", "transformers", "accelerate", "peft"}
    makefile = (REPO / "Makefile").read_text(encoding="utf-8")
    assert "-e '.[test,inspect,local-llm,lm-eval]'" in makefile


@pytest.mark.slow
def test_the_folder_stays_intact_after_lm_eval_ran(lm):
    assert list((lm.dataset / "lm_eval" / "__pycache__").glob("utils.*.pyc"))  # lm-eval compiled utils.py in place
    assert check_files(lm.dataset) == []
    open_dataset(lm.dataset)  # what the tasks themselves check before reading


def test_readme_line_targets_the_demo_folder_and_the_local_oracle():
    from graphniah.layout import EXAMPLES_ROOT

    cmd = _readme_command()
    assert cmd[:2] == ["lm-eval", "run"]
    assert cmd[cmd.index("--include_path") + 1] == str(EXAMPLES_ROOT / "demo-dataset" / "lm_eval")  # where make demo exports
    assert cmd[cmd.index("--tasks") + 1] == "graphniah" and cmd[cmd.index("--model") + 1] == "local-chat-completions"
    args = dict(kv.split("=", 1) for kv in cmd[cmd.index("--model_args") + 1].split(","))
    oracle = load_registry()["local-oracle"]
    assert args == {"base_url": f"{oracle.api_base}/chat/completions", "model": "local-oracle"}


# -- the task class and its hooks, in this process (lm-eval's own YAML loader builds the task) -----------------------------------


def _task(folder: Path, task: str) -> Any:
    """The task lm-eval builds from the folder's YAML (its loader imports utils.py and resolves every !function)."""
    from lm_eval.tasks._yaml_loader import load_yaml

    cfg = load_yaml(folder / f"graphniah_{task}.yaml")
    return cfg["class"](config=cfg)


def test_the_task_sends_the_examples_messages_and_refuses_other_prompts(exported, tmp_path):
    import shutil

    from lm_eval.models.api_models import JsonChatStr

    # a copy: importing utils.py may write lm_eval/__pycache__, which the shared folder must not get
    task = _task(shutil.copytree(exported.dataset, tmp_path / "ds") / "lm_eval", "mc")
    docs = list(task.test_docs())
    mc = [e for e in read_examples(exported.examples) if e.task == "mc"]
    assert [d["id"] for d in docs] == [e.id for e in mc]  # suite order, no other task's rows
    for doc, ex in zip(docs, mc, strict=True):
        want = [{"role": m.role, "content": m.content} for m in ex.messages]
        plain = task.fewshot_context(doc, num_fewshot=0)
        assert isinstance(plain, JsonChatStr) and json.loads(plain.prompt) == want  # what chat API models send as messages
        rendered = task.fewshot_context(doc, num_fewshot=0, apply_chat_template=True,
                                        chat_template=lambda msgs, add_generation_prompt=True: ("template", msgs, add_generation_prompt))
        assert rendered == ("template", want, True)
        # a template handed over without --apply_chat_template is not used: the messages go as they are
        unapplied = task.fewshot_context(doc, num_fewshot=0, chat_template=lambda msgs, add_generation_prompt=True: "template")
        assert isinstance(unapplied, JsonChatStr) and json.loads(unapplied.prompt) == want
        assert task.doc_to_text(doc) == ex.messages[-1].content and task.doc_to_target(doc) == ex.answer
    # the JSON chat keeps text as written (what --log_samples shows and lm-eval measures), not as \u escapes
    accented = {"messages": [{"role": "system", "content": "Réponds."}, {"role": "user", "content": "Naïve – “quoted”"}]}
    assert "Naïve – “quoted”" in task.fewshot_context(accented, num_fewshot=0).prompt
    with pytest.raises(ValueError, match="zero-shot"):
        task.fewshot_context(docs[0], num_fewshot=2)
    with pytest.raises(ValueError, match="own system message"):
        task.fewshot_context(docs[0], num_fewshot=0, system_instruction="Be brief.")


def test_process_results_is_graphniah_scoring():
    from graphniah.integrations.lm_eval_task import process_results

    truth = "Alpha Beta\nGamma: Delta\nEpsilon"
    cases = [  # (task, truth, reply, acc, f1) worked out by hand from the scoring rule
        ("yesno", "YES", "so \\answer{\\textbf{yes}}.", 1.0, None),
        ("yesno", "NO", "no block at all", 0.0, None),
        ("mc", "C", "\\answer{(C)} then \\answer{Option B}", 0.0, None),  # the last block counts
        ("count", "1234", "\\answer{1,234}", 1.0, None),
        ("count", "17", "\\answer{about 17}", 0.0, None),
        ("list", truth, "\\answer{\n- alpha beta\n3. Gamma Delta\nEpsilon\n}", 1.0, 1.0),
        ("list", truth, "\\answer{\nAlpha Beta\nZeta\n}", 0.0, 2 * 0.5 * (1 / 3) / (0.5 + 1 / 3)),  # precision 1/2, recall 1/3
        ("list", truth, "", 0.0, 0.0),
    ]
    for task, answer, reply, acc, f1 in cases:
        got = process_results({"task": task, "answer": answer}, [reply])
        assert got == ({"acc": acc} if f1 is None else {"acc": acc, "f1": pytest.approx(f1)}), (task, reply)


def test_task_docs_check_the_folder_and_name_what_is_missing(exported, tmp_path):
    import shutil

    from graphniah.errors import GraphNIAHError
    from graphniah.integrations.lm_eval_task import task_docs

    with pytest.raises(GraphNIAHError, match=r"has no list examples \(it has yesno, mc, count\)"):
        task_docs(exported.dataset, "list")
    with pytest.raises(GraphNIAHError, match="unknown GraphNIAH task 'sum'"):
        task_docs(exported.dataset, "sum")
    ds = shutil.copytree(exported.dataset, tmp_path / "ds")
    data = ds / "data" / "count-00000.parquet"
    data.write_bytes(data.read_bytes()[:-100])
    with pytest.raises(GraphNIAHError, match=r"does not match its manifest: data/count-00000.parquet"):
        task_docs(ds, "yesno")  # any damaged file stops every task, as graphniah verify would
