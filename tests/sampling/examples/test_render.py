"""Rendering: blocks, reference lines, APA order, questions, messages, statistics."""

from __future__ import annotations

import datetime as dt

import pytest

from graphniah.formats.examples import PaperMeta
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
