"""The policy server over raw HTTP: routes, policies, usage block, faults, the CLI entry point."""

from __future__ import annotations

import subprocess
import sys

import httpx
import pytest

from graphniah.errors import GraphNIAHError
from graphniah.run.serve.policies import PolicyServer
from graphniah.run.serve.server import approx_prompt_tokens, wait_until_healthy
from graphniah.text import solve
from tests.run.serve.faulty import Faults, FaultServer


def chat(url: str, messages, **extra) -> httpx.Response:
    return httpx.post(f"{url}/chat/completions", json={"model": "m", "messages": messages, **extra}, timeout=30)


def msgs(ex) -> list[dict]:
    return [m.model_dump() for m in ex.messages]


def test_routes_and_usage(suite):
    ex = suite.examples[0]
    with PolicyServer("oracle") as srv:
        assert httpx.get(srv.url.removesuffix("/v1") + "/health").json() == {"status": "ok"}
        models = httpx.get(f"{srv.url}/models").json()
        assert models["object"] == "list" and models["data"][0]["id"] == "local-oracle"
        assert httpx.get(f"{srv.url}/nothing").status_code == 404
        r = chat(srv.url, msgs(ex))
        assert r.status_code == 200
        body = r.json()
        choice = body["choices"][0]
        assert choice["finish_reason"] == "stop" and choice["message"]["role"] == "assistant"
        assert choice["message"]["content"].endswith(f"\\answer{{{ex.answer}}}")
        u = body["usage"]
        assert u["prompt_tokens"] == approx_prompt_tokens(msgs(ex)) == sum(-(-len(m.content) // 4) + 3 for m in ex.messages) + 3
        assert u["total_tokens"] == u["prompt_tokens"] + u["completion_tokens"]
        assert u["completion_tokens_details"]["reasoning_tokens"] > 0
        assert body["system_fingerprint"].endswith("usage=chars/4")
        assert chat(srv.url, []).status_code == 400
        assert chat(srv.url, msgs(ex), stream=True).status_code == 400
        assert httpx.post(f"{srv.url}/chat/completions", content=b"not json", timeout=5).status_code == 400


def test_oracle_matches_the_text_only_solver(suite):
    with PolicyServer("oracle") as srv:
        for ex in suite.examples:
            content = chat(srv.url, msgs(ex)).json()["choices"][0]["message"]["content"]
            assert content.endswith(f"\\answer{{{solve(ex.messages)}}}")


def test_oracle_without_a_determined_answer_gives_no_answer_block(suite):
    ex = suite.examples[0]
    garbled = msgs(ex)
    garbled[1]["content"] = garbled[1]["content"].replace("=== CONTEXT ===", "=== CONTEXT? ===")
    with PolicyServer("oracle") as srv:
        content = chat(srv.url, garbled).json()["choices"][0]["message"]["content"]
    assert "\\answer{" not in content


def test_random_is_seeded_and_stays_in_the_answer_set(suite):
    mc = next(e for e in suite.examples if e.task == "mc")
    draws = []
    for _ in range(2):
        with PolicyServer("random", seed=42) as srv:
            draws.append([chat(srv.url, msgs(mc)).json()["choices"][0]["message"]["content"] for _ in range(30)])
    assert draws[0] == draws[1]  # same seed, same sequence
    letters = {d.removeprefix("\\answer{").removesuffix("}") for d in draws[0]}
    assert letters <= set("ABCD") and len(letters) >= 3
    with PolicyServer("random") as srv:
        assert chat(srv.url, [{"role": "user", "content": "hello"}]).status_code == 400  # no task to draw for


def test_random_answers_do_not_depend_on_the_order_prompts_arrive_in(suite):
    # Concurrent runs send examples in any order: each prompt's answer must be the same whichever came first.
    examples = [e for task in ("yesno", "mc", "count", "list") for e in [x for x in suite.examples if x.task == task][:3]]
    answers = []
    for order in (examples, examples[::-1]):
        with PolicyServer("random", seed=3) as srv:
            answers.append({e.id: chat(srv.url, msgs(e)).json()["choices"][0]["message"]["content"] for e in order})
    assert answers[0] == answers[1]


def test_always_no(suite):
    with PolicyServer("always-no") as srv:
        for ex in suite.examples[:3]:
            assert chat(srv.url, msgs(ex)).json()["choices"][0]["message"]["content"] == "\\answer{NO}"


def test_fault_script_and_http_faults(suite):
    ex = suite.examples[0]
    faults = Faults(script=("429", "503", "context", "cut", "noanswer", "auth"), retry_after_s=1.5)
    with FaultServer("oracle", faults=faults) as srv:
        r = chat(srv.url, msgs(ex))
        assert r.status_code == 429 and r.headers["retry-after"] == "1.5"
        assert chat(srv.url, msgs(ex)).status_code == 503
        r = chat(srv.url, msgs(ex))
        assert r.status_code == 400 and r.json()["error"]["code"] == "context_length_exceeded"
        with pytest.raises(httpx.HTTPError):
            chat(srv.url, msgs(ex))  # the body is cut half way
        assert "\\answer{" not in chat(srv.url, msgs(ex)).json()["choices"][0]["message"]["content"]
        r = httpx.post(f"{srv.url}/chat/completions", json={"messages": msgs(ex)}, headers={"Authorization": "Bearer k-1"})
        assert r.status_code == 401 and "k-1" in r.json()["error"]["message"]  # echoes the key, like a careless provider
        assert chat(srv.url, msgs(ex)).status_code == 200  # the script is over
        other = msgs(suite.examples[1])
        assert chat(srv.url, other).status_code == 429  # each distinct prompt has its own script
    with pytest.raises(GraphNIAHError):
        Faults(script=("418",))


def test_flex_is_unavailable_only_at_the_flex_tier(suite):
    ex = suite.examples[0]
    with FaultServer("oracle", faults=Faults(flex_unavailable=True)) as srv:
        r = chat(srv.url, msgs(ex), service_tier="flex")
        assert r.status_code == 429 and r.json()["error"]["code"] == "resource_unavailable"
        r = chat(srv.url, msgs(ex))
        assert r.status_code == 200
        assert srv.stats.tiers == {"flex": 1, "default": 1}


def test_serve_command_uses_the_registry_port_or_a_given_one(tmp_path):
    proc = subprocess.Popen([sys.executable, "-c", "from graphniah.cli import main; main()", "serve", "--policy", "always-no",
                             "--port", "0"], stdout=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline()
        assert line.startswith("listening on http://127.0.0.1:")
        url = line.split()[-1]
        wait_until_healthy(url, 30)
        r = chat(url, [{"role": "user", "content": "is it?"}])
        assert r.json()["choices"][0]["message"]["content"] == "\\answer{NO}"
        r = httpx.post(f"{url}/responses", json={"model": "any-name", "input": "is it?"}, timeout=30)  # what inspect_ai sends
        assert r.json()["output"][-1]["content"][0]["text"] == "\\answer{NO}" and r.json()["model"] == "any-name"
    finally:
        proc.terminate()
        proc.wait(10)
        proc.stdout.close()


def test_oracle_and_random_read_edge_list_prompts() -> None:
    from graphniah.formats.examples import option_letters
    from graphniah.run.serve.policies import PolicyApp
    from graphniah.sampling.examples.render import build_messages, question
    from graphniah.text import load_prompts
    from graphniah.text.edgelist import PaperIds, render_edge_component

    pr = load_prompts()
    ids = PaperIds(0, 1)
    # two paths, 1-2-3-4 and 5-6-7; the source 1 reaches 4 (option B) but not 7 (option A)
    blocks = render_edge_component([(1, 2), (3, 2), (3, 4), (6, 5), (7, 6)], [1, 2, 3, 4, 5, 6, 7], ids, pr)
    q = question("mc", ids(1), [ids(7), ids(4)], True, pr, render="edges")
    messages = [m.model_dump() for m in build_messages("mc", q, [*blocks, "unrelated text"], pr, render="edges")]
    content, _ = PolicyApp("oracle").answer(messages)
    assert content.endswith("\\answer{B}")
    picks = {PolicyApp("random", seed=s).answer(messages)[0] for s in range(30)}
    assert picks == {f"\\answer{{{letter}}}" for letter in option_letters(2, True)}


def test_oracle_and_random_answer_list_questions() -> None:
    import datetime as dt

    from graphniah.formats.examples import PaperMeta
    from graphniah.run.serve.policies import PolicyApp
    from graphniah.sampling.examples.render import build_messages, question, render_component
    from graphniah.scoring import score_response
    from graphniah.text import extract_answer

    papers = {i: PaperMeta(i, f"Reachable or not, paper {i}", (f"Author {i}",), "Nature", dt.date(2026, 5, i)) for i in range(1, 9)}
    edges = [(1, 2), (3, 2), (3, 4), (6, 5), (7, 6), (8, 7)]  # 1-2-3-4 and 5-6-7-8
    messages = [m.model_dump() for m in build_messages("list", question("list", papers[1].title),
                                                          [*render_component(papers, edges, list(papers)), "unrelated text"])]
    truth = "\n".join(papers[p].title for p in (2, 3, 4))
    content, _ = PolicyApp("oracle").answer(messages)
    assert score_response("list", truth, content).listing.f1 == 1.0
    draws = [PolicyApp("random", seed=s).answer(messages)[0] for s in (5, 5, 6)]
    assert draws[0] == draws[1]  # seeded
    named = {t for d in draws for t in (extract_answer(d) or "").split("\n") if t}
    assert named <= {p.title for p in papers.values()} and len(named) >= 4  # titles of the context, kept by a coin


def test_a_request_while_the_sets_load_waits_for_all_of_them(monkeypatch: pytest.MonkeyPatch) -> None:
    """The first requests arrive together: one that comes while another thread is still loading the
    template sets must be told its own set (here ``tagged``), not fall back to the default one and
    answer in the wrong format."""
    import threading

    import graphniah.text.prompts as prompts
    from graphniah.formats.examples import Message
    from graphniah.run.serve.policies import PolicyApp

    tagged = prompts.load_template("tagged")
    loading, release = threading.Event(), threading.Event()
    real = prompts.load_all_templates

    def slow(*args, **kwargs):
        loading.set()
        release.wait(5)
        return real(*args, **kwargs)

    monkeypatch.setattr(prompts, "load_all_templates", slow)
    app = PolicyApp("oracle")
    system = (Message(role="system", content=tagged.system["mc"]),)
    first: list[str] = []
    t = threading.Thread(target=lambda: first.append(app._prompt_set(system).name))
    t.start()
    assert loading.wait(5)
    threading.Timer(0.3, release.set).start()
    second = app._prompt_set(system).name  # asked while the first thread is inside the load
    t.join(5)
    assert (first, second) == (["tagged"], "tagged")
