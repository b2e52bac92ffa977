r"""Reading an answer: the last complete \answer{} block of a response, and its canonical form per task."""

from __future__ import annotations

import pytest

from graphniah.scoring import score_response
from graphniah.text import extract_answer, normalize_answer
from graphniah.text.normalize import write_answer
from graphniah.text.prompts import ANSWER_STYLES, OPTION_LABELS, AnswerFormat


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


# ---------------------------------------------------------------- the answer formats of template sets

TAGS, LINE, BARE = AnswerFormat("tags"), AnswerFormat("line"), AnswerFormat("bare")


@pytest.mark.parametrize(
    ("text", "fmt", "task", "raw"),
    [
        ("I think so.\n<answer>YES</answer>", TAGS, "yesno", "YES"),
        ("<ANSWER>no</ANSWER> then <answer>YES</answer>", TAGS, "yesno", "YES"),  # the last element counts
        ("<answer>12</answer> and an open <answer>13", TAGS, "count", "12"),  # an unclosed last one falls back
        ("</answer> only", TAGS, "yesno", None),
        ("\\answer{YES}", TAGS, "yesno", None),  # the default format's block is not this set's answer
        ("Reasoning.\nAnswer: NO", LINE, "yesno", "NO"),
        ("Answer: YES\nwait.\n**Answer:** NO", LINE, "yesno", "NO"),  # the last Answer line, Markdown around it
        ("Answer: 7\nbecause seven papers", LINE, "count", "7"),  # a short answer is the rest of its line
        ("Answer:\nFirst title\nSecond title\n", LINE, "list", "First title\nSecond title"),
        ("The answer: is not at a line start", LINE, "yesno", None),
        ("\\answer{YES}", LINE, "yesno", None),
        ("YES", BARE, "yesno", "YES"),
        ("Thinking...\n\n(c)\n", BARE, "mc", "(c)"),  # a short answer is the last non-empty line
        ("Title one\nTitle two\n", BARE, "list", "Title one\nTitle two"),
        ("   \n", BARE, "yesno", None),
        ("Answer: YES", AnswerFormat(), "yesno", None),  # the default reads \answer{} only, as before
    ],
)
def test_extract_answer_per_format(text, fmt, task, raw):
    assert extract_answer(text, fmt, task) == raw


@pytest.mark.parametrize(
    ("labels", "raw", "norm"),
    [
        ("digits", "3", "C"), ("digits", "(1)", "A"), ("digits", "Option 4", "D"), ("digits", "C", None), ("digits", "0", None),
        ("digits", "27", None), ("parens", "(c)", "C"), ("parens", "b", "B"), ("letters", "3", None),
    ],
)
def test_numbered_options_read_back_as_letters(labels, raw, norm):
    assert normalize_answer("mc", raw, AnswerFormat("latex", labels)) == norm


@pytest.mark.parametrize("style", ANSWER_STYLES)
@pytest.mark.parametrize("labels", OPTION_LABELS)
@pytest.mark.parametrize(("task", "answer"), [("yesno", "NO"), ("mc", "D"), ("count", "41"),
                                              ("list", "A first paper\nThe second one")])
def test_an_answer_written_in_a_format_scores_in_it_and_only_in_it(style, labels, task, answer):
    fmt = AnswerFormat(style, labels)
    reply = write_answer(task, answer, fmt)
    assert score_response(task, answer, reply, fmt).correct
    others = [AnswerFormat(s, labels) for s in ANSWER_STYLES if s not in (style, "bare")]
    if style != "bare":  # a bare reply is the answer itself; every other format needs its own marker
        assert all(not score_response(task, answer, reply, o).correct for o in others)


def test_the_labels_a_set_writes() -> None:
    assert [AnswerFormat("latex", lab).label("C") for lab in OPTION_LABELS] == ["C", "3", "(c)"]
    assert write_answer("mc", "B", AnswerFormat("tags", "digits")) == "<answer>2</answer>"
    assert write_answer("list", "", AnswerFormat()) == "\\answer{\n}"
    assert write_answer("yesno", "YES", AnswerFormat("line")) == "Answer: YES"
