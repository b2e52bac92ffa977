"""Where the needles sit in a prompt: paper blocks, distractor text and the question, in o200k tokens.

A prompt's user message is the user template filled with the question, the context (blocks and
distractor documents joined by blank lines) and the format reminder. This module finds, in that
text, the question and every paper block, and gives each its offset in **o200k_base tokens** of
the user message, plus the prompt cut into fixed-width display rows for the windowed view.

Which block is which paper: the paper blocks are the context's runs (maximal sequences of
non-blank lines) that start like a block and contain the references header. With the papers'
titles (from the snapshot the example was sampled from), a block whose first line is the title
line of one of the task's citing papers is that paper's block (a *needle*): no two papers of an
example share a title, distractor components included (the sampler rejects a repeated title,
``graphniah.sampling.examples.grow``), so the title line names the block, and the rest of it need
not be rendered again. Any other block belongs to a component added as a distractor. Edge-list
blocks carry no titles: the task's are rendered again (from the recipe's seed and index, no
metadata needed) and must match whole. Without metadata, the needles cannot be told from
distractor components, and every block-shaped run is marked as a paper block.

Token offsets. The offset of a position is the number of tokens of the text before it. The blocks
are found, and their offsets defined, by :mod:`graphniah.text.positions`: an example
records them when it is built (``Example.needle_positions``, format version 4), so the viewer reads
them and never tokenises the prompt; for an older example they are counted here as before, by
cutting the text at the start of the question and of every block (each a boundary of o200k's
pre-tokenizer, so the pieces' counts add up; the proof is in that module). ``tests/view`` and
``tests/sampling/examples/test_positions.py`` check both against counting each prefix whole.
"""

from __future__ import annotations

import bisect
import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal, NamedTuple

import numpy as np

from graphniah.errors import GraphNIAHError
from graphniah.formats.examples import Example, NeedlePositions
from graphniah.text import PromptSet, Tokenizer, load_tokenizer
from graphniah.text.edgelist import PaperIds, render_edge_component
from graphniah.text.positions import block_runs, count_positions, user_fields
from graphniah.view.data import ShownPaper

__all__ = ["ROW_WIDTH", "NeedleMap", "PromptRows", "RowLayout", "Span", "needle_map", "prompt_rows", "row_layout"]

#: Characters per display row of the prompt view (long lines wrap onto several rows).
ROW_WIDTH = 150

SpanKind = Literal["question", "needle", "paper", "context"]


class Span(NamedTuple):
    """A stretch of the user message: characters ``[start, end)``, first token ``token``, ``tokens`` long
    (a named tuple: an example has up to a few thousand, built faster so than as frozen dataclasses).

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


def needle_map(example: Example, tokenizer: Tokenizer | None, prompts: PromptSet, meta: Mapping[int, ShownPaper] | None) -> NeedleMap:
    """Find the question and the paper blocks in ``example``'s user message and give their token offsets.

    The offsets are the example's recorded needle positions when it has them for every block found
    (examples of format version 4); otherwise (older examples) they are counted with ``tokenizer``
    (o200k_base, loaded here when None), as :func:`graphniah.text.positions.count_positions` does.
    """
    text = example.messages[-1].content
    fields = user_fields(example.messages, prompts)
    c0, c1 = fields["context"] if fields else (0, len(text))
    edge_list = example.recipe.params.render == "edges"
    blocks = block_runs(text, (c0, c1), prompts, edge_list)
    pos = _recorded(example.needle_positions, fields, blocks)
    if pos is None:
        pos = count_positions(text, fields, blocks, tokenizer or _o200k())
    title_prefix = prompts.block.title.literals[0]
    suffix = prompts.block.title.literals[-1]
    expected = _expected_blocks(example, prompts, meta)
    spans: list[Span] = []
    seen: set[int] = set()
    for (s, e), (_, token, n) in zip(blocks, pos.blocks, strict=True):
        line_end = text.find("\n", s, e)
        first = text[s : e if line_end < 0 else line_end]
        hit = expected.get(first)
        if hit is not None and (hit[1] is None or hit[1] == text[s:e]):
            spans.append(Span("needle", s, e, token, n, hit[0], meta[hit[0]].title if meta else None))
            seen.add(hit[0])
        elif edge_list:  # a distractor component's edge list
            spans.append(Span("paper", s, e, token, n))
        else:
            title = first[len(title_prefix) : len(first) - len(suffix) if suffix and first.endswith(suffix) else None]
            spans.append(Span("paper", s, e, token, n, None, title))
    if fields and pos.question is not None:
        q0, q1 = fields["question"]
        spans.append(Span("question", q0, q1, *pos.question))
    spans.sort(key=lambda sp: sp.start)
    if fields and pos.context is not None:  # the context as a whole, behind the blocks: what is not a block in it is distractor text
        spans.insert(0, Span("context", c0, c1, *pos.context))
    missing = tuple(p for p, _ in expected.values() if p not in seen)
    return NeedleMap(pos.tokens, tuple(spans), meta is not None or edge_list, missing)


@functools.cache
def _o200k() -> Tokenizer:
    """o200k_base, loaded once per process and only for an example without recorded positions."""
    return load_tokenizer("o200k_base")


def _recorded(pos: NeedlePositions | None, fields: Mapping[str, tuple[int, int]] | None,
              blocks: Sequence[tuple[int, int]]) -> NeedlePositions | None:
    """The example's recorded positions if they cover exactly the blocks found (and the question), else None."""
    if pos is None or fields is None or pos.question is None or pos.context is None:
        return None
    return pos if [b[0] for b in pos.blocks] == [s for s, _ in blocks] else None


def _expected_blocks(example: Example, prompts: PromptSet, meta: Mapping[int, ShownPaper] | None) -> dict[str, tuple[int, str | None]]:
    """The task's blocks by first line, with their citing paper and the whole block to match (None:
    the first line is enough). APA: each citing paper's title line, from the metadata (none without
    it; titles are unique in an example, see the module docstring). Edge lists: the blocks rendered
    again, which needs no metadata (the ids follow from the recipe's seed and index, the task's papers
    taking theirs first, as when the example was built)."""
    cites = {a for a, _ in example.edges}
    citing = [p for p in example.papers if p in cites]  # the renderers' block order
    if example.recipe.params.render == "edges":
        ids = PaperIds(example.recipe.seed, example.recipe.params.index)
        blocks = render_edge_component(example.edges, example.papers, ids, prompts)
        return {b.split("\n", 1)[0]: (p, b) for p, b in zip(citing, blocks, strict=True)}
    if meta is None:
        return {}
    title = prompts.block.title
    try:
        return {title.fill({"title": meta[p].title}): (p, None) for p in citing}
    except KeyError as err:
        raise GraphNIAHError(f"example {example.id}: paper {err.args[0]} has no metadata") from None


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


@dataclass(frozen=True)
class RowLayout:
    """What the page needs of :func:`prompt_rows` besides the text: how many rows, and each span's rows."""

    count: int
    span_rows: tuple[tuple[int, int], ...]


def row_layout(text: str, spans: Sequence[Span], width: int = ROW_WIDTH, encoded: bytes | None = None) -> RowLayout:
    """:func:`prompt_rows`'s row count and span rows, from the line lengths alone (the page cuts the rows
    itself): line ``i`` takes ``max(1, ceil(len / width))`` rows, and a character lies in its line's row
    ``(offset in the line) // width`` (the newline ending a line, in the line's last row).

    The newlines are found in ``text``'s UTF-8 bytes (``encoded``, when the caller has them), where a
    byte scan is a vector operation: the character offset of a byte is its offset less the
    continuation bytes (``10xxxxxx``) before it, and those are few (prompts are nearly all ASCII)."""
    raw = np.frombuffer(text.encode("utf-8", "surrogatepass") if encoded is None else encoded, dtype=np.uint8)
    newlines = np.flatnonzero(raw == 10)
    if raw.size != len(text):
        newlines -= np.searchsorted(np.flatnonzero((raw & 0xC0) == 0x80), newlines)
    line_start = np.concatenate(([0], newlines + 1))
    lengths = np.append(newlines, len(text)) - line_start
    per_line = np.maximum(1, -(-lengths // width))
    first_row = np.concatenate(([0], np.cumsum(per_line)))
    line_start = np.append(line_start, len(text) + 1)
    points = np.asarray([p for s in spans for p in (s.start, max(s.end - 1, s.start))], dtype=np.int64)
    line = np.searchsorted(line_start, points, side="right") - 1
    rows = first_row[line] + np.minimum((points - line_start[line]) // width, per_line[line] - 1)
    pairs = rows.reshape(-1, 2).tolist()
    return RowLayout(int(first_row[-1]), tuple((a, b) for a, b in pairs))
