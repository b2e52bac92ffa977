r"""Reading an answer out of a response: the last ``\answer{...}`` block, and its canonical form.

The answer of a response is the content of its *last complete* ``\answer{...}`` block (braces inside
it are matched, so ``\answer{\textbf{YES}}`` is one block; :func:`extract_answer`). A template set
that asks for its answer another way says so (:class:`graphniah.text.prompts.AnswerFormat`), and
the same function reads it: the last ``<answer>...</answer>`` (``tags``), what follows the last line
that starts with ``Answer:`` (``line``: the rest of that line, or for a list the lines after it),
or the reply itself (``bare``: its last non-empty line, or for a list every line). Normalisation
(:func:`normalize_answer`) strips what models wrap answers in (LaTeX ``\text{}``/``\textbf{}``/``\boxed{}``,
``$...$``, Markdown ``**``/backticks, quotes, parentheses, a trailing full stop) and then reads the
task's answer form:

- YES/NO: the word YES or NO in any case;
- multiple choice: one letter (``C``, ``(C)``, ``C)``, ``Option C``), returned in upper case; a set
  that numbers its options reads ``3`` (``(3)``, ``Option 3``) as ``C``;
- counting: a base-10 integer; thousands separators (``1,234``) are removed, anything else
  (``about 17``, ``17 papers``, ``17.5``) is not a number. The prompt asks for digits only, and the
  paper's "no number" outcome covers exactly the answers this rule rejects;
- list: one title a line. Each non-empty line loses a leading bullet or number (``- ``, ``* ``,
  ``3. ``, ``3) ``) and is then normalised as the text-only verifier normalises titles
  (:func:`graphniah.text.textcheck.normalize`: case, punctuation and spacing do not matter;
  :func:`title_key`). A block without a title has no answer.

A block that does not normalise has no answer (None). How a normalised answer is matched against the
truth and scored is :mod:`graphniah.scoring`'s.
"""

from __future__ import annotations

import functools
import re

from graphniah.text.prompts import DEFAULT_FORMAT, AnswerFormat
from graphniah.text.textcheck import normalize

_OPEN = "\\answer{"
_WRAPPERS = re.compile(r"^\\(?:text|textbf|textrm|mathrm|mathbf|boxed|texttt|emph)\{(.*)\}$", re.S)
_LETTER = re.compile(r"^(?:option\s+)?\(?([A-Za-z])\)?$", re.I)
_NUMBER = re.compile(r"^(?:option\s+)?\(?(\d{1,2})\)?$", re.I)
_TAG_OPEN, _TAG_CLOSE = re.compile(r"<answer>", re.I), re.compile(r"</answer>", re.I)
_ANSWER_LINE = re.compile(r"^[ \t*_#>]*answer[ \t*_]*:[ \t*_]*", re.I | re.M)
_INT = re.compile(r"^[+-]?\d+$")
_THOUSANDS = re.compile(r"^[+-]?\d{1,3}(?:,\d{3})+$")
_BULLET = re.compile(r"^(?:[-*\u2022]|\d{1,4}[.)])\s+")


def _closing_brace(text: str, start: int) -> int | None:
    """Index of the brace closing the block whose content starts at ``start``, or None if unclosed."""
    depth = 1
    i = start
    n = len(text)
    while i < n:
        c = text[i]
        if c == "\\" and i + 1 < n and text[i + 1] in "{}":
            i += 2  # an escaped brace is content
            continue
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                return i
        i += 1
    return None


def extract_answer(text: str | None, fmt: AnswerFormat = DEFAULT_FORMAT, task: str | None = None) -> str | None:
    r"""The raw answer of a reply in the format ``fmt`` asks for, or None.

    Parameters
    ----------
    text : str or None
        The reply.
    fmt : AnswerFormat
        The template set's answer format (default: the last complete ``\answer{...}`` block).
    task : str, optional
        The task; ``line`` and ``bare`` read a list's answer over several lines, any other task's
        from one line.

    Returns
    -------
    str or None
        The answer as written (before :func:`normalize_answer`), or None when the reply has none.
    """
    if not text:
        return None
    if fmt.style == "tags":
        return _tagged(text)
    if fmt.style == "line":
        found = list(_ANSWER_LINE.finditer(text))
        if not found:
            return None
        rest = text[found[-1].end() :]
        return rest.strip("\n") if task == "list" else rest.split("\n", 1)[0]
    if fmt.style == "bare":
        if task == "list":
            return text.strip()
        lines = [line for line in text.split("\n") if line.strip()]
        return lines[-1] if lines else None
    return _latex(text)


def _tagged(text: str) -> str | None:
    """The content of the last complete ``<answer>...</answer>`` element (tags in any case)."""
    closes = list(_TAG_CLOSE.finditer(text))
    if not closes:
        return None
    end = closes[-1].start()
    opens = list(_TAG_OPEN.finditer(text, 0, end))
    return text[opens[-1].end() : end] if opens else None


def _latex(text: str) -> str | None:
    pos = text.rfind(_OPEN)
    while pos >= 0:
        end = _closing_brace(text, pos + len(_OPEN))
        if end is not None:
            return text[pos + len(_OPEN) : end]
        pos = text.rfind(_OPEN, 0, pos)  # an unclosed last block: fall back to the one before it
    return None


def unwrap_answer(raw: str) -> str:
    """``raw`` without the wrappers models put around answers (LaTeX commands, ``$``, Markdown, quotes,
    a trailing full stop), peeled until none is left."""
    s = raw.strip()
    while True:
        before = s
        m = _WRAPPERS.match(s)
        if m:
            s = m.group(1).strip()
        for left, right in (("$", "$"), ("**", "**"), ("`", "`"), ('"', '"'), ("'", "'"), ("*", "*")):
            if len(s) >= len(left) + len(right) and s.startswith(left) and s.endswith(right):
                s = s[len(left) : len(s) - len(right)].strip()
        s = s.rstrip(".").strip()
        if s == before:
            return s


def normalize_answer(task: str, raw: str | None, fmt: AnswerFormat = DEFAULT_FORMAT) -> str | None:
    """The canonical answer (``YES``/``NO``, a letter, digits, or a list's normalised lines joined by
    newlines) of a raw block content, or None; ``fmt`` says how the set labels options."""
    if task == "list":  # long and rarely repeated: kept out of the cache of short answers
        return _list_answer(raw)
    return _short_answer(task, raw, fmt.labels == "digits")


def _list_answer(raw: str | None) -> str | None:
    lines = [t for t in map(title_key, unwrap_answer(raw).split("\n")) if t] if raw is not None else []
    return "\n".join(lines) if lines else None


@functools.lru_cache(maxsize=65536)  # pure, and answers repeat: a report re-scores every record of a suite
def _short_answer(task: str, raw: str | None, numbered: bool = False) -> str | None:
    if raw is None:
        return None
    s = unwrap_answer(raw)
    if task == "yesno":
        up = s.upper()
        return up if up in ("YES", "NO") else None
    if task == "mc":
        if numbered:  # options labelled 1, 2, ...: the stored answer is still the letter
            n = _NUMBER.match(s)
            return "ABCDEFGHIJKLMNOPQRSTUVWXYZ"[int(n.group(1)) - 1] if n and 1 <= int(n.group(1)) <= 26 else None
        m = _LETTER.match(s)
        return m.group(1).upper() if m else None
    if task == "count":
        if _THOUSANDS.match(s):
            s = s.replace(",", "")
        return str(int(s)) if _INT.match(s) else None
    raise ValueError(f"unknown task {task!r}")


def title_key(line: str) -> str:
    """The form a list line is matched in: without a leading bullet or number, normalised as titles are."""
    return normalize(_BULLET.sub("", line.strip(), count=1))


def write_answer(task: str, answer: str, fmt: AnswerFormat = DEFAULT_FORMAT) -> str:
    r"""A reply that states ``answer`` (in its stored form: YES/NO, a letter, digits, titles one a line)
    the way a template set asks for it: the inverse of :func:`extract_answer` and :func:`normalize_answer`.

    A multiple-choice letter is written as the set labels it (``C``, ``3``, ``(c)``); a list is
    written one title a line (an empty list as an empty answer).
    """
    text = fmt.label(answer) if task == "mc" else answer
    if task == "list":
        lines = "".join(f"{t}\n" for t in text.split("\n") if t)
        return {"tags": f"<answer>\n{lines}</answer>", "line": f"Answer:\n{lines}", "bare": lines}.get(
            fmt.style, f"\\answer{{\n{lines}}}")
    return {"tags": f"<answer>{text}</answer>", "line": f"Answer: {text}", "bare": text}.get(fmt.style, f"\\answer{{{text}}}")
