"""Rendering: blocks, reference lines, APA order, questions, messages, statistics."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import numpy as np
import pytest
from scipy.stats import binomtest

from graphniah.errors import GraphNIAHError
from graphniah.formats.examples import Example, PaperMeta, read_examples
from graphniah.run.serve.policies import PolicyApp
from graphniah.sampling.examples.render import (
    apa_key,
    build_messages,
    example_stats,
    format_date,
    publication_line,
    question,
    reference_line,
    render_block,
    render_component,
)
from graphniah.sampling.examples.sample import build_example, regenerate
from graphniah.sampling.examples.spec import ExampleSpec, SamplingContext
from graphniah.scoring import score_response
from graphniah.text import parse_question, split_messages, textcheck, verify
from graphniah.text.prompts import PromptSet, load_all_templates

D = dt.date(2026, 4, 7)


@pytest.mark.parametrize(
    ("date", "text"),
    [
        (dt.date(2025, 9, 1), "September 1, 2025"),
        (dt.date(2026, 1, 31), "January 31, 2026"),
        (dt.date(2026, 12, 9), "December 9, 2026"),
        (dt.date(2024, 2, 29), "February 29, 2024"),
    ],
)
def test_format_date(date: dt.date, text: str) -> None:
    assert format_date(date) == text


@pytest.mark.parametrize(
    ("paper", "line"),
    [
        (PaperMeta(1, "T", venue="Nature", publication_date=D), "Published in Nature on April 7, 2026."),
        (PaperMeta(1, "T", venue="Nature"), "Published in Nature."),
        (PaperMeta(1, "T", publication_date=D), "Published on April 7, 2026."),
        (PaperMeta(1, "T", publication_date=D, arxiv_id="2604.01234"), "Uploaded to arXiv on April 7, 2026."),
        (PaperMeta(1, "T", venue="arXiv.org", publication_date=D), "Uploaded to arXiv on April 7, 2026."),
        (PaperMeta(1, "T", arxiv_id="2604.01234"), "Uploaded to arXiv."),
        # a venue other than arXiv wins over the arXiv id
        (
            PaperMeta(1, "T", venue="ICML", publication_date=D, arxiv_id="2604.01234"),
            "Published in ICML on April 7, 2026.",
        ),
        (PaperMeta(1, "T", year=2026), None),
        (PaperMeta(1, "T"), None),
    ],
)
def test_publication_line(paper: PaperMeta, line: str | None) -> None:
    assert publication_line(paper) == line


@pytest.mark.parametrize(
    ("paper", "line"),
    [
        (PaperMeta(1, "On Graphs", ("Ann Lee", "Bo Xu"), "Nature", D), "- Ann Lee, Bo Xu (2026). On Graphs. Nature."),
        (
            PaperMeta(1, "On Graphs", ("Ann Lee",), None, D, arxiv_id="2604.01234"),
            "- Ann Lee (2026). On Graphs. arXiv:2604.01234.",
        ),
        (PaperMeta(1, "On Graphs", ("Ann Lee",), "arXiv", D), "- Ann Lee (2026). On Graphs. arXiv."),
        (PaperMeta(1, "On Graphs", ("Ann Lee",), None, D), "- Ann Lee (2026). On Graphs."),
        (PaperMeta(1, "On Graphs", (), "Nature", D), "- (2026). On Graphs. Nature."),
        (PaperMeta(1, "On Graphs", (), None, None, 2025), "- (2025). On Graphs."),
        (PaperMeta(1, "On Graphs", ("Ann Lee",), None, None, None), "- Ann Lee (n.d.). On Graphs."),
        # the date's year wins over a disagreeing ``year`` field, so block and reference agree
        (PaperMeta(1, "On Graphs", ("Ann Lee",), None, dt.date(2026, 1, 2), 2025), "- Ann Lee (2026). On Graphs."),
    ],
)
def test_reference_line(paper: PaperMeta, line: str) -> None:
    assert reference_line(paper) == line


def test_block_layout_and_missing_metadata() -> None:
    citer = PaperMeta(1, "Citing  paper\nwith a newline", ("Ann Lee", " Bo   Xu "), "Proc. IEEE", dt.date(2025, 9, 1))
    a = PaperMeta(2, "Zeta", ("Carl Young",), None, D, arxiv_id="2604.00001")
    b = PaperMeta(3, "Alpha", (), None, None, None)
    assert render_block(citer, [a, b]) == (
        "Title: Citing paper with a newline.\n"
        "Authors: Ann Lee, Bo Xu.\n"
        "Published in Proc. IEEE on September 1, 2025.\n"
        "References:\n"
        "- (n.d.). Alpha.\n"
        "- Carl Young (2026). Zeta. arXiv:2604.00001."
    )
    bare = PaperMeta(4, "Bare", ())
    assert render_block(bare, [a]) == "Title: Bare.\nReferences:\n- Carl Young (2026). Zeta. arXiv:2604.00001."
    with pytest.raises(ValueError, match="cites nothing"):
        render_block(bare, [])


def test_reference_list_is_in_apa_order() -> None:
    refs = [
        PaperMeta(1, "b title", ("Zed Adams",), publication_date=dt.date(2026, 5, 1)),
        PaperMeta(2, "a title", ("Ann Zimmer",), publication_date=dt.date(2026, 5, 1)),
        PaperMeta(3, "c title", ("Zed Adams",), year=2025),  # earlier year first
        PaperMeta(4, "Middle", (), publication_date=dt.date(2026, 5, 1)),  # no authors: filed under its title
        PaperMeta(5, "z title", ("Zed Adams",)),  # undated ("n.d.") first among one author's works
        PaperMeta(6, "a title", ("zed adams",), publication_date=dt.date(2026, 4, 1)),  # case-blind
        PaperMeta(
            7, "q", ("Yu Adams", "Zed Adams"), publication_date=dt.date(2026, 4, 1)
        ),  # same surname, "Yu" < "Zed"
    ]
    assert [p.corpusid for p in sorted(refs, key=apa_key)] == [7, 5, 3, 6, 1, 4, 2]
    block = render_block(PaperMeta(9, "Citer"), list(reversed(refs)))
    assert [ln.split(" (")[0] for ln in block.split("\n")[2:]] == [
        "- Yu Adams, Zed Adams", "- Zed Adams", "- Zed Adams", "- zed adams", "- Zed Adams", "-", "- Ann Zimmer",
    ]  # fmt: skip
    assert block == render_block(PaperMeta(9, "Citer"), refs)  # independent of input order


def test_render_component_blocks_only_for_citing_papers_in_order() -> None:
    papers = {i: PaperMeta(i, f"Paper {i}", (f"Author {i}",), "V", D) for i in range(1, 7)}
    edges = [(1, 2), (3, 1), (3, 4), (5, 6)]
    blocks = render_component(papers, edges, [5, 3, 1, 2, 4, 6])
    assert [b.split("\n")[0] for b in blocks] == ["Title: Paper 5.", "Title: Paper 3.", "Title: Paper 1."]
    assert blocks[1].endswith("- Author 1 (2026). Paper 1. V.\n- Author 4 (2026). Paper 4. V.")
    assert render_component(papers, edges, [1, 3, 5]) == [blocks[2], blocks[1], blocks[0]]
    with pytest.raises(ValueError, match="not in order"):
        render_component(papers, edges, [1, 3])
    with pytest.raises(ValueError, match="twice"):
        render_component(papers, edges, [1, 3, 5, 1])
    with pytest.raises(ValueError, match="without metadata"):
        render_component(papers, [(1, 99)], [1])
    with pytest.raises(ValueError, match="self-citation"):
        render_component(papers, [(1, 1)], [1])


def test_questions() -> None:
    yn = question("yesno", 'Src "quoted"', ["Tgt {x}"])
    assert 'Paper "Src "quoted""' in yn and 'Paper "Tgt {x}"' in yn and "cited_by" in yn
    mc = question("mc", "S", ["A1", "B1", "C1", "D1"])
    assert mc.split("\n")[1:] == ['A. Paper "A1"', 'B. Paper "B1"', 'C. Paper "C1"', 'D. Paper "D1"']
    mc5 = question("mc", "S", ["A1", "B1", "C1", "D1"], none_option=True)
    assert mc5.split("\n")[:5] == mc.split("\n") and mc5.split("\n")[5].startswith("E. None of")
    count = question("count", "S")
    assert 'Paper "S"' in count and "once" in count and "starting paper" in count
    with pytest.raises(ValueError):
        question("yesno", "S", ["a", "b"])
    with pytest.raises(ValueError):
        question("count", "S", ["a"])
    with pytest.raises(ValueError):
        question("mc", "S", [])
    with pytest.raises(ValueError, match="single lines"):
        question("yesno", "S\nT", ["a"])


def test_build_messages_layout() -> None:
    msgs = build_messages("count", "How many?", ["block one", "distractor\ntext", "block two"])
    assert [m.role for m in msgs] == ["system", "user"]
    user = msgs[1].content
    assert (
        user.index("How many?") < user.index("block one\n\ndistractor\ntext\n\nblock two") < user.index("\\answer{N}")
    )
    assert "\\answer{12}" in msgs[0].content
    assert build_messages("count", "How many?", ["block one", "distractor\ntext", "block two"]) == msgs


def test_example_stats() -> None:
    papers = {i: PaperMeta(i, f"Paper {i}", ("A B",), "V", D) for i in range(1, 5)}
    needles = render_component(papers, [(1, 2), (1, 3), (2, 4)], [1, 2])
    context = [needles[0], "one two three four", needles[1]]
    st = example_stats("a b c", needles, context, nodes=4, edges=3)
    assert (st.question_words, st.needles, st.reference_lines, st.nodes, st.edges) == (3, 2, 3, 4, 3)
    assert st.context_words == st.needle_words + 4
    assert st.needle_word_pct == pytest.approx(100 * st.needle_words / st.context_words)


# ---------------------------------------------------------------------------- template sets (issue 38)

OLD_EXAMPLES = Path(__file__).resolve().parents[2] / "data" / "examples-before-template-sets.jsonl"
LABELS = {"yesno": ("YES", "NO"), "mc": tuple("ABCD"), "count": (None,), "list": (None,)}


@pytest.fixture(scope="module")
def ctx(demo_snapshot, demo_graph) -> SamplingContext:
    return SamplingContext(demo_snapshot, demo_graph)


@pytest.fixture(scope="module")
def sets() -> dict[str, PromptSet]:
    return load_all_templates()


def reworded(ex: Example, pr: PromptSet) -> Example:
    """``ex`` (made in the default set) asked in set ``pr``: the sampler's rendering functions on the
    question and context read back from its text; the recipe names the set and its hash."""
    task, q_text, context = split_messages(ex.messages)
    q = parse_question(task, q_text)
    q_new = question(task, q.source, q.targets, q.none_option, pr)
    messages = build_messages(task, q_new, [context], pr)
    params = ex.recipe.params.model_copy(update={"template": pr.name})
    recipe = ex.recipe.model_copy(update={"prompts_hash": pr.hash, "params": params})
    return ex.model_copy(update={"messages": tuple(messages), "recipe": recipe})


def test_an_example_sampled_in_a_set_is_the_default_example_reworded(ctx: SamplingContext, sets: dict[str, PromptSet]) -> None:
    for task in ("yesno", "mc", "count", "list"):
        default = build_example(ctx, ExampleSpec(task, 4, 10, LABELS[task][-1]), seed=3, index=1)
        lines = set()
        for name, pr in sets.items():
            ex = build_example(ctx, ExampleSpec(task, 4, 10, LABELS[task][-1], template=name), seed=3, index=1)
            assert ex.messages == reworded(default, pr).messages
            assert (ex.papers, ex.edges, ex.answer, ex.targets) == (default.papers, default.edges, default.answer, default.targets)
            assert ex.recipe.prompts_hash == pr.hash and ("template" in ex.recipe.params) == (name != "default")
            assert verify(ex).ok and regenerate(ctx, ex) == ex
            lines.add(ex.model_dump_json())
        # Each wording is another prompt: another id and other bytes, so answer reuse (keyed on the
        # example's bytes and id) never gives one set's answer to another.
        assert len(lines) == len(sets) and len({Example.model_validate_json(line).id for line in lines}) == len(sets)


def test_a_context_packed_for_every_set_is_one_text_that_fits_each(ctx: SamplingContext, sets: dict[str, PromptSet]) -> None:
    names = tuple(sets)
    contexts = set()
    for name in names:
        spec = ExampleSpec("mc", 4, 10, "C", distractor="essays", context_length=9000, template=name, templates=names)
        ex = build_example(ctx, spec, seed=4, index=2)
        assert ex.token_counts is not None and max(ex.token_counts.values()) <= 9000
        contexts.add(split_messages(ex.messages, sets[name])[2])
        assert regenerate(ctx, ex) == ex
    assert len(contexts) == 1 and "\n\n" in next(iter(contexts))
    with pytest.raises(GraphNIAHError, match="not among the sets"):
        ExampleSpec("mc", 4, 10, "C", template="plain", templates=("default", "brief"))
    with pytest.raises(GraphNIAHError, match="APA rendering only"):
        ExampleSpec("mc", 4, 10, "C", render="edges", template="plain")


def test_examples_made_before_template_sets_replay_byte_for_byte(ctx: SamplingContext) -> None:
    lines = OLD_EXAMPLES.read_text(encoding="utf-8").splitlines()
    for ex, line in zip(read_examples(OLD_EXAMPLES), lines, strict=True):
        assert "template" not in line  # made before the key existed
        assert regenerate(ctx, ex).model_dump_json() == line


def _random_chance(task: str, ex: Example) -> float:
    """The probability that the random policy's reply is right: its answer sets (policies.py)."""
    if task == "yesno":
        return 0.5
    if task == "mc":
        return 1 / (len(ex.options) + ex.none_option)
    if task == "count":
        return 1 / 151 if 99 <= int(ex.answer) <= 249 else 0.0  # CountingAnswers() of the server: 99..249
    return 0.5 ** len(set(ex.papers))  # each paper named kept with probability 1/2, exactly the reachable ones


@pytest.mark.slow
@pytest.mark.parametrize("task", ["yesno", "mc", "count", "list"])
def test_200_examples_per_task_read_and_score_in_every_set(ctx: SamplingContext, sets: dict[str, PromptSet], task: str,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 38's acceptance: 200 examples of the task, asked in every set, pass the text check; the
    oracle server answers each in the set's format and scores 1.00; the random server's answers are
    valid answers of the set's format and score what guessing scores."""
    # Every set asks about the same context text, which the checker reads with the same block
    # templates: read each context once (the question and the messages are still read per set).
    parse, seen = textcheck.parse_context, {}

    def read(context: str, prompts: PromptSet | None = None) -> textcheck.TextGraph:
        key = (context, prompts.block if prompts is not None else None)
        if key not in seen:
            seen[key] = parse(context, prompts)
        return seen[key]

    monkeypatch.setattr(textcheck, "parse_context", read)
    labels = LABELS[task]
    base = [build_example(ctx, ExampleSpec(task, 4, 10, labels[i % len(labels)]), seed=21, index=i) for i in range(200)]
    oracle, random = PolicyApp("oracle", seed=0), PolicyApp("random", seed=1)
    for name, pr in sets.items():
        right = []
        chance = 0.0
        for ex in base:
            asked = reworded(ex, pr) if name != "default" else ex
            assert verify(asked).ok, (name, ex.id)
            msgs = [{"role": m.role, "content": m.content} for m in asked.messages]
            assert score_response(task, ex.answer, oracle.answer(msgs)[0], pr.answer).correct, (name, ex.id)
            guess = score_response(task, ex.answer, random.answer(msgs)[0], pr.answer)
            assert guess.extracted is not None or (task == "list" and guess.raw is not None), (name, ex.id)
            right.append(guess.correct)
            chance += _random_chance(task, ex)
        k, n = sum(right), len(right)
        if task in ("yesno", "mc"):
            assert binomtest(k, n, chance / n).pvalue > 1e-3, (name, k, chance)
        else:  # guessing is (nearly) never right: at most what the exact chance allows
            assert k <= chance + 4 * np.sqrt(chance) + 1, (name, k, chance)


def test_graphniah_sample_words_a_batch_in_the_set_it_names(demo_snapshot, tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from graphniah.cli import app

    out = tmp_path / "tagged.jsonl"
    args = ["sample", "--task", "mc", "--depth", "4", "-n", "2", "--component-size", "10", "--snapshot", str(demo_snapshot.path)]
    res = CliRunner().invoke(app, [*args, "--template", "tagged", "--out", str(out)])
    assert res.exit_code == 0, res.output
    examples = read_examples(out)
    tagged = load_all_templates()["tagged"]
    assert [e.recipe.params.template for e in examples] == ["tagged", "tagged"]
    assert all(e.messages[0].content == tagged.system["mc"] and e.recipe.prompts_hash == tagged.hash and verify(e).ok
               for e in examples)
    bad = CliRunner().invoke(app, [*args, "--template", "nope", "--out", str(tmp_path / "nope.jsonl")])
    assert bad.exit_code != 0 and "no template set 'nope'" in str(bad.exception) and "known: default, brief" in str(bad.exception)
