"""The three shortcuts, rule by rule: TF-IDF titles, BM25 retrieval under a token budget with closed-world
reasoning, and the paper count; on hand-made inputs and on real examples from the demo snapshot."""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pytest

from graphniah.baselines.reading import CheckerTitleSpace, retrieve
from graphniah.baselines.shortcuts import (
    _closed_world,
    answer,
    paper_count,
    retrieval,
    title_similarity,
)
from graphniah.formats.examples import Example
from graphniah.seeds import Stream, generator
from graphniah.text import ParsedQuestion, TextGraph, TextNode, parse_messages, rendering_of
from graphniah.text.textcheck import normalize

# --------------------------------------------------------------------------- title similarity

TITLES = [
    "Graph neural networks for citation prediction",
    "Citation graphs: a survey",
    "Protein folding with diffusion models",
    "Diffusion models for graph generation",
    "A survey of protein structure prediction",
]


def _tfidf_cosine(titles: list[str], a: str, b: str) -> float:
    """The same TF-IDF written out with Counters: smoothed idf, raw counts, unit-length vectors."""
    docs = [normalize(t).split() for t in dict.fromkeys(titles)]
    df = Counter(w for d in docs for w in set(d))
    n = len(docs)

    def vec(title: str) -> dict[str, float]:
        tf = Counter(normalize(title).split())
        v = {w: c * (math.log((1 + n) / (1 + df[w])) + 1) for w, c in tf.items()}
        norm = math.sqrt(sum(x * x for x in v.values()))
        return {w: x / norm for w, x in v.items()}

    va, vb = vec(a), vec(b)
    return sum(x * vb.get(w, 0.0) for w, x in va.items())


def test_title_space_is_tfidf_cosine() -> None:
    space = CheckerTitleSpace.fit(TITLES)
    for a in TITLES:
        for b in TITLES:
            assert space.similarity(a, b) == pytest.approx(_tfidf_cosine(TITLES, a, b))
    assert space.similarity(TITLES[0], TITLES[0]) == pytest.approx(1.0)
    assert space.similarity(TITLES[0], TITLES[2]) == 0.0  # no word in common
    # case, punctuation and spacing are ignored, as the checker's identity rule does
    assert space.similarity("CITATION graphs -- a  survey!", TITLES[0]) == pytest.approx(space.similarity(TITLES[1], TITLES[0]))


# --------------------------------------------------------------------------- closed-world reasoning


def _graph(titles: list[str], edges: list[tuple[int, int]]) -> TextGraph:
    nodes = tuple(TextNode(t, frozenset({normalize(t)}), frozenset({(normalize(t), frozenset())}), True) for t in titles)
    return TextGraph(nodes, frozenset(edges), len(nodes), 0)


def _rng() -> np.random.Generator:
    return generator(Stream.SHORTCUT, 0, 1)


def test_closed_world_answers() -> None:
    g = _graph(["S", "A", "B", "C"], [(0, 1), (1, 2)])  # S - A - B, C alone
    yes = ParsedQuestion("yesno", "S", ("B",), False)
    assert _closed_world(yes, g, _rng) == "YES"
    assert _closed_world(ParsedQuestion("yesno", "S", ("C",), False), g, _rng) == "NO"
    assert _closed_world(ParsedQuestion("yesno", "S", ("not retrieved",), False), g, _rng) == "NO"  # unnamed: unreachable
    assert _closed_world(ParsedQuestion("count", "S", (), False), g, _rng) == "2"
    assert _closed_world(ParsedQuestion("count", "not retrieved", (), False), g, _rng) == "0"
    assert _closed_world(ParsedQuestion("mc", "S", ("C", "B", "x", "y"), False), g, _rng) == "B"
    assert _closed_world(ParsedQuestion("mc", "S", ("C", "x", "y", "z"), True), g, _rng) == "E"  # none reachable: "none"


def test_closed_world_guesses_from_the_seeded_stream_when_open() -> None:
    g = _graph(["S", "C"], [])
    q = ParsedQuestion("mc", "S", ("C", "x", "y", "z"), False)
    got = [_closed_world(q, g, lambda k=k: generator(Stream.SHORTCUT, 0, k)) for k in range(40)]
    assert set(got) <= set("ABCD") and len(set(got)) > 1  # a guess among the four options, not a fixed letter
    assert got == [_closed_world(q, g, lambda k=k: generator(Stream.SHORTCUT, 0, k)) for k in range(40)]  # reproducible


def test_retrieve_keeps_the_ranked_prefix_within_the_budget() -> None:
    blocks = ["Title: apples and pears\nReferences:", "Title: quantum gravity loops\nReferences:",
              "Title: quantum apples\nReferences:", "Title: loops of gravity in quantum fields\nReferences:"]
    order = retrieve(blocks, "quantum gravity loops", len, budget=10**6)
    assert order[0] == blocks[1] and order[-1] == blocks[0]  # best match first, no query word last
    top = retrieve(blocks, "quantum gravity loops", len, budget=len(blocks[1]) + len(blocks[3]))
    assert top == [blocks[1], blocks[3]]
    # the first block that does not fit ends the list (a shorter later block is not squeezed in)
    assert retrieve(blocks, "quantum gravity loops", len, budget=len(blocks[1]) + 5) == [blocks[1]]
    assert retrieve(blocks, "quantum gravity loops", len, budget=0) == []


# --------------------------------------------------------------------------- on real examples


def test_retrieval_with_every_block_is_the_oracle(shortcut_suite) -> None:
    exs = shortcut_suite.examples
    got = retrieval(exs, budget=10**9)
    assert got == {ex.id: ex.answer for ex in exs}  # perfect reasoning over all the citations


def test_retrieval_with_nothing_retrieved(shortcut_suite) -> None:
    exs = shortcut_suite.examples
    got = retrieval(exs, budget=0)
    for ex in exs:
        if ex.task == "yesno":
            assert got[ex.id] == "NO"
        elif ex.task == "count":
            assert got[ex.id] == "0"
        elif ex.none_option:
            assert got[ex.id] == "E"
        else:
            assert got[ex.id] in "ABCD"


def test_retrieval_reads_at_most_the_budget(shortcut_suite, monkeypatch) -> None:
    from graphniah.baselines import shortcuts

    seen: list[tuple[int, int, int]] = []  # (tokens kept, blocks kept, blocks)
    real = shortcuts.retrieve

    def spy(blocks, query, count_tokens, budget):  # type: ignore[no-untyped-def]
        kept = real(blocks, query, count_tokens, budget)
        seen.append((sum(count_tokens(b) for b in kept), len(kept), len(blocks)))
        return kept

    monkeypatch.setattr(shortcuts, "retrieve", spy)
    retrieval([ex for ex in shortcut_suite.examples if ex.recipe.params.context_length], budget=3000)
    assert seen and max(t for t, _, _ in seen) <= 3000
    assert any(k < n for _, k, n in seen)  # the APA blocks of a 9,000-token context hold more than 3,000 tokens


def test_paper_count_is_exact_when_both_components_have_the_knob_size(shortcut_suite) -> None:
    counts = [ex for ex in shortcut_suite.examples if ex.task == "count"]
    got = paper_count(shortcut_suite.examples)
    assert set(got) == {ex.id for ex in counts}
    for ex in counts:
        _, g = parse_messages(ex.messages)
        assert len(g.nodes) >= 2 * ex.component_size
        if ex.recipe.params.distractor == "disjoint-component":  # more components than the design's two
            assert int(got[ex.id] or 0) > int(ex.answer)
        else:
            assert got[ex.id] == ex.answer


def test_title_similarity_median_rule_and_options(shortcut_suite) -> None:
    exs = [ex for ex in shortcut_suite.examples if ex.task in ("yesno", "mc") and rendering_of(ex.messages) == "apa"]
    got = title_similarity(shortcut_suite.examples)
    assert set(got) == {ex.id for ex in exs}  # edge-list examples name ids, not titles: left out
    questions = {ex.id: parse_messages(ex.messages)[0] for ex in exs}
    titles = [t for q in questions.values() for t in (q.source, *q.targets)]
    sims = {i: [_tfidf_cosine(titles, q.source, t) for t in q.targets] for i, q in questions.items()}
    median = float(np.median([s[0] for i, s in sims.items() if questions[i].task == "yesno"]))
    for ex in exs:
        if ex.task == "yesno":
            assert got[ex.id] == ("YES" if sims[ex.id][0] > median + 1e-12 else "NO")
        else:  # the most similar candidate, never the "none" option
            assert got[ex.id] == "ABCD"[int(np.argmax(sims[ex.id]))]
    assert {got[ex.id] for ex in exs if ex.task == "yesno"} == {"YES", "NO"}  # the median splits the questions


def test_no_shortcut_looks_at_the_answer(shortcut_suite) -> None:
    exs = shortcut_suite.examples

    def flipped(ex: Example) -> Example:
        other = {"yesno": {"YES": "NO", "NO": "YES"}, "mc": {"A": "B", "B": "C", "C": "D", "D": "A"}}
        return ex.model_copy(update={"answer": other[ex.task][ex.answer] if ex.task in other else str(int(ex.answer) + 1)})

    for name in ("title-similarity", "paper-count"):
        assert answer(name, exs) == answer(name, [flipped(ex) for ex in exs])
    assert retrieval(exs, budget=2000) == retrieval([flipped(ex) for ex in exs], budget=2000)


# --------------------------------------------------------------------------- rules at their boundaries


def test_retrieve_stops_at_the_first_block_that_does_not_fit_rather_than_skipping_it() -> None:
    """The budget rule is a ranked prefix: the block ranked after one that does not fit is not taken,
    even when it would fit in what is left (a skip-and-continue rule would take it)."""
    blocks = ["quantum gravity loops", "quantum gravity", "quantum", "apples pears"]
    tokens = {blocks[0]: 50, blocks[1]: 40, blocks[2]: 5, blocks[3]: 1}  # lengths chosen freely: only the rule counts
    assert retrieve(blocks, "quantum gravity loops", tokens.__getitem__, budget=10**6) == blocks  # ranked as written
    assert retrieve(blocks, "quantum gravity loops", tokens.__getitem__, budget=50 + 5) == [blocks[0]]  # not + [blocks[2]]
    assert retrieve(blocks, "quantum gravity loops", tokens.__getitem__, budget=50 + 40) == blocks[:2]  # exactly full: kept
    assert retrieve(blocks, "quantum gravity loops", tokens.__getitem__, budget=50 + 40 - 1) == blocks[:1]
    assert retrieve(blocks, "quantum gravity loops", tokens.__getitem__, budget=49) == []


def test_equal_bm25_scores_keep_the_context_order() -> None:
    """Blocks that score alike (the same words, the same length) are taken in the order the context gives
    them, whatever their number (an unstable sort reorders ties among 30 blocks)."""
    levels = [int(x) for x in np.random.default_rng(3).integers(0, 3, 30)]
    words = {2: "quantum gravity", 1: "quantum", 0: "apples"}
    blocks = [f"{words[lv]} unique{i:02d}" for i, lv in enumerate(levels)]  # one word of its own each: equal lengths
    want = [blocks[i] for lv in (2, 1, 0) for i in range(30) if levels[i] == lv]
    assert retrieve(blocks, "quantum gravity", len, budget=10**6) == want


@pytest.mark.parametrize(("named", "expected"), [(0, "0"), (1, "0"), (2, "0"), (3, "1"), (4, "1"), (5, "2"), (6, "2"),
                                                 (7, "3"), (41, "20"), (43, "21")])
def test_paper_count_rounds_halves_up(monkeypatch, named: int, expected: str) -> None:
    """The count is round(papers named / 2) - 1 with halves rounded up (a counting example has two
    components: the source's and one other), computed by hand for each count."""
    from graphniah.baselines import shortcuts
    from tests.report.synthetic import make_example

    class Named:  # the example's text, naming ``named`` papers
        context = ""

        def graph(self, context, prompts):  # type: ignore[no-untyped-def]
            return TextGraph(tuple(TextNode(f"t{i}", frozenset(), frozenset(), True) for i in range(named)), frozenset(), named, 0)

    assert shortcuts.papers_per_count_example() == 2  # the published design, stated here on its own
    monkeypatch.setattr(shortcuts, "read_question", lambda ex, pr: Named())
    ex = make_example("count", 4, 20, "19", seed=0, index=0)
    other = make_example("yesno", 4, 20, "YES", seed=0, index=1)  # not a counting example: passed over, not an end
    assert paper_count([other, ex]) == {ex.id: expected}


# --------------------------------------------------------------------------- on hand-made examples (no snapshot)


def _hand_made() -> list[Example]:
    """Examples rendered from hand-made forests with the real templates (tests/text/test_textcheck.py),
    and one whose messages follow no template (another prompt set): the shortcuts leave it out."""
    from tests.report.synthetic import make_example
    from tests.text.test_textcheck import build_case

    cases = [build_case(seed, task) for seed in range(1, 9) for task in ("yesno", "mc")]
    return [c.example for c in cases] + [make_example("yesno", 4, 20, "YES", seed=0, index=99)]


def test_title_similarity_on_hand_made_examples() -> None:
    exs = _hand_made()
    got = title_similarity(exs)
    rendered = exs[:-1]
    assert set(got) == {ex.id for ex in rendered}  # the one in another template is left out
    questions = {ex.id: parse_messages(ex.messages)[0] for ex in rendered}
    titles = [t for q in questions.values() for t in (q.source, *q.targets)]
    sims = {i: [_tfidf_cosine(titles, q.source, t) for t in q.targets] for i, q in questions.items()}
    median = float(np.median([s[0] for i, s in sims.items() if questions[i].task == "yesno"]))
    for ex in rendered:
        want = ("YES" if sims[ex.id][0] > median + 1e-12 else "NO") if ex.task == "yesno" else "ABCD"[int(np.argmax(sims[ex.id]))]
        assert got[ex.id] == want


def test_a_title_without_words_is_similar_to_nothing() -> None:
    space = CheckerTitleSpace.fit(["...", "Graph search", "Graph theory"])
    assert space.similarity("...", "Graph search") == 0.0 and space.similarity("...", "...") == 0.0
    assert space.similarity("Graph search", "Graph search") == pytest.approx(1.0)


def test_retrieval_with_every_block_is_the_oracle_on_hand_made_examples() -> None:
    """With the default prompts and a budget that holds every block, retrieval reasons over all the citations."""
    exs = _hand_made()[:-1]
    assert retrieval(exs, budget=10**9) == {ex.id: ex.answer for ex in exs}


def test_the_default_budget_is_8000_tokens() -> None:
    """The budget the README states (8,000 tokens): blocks summing to exactly 8,000 are all kept, one token more is not."""
    blocks = ["quantum gravity loops", "quantum gravity", "quantum"]
    assert retrieve(blocks, "quantum gravity loops", {blocks[0]: 5000, blocks[1]: 2999, blocks[2]: 1}.__getitem__) == blocks
    assert retrieve(blocks, "quantum gravity loops", {blocks[0]: 5000, blocks[1]: 2999, blocks[2]: 2}.__getitem__) == blocks[:2]


def test_answer_runs_the_shortcut_named(monkeypatch) -> None:
    from graphniah.baselines import learned, shortcuts, topics
    from graphniah.errors import GraphNIAHError

    for fn in ("title_similarity", "retrieval", "paper_count"):
        monkeypatch.setattr(shortcuts, fn, lambda *a, _fn=fn, **k: {"ran": _fn})
    monkeypatch.setattr(topics, "topic_cluster", lambda *a, **k: {"ran": "topic_cluster"})
    monkeypatch.setattr(learned, "learned_surface", lambda *a, **k: ({"ran": "learned_surface"}, None))
    for name, fn in (("title-similarity", "title_similarity"), ("retrieval", "retrieval"), ("paper-count", "paper_count"),
                     ("topic-cluster", "topic_cluster"), ("learned-surface", "learned_surface")):
        assert answer(name, []) == {"ran": fn}
    with pytest.raises(GraphNIAHError, match="unknown shortcut 'titles'"):
        answer("titles", [])  # type: ignore[arg-type]
