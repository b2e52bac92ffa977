"""Where the needles sit in a prompt: paper blocks, distractor text and the question, in o200k tokens.

A prompt's user message is the user template filled with the question, the context (blocks and
distractor documents joined by blank lines) and the format reminder. This module finds, in that
text, the question and every paper block, and gives each its offset in **o200k_base tokens** of
the user message, plus the prompt cut into fixed-width display rows for the windowed view.

Which block is which paper: with the papers' metadata (from the snapshot the example was sampled
from) every block of the task's components is rendered again with ``render_component`` and
looked up by its first line among the context's runs (maximal sequences of non-blank lines);
a run equal to a rendered block is that paper's block (a *needle*). Any other run that starts like
a block and contains the references header is a paper block that is not one of the task's (a
component added as a distractor). Without metadata, the needles cannot be told from distractor
components, and every block-shaped run is marked as a paper block.

Token offsets. The offset of a position is the number of tokens of the text before it. It is
computed by cutting the text at the start of the question and of every block and counting each
piece, which is exact because each cut is a boundary of o200k's pre-tokenizer (BPE merges never
cross such a boundary, so the pieces' counts add up):
a block starts with the title template's literal text, a letter, right after a newline, and the
question starts with a letter right after the template's blank line. o200k's pre-tokenizer
pieces that can hold a newline (whitespace runs ``\\s*[\\r\\n]+`` and punctuation runs with trailing
newlines ``[^\\s\\p{L}\\p{N}]+[\\r\\n/]*``) end at the last newline before a letter, and a letter piece
may start with one optional character that is not a newline, so the letter after a newline
always begins a new piece. ``tests/view`` checks the offsets against counting each prefix whole.
A block's *end* is not such a boundary (its final full stop may join the blank line after it), so
a block is given as its start offset and its own token count.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

from graphniah.formats.examples import Example, PaperMeta
from graphniah.sampling.examples.edgelist import PaperIds, render_edge_component
from graphniah.sampling.examples.prompts import PromptSet
from graphniah.sampling.examples.render import render_component
from graphniah.sampling.examples.textcheck import Undetermined, edge_line_pattern, split_messages
from graphniah.sampling.tokenizers import Tokenizer

__all__ = ["ROW_WIDTH", "NeedleMap", "PromptRows", "Span", "needle_map", "prompt_rows"]

#: Characters per display row of the prompt view (long lines wrap onto several rows).
ROW_WIDTH = 150

SpanKind = Literal["question", "needle", "paper", "context"]


@dataclass(frozen=True, slots=True)
class Span:
    """A stretch of the user message: characters ``[start, end)``, first token ``token``, ``tokens`` long.

    ``paper`` is the corpus id of a needle block (None for other kinds).
    """

    kind: SpanKind
    start: int
    end: int
    token: int
    tokens: int
    paper: int | None = None
    title: str | None = None


@dataclass(frozen=True)
class NeedleMap:
    """The user message's length in o200k tokens and its spans (question, context, blocks in text order)."""

    total_tokens: int
    spans: tuple[Span, ...]
    identified: bool  # needles told apart from distractor components (metadata was available)
    missing: tuple[int, ...]  # citing papers whose block was not found in the text (should be empty)

    def blocks(self) -> tuple[Span, ...]:
        return tuple(s for s in self.spans if s.kind in ("needle", "paper"))


def _field_offsets(example: Example, prompts: PromptSet) -> dict[str, tuple[int, int]] | None:
    """Character spans of the user template's fields in the user message, or None if it does not parse."""
    try:
        task, question, context = split_messages(example.messages, prompts)
    except Undetermined:
        return None
    values = {"question": question, "context": context, "format_reminder": prompts.reminders[task]}
    tpl = prompts.user
    pos = len(tpl.literals[0])
    out = {}
    for name, lit in zip(tpl.fields, tpl.literals[1:], strict=True):
        out[name] = (pos, pos + len(values[name]))
        pos += len(values[name]) + len(lit)
    return out


_RUN = re.compile(r"[^\n]+(?:\n[^\n]+)*")  # a maximal run of non-blank lines


def needle_map(example: Example, tokenizer: Tokenizer, prompts: PromptSet, meta: Mapping[int, PaperMeta] | None) -> NeedleMap:
    """Find the question and the paper blocks in ``example``'s user message and give their token offsets."""
    text = example.messages[-1].content
    fields = _field_offsets(example, prompts)
    c0, c1 = fields["context"] if fields else (0, len(text))
    title_prefix = prompts.block.title.literals[0]
    header = prompts.block.references.fill({})
    edge_list = example.recipe.params.render == "edges"
    edge_line = edge_line_pattern(prompts)
    expected = _expected_blocks(example, prompts, meta)

    found: list[tuple[SpanKind, int, int, int | None, str | None]] = []
    seen: set[int] = set()
    for m in _RUN.finditer(text, c0, c1):
        run = m.group()
        if edge_list:  # every line a citation line: a block (the edge-list text has no titles)
            if not all(edge_line.fullmatch(line) for line in run.split("\n")):
                continue
        elif not run.startswith(title_prefix):
            continue
        first = run.split("\n", 1)[0]
        hit = expected.get(first)
        if hit is not None and hit[1] == run:
            found.append(("needle", m.start(), m.end(), hit[0], meta[hit[0]].title if meta else None))
            seen.add(hit[0])
        elif edge_list:  # a distractor component's edge list
            found.append(("paper", m.start(), m.end(), None, None))
        elif f"\n{header}\n" in run:
            suffix = prompts.block.title.literals[-1]
            title = first[len(title_prefix) : len(first) - len(suffix) if suffix and first.endswith(suffix) else None]
            found.append(("paper", m.start(), m.end(), None, title))
    if fields:
        q0, q1 = fields["question"]
        found.append(("question", q0, q1, None, None))
    found.sort(key=lambda f: f[1])

    # Token offsets of every start: count the pieces between consecutive starts (see the docstring).
    cuts = sorted({f[1] for f in found})
    pieces = [text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)], strict=True)]
    counts = np.asarray(tokenizer.count_batch(pieces), dtype=np.int64)
    offsets = np.cumsum(counts)
    token_of = {c: int(offsets[i]) for i, c in enumerate(cuts)}
    total = int(offsets[-1]) if len(offsets) else 0
    own = tokenizer.count_batch([text[s:e] for _, s, e, _, _ in found])
    spans = [Span(kind, s, e, token_of[s], int(n), paper, title) for (kind, s, e, paper, title), n in zip(found, own, strict=True)]
    if fields:  # the context as a whole, behind the blocks: what is not a block in it is distractor text
        # The context may begin with distractor text (not a pre-tokenizer boundary): count its prefix whole.
        # Its length is the rest of the message (not re-counting the whole context; may be one token off).
        start = tokenizer.count(text[:c0])
        spans.insert(0, Span("context", c0, c1, start, max(total - start - tokenizer.count(text[c1:]), 0)))
    missing = tuple(p for p, _ in expected.values() if p not in seen)
    return NeedleMap(total, tuple(spans), meta is not None or edge_list, missing)


def _expected_blocks(example: Example, prompts: PromptSet, meta: Mapping[int, PaperMeta] | None) -> dict[str, tuple[int, str]]:
    """The task's blocks by first line, with their citing paper: APA blocks rendered again from the
    metadata (none without it), or the edge-list blocks, which need none (the ids follow from the
    recipe's seed and index, the task's papers taking theirs first, as when the example was built)."""
    if example.recipe.params.render == "edges":
        ids = PaperIds(example.recipe.seed, example.recipe.params.index)
        blocks = render_edge_component(example.edges, example.papers, ids, prompts)
    elif meta is not None:
        blocks = render_component(meta, example.edges, example.papers, prompts)
    else:
        return {}
    cites = {a for a, _ in example.edges}
    citing = [p for p in example.papers if p in cites]  # the renderers' block order
    return {b.split("\n", 1)[0]: (p, b) for p, b in zip(citing, blocks, strict=True)}


@dataclass(frozen=True)
class PromptRows:
    """The user message as display rows of at most ``ROW_WIDTH`` characters, and the spans in rows.

    ``row_start[i]`` is the character offset of row ``i``; ``span_rows[j]`` is the ``[first, last]``
    row range of ``spans[j]`` (block boundaries fall on line starts and ends, so on row boundaries).
    """

    rows: tuple[str, ...]
    row_start: tuple[int, ...]
    span_rows: tuple[tuple[int, int], ...]


def prompt_rows(text: str, spans: Sequence[Span], width: int = ROW_WIDTH) -> PromptRows:
    """Cut ``text`` into rows (every line, wrapped at ``width``) so the page can draw only the visible ones."""
    rows: list[str] = []
    starts: list[int] = []
    pos = 0
    for line in text.split("\n"):
        if not line:
            rows.append("")
            starts.append(pos)
        for k in range(0, len(line), width):
            rows.append(line[k : k + width])
            starts.append(pos + k)
        pos += len(line) + 1
    span_rows = tuple((bisect.bisect_right(starts, s.start) - 1, bisect.bisect_right(starts, max(s.end - 1, s.start)) - 1) for s in spans)
    return PromptRows(tuple(rows), tuple(starts), span_rows)
