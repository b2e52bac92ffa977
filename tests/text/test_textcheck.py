"""The text-only verifier: round trips on random forests with awkward metadata, and mutation tests.

Expected answers are computed here with networkx on the *true* graph, never with the verifier, so
a test fails if the verifier reads the text differently from how it was generated.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, replace

import networkx as nx
import numpy as np
import pytest

from graphniah.formats.examples import Example, PaperMeta, Recipe, RecipeParams, option_letters
from graphniah.sampling.examples.render import build_messages, example_stats, question, render_component
from graphniah.text.prompts import load_prompts
from graphniah.text.textcheck import Undetermined, identity_key, parse_context, parse_messages, solve, verify

# ----------------------------------------------------------------------------- random metadata

STEMS = ["Graph", "Über", "深度", "élan", "Ωmega", "Net", "x", "Zeta", "ﬁne", "Tiếng"]
WORDS = [
    "learning", "of", "the", "Reachability", "über", "modèles", "神经网络", "αβ-decay", "C++", "{x}",
    "\\answer{YES}", "Title:", "References:", "n.d.", "arXiv:2604.01234", "(2025)", "Part", "I", "II",
    "O'Brien's", "“quoted”", '"raw"', "—", "e.g.", "vs.", "100%", "$x^2$", "Published", "in", "on", "&",
]  # fmt: skip
SEPARATORS = [" ", " ", " ", ". ", ": ", ", ", " (2024). ", "? ", " - ", " | ", "! "]
ENDINGS = ["", "", ".", "?", "!", "...", " (2025)", ")"]
NAMES = [
    "Alice Smith", "Bob Jones", "J. R. R. Tolkien", "Anne-Marie Dupont", "Seán O'Neil", "van der Berg",
    "李明", "Zoë Ångström", "María José García-López", "D. Knuth", "Smith, Jr.", "A. (Tony) Hoare",
]  # fmt: skip
VENUES = [
    None, None, "Nature", "Proc. IEEE", "J. Chem. Phys.", "arXiv.org", "arXiv", "NeurIPS",
    "Trans. A. B. C.", "Vol. 3 (2024). Part 2", "Phys. Rev. Lett.", "ACM Computing Surveys",
]  # fmt: skip


def rand_title(rng: np.random.Generator, uid: int) -> str:
    """A title with awkward punctuation; the leading ``stem+uid`` token keeps titles (and keys) unique."""
    parts = [f"{STEMS[rng.integers(len(STEMS))]}{uid}"]
    for _ in range(rng.integers(0, 7)):
        parts.append(SEPARATORS[rng.integers(len(SEPARATORS))])
        parts.append(WORDS[rng.integers(len(WORDS))])
    return "".join(parts) + ENDINGS[rng.integers(len(ENDINGS))]


def rand_paper(rng: np.random.Generator, cid: int) -> PaperMeta:
    k = int(rng.choice([0, 1, 1, 2, 3, 4]))
    authors = [NAMES[i] for i in rng.integers(len(NAMES), size=k)]  # repeats allowed
    date = None if rng.random() < 0.15 else dt.date(2026, 4, 1) + dt.timedelta(days=int(rng.integers(0, 270)))
    year = date.year if date is not None else (None if rng.random() < 0.5 else 2026)
    arxiv = f"26{rng.integers(4, 13):02d}.{rng.integers(0, 99999):05d}" if rng.random() < 0.3 else None
    return PaperMeta(cid, rand_title(rng, cid), tuple(authors), VENUES[rng.integers(len(VENUES))], date, year, arxiv)


def rand_tree(rng: np.random.Generator, ids: list[int]) -> list[tuple[int, int]]:
    """Random recursive tree on ``ids`` (added in order) with random citation directions."""
    edges = []
    for i, v in enumerate(ids[1:], 1):
        u = ids[int(rng.integers(i))]
        edges.append((u, v) if rng.random() < 0.5 else (v, u))
    return edges


def distractors(rng: np.random.Generator, titles: list[str]) -> list[str]:
    """Distractor blocks, several of them built to look almost like paper blocks."""
    t = titles[int(rng.integers(len(titles)))]
    out = [
        "static int probe(struct device *dev)\n{\n\tif (!dev)\n\t\treturn -ENODEV;\n\treturn 0;\n}",
        "The most important thing about a startup is growth. Everything else follows from it.",
        f"Title: {t}.\nAuthors: Alice Smith.\nReferences:",  # header without entries
        f"Title: {t}.\nReferences:\n- no year in this line.",  # entry that is no entry
        f"Title: Fake.\nPublished in Nowhere.\nReferences:\n- Alice Smith (2020). {t}. Nature.\nAnd the essay goes on.",
        f"An essay line first.\nTitle: Fake.\nReferences:\n- Alice Smith (2020). {t}. Nature.",
        f"References:\n- Alice Smith (2020). {t}. Nature.",
        f"- Bob Jones (2026). {t}. Proc. IEEE.",
        "Title: The history of the printing press\nThe press changed Europe.",
        "   \n\t\n",  # whitespace-only lines inside a distractor
        "Windows line endings\r\nTitle: X.\r\nReferences:\r\n- A (2020). B. C.\r\n",
    ]
    return [out[i] for i in rng.permutation(len(out))[: int(rng.integers(3, len(out) + 1))]]


# ----------------------------------------------------------------------------- cases

RECIPE = Recipe(snapshot_hash="s" * 64, pool_hash="p" * 64, prompts_hash=load_prompts().hash, seed=0, version="test",
                params=RecipeParams(task="yesno", depth=2, component_size=4, label="YES", none_option=False, alpha=0.1,
                                    distractor="none", context_length=None, index=0))


@dataclass
class Case:
    task: str
    papers: dict[int, PaperMeta]  # everything rendered (task components + extra components)
    edges: list[tuple[int, int]]  # all of them
    comps: list[list[int]]  # task components, each in addition order
    order: list[int]  # addition order of every paper
    source: int
    targets: list[int]
    none_option: bool
    blocks: list[str]  # context blocks in context order
    needle_at: list[int]  # positions in ``blocks`` of the rendered papers' blocks, in render order
    example: Example

    def block_index(self, pid: int) -> int:
        """Position in ``blocks`` of ``pid``'s paper block."""
        citing = {u for u, _ in self.edges}
        return self.needle_at[[p for p in self.order if p in citing].index(pid)]

    def rerender(self, papers: dict[int, PaperMeta]) -> list[str]:
        """The context with every paper block rendered again from ``papers`` (distractors kept in place)."""
        blocks = list(self.blocks)
        for pos, block in zip(self.needle_at, render_component(papers, self.edges, self.order), strict=True):
            blocks[pos] = block
        return blocks


def true_answer(task: str, edges, source: int, targets, none_option: bool) -> str:
    g = nx.Graph(list(edges))
    reach = nx.node_connected_component(g, source) if source in g else {source}
    if task == "count":
        return str(len(reach) - 1)
    if task == "yesno":
        return "YES" if targets[0] in reach else "NO"
    letters = option_letters(len(targets), none_option)
    hits = [letter for letter, t in zip(letters, targets, strict=False) if t in reach]
    return hits[0] if len(hits) == 1 else (letters[-1] if not hits and none_option else "?")


def make_example(case_id: str, task: str, papers, edges, comps, source, targets, none_option, blocks) -> Example:
    q = question(task, papers[source].title, [papers[t].title for t in targets], none_option)
    needles = [b for b in blocks if b in set(render_component(papers, edges, [p for c in comps for p in c]))]
    return Example(
        id=case_id,
        task=task,
        depth=2,
        component_size=len(comps[0]),
        answer=true_answer(task, edges, source, targets, none_option),
        options=tuple(papers[t].title for t in targets) if task == "mc" else (),
        none_option=none_option,
        messages=tuple(build_messages(task, q, blocks)),
        papers=tuple(p for c in comps for p in c),
        edges=tuple(edges),
        source=source,
        targets=tuple(targets),
        stats=example_stats(q, needles, blocks, len(papers), len(edges)),
        recipe=RECIPE,
    )


def build_case(seed: int, task: str, none_option: bool = False, size: tuple[int, int] = (2, 14)) -> Case:
    rng = np.random.default_rng(seed)
    n_comp = 4 if task == "mc" else 2
    n_extra = int(rng.integers(0, 3))  # disjoint-component distractors
    sizes = rng.integers(size[0], size[1] + 1, size=n_comp + n_extra)
    papers: dict[int, PaperMeta] = {}
    comps: list[list[int]] = []
    edges: list[tuple[int, int]] = []
    cid = 1000 * seed
    for sz in sizes:
        ids = list(range(cid, cid + int(sz)))
        cid += int(sz)
        papers.update({i: rand_paper(rng, i) for i in ids})
        edges += rand_tree(rng, ids)
        comps.append(ids)
    task_comps = comps[:n_comp]
    source = int(rng.choice(task_comps[0]))
    same = [p for p in task_comps[0] if p != source]
    if task == "yesno":
        targets = [int(rng.choice(same if rng.random() < 0.5 else task_comps[1]))]
    elif task == "mc":
        targets = [int(rng.choice(same))] + [int(rng.choice(c)) for c in task_comps[1:]]
        targets = [targets[i] for i in rng.permutation(len(targets))]
    else:
        targets = []
    order = [p for c in comps for p in c]
    needles = render_component(papers, edges, order)
    blocks = needles + distractors(rng, [p.title for p in papers.values()])
    perm = rng.permutation(len(blocks))
    blocks = [blocks[i] for i in perm]
    needle_at = [int(pos) for pos in np.argsort(perm)[: len(needles)]]
    task_papers = set(order[: sum(map(len, task_comps))])
    task_edges = [e for e in edges if e[0] in task_papers]
    ex = make_example(f"{task}-{seed}", task, papers, task_edges, task_comps, source, targets, none_option, blocks)
    return Case(task, papers, edges, task_comps, order, source, targets, none_option, blocks, needle_at, ex)


def with_blocks(case: Case, blocks: list[str]) -> Example:
    """The case's example (same question, same stored answer) with a different context."""
    q = question(
        case.task, case.papers[case.source].title, [case.papers[t].title for t in case.targets], case.none_option
    )
    return case.example.model_copy(update={"messages": tuple(build_messages(case.task, q, blocks))})


def assert_graph_recovered(case: Case) -> None:
    """The parsed graph is the rendered forest: a bijection of papers onto nodes that maps edges onto edges."""
    _, g = parse_messages(case.example.messages)
    node_of = {}
    for pid, p in case.papers.items():
        key = identity_key(p.title, p.authors)
        hits = [i for i, n in enumerate(g.nodes) if key in n.keys]
        assert len(hits) == 1, (p, hits)
        node_of[pid] = hits[0]
    assert sorted(node_of.values()) == list(range(len(g.nodes)))
    assert {(node_of[a], node_of[b]) for a, b in case.edges} == g.edges
    citing = {a for a, _ in case.edges}
    assert all(g.nodes[node_of[p]].has_block == (p in citing) for p in case.papers)


# ----------------------------------------------------------------------------- round trips

CASES = [
    (seed, task, none)
    for seed in range(40)
    for task, none in (("yesno", False), ("mc", seed % 2 == 1), ("count", False))
]


@pytest.mark.parametrize(("seed", "task", "none_option"), CASES)
def test_round_trip_recovers_graph_and_answer(seed: int, task: str, none_option: bool) -> None:
    case = build_case(seed, task, none_option)
    assert case.example.answer != "?"
    assert solve(case.example.messages) == case.example.answer
    res = verify(case.example)
    assert res.ok, res.reason
    assert_graph_recovered(case)


def test_round_trip_on_larger_components() -> None:
    for seed in range(100, 104):
        case = build_case(seed, "count", size=(120, 250))
        assert verify(case.example).ok
        assert_graph_recovered(case)


def test_mc_none_option_is_the_answer_when_no_candidate_is_reachable() -> None:
    case = build_case(7, "mc", none_option=True)
    reachable = nx.node_connected_component(nx.Graph(case.edges), case.source)
    moved = [t for t in case.targets if t not in reachable]
    # Ask about three unreachable candidates plus one more unreachable paper: the answer is E.
    other = next(p for c in case.comps[1:] for p in c if p not in moved)
    targets = [*moved, other]
    ex = make_example(
        "none", "mc", case.papers, list(case.example.edges), case.comps, case.source, targets, True, case.blocks
    )
    assert ex.answer == "E"
    assert verify(ex).ok


def test_real_s2ag_titles_and_authors_round_trip(s2ag_samples) -> None:
    """Real titles (". " inside, CJK, parentheses) and author lists from the S2AG sample release."""
    import gzip
    import json

    with gzip.open(s2ag_samples / "release-2022-samples/papers/papers-sample.jsonl.gz", "rt") as f:
        rows = [json.loads(line) for line in f]
    metas = [
        PaperMeta(
            int(r["corpusid"]),
            r["title"],
            tuple(a["name"] for a in r["authors"] or () if a.get("name")),
            r["venue"] or (r.get("journal") or {}).get("name"),
            dt.date.fromisoformat(r["publicationdate"]) if r["publicationdate"] else None,
            r["year"],
            (r.get("externalids") or {}).get("ArXiv"),
        )
        for r in rows
        if r["title"]
    ]
    rng = np.random.default_rng(5)
    papers = {p.corpusid: p for p in metas}
    ids = list(papers)
    rng.shuffle(ids)
    half = len(ids) // 2
    edges = rand_tree(rng, ids[:half]) + rand_tree(rng, ids[half:])
    comps = [ids[:half], ids[half:]]
    blocks = render_component(papers, edges, ids)
    ex = make_example("real", "count", papers, edges, comps, ids[3], [], False, blocks)
    assert ex.answer == str(half - 1)
    assert verify(ex).ok, verify(ex).reason
    yn = make_example("real-yn", "yesno", papers, edges, comps, ids[3], [ids[-1]], False, blocks)
    assert yn.answer == "NO" and verify(yn).ok


# ----------------------------------------------------------------------------- mutations


def _mutated(case: Case, blocks: list[str], new_answer: str, may_be_undetermined: bool = False) -> None:
    """The mutation changes the true answer, verify reports it, and the solver reads the mutated text right.

    ``may_be_undetermined``: the mutation makes a reference entry name a block paper whose block
    disagrees with it on venue/year, which the solver may refuse as ambiguous instead of merging.
    """
    assert new_answer != case.example.answer
    res = verify(with_blocks(case, blocks))
    assert not res.ok
    assert res.expected == case.example.answer
    if new_answer == "?":
        assert res.recomputed is None and res.reason
    elif may_be_undetermined and res.recomputed is None:
        assert "disagrees with that block" in res.reason or "may or may not name the same paper" in res.reason
    else:  # a definite mutated answer must be exactly what the solver now reads
        assert res.recomputed == new_answer, res.reason


def _reference(case: Case, pid: int) -> str:
    from graphniah.sampling.examples.render import reference_line

    return reference_line(case.papers[pid])


MUTATION_SEEDS = range(12)


def _first_case(start: int, task: str, pick, size: tuple[int, int] = (2, 14)):
    """The first case from seed ``start`` on for which ``pick(case)`` finds a mutation target."""
    for seed in range(start, start + 50):
        case = build_case(seed, task, size=size)
        if (found := pick(case)) is not None:
            return case, found
    raise AssertionError("no case with a suitable mutation target in 50 seeds")


def _answer_changing_edge(case: Case):
    """A citation whose reference line, once dropped, changes the true answer (with that answer)."""
    task_edges = list(case.example.edges)
    for citing, cited in task_edges:
        rest = [e for e in task_edges if e != (citing, cited)]
        present = {p for e in rest for p in e}  # papers left without any edge vanish from the text
        if case.source not in present or any(t not in present for t in case.targets):
            new = "?"
        else:
            new = true_answer(case.task, rest, case.source, case.targets, case.none_option)
        if new != case.example.answer:
            return citing, cited, new
    return None  # e.g. a NO example: removing a citation never connects two papers


@pytest.mark.parametrize("seed", MUTATION_SEEDS)
@pytest.mark.parametrize("task", ["yesno", "mc", "count"])
def test_drop_one_reference_line(seed: int, task: str) -> None:
    case, (citing, cited, new) = _first_case(500 + 50 * seed, task, _answer_changing_edge)
    i = case.block_index(citing)
    lines = case.blocks[i].split("\n")
    lines.remove(_reference(case, cited))
    blocks = [*case.blocks[:i], "\n".join(lines), *case.blocks[i + 1 :]]
    _mutated(case, blocks, new)


@pytest.mark.parametrize("seed", MUTATION_SEEDS)
@pytest.mark.parametrize("task", ["yesno", "mc"])
def test_swap_two_titles(seed: int, task: str) -> None:
    """Swap the titles of a question paper and a paper of another component everywhere in the context."""
    case = build_case(600 + seed, task, size=(3, 14))
    reach = nx.node_connected_component(nx.Graph(case.example.edges), case.source)
    # the YES/NO target, or the correct option
    a = case.targets[0] if task == "yesno" else next(t for t in case.targets if t in reach)
    b = next(
        p for c in case.comps for p in c if (p in reach) != (a in reach) and p not in case.targets and p != case.source
    )
    pa, pb = case.papers[a], case.papers[b]
    blocks = case.rerender({**case.papers, a: replace(pa, title=pb.title), b: replace(pb, title=pa.title)})
    # The question still names the old titles, which now belong to the other paper of each pair.
    swapped = [b if t == a else t for t in case.targets]
    _mutated(case, blocks, true_answer(task, case.example.edges, case.source, swapped, case.none_option))


def _header_swap_pair(case: Case):
    """Two block papers of the source's component, both cited, with different author sets."""
    edges = list(case.example.edges)
    reach = nx.node_connected_component(nx.Graph(edges), case.source)
    cited, citing = {v for _, v in edges}, {u for u, _ in edges}
    cand = sorted(p for p in reach if p in cited and p in citing and p != case.source)
    authors = {p: identity_key("", case.papers[p].authors)[1] for p in cand}
    return next(((x, y) for x in cand for y in cand if x < y and authors[x] != authors[y]), None)


@pytest.mark.parametrize("seed", MUTATION_SEEDS)
def test_swap_two_titles_in_block_headers_breaks_counting(seed: int) -> None:
    """Counting: swap the title lines of two cited block papers; each block then names a new paper."""
    case, (x, y) = _first_case(700 + 50 * seed, "count", _header_swap_pair, size=(6, 14))
    # Model of the mutated text: x's block (its out-edges) becomes a new paper x', and y's a new y'.
    moved = [((f"{u}'" if u in (x, y) else u), v) for u, v in case.example.edges]
    new = true_answer("count", moved, case.source, [], False)
    ix, iy = case.block_index(x), case.block_index(y)
    bx, by = case.blocks[ix].split("\n"), case.blocks[iy].split("\n")
    bx[0], by[0] = by[0], bx[0]
    blocks = list(case.blocks)
    blocks[ix], blocks[iy] = "\n".join(bx), "\n".join(by)
    _mutated(case, blocks, new)


@pytest.mark.parametrize("seed", MUTATION_SEEDS)
@pytest.mark.parametrize("task", ["yesno", "mc", "count"])
def test_merge_two_authors(seed: int, task: str) -> None:
    """Two papers with one title: distinct while their author sets differ, one paper once they collide."""
    case, _ = _first_case(800 + 50 * seed, task, lambda c: c.example.answer != "YES" or None, size=(4, 14))
    edges = list(case.example.edges)
    reach = nx.node_connected_component(nx.Graph(edges), case.source)
    quest = {case.source, *case.targets}
    far = next(c for c in case.comps if c[0] not in reach and (task != "yesno" or case.targets[0] in c))
    x = next(p for p in sorted(reach) if p not in quest)
    y = next(p for p in far if p not in quest)
    px = replace(case.papers[x], authors=("Ada Lovelace", "Charles Babbage"))
    # Control: same title, author sets differ in one name -> two different papers, answer unchanged.
    py = replace(case.papers[y], title=px.title, authors=("Ada Lovelace", "Charles Babbage-Smith"))
    papers = {**case.papers, x: px, y: py}
    control = verify(with_blocks(case, case.rerender(papers)))
    assert control.ok, control.reason
    # Mutation: merge the author "Charles Babbage-Smith" into "Charles Babbage" (order and repeats don't matter).
    papers[y] = replace(py, authors=("Charles Babbage", "Ada Lovelace", "Ada Lovelace"))
    merged = [(x if u == y else u, x if v == y else v) for u, v in edges]
    new = true_answer(task, merged, case.source, case.targets, case.none_option)
    _mutated(case, case.rerender(papers), new, may_be_undetermined=True)


# ----------------------------------------------------------------------------- undetermined texts


def test_question_title_matching_two_papers_is_undetermined() -> None:
    case = build_case(3, "yesno")
    x = next(p for c in case.comps[1:] for p in c if p not in case.targets)
    papers = {
        **case.papers,
        x: replace(case.papers[x], title=case.papers[case.source].title, authors=("Someone Else",)),
    }
    with pytest.raises(Undetermined, match=r"source title .* matches 2 different papers"):
        solve(with_blocks(case, case.rerender(papers)).messages)


def test_reference_entry_naming_two_blocks_is_undetermined() -> None:
    pr = load_prompts()
    a = PaperMeta(1, "Foo", ("Ann",), "Bar. Baz", dt.date(2026, 5, 1))
    b = PaperMeta(2, "Foo. Bar", ("Ann",), "Baz", dt.date(2026, 5, 1))
    c = PaperMeta(3, "Citer", ("Cy",), None, dt.date(2026, 6, 1))
    d = PaperMeta(4, "Other", ("Dee",), None, dt.date(2026, 6, 1))
    # a's and b's reference lines are the same string, and both have blocks (they cite d).
    from graphniah.sampling.examples.render import reference_line

    assert reference_line(a, pr) == reference_line(b, pr)
    blocks = render_component({1: a, 2: b, 3: c, 4: d}, [(3, 1), (1, 4), (2, 4)], [3, 1, 2])
    with pytest.raises(Undetermined, match="can be read as 2 papers with blocks"):
        parse_context("\n\n".join(blocks), pr)


def test_reference_entries_that_may_or_may_not_be_one_paper_are_undetermined() -> None:
    a = PaperMeta(1, "Foo", ("Ann",), "Bar. Baz", dt.date(2026, 5, 1))  # reads also as "Foo. Bar" from "Baz"
    b = PaperMeta(2, "Foo. Bar", ("Ann",), "Qux", dt.date(2026, 5, 1))
    c = PaperMeta(3, "Citer", ("Cy",), None, dt.date(2026, 6, 1))
    blocks = render_component({1: a, 2: b, 3: c}, [(3, 1), (3, 2)], [3])
    with pytest.raises(Undetermined, match="may or may not name the same paper"):
        parse_context("\n\n".join(blocks))


def test_entry_naming_a_block_with_conflicting_metadata_is_undetermined() -> None:
    """ "Ann (2026). Foo. Bar." names block "Foo" only if Foo's venue were "Bar"; it may be a paper "Foo. Bar"."""
    foo = PaperMeta(1, "Foo", ("Ann",), "Nature", dt.date(2026, 5, 1))
    foobar = PaperMeta(2, "Foo. Bar", ("Ann",), None, dt.date(2026, 5, 1))
    c = PaperMeta(3, "Citer", ("Cy",), None, dt.date(2026, 6, 1))
    d = PaperMeta(4, "Other", ("Dee",), None, dt.date(2026, 6, 1))
    blocks = render_component({1: foo, 2: foobar, 3: c, 4: d}, [(3, 2), (1, 4)], [3, 1])
    with pytest.raises(Undetermined, match="disagrees with that block"):
        parse_context("\n\n".join(blocks))


def test_identity_rule_merges_same_title_and_author_set() -> None:
    """Two records with one title and one author set (case, punctuation, order aside) are one paper."""
    a = PaperMeta(1, "Deep Graphs", ("Ann Lee", "Bo Xu"), "Nature", dt.date(2026, 5, 1))
    a2 = PaperMeta(2, "deep graphs!", ("Bo Xu", "ann lee", "Ann Lee"), "Science", dt.date(2026, 7, 1))
    c = PaperMeta(3, "Citer one", ("Cy",), None, dt.date(2026, 6, 1))
    d = PaperMeta(4, "Citer two", ("Dee",), None, dt.date(2026, 8, 1))
    e = PaperMeta(5, "Cited", ("Eve",), None, None)
    papers = {1: a, 2: a2, 3: c, 4: d, 5: e}
    # Two blocks with one key are one paper: c - a = a2 - d, so all five papers are connected.
    g = parse_context("\n\n".join(render_component(papers, [(3, 1), (1, 5), (2, 4)], [3, 1, 2])))
    assert len(g.nodes) == 4
    assert len(g.component(g.find("Citer one"))) == 4
    # Two reference lines without venue have one reading each, so they are certainly one paper.
    bare = {1: replace(a, venue=None), 2: replace(a2, venue=None), 3: c, 4: d}
    g = parse_context("\n\n".join(render_component(bare, [(3, 1), (4, 2)], [3, 4])))
    assert len(g.nodes) == 3 and g.component(g.find("Citer one")) == {0, 1, 2}
    # With venues, each line also reads as a title "Deep Graphs. Nature" without a venue: the text
    # cannot tell one paper from two, and the reader says so instead of guessing.
    with pytest.raises(Undetermined, match="may or may not name the same paper"):
        parse_context("\n\n".join(render_component(papers, [(3, 1), (4, 2)], [3, 4])))


def test_messages_that_do_not_follow_the_templates_are_undetermined() -> None:
    case = build_case(1, "count")
    msgs = list(case.example.messages)
    with pytest.raises(Undetermined, match="roles"):
        solve(msgs[1:])
    broken = msgs[1].model_copy(update={"content": msgs[1].content.replace("=== ANSWER FORMAT ===", "=== FORMAT ===")})
    with pytest.raises(Undetermined, match="user message does not follow"):
        solve([msgs[0], broken])
    wrong_system = msgs[0].model_copy(update={"content": load_prompts().system["yesno"]})
    with pytest.raises(Undetermined, match="system message"):
        solve([wrong_system, msgs[1]])


def test_verify_reports_prompt_set_change() -> None:
    case = build_case(2, "yesno")
    ex = case.example.model_copy(
        update={
            "recipe": RECIPE.model_copy(update={"prompts_hash": "0" * 64}),
            "answer": "YES" if case.example.answer == "NO" else "NO",
        }
    )
    res = verify(ex)
    assert not res.ok and "prompt set 000000000000" in res.reason


@pytest.mark.parametrize("seed", range(6))
def test_corrupted_texts_give_a_result_never_a_crash(seed: int) -> None:
    """Random line edits (drop, duplicate, truncate, inject block-like lines) yield a VerifyResult."""
    rng = np.random.default_rng(seed)
    case = build_case(seed, ("yesno", "mc", "count")[seed % 3])
    junk = [
        "Title: x.",
        "References:",
        "- A (2025). B. C.",
        "Authors: .",
        "- (n.d.). .",
        "Published in  on May 1, 2026.",
        "",
    ]
    for _ in range(40):
        lines = case.example.messages[1].content.split("\n")
        for _ in range(int(rng.integers(1, 6))):
            i = int(rng.integers(len(lines)))
            op = rng.integers(4)
            if op == 0:
                del lines[i]
            elif op == 1:
                lines.insert(i, lines[i])
            elif op == 2:
                lines[i] = lines[i][: int(rng.integers(len(lines[i]) + 1))]
            else:
                lines.insert(i, junk[int(rng.integers(len(junk)))])
        user = case.example.messages[1].model_copy(update={"content": "\n".join(lines)})
        res = verify(case.example.model_copy(update={"messages": (case.example.messages[0], user)}))
        assert isinstance(res.ok, bool) and (res.ok or res.reason)


# ----------------------------------------------------------------------------- runs: the jump scan


@pytest.mark.parametrize("seed", range(200))
def test_runs_jump_scan_equals_line_scan(seed: int) -> None:
    """``_runs`` (jumping between title lines) yields exactly the runs of the line-by-line definition.

    Texts mix title-prefixed lines, lines with the prefix mid-line, blank lines made of every kind
    of whitespace ``str.strip`` removes (\\r, tabs, no-break and ideographic spaces), and edges at
    both ends of the text, under the shipped prefix and under prefixes the jump cannot use.
    """
    from graphniah.text.textcheck import _runs, _runs_by_line

    rng = np.random.default_rng(seed)
    pieces = ["Title: A.", "Title: ", "x Title: y", "References:", "- (2020). T.", "", " ", "\t", "\r",
              "\u00a0", "\u3000 ", "\x0c", "word", "Title:x", "  Title: indented"]  # fmt: skip
    lines = [pieces[i] for i in rng.integers(0, len(pieces), size=int(rng.integers(0, 40)))]
    text = "\n".join(lines)
    for prefix in ("Title: ", "Title:", " Title", "", "Title: A.\nReferences:"):
        assert list(_runs(text, prefix)) == list(_runs_by_line(text, prefix)), (prefix, text)


# ----------------------------------------------------------------------------- the list task


def list_example(case: Case) -> Example:
    """The case's context asked as a list question; the truth is networkx's reachable set on the true graph."""
    g = nx.Graph(list(case.example.edges))
    reach = nx.node_connected_component(g, case.source) - {case.source}
    targets = sorted(reach, key=lambda p: (case.papers[p].title.casefold(), case.papers[p].title))
    q = question("list", case.papers[case.source].title)
    return case.example.model_copy(update={
        "task": "list", "answer": "\n".join(case.papers[p].title for p in targets), "targets": tuple(targets),
        "messages": tuple(build_messages("list", q, case.blocks)),
    })


@pytest.mark.parametrize("seed", range(30))
def test_list_answers_are_proved_from_the_text_and_wrong_lists_are_not(seed: int) -> None:
    case = build_case(seed, "count")
    ex = list_example(case)
    if not ex.targets:
        return
    assert Example.model_validate(ex.model_dump()) == ex  # a valid list example
    res = verify(ex)
    assert res.ok, res.reason
    lines = ex.answer.split("\n")
    others = [p for c in case.comps[1:] for p in c]
    wrong = {
        "one paper left out": lines[1:],
        "one paper twice": [*lines, lines[0]],
        "an unreachable paper added": [*lines, case.papers[others[0]].title],
        "the source added": [*lines, case.papers[case.source].title],
    }
    for what, bad in wrong.items():
        if len(bad) and bad != lines:
            mutated = ex.model_copy(update={"answer": "\n".join(bad)})
            assert not verify(mutated).ok, what


def test_the_oracle_lists_the_reachable_titles_where_entries_read_one_way() -> None:
    """Plain titles and venues: every entry has one title reading, so the text's list is the true one."""
    rng = np.random.default_rng(7)
    papers = {i: PaperMeta(i, f"Paper number {i} on graphs", (NAMES[i % len(NAMES)],), "Nature", dt.date(2026, 5, 1 + i % 20))
              for i in range(1, 41)}
    ids = list(papers)
    edges = rand_tree(rng, ids[:25]) + rand_tree(rng, ids[25:])
    blocks = render_component(papers, edges, ids)
    q = question("list", papers[1].title)
    reach = nx.node_connected_component(nx.Graph(edges), 1) - {1}
    truth = "\n".join(sorted(papers[p].title for p in reach))
    got = solve(build_messages("list", q, blocks))
    assert sorted(got.split("\n")) == truth.split("\n")


def test_one_reader_per_template_set_with_a_bounded_memo(monkeypatch) -> None:
    """Parses share one reader per block template set in a process (``textcheck._reader``), whose memo of
    blocks is cut back at ``MEMO_SIZE`` runs: cut to 2, reading the same examples again and again still
    recovers each rendered forest and answer, and the memo never holds more than 2 runs."""
    from graphniah.text import textcheck

    monkeypatch.setattr(textcheck, "MEMO_SIZE", 2)
    monkeypatch.setattr(textcheck, "_READERS", {})
    cases = [build_case(seed, "count", size=(6, 9)) for seed in (5, 6)]
    for _ in range(2):
        for case in cases:
            assert_graph_recovered(case)
            assert solve(case.example.messages) == case.example.answer
    reader = textcheck._reader(load_prompts())
    assert list(textcheck._READERS.values()) == [reader]
    assert 0 < len(reader._blocks) <= 2 and len(reader._entries) <= 2
