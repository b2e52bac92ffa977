"""Where the question and the paper blocks lie in a prompt's user message, in o200k_base tokens.

An example records these *needle positions* (:class:`graphniah.formats.examples.NeedlePositions`)
when it is built, so the viewer (``graphniah.view.needles``) draws its needle map without
tokenising 200k-token prompts again. Both sides find the blocks with the same function
(:func:`block_runs`), so a recorded position exists for every block the viewer shows.

The blocks are found by their shape, in the context's *runs* (maximal sequences of non-blank
lines): an APA paper block is a run that starts with the title line's literal text and holds the
references header on a line of its own; in the edge-list rendering a block is a run of citation
lines only. Whether a block is a needle (one of the task's papers) or the block of a component
added as a distractor is the viewer's business (it needs the papers' metadata); the positions do
not depend on it.

**What is recorded.** The user message's token count; the question's token offset and count; the
context's offset and length (the rest of the message minus the text after the context); and for
every block its character offset, token offset and own token count. A token offset is the count
of the text before that point.

**Two ways to compute them, one result.**

- :func:`count_positions` (the viewer's way for examples that do not carry positions) cuts the
  text at the start of the question and of every block and counts each piece. That is exact
  because each cut is a boundary of o200k's pre-tokenizer (BPE merges never cross a boundary, so
  the pieces' counts add up): a point right after a newline is a boundary unless the character
  there is "/" or whitespace. o200k's pieces that can hold a newline are whitespace runs
  ``\\s*[\\r\\n]+`` (they end on a newline), punctuation runs ``[^\\s\\p{L}\\p{N}]+[\\r\\n/]*`` (they
  run on into a leading "/") and whitespace runs ``\\s+``; a letter piece may start with one
  optional character that is not a newline. Blocks start with a letter or a hexadecimal id, the
  question with a letter, each right after a newline. A block's *end* is not such a boundary (its
  final full stop may join the blank line after it), so a block is its start and its own count.
- :func:`attached_positions` (the sampler's way) adds up the counts the packer already took: each
  context block counted with its separator attached, ``a(B) = count(B + "\\n\\n")``. By the theorem
  of :func:`graphniah.text.tokenizers.joined_count` the count of the text before a block is the
  sum of the attached counts of the units before it (the text before the context, then the
  blocks), a run of units joined by glued junctions counted as one; a block's own count is
  ``a(B) - count(X + "\\n\\n") + count(X)`` for its last line ``X`` (the start of ``X`` is a
  boundary by the rule above, and what lies before it is tokenised alike in both texts). Only
  short texts are tokenised: the question, the text around the context, glued runs and last lines.
  The user message's count so obtained is checked against the packer's o200k_base total of the whole
  chat (exact: a recount, or for the pinned o200k_base the running total that the theorem of
  :func:`graphniah.text.tokenizers.joined_count` makes exact); if it or any hypothesis fails (a block that is not a whole context block, a glued block start), the positions
  are counted as the viewer would.

``tests/sampling/examples/test_positions.py`` checks both against counting every prefix whole.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

from graphniah.formats.examples import Message, NeedlePositions
from graphniah.text import BLOCK_SEPARATOR, GlueFlags, PromptSet, Tokenizer, Undetermined, edge_line_pattern, split_messages

__all__ = ["attached_positions", "block_runs", "count_positions", "user_fields"]

S = BLOCK_SEPARATOR
_RUN = re.compile(r"[^\n]+(?:\n[^\n]+)*")  # a maximal run of non-blank lines

Span = tuple[int, int]  # characters [start, end) of the user message


def user_fields(messages: Sequence[Message], prompts: PromptSet) -> dict[str, Span] | None:
    """Character spans of the user template's fields (question, context, format reminder) in the
    user message, or None if the messages do not follow the templates."""
    try:
        task, question, context = split_messages(messages, prompts)
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


def block_runs(text: str, context: Span, prompts: PromptSet, edge_list: bool) -> list[Span]:
    """The paper blocks in ``text[context[0]:context[1]]``, by shape (see the module docstring), in text order."""
    title_prefix = prompts.block.title.literals[0]
    header = f"\n{prompts.block.references.fill({})}\n"
    if not edge_list and title_prefix and "\n" not in title_prefix:
        return _titled_runs(text, context, title_prefix, header)
    edge_line = edge_line_pattern(prompts)
    out = []
    for m in _RUN.finditer(text, *context):
        run = m.group()
        if edge_list:
            if all(edge_line.fullmatch(line) for line in run.split("\n")):
                out.append(m.span())
        elif run.startswith(title_prefix) and header in run:
            out.append(m.span())
    return out


def _titled_runs(text: str, context: Span, title_prefix: str, header: str) -> list[Span]:
    """:func:`block_runs` for blocks that start with ``title_prefix`` (non-empty, one line): the same runs,
    found by looking only where that prefix occurs (rare outside the blocks) instead of visiting
    every run of the distractor text. A run starts at the context's start or after a blank line
    (``\n\n``, or one newline at the context's start), and ends before the next blank line, before
    a newline that ends the context, or at the context's end."""
    c0, c1 = context
    out = []
    p = text.find(title_prefix, c0, c1)
    while p >= 0:
        if p == c0 or (text[p - 1] == "\n" and (p - 1 == c0 or text[p - 2] == "\n")):
            blank = text.find("\n\n", p, c1)
            end = blank if blank >= 0 else (c1 - 1 if text[c1 - 1] == "\n" else c1)
            if text.find(header, p, end) >= 0:
                out.append((p, end))
            p = text.find(title_prefix, end, c1)
        else:
            p = text.find(title_prefix, p + 1, c1)
    return out


def count_positions(text: str, fields: dict[str, Span] | None, blocks: Sequence[Span], tokenizer: Tokenizer) -> NeedlePositions:
    """The positions of ``blocks`` (and of the question and the context, when ``fields`` are known)
    by counting the pieces between consecutive starts (see the module docstring)."""
    question = fields["question"] if fields else None
    starts = [s for s, _ in blocks] + ([question[0]] if question else [])
    cuts = sorted(set(starts))
    pieces = [text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)], strict=True)]
    offsets = np.cumsum(np.asarray(tokenizer.count_batch(pieces), dtype=np.int64))
    token_of = {c: int(offsets[i]) for i, c in enumerate(cuts)}
    total = int(offsets[-1])
    own = tokenizer.count_batch([text[s:e] for s, e in blocks] + ([text[question[0] : question[1]]] if question else []))
    q = (token_of[question[0]], int(own[-1])) if question else None
    ctx = None
    if fields:  # the context may begin with distractor text (not a boundary): count the text before it whole
        c0, c1 = fields["context"]
        start = tokenizer.count(text[:c0])
        ctx = (start, max(total - start - tokenizer.count(text[c1:]), 0))
    return NeedlePositions(tokens=total, question=q, context=ctx,
                           blocks=tuple((s, token_of[s], int(n)) for (s, _), n in zip(blocks, own, strict=False)))


def attached_positions(
    messages: Sequence[Message],
    context: Sequence[str],
    attached: Sequence[int],
    o200k: Tokenizer,
    prompts: PromptSet,
    edge_list: bool,
    chat_tokens: int | None = None,
) -> NeedlePositions:
    """The positions from the blocks' attached o200k_base counts (see the module docstring).

    ``context`` are the context's blocks in order and ``attached[i] = count(context[i] + S)``;
    ``chat_tokens`` the exact o200k_base count of the whole chat (the packer's total), checked
    against. Falls back to :func:`count_positions` when a hypothesis does not hold.
    """
    text = messages[-1].content
    fields = user_fields(messages, prompts)
    if fields is None:
        raise ValueError("the messages do not follow the prompt templates")
    blocks = block_runs(text, fields["context"], prompts, edge_list)
    got = _from_attached(text, fields, blocks, context, attached, o200k)
    if got is not None and chat_tokens is not None:
        fixed = sum(o200k.count(m.content) for m in messages[:-1])
        if got.tokens != chat_tokens - o200k.chat_overhead([m.role for m in messages]) - fixed:
            got = None  # the bookkeeping disagrees with the packer's exact total: count instead
    return got if got is not None else count_positions(text, fields, blocks, o200k)


def _from_attached(text: str, fields: dict[str, Span], blocks: Sequence[Span], context: Sequence[str],
                   attached: Sequence[int], tok: Tokenizer) -> NeedlePositions | None:
    c0, c1 = fields["context"]
    head, tail = text[: c0 - len(S)], text[c1 + len(S) :]
    framed = text[c0 - len(S) : c0] == S and text[c1 : c1 + len(S)] == S  # what head and tail leave out
    if len(attached) != len(context) or min(attached, default=0) < 0 or text[c0:c1] != S.join(context) or not head or not framed:
        return None
    units = [head, *context, tail]
    att = [tok.count(head + S), *attached, tok.count(tail)]  # the tail is last: counted bare
    if isinstance(tok, GlueFlags):
        left, right = tok.glue_flags(units)
    else:
        left = right = np.zeros(len(units), dtype=bool)
    offset: list[int | None] = [None] * len(units)  # token offset of a unit that starts at a boundary
    pos, i = 0, 0
    while i < len(units):
        j = i
        while j + 1 < len(units) and left[j] and right[j + 1]:
            j += 1
        offset[i] = pos
        pos += att[i] if j == i else tok.count(S.join(units[i : j + 1]) + (S if j + 1 < len(units) else ""))
        i = j + 1
    unit_at: dict[int, int] = {}
    start = c0
    for k, block in enumerate(context, 1):
        unit_at[start] = k
        start += len(block) + len(S)
    found: list[int] = []
    first: list[int] = []
    for s, e in blocks:
        k = unit_at.get(s, -1)
        at = offset[k] if k > 0 else None
        if at is None or s + len(units[k]) != e:
            return None
        found.append(k)
        first.append(at)
    own = _own_counts([units[k] for k in found], [att[k] for k in found], tok)
    q0, q1 = fields["question"]
    ctx_start = att[0]  # count(head + S): the text before the context
    return NeedlePositions(
        tokens=pos,
        question=(tok.count(text[:q0]), tok.count(text[q0:q1])),
        context=(ctx_start, max(pos - ctx_start - tok.count(text[c1:]), 0)),
        blocks=tuple((s, t, n) for (s, _), t, n in zip(blocks, first, own, strict=True)),
    )


def _own_counts(blocks: Sequence[str], attached: Sequence[int], tok: Tokenizer) -> list[int]:
    """``count(B)`` of each block from ``count(B + S)``: only its last line is counted, twice."""
    lasts = []
    for b in blocks:
        cut = b.rfind("\n") + 1
        ok = cut > 0 and not (b[cut] == "/" or b[cut].isspace())
        lasts.append(b[cut:] if ok else None)
    direct = [i for i, x in enumerate(lasts) if x is None]
    alone = dict(zip(direct, tok.count_batch([blocks[i] for i in direct]).tolist(), strict=True))
    tails = [x for x in lasts if x is not None]
    with_sep = iter(tok.count_batch([x + S for x in tails]).tolist())
    bare = iter(tok.count_batch(tails).tolist())
    return [alone[i] if x is None else a - next(with_sep) + next(bare) for i, (x, a) in enumerate(zip(lasts, attached, strict=True))]
