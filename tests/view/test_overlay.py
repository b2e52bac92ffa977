"""Where a run's search stopped, as the example page shows it: captions per task, the list answer per paper.

The page data are checked against recomputations that share no code with the viewer: networkx for
paths and hop distances, and the run's own answer lines compared with the snapshot's titles.
"""

from __future__ import annotations

import json
import re
from importlib import resources

import networkx as nx
import pytest

from graphniah.formats.journal import read_journal
from graphniah.scoring import (
    counted_records,
    extract_answer,
    list_papers,
    recall_by_distance,
    score_record,
    score_response,
    title_index,
)
from graphniah.text import load_prompts
from graphniah.text.textcheck import normalize
from graphniah.view.data import PaperLookup, load_answers
from graphniah.view.forest import forest_caption, highlighted_path
from graphniah.view.needles import needle_map
from graphniah.view.pages import example_page_data


def _graph(ex) -> nx.Graph:
    g = nx.Graph()
    g.add_nodes_from(ex.papers)
    g.add_edges_from(ex.edges)
    return g


def test_each_task_has_its_own_caption(viewer_suite, list_suite) -> None:
    by_kind = {(ex.task, ex.answer if ex.task == "yesno" else None): ex for ex in viewer_suite.examples}
    yes, no, mc, count = by_kind["yesno", "YES"], by_kind["yesno", "NO"], by_kind["mc", None], by_kind["count", None]
    captions = {}
    for ex in (yes, no, mc, count, list_suite.example):
        captions[ex.task, ex.answer if ex.task == "yesno" else None] = text = forest_caption(ex, highlighted_path(ex))
        assert text.startswith(f"{len(ex.papers)} papers;")
    g = _graph(yes)
    path_papers = nx.shortest_path_length(g, yes.source, yes.targets[0]) + 1
    assert f"The answer is YES: the red path ({path_papers} papers) joins the source to the target." in captions["yesno", "YES"]
    assert nx.has_path(_graph(no), no.source, no.targets[0]) is False
    assert "The answer is NO" in captions["yesno", "NO"] and "no path joins the two" in captions["yesno", "NO"]
    right = mc.targets["ABCD".index(mc.answer)]
    mc_papers = nx.shortest_path_length(_graph(mc), mc.source, right) + 1
    assert (f"S = source, A–D = the candidates. The answer is {mc.answer}: the red path ({mc_papers} papers) joins the source "
            f"to candidate {mc.answer}") in captions["mc", None]
    size = len(nx.node_connected_component(_graph(count), count.source))
    assert f"The answer, {size - 1}, counts the papers of the source's component other than the source" in captions["count", None]
    lst = list_suite.example
    reachable = len(nx.node_connected_component(_graph(lst), lst.source)) - 1
    assert f"The answer lists the {reachable} papers reachable from the source" in captions["list", None]
    assert not any("no target is reachable" in c for c in captions.values())
    assert len(set(captions.values())) == 5
    # without the snapshot the caption says why papers show as ids
    assert forest_caption(count, (), metadata=False).endswith("(Snapshot not found: papers are shown by corpus id.)")


def _page(list_suite):
    runs, answers = load_answers(list_suite.runs_dir)
    lookup = PaperLookup(list_suite.snapshots)
    data = example_page_data(list_suite.example, lookup.cards(list_suite.example), runs, answers, None, load_prompts(None))
    return data, {r["run"]: r for r in data["runs"]}, lookup.cards(list_suite.example)


def test_list_overlay_puts_every_answer_line_on_its_paper(list_suite) -> None:
    ex = list_suite.example
    data, runs, cards = _page(list_suite)
    assert set(runs) == {"local-oracle", "local-random", "local-always-no"}
    forest = data["list"]
    assert forest is not None and len(forest["nodes"]) == len(ex.targets)
    hops = nx.single_source_shortest_path_length(_graph(ex), ex.source)
    assert forest["hops"] == [hops[t] for t in ex.targets]

    n = len(ex.targets)
    oracle, always_no = runs["local-oracle"]["overlay"], runs["local-always-no"]["overlay"]
    assert oracle["hits"] == "1" * n and oracle["extra"] == oracle["unknown"] == [] and oracle["extra_undrawn"] == 0
    assert always_no["hits"] == "0" * n and always_no["extra"] == [] and always_no["unknown"] == ["NO"]

    # The random run lists papers the context names: each line is a truth title, another paper of the forest,
    # or a paper of a distractor component (not drawn) -- told apart here by the snapshot's titles, without the scoring module.
    (rec,) = read_journal(list_suite.runs_dir / "local-random.jsonl")
    lines = [normalize(line) for line in (extract_answer(rec.response) or "").split("\n") if line.strip()]
    truth = {normalize(cards[t].title): i for i, t in enumerate(ex.targets)}
    node_of = {normalize(cards[p].title): i for i, p in enumerate(ex.papers) if p not in set(ex.targets)}  # node i: papers[i]
    rnd = runs["local-random"]["overlay"]
    found = {truth[x] for x in lines if x in truth}
    assert rnd["hits"] == "".join("1" if i in found else "0" for i in range(n))
    assert sorted(rnd["extra"]) == sorted({node_of[x] for x in lines if x in node_of})
    assert rnd["extra_undrawn"] == len([x for x in lines if x not in truth and x not in node_of])
    assert rnd["unknown"] == [] and rnd["repeated"] == 0
    assert 0 < len(found) < n and rnd["extra"] and rnd["extra_undrawn"]  # the example tells the three apart
    # recall per hop: networkx distances of the found papers
    top = max(hops[t] for t in ex.targets)
    want = [[sum(1 for i, t in enumerate(ex.targets) if hops[t] == h and i in found), sum(1 for t in ex.targets if hops[t] == h)]
            for h in range(1, top + 1)]
    assert rnd["by_hop"] == want


def test_overlay_is_ids_not_titles(list_suite) -> None:
    """The overlay of a run is a character per truth line and a few indices: no title is copied into it."""
    _, runs, cards = _page(list_suite)
    titles = {c.title for c in cards.values()}
    for r in runs.values():
        text = json.dumps(r["overlay"])
        assert not any(t in text for t in titles)
        assert len(text) < 4 * len(list_suite.example.targets) + 400


def test_list_papers_reads_the_lines_as_the_matcher_does() -> None:
    truth = "Alpha Beta\nGamma: Delta\nEpsilon"
    others = ["Source Paper", "Zeta Eta", "Gamma: delta"]  # a title equal to a truth title is the truth's
    raw = "\n- alpha beta\n* Zeta  Eta\n3. Unknown thing\nALPHA BETA\n\nsource paper.\n"
    got = list_papers(truth, raw, others)
    assert got.found == (0,) and got.missed == (1, 2)
    assert got.extra == (1, 0) and got.unknown == ("3. Unknown thing",) and got.repeated == 1
    assert list_papers(truth, None, others).missed == (0, 1, 2)
    # the score of the same response, handed in, and the others keyed beforehand: the same classification
    scored = score_response("list", truth, f"\\answer{{{raw}}}")
    assert scored.raw == raw and list_papers(truth, raw, title_index(others), listing=scored.listing) == got
    assert recall_by_distance([True, False, True, True], [1, 2, 2, 4]) == ((1, 1), (1, 2), (0, 0), (1, 1))
    with pytest.raises(ValueError):
        recall_by_distance([True], [1, 2])


def test_overlay_hits_are_the_scored_hits_of_each_journal(list_suite) -> None:
    """Each journal scored as every accuracy is (counted_records, score_record): the overlay's hits are its hits."""
    _, runs, _ = _page(list_suite)
    for path in sorted(list_suite.runs_dir.glob("*.jsonl")):
        (rec,) = counted_records(read_journal(path)).values()
        listing = score_record(rec).listing
        assert listing is not None
        assert runs[rec.model]["overlay"]["hits"] == "".join("1" if h else "0" for h in listing.hits)


def test_a_run_without_an_answer_leaves_the_other_runs_overlays_as_they_are(list_suite) -> None:
    """A run that did not answer the example (no journal record) has no overlay; the runs after it keep theirs."""
    ex = list_suite.example
    runs, answers = load_answers(list_suite.runs_dir)
    cards = PaperLookup(list_suite.snapshots).cards(ex)
    full = example_page_data(ex, cards, runs, answers, None, load_prompts(None))["runs"]
    without_first = {k: v for k, v in answers.items() if k != (ex.id, 0)}
    got = example_page_data(ex, cards, runs, without_first, None, load_prompts(None))["runs"]
    assert len(runs) >= 2 and got[0]["overlay"] is None and got[0]["outcome"] == "none"
    assert [r["overlay"] for r in got[1:]] == [r["overlay"] for r in full[1:]]


def test_list_overlay_with_a_text_distractor(viewer_suite, list_suite) -> None:
    """With a text distractor the forest holds every paper of the context: a named paper outside the truth is
    a node, and a made-up title names no paper."""
    from graphniah.sampling.examples.sample import build_example
    from graphniah.sampling.examples.spec import ExampleSpec
    from graphniah.view.data import Answer, RunView

    ex = build_example(viewer_suite.ctx, ExampleSpec("list", 4, 12, None, distractor="essays", context_length=6000), seed=5, index=1)
    cards = PaperLookup(list_suite.snapshots).cards(ex)
    assert cards is not None
    outside = [i for i, p in enumerate(ex.papers) if p not in set(ex.targets)]
    titles = ex.answer.split("\n")
    raw = "\n".join([titles[0], f"- {cards[ex.papers[outside[-1]]].title.upper()}", "A title nobody wrote", titles[0]])
    run = RunView("m", "m", "h", list_suite.runs_dir / "m.jsonl")
    answer = Answer("ok", None, False, None, None, None, None, None, None, None, 1, None, raw=raw)
    data = example_page_data(ex, cards, [run], {(ex.id, 0): answer}, None, load_prompts(None))
    overlay = data["runs"][0]["overlay"]
    assert overlay["hits"] == "1" + "0" * (len(titles) - 1)
    assert overlay["extra"] == [outside[-1]] and overlay["extra_undrawn"] == 0
    assert overlay["unknown"] == ["A title nobody wrote"] and overlay["repeated"] == 1


def test_a_paper_named_only_in_a_distractor_reference_is_extra(list_suite) -> None:
    """A title that only a reference list of a distractor component names is a paper of the context (extra,
    not drawn); a line like NO names none. Few such lines: only the blocks holding their words are parsed."""
    from graphniah.text import parse_context
    from graphniah.text.positions import user_fields
    from graphniah.view.data import Answer, RunView

    ex = list_suite.example
    cards = PaperLookup(list_suite.snapshots).cards(ex)
    assert cards is not None
    prompts = load_prompts(None)
    text = ex.messages[-1].content
    c0, c1 = user_fields(ex.messages, prompts)["context"]
    drawn = {normalize(c.title) for c in cards.values()}
    leaves = [n.title for n in parse_context(text[c0:c1], prompts).nodes if not n.has_block and normalize(n.title) not in drawn]
    assert leaves  # the disjoint component cites papers that have no block
    run = RunView("m", "m", "h", list_suite.runs_dir / "m.jsonl")
    raw = f"{leaves[0].lower()}\nNO\n{ex.answer.splitlines()[0]}"
    answer = Answer("ok", None, False, None, None, None, None, None, None, None, 1, None, raw=raw)
    overlay = example_page_data(ex, cards, [run], {(ex.id, 0): answer}, None, prompts)["runs"][0]["overlay"]
    assert overlay["extra_undrawn"] == 1 and overlay["extra"] == [] and overlay["unknown"] == ["NO"]
    assert overlay["hits"].count("1") == 1


def _node_zero_outside_the_truth(list_suite):
    """The list example with a paper outside the truth moved to the front: forest node 0 (node i is papers[i])."""
    ex = list_suite.example
    first = next(p for p in ex.papers if p not in set(ex.targets))
    return ex.model_copy(update={"papers": (first, *(p for p in ex.papers if p != first))}), first


def test_a_named_paper_at_forest_node_zero_is_extra(list_suite) -> None:
    from graphniah.view.data import Answer, RunView

    ex, first = _node_zero_outside_the_truth(list_suite)
    cards = PaperLookup(list_suite.snapshots).cards(ex)
    assert cards is not None
    truth = ex.answer.split("\n")
    raw = "\n".join([truth[1], cards[first].title])
    run = RunView("m", "m", "h", list_suite.runs_dir / "m.jsonl")
    answer = Answer("ok", None, False, None, None, None, None, None, None, None, 1, None, raw=raw)
    data = example_page_data(ex, cards, [run], {(ex.id, 0): answer}, None, load_prompts(None))
    overlay = data["runs"][0]["overlay"]
    assert overlay["extra"] == [0] and overlay["extra_undrawn"] == 0
    assert overlay["hits"] == "".join("1" if i == 1 else "0" for i in range(len(truth)))


def test_page_data_counts_blocks_colours_only_papers_and_shows_errors(viewer_suite) -> None:
    """The page data of the viewer suite's examples, against the examples and journals themselves."""
    runs, answers = load_answers(viewer_suite.runs_dir)
    lookup = PaperLookup(viewer_suite.snapshots)
    yes, _, _, count = viewer_suite.examples
    script = resources.files("graphniah.view").joinpath("static", "view.js").read_text(encoding="utf-8")
    kind_names = json.loads(re.search(r"var KIND_NAME = (\[[^\]]*\]);", script).group(1).replace("'", '"'))
    prompts = load_prompts(None)
    for ex in (yes, count):
        data = example_page_data(ex, lookup.cards(ex), runs, answers, None, prompts)
        # needle blocks are the task components' blocks; a disjoint component adds paper blocks, code adds none
        assert data["blocks"]["needle"] == ex.stats.needles
        assert (data["blocks"]["paper"] > 0) == (ex.recipe.params.distractor == "disjoint-component")
        # only the task components' blocks take a component colour; distractor text and paper blocks take none (-1)
        assert sum(1 for s in data["spans"] if s[3] >= 0) == ex.stats.needles
        # the system message as the example holds it; the question names the source's title and is no paper block
        assert data["system"] == ex.messages[0].content and ex.messages[0].role == "system"
        question = data["question"]
        assert question is not None and lookup.cards(ex)[ex.source][0] in question and question in ex.messages[-1].content
        assert "References:" not in question and "Title:" not in question
        # each span's kind, as the page's script names the codes (its KIND_NAME), is the needle map's
        assert [kind_names[s[2]] for s in data["spans"]] == [sp.kind for sp in needle_map(ex, None, prompts, lookup.cards(ex)).spans]
        errors = {r["run"]: r["error"] for r in data["runs"]}
        wanted = viewer_suite.expected["model-b"][ex.id][0]
        assert errors == {"model-a": None, "model-b": "prompt too long for this model" if wanted == "failed" else None}
        # model-a's record of example i, as tests/view/conftest.py wrote it
        i = viewer_suite.examples.index(ex)
        (a,) = (r for r in data["runs"] if r["run"] == "model-a")
        assert (a["outcome"], a["extracted"], a["attempts"], a["reasoning"]) == ("correct", ex.answer, 1, "I followed the citations.")
        assert (a["prompt_tokens"], a["completion_tokens"], a["reasoning_tokens"]) == (1000 + i, 7 + i, i)
        assert a["cost_usd"] == pytest.approx(0.001 * (i + 1)) and a["time_s"] == pytest.approx(0.5 + i)


def test_a_list_page_without_the_snapshot_still_classifies_every_line(list_suite) -> None:
    """Without metadata the forest's other papers have no titles: lines are looked up in the blocks' text."""
    ex = list_suite.example
    runs, answers = load_answers(list_suite.runs_dir)
    data = example_page_data(ex, None, runs, answers, None, load_prompts(None))
    assert data["metadata"] is False
    overlays = {r["run"]: r["overlay"] for r in data["runs"]}
    assert overlays["local-oracle"]["hits"] == "1" * len(ex.targets) and overlays["local-oracle"]["extra"] == []
    assert overlays["local-always-no"]["unknown"] == ["NO"]


def test_a_failed_call_gets_no_overlay_even_with_answer_lines(list_suite) -> None:
    """Only a scored answer (status ``ok``) is drawn on the forest: a failed call's record, even one holding
    lines that name truth papers, gives the run no overlay (``list_overlays``: None for a run without a
    scored answer), while an ``ok`` record with the same lines hits the first truth paper."""
    from graphniah.view.data import Answer, RunView

    ex = list_suite.example
    cards = PaperLookup(list_suite.snapshots).cards(ex)
    raw = ex.answer.split("\n")[0]
    run = RunView("m", "m", "h", list_suite.runs_dir / "m.jsonl")
    failed = Answer("failed", None, False, None, None, None, None, None, None, None, 3, "timed out", raw=raw)
    ok = Answer("ok", None, False, None, None, None, None, None, None, None, 1, None, raw=raw)
    got = [example_page_data(ex, cards, [run], {(ex.id, 0): a}, None, load_prompts(None))["runs"][0] for a in (failed, ok)]
    assert (got[0]["overlay"], got[0]["outcome"]) == (None, "failed")
    assert got[1]["overlay"]["hits"] == "1" + "0" * (len(ex.targets) - 1)
