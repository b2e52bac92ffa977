"""The edge-list rendering: ids, blocks and questions read back by the text check; on the demo snapshot,
edge-list examples verify, regenerate byte for byte and share forest, distractors and L with their APA twins.

Expected answers are computed with networkx on the true forest, never with the text check.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import replace

import networkx as nx
import numpy as np
import pytest
from typer.testing import CliRunner

from graphniah.cli import app
from graphniah.errors import GraphNIAHError
from graphniah.formats.examples import Example, option_letters, read_examples
from graphniah.sampling.examples.render import build_messages, question
from graphniah.sampling.examples.sample import build_example, regenerate
from graphniah.sampling.examples.spec import ExampleSpec, SamplingContext
from graphniah.text import Undetermined, edgelist, load_prompts, parse_edge_context, parse_messages, rendering_of, solve, verify
from graphniah.text.edgelist import PaperIds, render_edge_component

HEX8 = re.compile(r"[0-9a-f]{8}")


# ----------------------------------------------------------------------------- ids


def test_ids_are_8_hex_digits_deterministic_and_unique_within_an_example() -> None:
    ids = PaperIds(seed=3, index=7)
    got = [ids(c) for c in range(5000)]
    assert all(HEX8.fullmatch(i) for i in got) and len(set(got)) == 5000
    again = PaperIds(3, 7)
    assert [again(c) for c in range(5000)] == got
    other = PaperIds(3, 8)
    assert sum(other(c) == i for c, i in enumerate(got)) < 5  # another example: other ids


def test_a_clashing_id_takes_the_next_salt(monkeypatch) -> None:
    # Four possible ids only: the fifth paper cannot get one, the first four must all differ.
    monkeypatch.setattr(edgelist, "_digest", lambda seed, index, c, salt: f"{(c + salt) % 4:08x}")
    ids = PaperIds(0, 0)
    assert [ids(c) for c in (0, 4, 8, 12)] == ["00000000", "00000001", "00000002", "00000003"]
    assert ids(4) == "00000001"  # a paper keeps its id


# ----------------------------------------------------------------------------- round trips


def random_forest(rng: np.random.Generator, sizes: list[int]) -> tuple[list[list[int]], list[tuple[int, int]]]:
    """Components as random recursive trees with random edge directions: (papers per component, edges)."""
    comps, edges, next_id = [], [], 1000
    for size in sizes:
        papers = list(range(next_id, next_id + size))
        next_id += size + int(rng.integers(1, 50))
        for i in range(1, size):
            a, b = papers[i], papers[int(rng.integers(i))]
            edges.append((a, b) if rng.random() < 0.5 else (b, a))
        comps.append(papers)
    return comps, edges


def edge_prompt(rng: np.random.Generator, sizes: list[int], filler: list[str]):
    """An edge-list prompt on a random forest, shuffled with filler text, and the true graph."""
    pr = load_prompts()
    comps, edges = random_forest(rng, sizes)
    ids = PaperIds(int(rng.integers(100)), int(rng.integers(100)))
    blocks = render_edge_component(edges, [p for c in comps for p in c], ids, pr)
    context = [*blocks, *filler]
    context = [context[i] for i in rng.permutation(len(context))]
    g = nx.Graph(edges)
    source = comps[0][int(rng.integers(len(comps[0])))]
    return pr, comps, edges, ids, context, g, source


@pytest.mark.parametrize("seed", range(6))
def test_edge_list_prompts_read_back_to_the_forest_and_its_answers(seed: int) -> None:
    rng = np.random.default_rng(seed)
    filler = ["Some essay text.\nIt mentions 1a2b3c4d -> and arrows -> here.", "int main() {\n  return 0;\n}", "deadbeef cafe"]
    pr, comps, edges, ids, context, g, source = edge_prompt(rng, [40, 25, 30], filler)
    # The graph read from the text alone is the forest, ids for papers.
    tg = parse_edge_context("\n\n".join(context), pr)
    name = {ids(p): p for c in comps for p in c}
    assert {(name[tg.nodes[a].title], name[tg.nodes[b].title]) for a, b in tg.edges} == set(edges)
    assert tg.blocks == len({a for a, _ in edges}) and tg.rejected_runs == 0
    # count
    msgs = build_messages("count", question("count", ids(source), [], False, pr, render="edges"), context, pr, render="edges")
    assert rendering_of(msgs, pr) == "edges"
    assert solve(msgs, pr) == str(len(nx.node_connected_component(g, source)) - 1)
    # yes/no, both ways
    for t in (comps[0][-1] if comps[0][-1] != source else comps[0][0], comps[1][3]):
        q = question("yesno", ids(source), [ids(t)], False, pr, render="edges")
        want = "YES" if nx.has_path(g, source, t) else "NO"
        assert solve(build_messages("yesno", q, context, pr, render="edges"), pr) == want
    # multiple choice, with and without the fifth option
    opts = [comps[2][5], comps[0][-1] if comps[0][-1] != source else comps[0][0], comps[1][7]]
    for none_option in (False, True):
        q = question("mc", ids(source), [ids(o) for o in opts], none_option, pr, render="edges")
        assert solve(build_messages("mc", q, context, pr, render="edges"), pr) == option_letters(3, none_option)[1]


def test_dropping_a_citation_line_changes_the_count_the_text_gives() -> None:
    rng = np.random.default_rng(11)
    pr, comps, _, ids, context, g, source = edge_prompt(rng, [30, 30], [])
    q = question("count", ids(source), [], False, pr, render="edges")
    want = str(len(nx.node_connected_component(g, source)) - 1)
    cut = next(i for i, b in enumerate(context) if ids(comps[0][0]) in b or ids(comps[0][1]) in b)
    lines = context[cut].split("\n")
    mutated = [*context[:cut], *(["\n".join(lines[1:])] if len(lines) > 1 else []), *context[cut + 1 :]]
    assert solve(build_messages("count", q, context, pr, render="edges"), pr) == want
    assert solve(build_messages("count", q, mutated, pr, render="edges"), pr) != want  # a tree edge is a bridge


def test_partly_edge_like_runs_are_text_and_a_self_citation_is_refused() -> None:
    pr = load_prompts()
    g = parse_edge_context("0000000a -> 0000000b\nnot an edge\n\n0000000c -> 0000000d", pr)
    assert g.blocks == 1 and g.rejected_runs == 1 and len(g.edges) == 1
    with pytest.raises(Undetermined, match="cite itself"):
        parse_edge_context("0000000a -> 0000000a", pr)
    # An APA prompt keeps its reading; an edge-list question needs the edge-list templates.
    apa = build_messages("count", "How many?", ["x"], pr)
    assert rendering_of(apa, pr) == "apa"
    with pytest.raises(ValueError, match="no list question"):
        question("list", "0000000a", [], False, pr, render="edges")


# ----------------------------------------------------------------------------- on the demo snapshot


@pytest.fixture(scope="module")
def ctx(demo_snapshot, demo_graph) -> SamplingContext:
    return SamplingContext(demo_snapshot, demo_graph)


def _chunks(ex: Example) -> tuple[list[str], list[str]]:
    """(needle chunks, other chunks) of the context, cut at blank lines."""
    pr = load_prompts()
    content = ex.messages[1].content
    context = content.split("=== CONTEXT ===\n\n", 1)[1].rsplit("\n\n=== ANSWER FORMAT ===", 1)[0]
    line = re.compile(r"[0-9a-f]{8} -> [0-9a-f]{8}")
    needles, other = [], []
    for chunk in context.split("\n\n"):
        is_needle = chunk.startswith(pr.block.title.literals[0]) or all(line.fullmatch(x) for x in chunk.split("\n"))
        (needles if is_needle else other).append(chunk)
    return needles, other


@pytest.mark.parametrize(
    ("spec", "index"),
    [
        (ExampleSpec("yesno", 8, 110, "NO"), 2),
        (ExampleSpec("mc", 4, 100, "C", distractor="disjoint-component", context_length=60_000), 5),
        (ExampleSpec("count", 4, 100, distractor="essays", context_length=40_000), 7),
    ],
)
def test_the_edge_list_twin_has_the_same_forest_distractors_and_length(ctx, spec: ExampleSpec, index: int) -> None:
    apa = build_example(ctx, spec, seed=5, index=index)
    edges = build_example(ctx, replace(spec, render="edges"), seed=5, index=index)
    assert edges.recipe.params.render == "edges" and "render" not in apa.recipe.params.model_dump()
    assert (edges.papers, edges.edges, edges.source, edges.targets, edges.answer) == (apa.papers, apa.edges, apa.source, apa.targets, apa.answer)
    assert edges.recipe.params.context_length == apa.recipe.params.context_length == spec.context_length
    assert edges.stats.needles == apa.stats.needles and edges.stats.reference_lines == apa.stats.reference_lines == len(apa.edges)
    assert verify(edges).ok and regenerate(ctx, edges) == edges
    assert solve(edges.messages) == edges.answer
    # The question names ids only; no title of the example's papers is in the prompt.
    q, g = parse_messages(edges.messages)
    assert all(HEX8.fullmatch(t) for t in (q.source, *q.targets)) and {n.title for n in g.nodes} >= {q.source}
    if spec.task == "mc":
        assert all(HEX8.fullmatch(o) for o in edges.options)
    if spec.context_length is not None:
        assert max(edges.token_counts.values()) <= spec.context_length
    # Same distractors: the twins draw the same distractor stream, and the shorter edge-list needles
    # leave room for more of it, so the APA twin's distractor text is part of the edge-list twin's.
    (apa_needles, apa_other), (edge_needles, edge_other) = _chunks(apa), _chunks(edges)
    assert len(apa_needles) == len(edge_needles) == apa.stats.needles or spec.distractor == "disjoint-component"
    if spec.distractor == "essays":
        assert apa_other and not Counter(apa_other) - Counter(edge_other)
    if spec.distractor == "disjoint-component":
        assert edges.stats.nodes >= apa.stats.nodes > len(apa.papers)


def test_cli_samples_verifies_and_shows_edge_lists(demo_snapshot, tmp_path) -> None:
    out = tmp_path / "edges.jsonl"
    runner = CliRunner()
    res = runner.invoke(app, ["sample", "--snapshot", str(demo_snapshot.path), "--task", "mc", "--depth", "4", "-n", "2",
                              "--component-size", "100", "--render", "edges", "--out", str(out)])
    assert res.exit_code == 0, res.output
    exs = read_examples(out)
    assert [e.recipe.params.render for e in exs] == ["edges", "edges"]
    assert runner.invoke(app, ["verify", str(out)]).exit_code == 0
    res = runner.invoke(app, ["show", exs[0].id, "--examples", str(out), "--root", str(demo_snapshot.path.parent.parent)])
    assert res.exit_code == 0 and exs[0].messages[1].content in res.stdout
    bad = runner.invoke(app, ["sample", "--snapshot", str(demo_snapshot.path), "--task", "mc", "--depth", "4", "--render", "svg"])
    assert bad.exit_code != 0 and "--render must be apa or edges" in str(bad.exception or bad.output)


def test_edge_lists_exist_for_the_three_question_tasks_only() -> None:
    with pytest.raises(GraphNIAHError, match="no list question"):
        ExampleSpec("list", 4, 100, render="edges")
