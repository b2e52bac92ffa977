r"""Reading an answer out of a response: the last ``\answer{...}`` block, and its canonical form.

The answer of a response is the content of its *last complete* ``\answer{...}`` block (braces inside
it are matched, so ``\answer{\textbf{YES}}`` is one block; :func:`extract_answer`). Normalisation
(:func:`normalize_answer`) strips what models wrap answers in (LaTeX ``\text{}``/``\textbf{}``/``\boxed{}``,
``$...$``, Markdown ``**``/backticks, quotes, parentheses, a trailing full stop) and then reads the
task's answer form:

- YES/NO: the word YES or NO in any case;
- multiple choice: one letter (``C``, ``(C)``, ``C)``, ``Option C``), returned in upper case;
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

from graphniah.text.textcheck import normalize

_OPEN = "\\answer{"
_WRAPPERS = re.compile(r"^\\(?:text|textbf|textrm|mathrm|mathbf|boxed|texttt|emph)\{(.*)\}$", re.S)
_LETTER = re.compile(r"^(?:option\s+)?\(?([A-Za-z])\)?$", re.I)
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


def extract_answer(text: str | None) -> str | None:
    r"""The raw content of the last complete ``\answer{...}`` block of ``text``, or None."""
    if not text:
        return None
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


def normalize_answer(task: str, raw: str | None) -> str | None:
    """The canonical answer (``YES``/``NO``, a letter, digits, or a list's normalised lines joined by
    newlines) of a raw block content, or None."""
    if task == "list":  # long and rarely repeated: kept out of the cache of short answers
        return _list_answer(raw)
    return _short_answer(task, raw)


def _list_answer(raw: str | None) -> str | None:
    lines = [t for t in map(title_key, unwrap_answer(raw).split("\n")) if t] if raw is not None else []
    return "\n".join(lines) if lines else None


@functools.lru_cache(maxsize=65536)  # pure, and answers repeat: a report re-scores every record of a suite
def _short_answer(task: str, raw: str | None) -> str | None:
    if raw is None:
        return None
    s = unwrap_answer(raw)
    if task == "yesno":
        up = s.upper()
        return up if up in ("YES", "NO") else None
    if task == "mc":
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
