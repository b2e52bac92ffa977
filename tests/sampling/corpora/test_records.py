"""Splitting text into blocks at blank lines, and the kind enum."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from graphniah.sampling.corpora import Kind, split_blocks
from graphniah.sampling.corpora.records import (
    MAX_BLOCK_BYTES,
    TEXT_KINDS,
    BlockRule,
    block_rule,
    line_starts,
    pack_units,
    parse_kind,
    sentence_starts,
)
from graphniah.text import is_clean_block


def test_split_at_blank_lines():
    text = "Title\nline two\n\nSecond block\r\n   \n\t\n\n  indented third\nend  \n\n\n"
    assert split_blocks(text) == ["Title\nline two", "Second block", "  indented third\nend"]


def test_split_edge_cases():
    assert split_blocks("") == []
    assert split_blocks("\n \n\t\n") == []
    assert split_blocks("one") == ["one"]
    assert split_blocks("a\rb") == ["a\nb"]  # old Mac line ends are line ends too


_alphabet = st.sampled_from(["a", "B", " ", "\t", "\n", "\r", "é", "/", "}", "\u2028", "0"])


@given(st.lists(_alphabet, max_size=80).map("".join))
def test_blocks_are_clean_and_cover_every_visible_line(text):
    blocks = split_blocks(text)
    assert all(b and is_clean_block(b) for b in blocks)
    assert all("\n\n" not in b and all(line.strip() for line in b.split("\n")) for b in blocks)
    # Reference, by regular expressions: normalise line ends, drop trailing whitespace of each
    # line, then cut at runs of empty lines.
    norm = "\n".join(ln.rstrip() for ln in re.split(r"\r\n|\r|\n", text))
    expected = [b for b in re.split(r"\n{2,}", norm.strip("\n")) if b]
    assert blocks == expected


def test_kinds():
    assert [k.value for k in Kind] == ["code", "essays", "books", "wikipedia", "disjoint-component"]
    assert Kind.DISJOINT_COMPONENT not in TEXT_KINDS and not Kind.DISJOINT_COMPONENT.is_text
    assert parse_kind("books") is Kind.BOOKS
    with pytest.raises(ValueError, match="unknown corpus kind"):
        parse_kind("poetry")


# --- cutting long paragraphs at sentences (or code lines) ------------------------------------------


def test_sentence_starts_follow_the_rule():
    p = ('Mr. Darcy met Dr. Watson in the U.S. Army. "Who are you?" he asked. (Nobody knew.) '
         "J. Austen wrote e.g. this. It ended!\nNext line starts. lower case goes on; Fig. 3 shows it.")
    starts = sentence_starts(p)
    firsts = [p[i : i + 8] for i in starts]
    assert firsts == ['"Who are', "(Nobody ", "J. Auste", "It ended", "Next lin"]
    assert sentence_starts("One sentence only.") == [] and sentence_starts("") == []
    assert sentence_starts("It ends.\u201cQuoted\u201d") == []  # no whitespace: not a boundary
    assert sentence_starts("Done.\u201d Then more.") == [len("Done.\u201d ")]


def test_pack_units_is_greedy_and_never_cuts_a_unit():
    para = "Aa aa. Bb bb bb. Cc. " + "D" * 30 + ". Ee."
    pieces = pack_units(para, sentence_starts(para), 18)
    assert pieces == ["Aa aa. Bb bb bb.", "Cc.", "D" * 30 + ".", "Ee."]
    assert pack_units("short", [], 3) == ["short"]  # no boundary: whole
    assert pack_units("é" * 10, [], 12) == ["é" * 10]
    two = "é" * 5 + ". " + "É" * 5 + "."  # 12 bytes each: counted in UTF-8 bytes, not characters
    assert pack_units(two, sentence_starts(two), 20) == ["é" * 5 + ".", "É" * 5 + "."]


def test_code_is_cut_at_lines():
    code = "\n".join(f"\tx{i} = f(x{i - 1});" for i in range(100))
    rule = BlockRule(unit="line", max_bytes=200)
    blocks = rule.split(code + "\n\n" + "int y;")
    assert blocks[-1] == "int y;" and all(len(b.encode()) <= 200 for b in blocks)
    assert "\n".join(blocks[:-1]) == code and all(b.startswith("\tx") for b in blocks[:-1])
    assert block_rule(Kind.CODE).unit == "line" and block_rule(Kind.ESSAYS).unit == "sentence"


def test_the_block_size_bounds_the_waste_at_the_smallest_length():
    # At most 3% of L = 30,000 after the last block: 900 tokens, separator included.
    assert MAX_BLOCK_BYTES + 2 <= 0.03 * 30_000 and BlockRule().max_bytes == MAX_BLOCK_BYTES


_prose = st.lists(
    st.one_of(
        st.sampled_from(["Mr.", "Dr.", "U.S.", "J.", "e.g.", "end.", "why?", "wow!", '"Quote."', "(aside)", "\u00e9t\u00e9."]),
        st.text(alphabet="abcXYZ ", min_size=1, max_size=12),
    ),
    max_size=60,
).map(lambda words: " ".join(words))


@given(st.lists(_prose, min_size=1, max_size=4).map("\n\n".join), st.integers(min_value=8, max_value=120),
       st.sampled_from(["sentence", "line"]))
def test_block_rule_properties(text, max_bytes, unit):
    """Blocks are clean, in order, lose nothing but whitespace, fit the limit unless one unit is
    longer, and only cut where a unit begins."""
    rule = BlockRule(unit=unit, max_bytes=max_bytes)
    blocks = rule.split(text)
    assert all(is_clean_block(b) for b in blocks)
    assert " ".join(blocks).split() == text.split()
    starts_of = sentence_starts if unit == "sentence" else line_starts
    for b in blocks:
        assert len(b.encode()) <= max_bytes or starts_of(b) == []
    # every cut inside a paragraph is at a unit boundary of that paragraph
    for para in split_blocks(text):
        pieces = pack_units(para, starts_of(para), max_bytes)
        pos = 0
        for piece in pieces:
            at = para.index(piece, pos)
            assert at == 0 or at in starts_of(para)
            pos = at + len(piece)
    assert blocks == [p for para in split_blocks(text) for p in pack_units(para, starts_of(para), max_bytes)]
