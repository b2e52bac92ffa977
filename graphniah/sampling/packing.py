"""Exact context packing under several tokenizers at once (the paper's appendix A.2.4).

The sampler (``sampling/examples/sample.py``) builds every example's prompt with :func:`pack`: the
needle blocks plus distractors drawn from a :class:`DistractorSource` (``sampling/examples/distract.py``),
up to the context length L, counted under every tokenizer with the chat template included.

The rule. The needle blocks and every distractor block get an independent uniform key, and the
context lists the blocks present in increasing key order. Distractors are drawn one at a time and
offered block by block in their own order. Packing stops at the first of: the prompt is within
``NEAR_LIMIT`` = 100 tokens of L; the next block would push some count above L (that block and
everything drawn after it are left out, so the last distractor may be cut at a block boundary,
never inside a block); nothing more can be drawn. If the needles alone exceed L the example must be
built again (:class:`NeedlesExceedLimit`).

Notes
-----
Each block is counted once per tokenizer with its separator attached (in batches; tokenizers
without glued junctions count a batch in a few long pieces), and a running total per tokenizer is
kept exact by the bookkeeping theorem of ``docs/packing.md``, so packing costs O(n log n) plus one
tokenization of each block. Under the pinned tokenizers (``counts_compose``) the final totals are
the prompt's exact counts and it is not counted again; under any other it is recounted and cut back
until it fits. The proofs that the totals are exact, that the prompt fits, and that the blocks kept
are those of the paper's stop rule are in ``docs/packing.md``.
"""

from __future__ import annotations

import itertools
import math
from collections import deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal, Protocol

import numpy as np
import numpy.typing as npt
from sortedcontainers import SortedList

from graphniah.errors import GraphNIAHError
from graphniah.text import (
    BLOCK_SEPARATOR,
    O200K_SHA256,
    QWEN_VOCAB_SHA256,
    Gemma,
    GlueFlags,
    O200k,
    Qwen35,
    Tokenizer,
    counts_compose,
    is_clean_block,
)
from graphniah.text.tokenizers import Message

NEAR_LIMIT = 100  # stop once the prompt is within this many tokens of L (appendix A.2.4)
MIN_CHUNK_CHARS = 8_000  # smallest batch of blocks counted at once
CHARS_PER_TOKEN_FLOOR = 2.0  # batch size = room (tokens) * this; few texts have fewer chars per token
PIECE_CHARS = 16_000  # a batch is counted in pieces of about this size by tokenizers without glue
UNKNOWN = -1  # attached count not taken yet (the block was counted inside a piece)

StopReason = Literal["near_limit", "next_block_too_long", "exhausted"]
_HEAD, _TAIL = 0, 1  # unit ids of the fixed text before and after the context
S = BLOCK_SEPARATOR


def tokenizer_fingerprint(tok: Tokenizer) -> str:
    """A short identity of a tokenizer's files and options, for recipes (counts depend on them)."""
    if isinstance(tok, O200k):
        return O200K_SHA256[:16]
    if isinstance(tok, Qwen35):
        return QWEN_VOCAB_SHA256[:16] + ("" if tok.enable_thinking else "+no-thinking")
    if isinstance(tok, Gemma):
        return tok.asset_sha256[:16]
    return f"{type(tok).__module__}.{type(tok).__qualname__}"


class NeedlesExceedLimit(GraphNIAHError):
    """The needles alone (with the fixed prompt parts) exceed L under some tokenizer."""

    def __init__(self, counts: Mapping[str, int], limit: int) -> None:
        self.counts = dict(counts)
        self.limit = limit
        over = ", ".join(f"{k} {v:,}" for k, v in counts.items() if v > limit)
        super().__init__(f"the needles alone exceed the context length {limit:,} ({over} tokens)")


@dataclass(frozen=True)
class Frame:
    """The fixed parts of a prompt: messages before the last one, and that message around the context.

    The last message's content is ``head + S + context + S + tail`` where the context is the blocks
    joined by ``S``.
    """

    fixed: tuple[Message, ...]
    role: str
    head: str
    tail: str

    @classmethod
    def around(cls, messages: Sequence[Message], placeholder: str) -> Frame:
        """The frame of ``messages`` whose last content holds ``placeholder`` (once) where the context goes."""
        *fixed, (role, content) = messages
        parts = content.split(placeholder)
        if len(parts) != 2:
            raise GraphNIAHError(f"the last message must contain the context placeholder exactly once, found {len(parts) - 1}")
        head, tail = parts
        if not (head.endswith(S) and tail.startswith(S)):
            raise GraphNIAHError("the user template (prompts/user.txt) must put a blank line before and after {context}")
        frame = cls(tuple(fixed), role, head[: -len(S)], tail[len(S):])
        for name, text in (("text before the context", frame.head), ("text after the context", frame.tail)):
            if not is_clean_block(text):
                raise GraphNIAHError(f"the {name} in the user template must not be empty or end in whitespace: {text[-60:]!r}")
        for r, c in frame.fixed:
            if not c or c != c.strip():
                raise GraphNIAHError(f"the {r} message must be non-empty without surrounding whitespace")
        return frame

    def messages(self, blocks: Sequence[str]) -> list[Message]:
        return [*self.fixed, (self.role, S.join((self.head, *blocks, self.tail)))]


@dataclass(frozen=True)
class Distractor:
    """One drawn distractor: a label for reports, its blocks in their own order, and the drawer's data."""

    label: str
    blocks: tuple[str, ...]
    payload: object = None


class DistractorSource(Protocol):
    """Draws distractors one at a time; None when nothing more can be drawn."""

    def draw(self, rng: np.random.Generator) -> Distractor | None: ...


@dataclass(frozen=True)
class Used:
    """A distractor that contributed blocks: the first ``kept`` of its blocks are in the context."""

    distractor: Distractor
    kept: int


@dataclass(frozen=True)
class Packed:
    """A packed context and its exact counts.

    ``context`` is in key order (``keys`` increasing, ties by drawn order); ``needle[i]`` tells a
    needle from a distractor block. ``used`` lists, in drawn order, the distractors with blocks in
    the context: all but the last are whole. ``rejected`` is the first drawn block left out (and its
    key) when packing stopped because it did not fit. ``predicted`` holds the running totals for the
    final prompt, ``token_counts`` its exact counts: the totals themselves under the tokenizers the
    bookkeeping theorem covers, a recount under any other; ``recounts`` is the number of whole-prompt
    recounts: 0 when the theorem covers every tokenizer, else 1 unless the totals were off.
    """

    context: tuple[str, ...]
    keys: tuple[float, ...]
    needle: tuple[bool, ...]
    used: tuple[Used, ...]
    messages: tuple[Message, ...]
    token_counts: dict[str, int]
    predicted: dict[str, int]
    limit: int
    stop: StopReason
    rejected: tuple[str, float] | None
    recounts: int
    counted_blocks: int  # distractor blocks tokenized (kept + the cut remainder of the last batch)
    # o200k_base's count of each context block with its separator attached, count(block + S), in
    # context order (None when o200k_base is not among the tokenizers): where each block lands
    # follows from these without tokenising the prompt again (graphniah.text.positions).
    o200k_attached: tuple[int, ...] | None = None

    @property
    def n_distractor_blocks(self) -> int:
        return sum(u.kept for u in self.used)


@dataclass
class _Units:
    """Texts, keys and per-tokenizer attached counts / glue flags of every unit (id = list index)."""

    texts: list[str] = field(default_factory=list)
    keys: list[float] = field(default_factory=list)
    attached: list[list[int]] = field(default_factory=list)  # [tokenizer][unit]
    glue_left: dict[int, list[bool]] = field(default_factory=dict)  # glue tokenizers only
    glue_right: dict[int, list[bool]] = field(default_factory=dict)


@dataclass(frozen=True)
class _PieceCounts:
    """A batch counted in consecutive pieces: piece ``p`` ends after the batch's first ``ends[p]``
    blocks, and ``counts[i][p]`` is tokenizer ``i``'s count of it (empty where counted per block)."""

    ends: tuple[int, ...]
    counts: tuple[tuple[int, ...], ...]


class _Tally:
    """Exact running prompt counts, one per tokenizer, for the set of units present (the bookkeeping theorem of docs/packing.md)."""

    def __init__(self, tokenizers: Sequence[Tokenizer], frame: Frame) -> None:
        self.toks = list(tokenizers)
        self.u = _Units(attached=[[] for _ in self.toks])
        self._gluers: dict[int, GlueFlags] = {i: t for i, t in enumerate(self.toks) if isinstance(t, GlueFlags)}
        self.glue = list(self._gluers)
        # Tokenizers without glued junctions: a block adds its attached count, whatever its neighbours.
        self.additive = [i for i in range(len(self.toks)) if i not in self.glue]
        for g in self.glue:
            self.u.glue_left[g], self.u.glue_right[g] = [], []
        self.order: SortedList = SortedList()
        self._runs: dict[tuple[int, tuple[int, ...]], int] = {}
        roles = [r for r, _ in frame.fixed] + [frame.role]
        self.totals = [
            t.chat_overhead(roles) + sum(t.count(c) for _, c in frame.fixed) for t in self.toks
        ]
        # Unit 0 is the head (counted with its separator), unit 1 the tail (counted bare: nothing follows it).
        self.add_units([frame.head, frame.tail], [-math.inf, math.inf], check=False)
        for i, t in enumerate(self.toks):
            self.u.attached[i][_TAIL] = t.count(frame.tail)
            self.totals[i] += self.u.attached[i][_HEAD] + self.u.attached[i][_TAIL]
        self.order.update([(-math.inf, _HEAD), (math.inf, _TAIL)])

    # -- units ----------------------------------------------------------------------------------

    def add_units(
        self, texts: Sequence[str], keys: Sequence[float] | npt.NDArray[np.floating], check: bool = True, per_block: bool = True
    ) -> tuple[range, _PieceCounts]:
        """Register blocks (not yet present) and count them with their separators attached.

        Tokenizers with glued junctions (o200k_base) always count each block. The others count
        each block (``per_block``) or only the batch, in consecutive pieces of about
        ``PIECE_CHARS`` joined by separators — by the theorem each piece's count is the sum of its
        blocks' attached counts; returned here with the new ids — leaving the blocks' own counts
        ``UNKNOWN`` until ``ensure_counts``.
        """
        if check:
            bad = next((b for b in texts if not is_clean_block(b)), None)
            if bad is not None:
                raise GraphNIAHError(f"a context block is empty or has whitespace at an end: {bad[:60]!r}")
        first = len(self.u.texts)
        self.u.texts.extend(texts)
        self.u.keys.extend(float(k) for k in keys)
        with_sep = [b + S for b in texts]
        counts: list[tuple[int, ...]] = [() for _ in self.toks]
        pieces: tuple[list[str], tuple[int, ...]] | None = None
        for i, t in enumerate(self.toks):
            if per_block or i in self.glue:
                self.u.attached[i].extend(t.count_batch(with_sep).tolist())
                continue
            if pieces is None:
                pieces = _pieces(with_sep)
            counts[i] = tuple(t.count_batch(pieces[0]).tolist())
            self.u.attached[i].extend([UNKNOWN] * len(texts))
        for g in self.glue:
            left, right = self._gluers[g].glue_flags(texts)
            self.u.glue_left[g].extend(left.tolist())
            self.u.glue_right[g].extend(right.tolist())
        return range(first, len(self.u.texts)), _PieceCounts(() if pieces is None else pieces[1], tuple(counts))

    def ensure_counts(self, ids: Sequence[int]) -> None:
        """Count the blocks whose own counts were left ``UNKNOWN`` by a batch counted in pieces."""
        for i, t in enumerate(self.toks):
            todo = [x for x in ids if self.u.attached[i][x] == UNKNOWN]
            if todo:
                for x, c in zip(todo, t.count_batch([self.u.texts[x] + S for x in todo]).tolist(), strict=True):
                    self.u.attached[i][x] = c

    # -- presence -------------------------------------------------------------------------------

    def insert(self, x: int) -> None:
        item = (self.u.keys[x], x)
        pos = self.order.bisect_left(item)
        self._change(x, pos - 1, pos, adding=True)
        self.order.add(item)

    def remove(self, x: int) -> None:
        item = (self.u.keys[x], x)
        pos = self.order.index(item)
        self._change(x, pos - 1, pos + 1, adding=False)
        self.order.remove(item)

    def present(self) -> list[int]:
        """Ids of the blocks present, in context order."""
        return [x for _, x in self.order.islice(1, len(self.order) - 1)]

    def _change(self, x: int, p_pos: int, q_pos: int, adding: bool) -> None:
        sign = 1 if adding else -1
        for i in range(len(self.toks)):
            if (a := self.u.attached[i][x]) != UNKNOWN:  # unknown: its batch is in the totals as a whole
                self.totals[i] += sign * a
        if not self.glue:
            return
        p, q = self.order[p_pos][1], self.order[q_pos][1]
        for g in self.glue:
            gl, gr = self.u.glue_left[g], self.u.glue_right[g]
            if not ((gl[p] and gr[q]) or (gl[p] and gr[x]) or (gl[x] and gr[q])):
                continue  # no glued junction before or after: no run changes
            left = [p]
            j = p_pos
            while j > 0 and gl[self.order[j - 1][1]] and gr[self.order[j][1]]:
                j -= 1
                left.append(self.order[j][1])
            left.reverse()
            right = [q]
            j = q_pos
            while j < len(self.order) - 1 and gl[self.order[j][1]] and gr[self.order[j + 1][1]]:
                j += 1
                right.append(self.order[j][1])
            without = self._window(g, left + right)
            with_x = self._window(g, left + [x] + right)
            self.totals[g] += sign * (with_x - without)

    def _window(self, g: int, ids: list[int]) -> int:
        """Sum of the run corrections of tokenizer ``g`` inside a window of consecutive units."""
        gl, gr = self.u.glue_left[g], self.u.glue_right[g]
        total, run = 0, [ids[0]]
        for a, b in itertools.pairwise(ids):
            if gl[a] and gr[b]:
                run.append(b)
                continue
            if len(run) > 1:
                total += self._run(g, run)
            run = [b]
        if len(run) > 1:
            total += self._run(g, run)
        return total

    def _run(self, g: int, run: list[int]) -> int:
        key = (g, tuple(run))
        if key not in self._runs:
            text = S.join(self.u.texts[i] for i in run) + ("" if run[-1] == _TAIL else S)
            self._runs[key] = self.toks[g].count(text) - sum(self.u.attached[g][i] for i in run)
        return self._runs[key]


def pack(
    frame: Frame,
    needles: Sequence[str],
    needle_keys: Sequence[float] | npt.NDArray[np.floating],
    source: DistractorSource | None,
    limit: int,
    tokenizers: Mapping[str, Tokenizer],
    rng: np.random.Generator,
) -> Packed:
    """Pack the needles and distractors drawn from ``source`` into a prompt of at most ``limit`` tokens.

    Parameters
    ----------
    frame : Frame
        The fixed parts of the prompt around the context.
    needles : sequence of str
        The needle blocks (clean: see ``is_clean_block``).
    needle_keys : sequence of float
        The needles' random keys, one per needle, drawn by the caller.
    source : DistractorSource or None
        Where distractors are drawn from; None packs the needles alone.
    limit : int
        The context length L, in tokens, under every tokenizer.
    tokenizers : mapping of str to Tokenizer
        The tokenizers a prompt must fit under, by name.
    rng : numpy.random.Generator
        Draws the distractors and, right after each distractor, its blocks' keys
        (``rng.random(n_blocks)``).

    Returns
    -------
    Packed
        The context in key order, the messages, the exact counts per tokenizer and why packing stopped.

    Raises
    ------
    NeedlesExceedLimit
        When the needles alone (with the fixed prompt parts) do not fit.
    ValueError
        When ``needle_keys`` does not hold one key per needle.
    GraphNIAHError
        When ``limit`` is not positive or a block is empty or has whitespace at an end.

    Notes
    -----
    The stop rule is in the module docstring; why the running totals are exact and the rule is the
    paper's is in ``docs/packing.md``.
    """
    if limit < 1:
        raise GraphNIAHError(f"the context length must be positive, got {limit}")
    if len(needle_keys) != len(needles):
        raise ValueError("one key per needle block")
    names = list(tokenizers)
    tally = _Tally([tokenizers[n] for n in names], frame)
    needle_ids, _ = tally.add_units(needles, needle_keys)
    for x in needle_ids:
        tally.insert(x)
    if max(tally.totals) > limit:
        raise NeedlesExceedLimit(dict(zip(names, tally.totals, strict=True)), limit)

    packer = _Packer(tally, source, limit, rng)
    stop, rejected = packer.run()
    offered, kept_of = packer.offered, packer.kept_of
    offered_ids = [x for x, _ in offered]
    n_kept, exact, recounts, messages = _settle(tally, frame, offered_ids, limit, names)
    if n_kept < len(offered):
        for _, d_index in offered[n_kept:]:
            kept_of[d_index] -= 1
        stop, rejected = "next_block_too_long", offered[n_kept][0]
    present = tally.present()
    return Packed(
        context=tuple(tally.u.texts[x] for x in present),
        keys=tuple(tally.u.keys[x] for x in present),
        needle=tuple(x in needle_ids for x in present),
        used=tuple(Used(d, k) for d, k in zip(packer.drawn, kept_of, strict=True) if k > 0),
        messages=tuple(messages),
        token_counts=exact,
        predicted=dict(zip(names, tally.totals, strict=True)),
        limit=limit,
        stop=stop,
        rejected=None if rejected is None else (tally.u.texts[rejected], tally.u.keys[rejected]),
        recounts=recounts,
        counted_blocks=packer.counted_blocks,
        o200k_attached=_attached_of(tally, names, present, "o200k_base"),
    )


def _attached_of(tally: _Tally, names: Sequence[str], present: Sequence[int], name: str) -> tuple[int, ...] | None:
    """Tokenizer ``name``'s attached counts of the blocks present (None if it did not pack, or left some unknown)."""
    if name not in names:
        return None
    counts = tally.u.attached[list(names).index(name)]
    got = tuple(counts[x] for x in present)
    return None if UNKNOWN in got else got


class _Packer:
    """Drawing, counting and offering distractor blocks until the stop rule (see the module doc)."""

    def __init__(self, tally: _Tally, source: DistractorSource | None, limit: int, rng: np.random.Generator) -> None:
        self.tally = tally
        self.source = source
        self.limit = limit
        self.rng = rng
        self.drawn: list[Distractor] = []
        self.kept_of: list[int] = []  # per drawn distractor: blocks kept so far
        self.pending: deque[tuple[str, float, int]] = deque()  # drawn, not yet counted: (text, key, distractor)
        self.pending_chars = 0
        self.counted: deque[tuple[int, int]] = deque()  # counted, not yet offered: (unit id, distractor)
        self.offered: list[tuple[int, int]] = []  # kept distractor blocks in drawn order
        self.counted_blocks = 0
        self.batch: tuple[range, list[int]] | None = None  # the batch being offered when counted as a whole

    def run(self) -> tuple[StopReason, int | None]:
        """Offer blocks in drawn order until packing stops; returns the stop reason and the rejected block."""
        tally, limit = self.tally, self.limit
        stop: StopReason = "exhausted"
        rejected: int | None = None
        while True:
            if max(tally.totals) >= limit - NEAR_LIMIT:
                stop = "near_limit"
                break
            if not self.counted and not self._count_next_batch():
                break
            x, d_index = self.counted.popleft()
            tally.insert(x)
            if max(tally.totals) > limit:
                tally.remove(x)
                stop, rejected = "next_block_too_long", x
                break
            self.offered.append((x, d_index))
            self.kept_of[d_index] += 1
        self._settle_batch()
        return stop, rejected

    def _draw(self, target: float) -> None:
        """Draw distractors (and their blocks' keys) until ``target`` characters are pending or the source runs dry."""
        while self.pending_chars < target and self.source is not None:
            d = self.source.draw(self.rng)
            if d is None:
                self.source = None
                break
            keys = self.rng.random(len(d.blocks))
            self.drawn.append(d)
            self.kept_of.append(0)
            for b, k in zip(d.blocks, keys.tolist(), strict=True):
                self.pending.append((b, k, len(self.drawn) - 1))
                self.pending_chars += len(b)

    def _count_next_batch(self) -> bool:
        """Count the next batch of drawn blocks (about half the room left); False when nothing is left to draw."""
        tally = self.tally
        self.batch = None
        target = max(MIN_CHUNK_CHARS, CHARS_PER_TOKEN_FLOOR * (self.limit - max(tally.totals)))
        self._draw(target)
        if not self.pending:
            return False
        chunk: list[tuple[str, float, int]] = []
        chars = 0
        while self.pending and (not chunk or chars < target):
            item = self.pending.popleft()
            chunk.append(item)
            chars += len(item[0])
        self.pending_chars -= chars
        ids, pieces = tally.add_units([c[0] for c in chunk], [c[1] for c in chunk], per_block=False)
        self.counted.extend(zip(ids, (c[2] for c in chunk), strict=True))
        self.counted_blocks += len(chunk)
        m, sums = self._safe_prefix(pieces)
        if m:
            # Offered one by one, the first m blocks can raise a count without glued junctions to
            # at most its total with all m, which stays short of the stop rule: only the o200k_base
            # total (exact per block) can stop packing among them.
            for i in tally.additive:
                tally.totals[i] += sums[i]
            self.batch = (ids[:m], sums)
        if m < len(ids):  # near the end: the rest of the batch is counted block by block
            tally.ensure_counts(ids[m:])
        return True

    def _safe_prefix(self, pieces: _PieceCounts) -> tuple[int, list[int]]:
        """The blocks in the longest run of leading pieces whose counts keep every total without
        glued junctions below ``limit - NEAR_LIMIT``, and those pieces' summed counts per tokenizer."""
        tally = self.tally
        sums = [0] * len(tally.toks)
        m = 0
        for p, end in enumerate(pieces.ends):
            after = [s + (c[p] if c else 0) for s, c in zip(sums, pieces.counts, strict=True)]
            if any(tally.totals[i] + after[i] >= self.limit - NEAR_LIMIT for i in tally.additive):
                break
            sums, m = after, end
        return m, sums

    def _settle_batch(self) -> None:
        """If packing stopped inside a batch counted as a whole, count what was kept and correct the totals."""
        if self.batch is None:
            return
        tally = self.tally
        ids, sums = self.batch
        kept = [x for x, _ in self.offered if x in ids]
        if len(kept) < len(ids):  # stopped inside a batch counted as a whole: count what was kept
            tally.ensure_counts(ids)
            for i in tally.additive:
                tally.totals[i] += sum(tally.u.attached[i][x] for x in kept) - sums[i]


def _exact(tally: _Tally, frame: Frame, names: Sequence[str]) -> tuple[dict[str, int], list[Message]]:
    """Exact counts of the prompt the tally holds: its running totals under the tokenizers the
    theorems cover (``counts_compose``: they are exact, see docs/packing.md), a whole-prompt
    ``chat_count`` under any other."""
    messages = frame.messages([tally.u.texts[x] for x in tally.present()])
    return {
        n: total if counts_compose(t) else t.chat_count(messages)
        for n, t, total in zip(names, tally.toks, tally.totals, strict=True)
    }, messages


def _settle(
    tally: _Tally, frame: Frame, offered: list[int], limit: int, names: Sequence[str]
) -> tuple[int, dict[str, int], int, list[Message]]:
    """Recount the prompt exactly (``_exact``); if it exceeds ``limit`` (running totals were off), find
    by exact recounts a prefix ``n`` of the kept distractor blocks (drawn order) that fits while
    ``n + 1`` does not, leaving the tally at that prefix. Returns (n, exact counts, recounts,
    messages); ``recounts`` is 0 when every tokenizer is covered by the theorems (nothing was
    counted again: their totals are exact and at most ``limit``).

    The first guess drops blocks until the running totals, shifted by the error just measured,
    fit; then a binary search keeps ``fits(lo)`` and ``not fits(hi)`` with exact recounts only.
    """
    exact, messages = _exact(tally, frame, names)
    recounts = 0 if all(counts_compose(t) for t in tally.toks) else 1
    if max(exact.values()) <= limit:
        return len(offered), exact, recounts, messages
    tally.ensure_counts(offered)
    n = len(offered)

    def move_to(m: int) -> None:
        nonlocal n
        while n > m:
            n -= 1
            tally.remove(offered[n])
        while n < m:
            tally.insert(offered[n])
            n += 1

    error = [e - p for e, p in zip(exact.values(), tally.totals, strict=True)]
    # First guess: drop blocks until the running totals, shifted by the error just seen, fit.
    probe = n
    while probe > 0:
        move_to(probe - 1)
        probe -= 1
        if all(t + e <= limit for t, e in zip(tally.totals, error, strict=True)):
            break
    lo: int | None = None  # largest prefix known to fit
    hi = len(offered)  # smallest prefix known not to fit
    best: tuple[dict[str, int], list[Message]] = (exact, messages)
    while lo is None or hi - lo > 1:
        move_to(probe)
        exact, messages = _exact(tally, frame, names)
        recounts += 1
        if max(exact.values()) <= limit:
            lo, best = probe, (exact, messages)
            probe = lo + 1 if recounts == 2 else (lo + hi) // 2  # the guess is usually right: try one more first
        elif probe == 0:
            raise NeedlesExceedLimit(exact, limit)
        else:
            hi = probe
            probe = hi // 2 if lo is None else (lo + hi) // 2
    move_to(lo)
    return lo, best[0], recounts, best[1]


def _pieces(texts: Sequence[str]) -> tuple[list[str], tuple[int, ...]]:
    """Consecutive texts concatenated into pieces of about ``PIECE_CHARS`` (each text ends in its
    separator), and for each piece the number of texts up to its end."""
    out: list[str] = []
    ends: list[int] = []
    cur: list[str] = []
    size = 0
    for n, t in enumerate(texts, 1):
        cur.append(t)
        size += len(t)
        if size >= PIECE_CHARS:
            out.append("".join(cur))
            ends.append(n)
            cur, size = [], 0
    if cur:
        out.append("".join(cur))
        ends.append(len(texts))
    return out, tuple(ends)
