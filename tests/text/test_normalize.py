r"""Reading an answer: the last complete \answer{} block of a response, and its canonical form per task."""

from __future__ import annotations

import pytest

from graphniah.text import extract_answer, normalize_answer


@pytest.mark.parametrize(
    ("text", "raw"),
    [
        ("Reasoning...\n\\answer{YES}", "YES"),
        ("\\answer{NO} at first, but on reflection \\answer{YES}", "YES"),  # the last block counts
        ("\\answer{\\textbf{C}}", "\\textbf{C}"),  # nested braces are one block
        ("\\answer{17} then an unfinished \\answer{18", "17"),  # an unclosed last block falls back
        ("no block here", None),
        ("answer{YES}", None),
        ("", None),
        (None, None),
        ("\\answer{}", ""),
        ("\\answer{a \\} b}", "a \\} b"),  # an escaped brace is content
    ],
)
def test_extract_answer(text, raw):
    assert extract_answer(text) == raw


@pytest.mark.parametrize(
    ("task", "raw", "norm"),
    [
        ("yesno", "YES", "YES"), ("yesno", " no. ", "NO"), ("yesno", "\\text{Yes}", "YES"), ("yesno", "**NO**", "NO"),
        ("yesno", "$\\boxed{YES}$", "YES"), ("yesno", "YES or NO", None), ("yesno", "maybe", None), ("yesno", "", None),
        ("mc", "C", "C"), ("mc", "(b)", "B"), ("mc", "D)", "D"), ("mc", "Option A", "A"), ("mc", "\\textbf{E}", "E"),
        ("mc", "C and D", None), ("mc", "CD", None), ("mc", "3", None),
        ("count", "17", "17"), ("count", " 017 ", "17"), ("count", "1,234", "1234"), ("count", "$42$", "42"),
        ("count", "\\boxed{99}", "99"), ("count", "-3", "-3"), ("count", "about 17", None), ("count", "17 papers", None),
        ("count", "17.5", None), ("count", "12,34", None), ("count", "", None), ("count", "seventeen", None),
        ("yesno", None, None),
    ],
)
def test_normalize_answer(task, raw, norm):
    assert normalize_answer(task, raw) == norm


@pytest.mark.parametrize(("text", "raw"), [
    ("\\answer{ends with a backslash\\", None),  # unclosed; the last character is a backslash
    ("\\answer{" + "x" * 300, None),  # unclosed, and longer than the integers Python keeps one copy of
    ("\\answer{" + "x" * 300 + " \\{ escaped \\} " + "y" * 300 + "}", "x" * 300 + " \\{ escaped \\} " + "y" * 300),
])
def test_answer_blocks_at_the_end_of_long_and_short_texts(text, raw):
    assert extract_answer(text) == raw
