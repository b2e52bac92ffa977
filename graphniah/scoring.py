r"""Scoring model responses: extract the final ``\answer{...}``, normalise it, compare with the truth.

The answer of a response is the content of its *last complete* ``\answer{...}`` block (braces inside
it are matched, so ``\answer{\textbf{YES}}`` is one block). Normalisation strips what models wrap
answers in (LaTeX ``\text{}``/``\textbf{}``/``\boxed{}``, ``$...$``, Markdown ``**``/backticks,
quotes, parentheses, a trailing full stop) and then reads the task's answer form:

- YES/NO: the word YES or NO in any case;
- multiple choice: one letter (``C``, ``(C)``, ``C)``, ``Option C``), returned in upper case;
- counting: a base-10 integer; thousands separators (``1,234``) are removed, anything else
  (``about 17``, ``17 papers``, ``17.5``) is not a number. The prompt asks for digits only, and the
  paper's "no number" outcome covers exactly the answers this rule rejects.

A response without an answer block, or whose block does not normalise, has no answer
(``extracted is None``) and is wrong. Run-level summaries reuse :mod:`graphniah.stats`
(Wilson intervals, the Table 15 counting outcomes).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Protocol

from graphniah.stats import CountingOutcomes, Proportion, counting_outcomes, proportion

_OPEN = "\\answer{"
_WRAPPERS = re.compile(r"^\\(?:text|textbf|textrm|mathrm|mathbf|boxed|texttt|emph)\{(.*)\}$", re.S)
_LETTER = re.compile(r"^(?:option\s+)?\(?([A-Za-z])\)?$", re.I)
_INT = re.compile(r"^[+-]?\d+$")
_THOUSANDS = re.compile(r"^[+-]?\d{1,3}(?:,\d{3})+$")


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


def _unwrap(raw: str) -> str:
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
    """The canonical answer (``YES``/``NO``, a letter, or digits) of a raw block content, or None."""
    if raw is None:
        return None
    s = _unwrap(raw)
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


@dataclass(frozen=True, slots=True)
class Scored:
    """What a response says and whether it is right."""

    raw: str | None  # content of the last answer block
    extracted: str | None  # normalised answer, None if there is none
    correct: bool


def score_response(task: str, truth: str, text: str | None) -> Scored:
    raw = extract_answer(text)
    ext = normalize_answer(task, raw)
    return Scored(raw, ext, ext is not None and ext == normalize_answer(task, truth))


# ------------------------------------------------------------------------------------------------
# Run-level summaries
# ------------------------------------------------------------------------------------------------


class ScoredRecord(Protocol):
    """The fields of a journal record that scoring reads (``graphniah.run.journal.RunRecord``)."""

    example_id: str
    task: str
    answer: str
    status: str
    extracted: str | None
    correct: bool | None


@dataclass(frozen=True)
class RunScore:
    """Accuracy of one model on one suite, as the paper reports it.

    ``answered`` are the examples with a successful call (the paper's "#Examples"); accuracy is over
    them. ``failed`` are examples whose last call failed (context too long, auth, retries exhausted);
    ``no_answer`` counts answered examples without a usable answer block. ``counting`` holds the
    Table 15 outcomes of the counting examples, ``no_share`` the share of NO answers among answered
    YES/NO examples (Table 14).
    """

    answered: int
    failed: int
    overall: Proportion | None
    by_task: Mapping[str, Proportion]
    no_answer: int
    counting: CountingOutcomes | None
    no_share: Proportion | None


def final_records(records: Iterable[ScoredRecord]) -> dict[str, ScoredRecord]:
    """One record per example: its successful one if any, else its last failed one.

    A journal holds at most one successful record per example and settings, but may hold failures
    before it (and ``--retry-failed`` appends new attempts after them).
    """
    out: dict[str, ScoredRecord] = {}
    for r in records:
        prev = out.get(r.example_id)
        if prev is None or prev.status != "ok":
            out[r.example_id] = r
    return out


def score_records(records: Iterable[ScoredRecord], *, z: float | None = None) -> RunScore:
    """Summarise a run's records (all of one model and settings) into accuracies with Wilson intervals."""
    final = list(final_records(records).values())
    ok = [r for r in final if r.status == "ok"]
    failed = len(final) - len(ok)
    by_task_n: Counter = Counter(r.task for r in ok)
    by_task_k: Counter = Counter(r.task for r in ok if r.correct)
    by_task = {t: proportion(by_task_k[t], n, z=z) for t, n in sorted(by_task_n.items())}
    overall = proportion(sum(by_task_k.values()), len(ok), z=z) if ok else None
    counts = [r for r in ok if r.task == "count"]
    counting = None
    if counts:
        counting = counting_outcomes([None if r.extracted is None else int(r.extracted) for r in counts],
                                     [int(r.answer) for r in counts])
    yn = [r for r in ok if r.task == "yesno"]
    no_share = proportion(sum(r.extracted == "NO" for r in yn), len(yn), z=z) if yn else None
    return RunScore(
        answered=len(ok),
        failed=failed,
        overall=overall,
        by_task=by_task,
        no_answer=sum(r.extracted is None for r in ok),
        counting=counting,
        no_share=no_share,
    )

