"""Splitting text into blocks at blank lines, and the kind enum."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from graphniah.sampling.corpora import Kind, split_blocks
from graphniah.sampling.corpora.model import TEXT_KINDS, parse_kind
from graphniah.sampling.tokenizers import is_clean_block


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
