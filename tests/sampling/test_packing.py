"""Context packing: exact counts under three real tokenizers, the paper's stop rule, cut and order.

Every property is checked against independent recounts with ``chat_count`` on the final messages
(never against the packer's own bookkeeping), over many seeds, corpora and small target lengths.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from graphniah.assets import fetch_assets
from graphniah.errors import GraphNIAHError
from graphniah.sampling import packing
from graphniah.sampling.corpora import TEXT_KINDS as CORPUS_TEXT_KINDS
from graphniah.sampling.corpora import fetch, open_corpus
from graphniah.sampling.examples.distract import DocumentSource, wikipedia_source
from graphniah.sampling.examples.render import build_messages
from graphniah.sampling.packing import NEAR_LIMIT, Distractor, Frame, NeedlesExceedLimit, Packed, _Tally, pack
from graphniah.text import counts_compose, load_all, load_tokenizer

SLOT = "\x00slot\x00"
TEXT_KINDS = ("code", "essays", "books", "wikipedia")


@pytest.fixture(scope="module")
def toks() -> dict:
    fetch_assets()  # idempotent: only re-checks hashes when the setup step already ran
    return load_all()


@pytest.fixture(scope="module")
def corpora() -> dict:
    fetch(TEXT_KINDS)  # idempotent (the Makefile's setup step normally built them)
    return {k: open_corpus(k) for k in TEXT_KINDS}


def frame(question: str = "Starting from the paper titled Alpha, how many papers can be reached?") -> Frame:
    msgs = build_messages("count", question, [SLOT])
    return Frame.around([(m.role, m.content) for m in msgs], SLOT)


def needle_blocks(n: int, rng: np.random.Generator) -> list[str]:
    """Paper-like blocks; some end in punctuation and the next begins with "/" never, some do."""
    out = []
    for i in range(n):
        refs = "\n".join(f"Author{j} (2026). Paper {i}-{j} on graphs. Venue {j}." for j in range(int(rng.integers(1, 4))))
        out.append(f"Title: Needle paper {i} about citation search\nAuthors: A. Person{i}\nReferences:\n{refs}")
    return out


def source_for(kind: str, corpus, needles: list[str]):
    if kind == "wikipedia":
        return wikipedia_source(corpus, [b.split("\n", 1)[0].removeprefix("Title: ") for b in needles])
    return DocumentSource(corpus)


def exact(toks: dict, messages) -> dict[str, int]:
    return {n: t.chat_count(messages) for n, t in toks.items()}


def insert_by_key(p: Packed, block: str, key: float) -> list[str]:
    pos = int(np.searchsorted(np.asarray(p.keys), key, side="right"))
    return [*p.context[:pos], block, *p.context[pos:]]


def check_packed(p: Packed, toks: dict, fr: Frame, needles: list[str], needle_keys: np.ndarray, limit: int) -> None:
    # exact, independent recount of what the packer returned
    msgs = fr.messages(p.context)
    assert list(p.messages) == msgs
    counts = exact(toks, msgs)
    assert counts == p.token_counts
    assert max(counts.values()) <= limit
    # the running totals were exact: not recounted under the tokenizers the theorem covers, one
    # recount under any other
    assert p.predicted == counts
    assert p.recounts == (0 if all(counts_compose(t) for t in toks.values()) else 1)
    # stop rule: within 100 tokens of L, or the next block (in drawn order) does not fit
    if p.stop == "near_limit":
        assert max(counts.values()) >= limit - NEAR_LIMIT
    elif p.stop == "next_block_too_long":
        assert p.rejected is not None
        assert max(exact(toks, fr.messages(insert_by_key(p, *p.rejected))).values()) > limit
    # ...and it stopped at the first chance: without the last kept block it was not yet within 100
    if p.used:
        last = p.used[-1]
        drop = last.distractor.blocks[last.kept - 1]
        i = max(j for j, b in enumerate(p.context) if b == drop and not p.needle[j])
        before = exact(toks, fr.messages(p.context[:i] + p.context[i + 1 :]))
        assert max(before.values()) < limit - NEAR_LIMIT
    # no block split: distractor blocks are whole blocks, a drawn-order prefix of each distractor,
    # and only the last distractor may be cut
    assert all(u.kept == len(u.distractor.blocks) for u in p.used[:-1])
    expected = Counter(b for u in p.used for b in u.distractor.blocks[: u.kept])
    assert Counter(b for b, nd in zip(p.context, p.needle, strict=True) if not nd) == expected
    # every needle exactly once, and the context in key order
    assert Counter(b for b, nd in zip(p.context, p.needle, strict=True) if nd) == Counter(needles)
    assert all(p.context.count(n) == 1 for n in needles)
    assert list(p.keys) == sorted(p.keys)
    assert [b for b, nd in zip(p.context, p.needle, strict=True) if nd] == [needles[i] for i in np.argsort(needle_keys, kind="stable")]


@pytest.mark.parametrize("kind", TEXT_KINDS)
@pytest.mark.parametrize("seed", range(5))
def test_pack_properties(kind: str, seed: int, toks: dict, corpora: dict) -> None:
    rng = np.random.default_rng([seed, TEXT_KINDS.index(kind)])
    limit = int(rng.integers(3_000, 12_000))
    needles = needle_blocks(int(rng.integers(3, 30)), rng)
    keys = rng.random(len(needles))
    fr = frame()
    p = pack(fr, needles, keys, source_for(kind, corpora[kind], needles), limit, toks, np.random.default_rng(seed))
    check_packed(p, toks, fr, needles, keys, limit)
    assert p.used or p.stop == "next_block_too_long"  # an essay can be longer than the room left
    # deterministic: the same inputs and seed give the same prompt and counts
    again = pack(fr, needles, keys, source_for(kind, corpora[kind], needles), limit, toks, np.random.default_rng(seed))
    assert again.messages == p.messages and again.token_counts == p.token_counts


def test_needles_only_and_too_long(toks: dict) -> None:
    rng = np.random.default_rng(5)
    needles = needle_blocks(12, rng)
    keys = rng.random(len(needles))
    fr = frame()
    alone = exact(toks, fr.messages([needles[i] for i in np.argsort(keys)]))
    p = pack(fr, needles, keys, None, max(alone.values()) + 500, toks, rng)
    assert p.stop == "exhausted" and p.token_counts == alone and not p.used
    with pytest.raises(NeedlesExceedLimit) as err:
        pack(fr, needles, keys, None, max(alone.values()) - 1, toks, rng)
    assert err.value.counts == alone and "exceed the context length" in str(err.value)


class _Blocks:
    """A source drawing from a fixed list of block groups (for glue-heavy inputs)."""

    def __init__(self, groups: list[list[str]]) -> None:
        self.groups = groups

    def draw(self, rng: np.random.Generator) -> Distractor:
        g = self.groups[int(rng.integers(len(self.groups)))]
        return Distractor("glue", tuple(g))


GLUEY = ["/*x*/;", "/", "//.", "a/", "//", "/ x.", "}", "x", "/a/", ";", "/* c */\nint a;", "//!", "b", "/.,"]


@pytest.mark.parametrize("seed", range(10))
def test_tally_exact_under_glued_junctions(seed: int, toks: dict) -> None:
    """o200k_base glues punctuation + blank line + "/": random inserts and removals of such blocks
    keep every running total equal to the exact chat count (the bookkeeping theorem)."""
    rng = np.random.default_rng(seed)
    fr = frame()
    tally = _Tally(list(toks.values()), fr)
    ids, _ = tally.add_units([str(rng.choice(GLUEY)) for _ in range(40)], rng.random(40))
    ids = list(ids)
    present: set[int] = set()
    for _ in range(60):
        x = int(rng.choice(ids))
        if x in present:
            tally.remove(x)
            present.discard(x)
        else:
            tally.insert(x)
            present.add(x)
        msgs = fr.messages([tally.u.texts[i] for i in tally.present()])
        assert tally.totals == [t.chat_count(msgs) for t in toks.values()]


@pytest.mark.parametrize("seed", range(4))
def test_pack_glue_heavy(seed: int, toks: dict) -> None:
    rng = np.random.default_rng(seed)
    groups = [[str(rng.choice(GLUEY)) for _ in range(int(rng.integers(1, 6)))] for _ in range(30)]
    needles = ["/" + b for b in needle_blocks(5, rng)]  # needles that glue to the text before the context
    keys = rng.random(len(needles))
    fr = frame()
    limit = int(rng.integers(2_000, 4_000))
    p = pack(fr, needles, keys, _Blocks(groups), limit, toks, rng)
    check_packed(p, toks, fr, needles, keys, limit)


class _TextRule:
    """A real, simple tokenizer whose count is a rule on the text (``count``), 2 tokens per message."""

    name = "rule"

    def count(self, text: str) -> int:
        raise NotImplementedError

    def encode(self, text: str) -> list[int]:
        return list(range(self.count(text)))

    def count_batch(self, texts) -> np.ndarray:
        return np.asarray([self.count(t) for t in texts], dtype=np.int64)

    def chat_count(self, messages) -> int:
        return sum(2 + self.count(c) for _, c in messages)

    def chat_overhead(self, roles) -> int:
        return 2 * len(roles)


class ParagraphBytes(_TextRule):
    """One token per 40 UTF-8 bytes (rounded down) and a 5-token paragraph mark for every blank line
    that separates two paragraphs.

    A block counted alone with its trailing blank line has no mark (no paragraph follows yet), so
    running totals built from separate counts undercount the joined prompt: the path where the
    exact recount exceeds L and blocks must be dropped again.
    """

    name = "paragraph"

    def count(self, text: str) -> int:
        return len(text.encode("utf-8")) // 40 + 5 * len(re.findall(r"\n\n(?=[^\n])", text))


@pytest.mark.parametrize("seed", range(4))
def test_recount_over_limit_drops_blocks_until_it_fits(seed: int, corpora: dict) -> None:
    rng = np.random.default_rng(seed)
    tq = {"paragraph": ParagraphBytes()}
    needles = needle_blocks(8, rng)
    keys = rng.random(len(needles))
    fr = frame()
    limit = int(rng.integers(2_000, 4_000))
    p = pack(fr, needles, keys, DocumentSource(corpora["code"]), limit, tq, np.random.default_rng(seed))
    assert p.recounts > 1, "the undercounting totals must have sent the packer back to drop blocks"
    assert p.predicted["paragraph"] < p.token_counts["paragraph"] <= limit
    assert ParagraphBytes().chat_count(fr.messages(p.context)) == p.token_counts["paragraph"]
    assert p.stop == "next_block_too_long" and p.rejected is not None
    assert ParagraphBytes().chat_count(fr.messages(insert_by_key(p, *p.rejected))) > limit
    assert all(u.kept == len(u.distractor.blocks) for u in p.used[:-1])
    assert Counter(b for b, nd in zip(p.context, p.needle, strict=True) if nd) == Counter(needles)


class Lines(_TextRule):
    """One token per line break: exactly additive over blocks joined by blank lines, and far below
    o200k_base on any text."""

    name = "lines"

    def count(self, text: str) -> int:
        return text.count("\n")


@pytest.mark.parametrize("seed", range(3))
def test_stop_inside_a_batch_counted_as_a_whole(seed: int, toks: dict, corpora: dict) -> None:
    """When o200k_base (counted per block) stops packing, a tokenizer counted per batch must be
    brought back to the blocks actually kept."""
    rng = np.random.default_rng(seed)
    pair = {"o200k_base": toks["o200k_base"], "lines": Lines()}
    needles = needle_blocks(6, rng)
    keys = rng.random(len(needles))
    fr = frame()
    limit = int(rng.integers(5_000, 9_000))
    p = pack(fr, needles, keys, DocumentSource(corpora["books"]), limit, pair, np.random.default_rng(seed))
    check_packed(p, pair, fr, needles, keys, limit)
    assert p.token_counts["lines"] < p.token_counts["o200k_base"]
    # it really stopped inside a batch: more blocks were counted than kept
    assert p.stop != "exhausted" and p.counted_blocks > p.n_distractor_blocks


def test_a_tokenizer_the_proofs_do_not_cover_is_recounted(tmp_path: Path, toks: dict, corpora: dict) -> None:
    """A Gemma file the user supplies (here the pinned one with a byte appended) gets the final
    recount; the prompt and counts are the same as under the pinned file, which needs none."""
    folder = tmp_path / "gemma"
    folder.mkdir()
    (folder / "tokenizer.json").write_bytes(toks["gemma"].path.read_bytes() + b"\n")
    mine = {**toks, "gemma": load_tokenizer("gemma", tmp_path, path=folder)}
    rng = np.random.default_rng(11)
    needles = needle_blocks(10, rng)
    keys = rng.random(len(needles))
    fr = frame()
    p = pack(fr, needles, keys, DocumentSource(corpora["essays"]), 6_000, toks, np.random.default_rng(4))
    q = pack(fr, needles, keys, DocumentSource(corpora["essays"]), 6_000, mine, np.random.default_rng(4))
    check_packed(q, mine, fr, needles, keys, 6_000)
    assert (p.recounts, q.recounts) == (0, 1)
    assert q.messages == p.messages and q.token_counts == p.token_counts


def newline_groups(rng: np.random.Generator) -> list[list[str]]:
    """Blocks of short lines: o200k_base counts about two tokens per line, ``Lines`` one."""
    return [["\n".join("x" for _ in range(int(rng.integers(5, 60)))) for _ in range(int(rng.integers(1, 4)))] for _ in range(20)]


@pytest.mark.parametrize("seed", range(4))
def test_prompt_does_not_depend_on_how_a_batch_is_cut_into_pieces(seed: int, toks: dict, corpora: dict,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """With small pieces only a leading run of a batch's pieces is taken at once and the rest is
    counted block by block, and packing can stop inside that run (o200k_base binds) with blocks
    after it: the prompts, counts and stops are those of batches counted as one piece."""
    runs: list[tuple[int, int]] = []
    safe_prefix = packing._Packer._safe_prefix

    def spy(self: packing._Packer, pieces: packing._PieceCounts) -> tuple[int, list[int]]:
        m, sums = safe_prefix(self, pieces)
        runs.append((m, pieces.ends[-1] if pieces.ends else 0))
        return m, sums

    monkeypatch.setattr(packing._Packer, "_safe_prefix", spy)
    rng = np.random.default_rng(seed)
    needles = needle_blocks(6, rng)
    keys = rng.random(len(needles))
    fr = frame()
    pair = {"o200k_base": toks["o200k_base"], "lines": Lines()}
    groups = newline_groups(rng)
    cases = [(pair, lambda: _Blocks(groups), int(rng.integers(3_000, 6_000))),
             (toks, lambda: DocumentSource(corpora["code"]), int(rng.integers(20_000, 40_000)))]
    for tk, source, limit in cases:
        got = []
        for piece_chars in (10**9, 600):
            monkeypatch.setattr(packing, "PIECE_CHARS", piece_chars)
            p = pack(fr, needles, keys, source(), limit, tk, np.random.default_rng(seed))
            check_packed(p, tk, fr, needles, keys, limit)
            got.append((p.messages, p.token_counts, p.stop, p.rejected, [(u.distractor.label, u.kept) for u in p.used]))
        assert got[0] == got[1]
    assert any(0 < m < n for m, n in runs), "a batch was split into a run taken at once and blocks counted one by one"


def test_frame_needs_blank_lines_around_the_context() -> None:
    with pytest.raises(GraphNIAHError, match="blank line before and after"):
        Frame.around([("system", "s"), ("user", f"Q\n{SLOT}\nR")], SLOT)
    with pytest.raises(GraphNIAHError, match="exactly once"):
        Frame.around([("user", "no slot here")], SLOT)


def test_unclean_block_is_refused(toks: dict) -> None:
    with pytest.raises(GraphNIAHError, match="whitespace at an end"):
        pack(frame(), ["Title: x\n"], [0.5], None, 10_000, toks, np.random.default_rng(0))


def test_user_folder_corpus_packs(tmp_path: Path, toks: dict) -> None:
    for i in range(3):
        (tmp_path / f"doc{i}.txt").write_text("\n\n".join(f"Paragraph {i}.{j} of a user's own text." for j in range(50)))
    corpus = open_corpus("books", folder=tmp_path)
    rng = np.random.default_rng(3)
    needles = needle_blocks(4, rng)
    keys = rng.random(4)
    fr = frame()
    p = pack(fr, needles, keys, DocumentSource(corpus), 5_000, toks, rng)
    check_packed(p, toks, fr, needles, keys, 5_000)
    # three documents of ~750 tokens each are used up, then a new pass repeats them
    assert len(p.used) > 3 and {u.distractor.label for u in p.used} == {f"books:doc{i}.txt" for i in range(3)}


FILL = 0.97  # every text kind fills at least 97% of L for every L >= 30,000 (blocks of <= 898 bytes)


@pytest.mark.slow
@pytest.mark.parametrize("limit", [30_000, 200_000])
@pytest.mark.parametrize("kind", [k.value for k in CORPUS_TEXT_KINDS])
def test_prompts_fill_the_context_length(kind: str, limit: int, toks: dict, corpora: dict) -> None:
    """A prompt packed from any text corpus comes within 3% of L under the tokenizer that binds,
    and within L under all three (exact recounts)."""
    seeds = range(3) if limit == 30_000 else range(1)
    for seed in seeds:
        rng = np.random.default_rng([seed, limit])
        needles = needle_blocks(40, rng)
        keys = rng.random(len(needles))
        fr = frame()
        p = pack(fr, needles, keys, source_for(kind, corpora[kind], needles), limit, toks, np.random.default_rng(seed))
        counts = exact(toks, fr.messages(p.context))
        assert counts == p.token_counts and max(counts.values()) <= limit
        assert p.stop != "exhausted"
        assert max(counts.values()) >= FILL * limit, (kind, limit, seed, p.stop, counts)


def test_every_corpus_block_costs_at_most_900_tokens(toks: dict, corpora: dict) -> None:
    """What the fill bound rests on: a block of at most MAX_BLOCK_BYTES bytes costs at most its bytes
    + 2 tokens with its separator (no tokenizer makes more tokens than bytes), checked on the largest
    blocks of every corpus; and the few longer blocks (whole sentences) are counted outright."""
    from graphniah.sampling.corpora import MAX_BLOCK_BYTES
    from graphniah.text import BLOCK_SEPARATOR

    for kind, corpus in corpora.items():
        blocks = [b for i in range(len(corpus)) for b in corpus.blocks(i)]
        size = np.asarray([len(b.encode("utf-8")) for b in blocks])
        assert len(BLOCK_SEPARATOR) + MAX_BLOCK_BYTES <= 900
        largest = [blocks[i] for i in np.argsort(-size, kind="stable")[:150]]
        for name, tok in toks.items():
            counts = tok.count_batch([b + BLOCK_SEPARATOR for b in largest])
            assert (counts <= np.asarray([len(b.encode("utf-8")) + 2 for b in largest])).all(), (kind, name)
            assert counts.max() <= 900, (kind, name, int(counts.max()))
