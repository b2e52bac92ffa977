"""Records of the distractor corpora: kinds, documents, manifests, and the block split.

A corpus is a set of documents of one kind (a kernel source file, an essay, a book, a Wikipedia
passage). The context packer draws documents as distractors and offers each one block by block; a
block is never split by the packer. The blocks are cut when the corpus is built (``BlockRule``,
recorded in the corpus recipe and stored with the documents), so they stay the same for as long as
the corpus does.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Literal

from graphniah.atomic import canonical_json, sha256_bytes
from graphniah.formats.names import DistractorKind

#: The corpora's name for the distractor kinds; the registry is :class:`graphniah.formats.names.DistractorKind`.
Kind = DistractorKind

TEXT_KINDS: tuple[Kind, ...] = tuple(k for k in Kind if k.is_text)


def parse_kind(value: str | Kind) -> Kind:
    try:
        return Kind(value)
    except ValueError:
        raise ValueError(f"unknown corpus kind {value!r}; known: {', '.join(k.value for k in Kind)}") from None


def split_blocks(text: str) -> list[str]:
    """Split text into blocks at blank lines; every returned block is non-empty.

    A blank line is a line holding nothing or only whitespace. Line ends are normalised to "\\n",
    trailing whitespace of each line is dropped, and runs of blank lines count as one separator.
    Each block therefore starts with a visible character on its first line and has no newline
    at either end — the "clean" form that ``graphniah.text.tokenizers.joined_count`` relies on.
    """
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    lines = [line.rstrip() for line in text.split("\n")]
    blocks: list[str] = []
    current: list[str] = []
    for line in lines:
        if line.strip():
            current.append(line)
        elif current:
            blocks.append("\n".join(current))
            current = []
    if current:
        blocks.append("\n".join(current))
    return blocks


# --- blocks no longer than a paragraph ----------------------------------------------------------

# Why this size. Packing stops at the first distractor block that does not fit (the paper's rule), so
# a prompt ends short of L by less than that block's tokens, separator included. The smallest L of
# the experiments is 30,000 tokens and every prompt must fill at least 97% of L, so a block may cost
# at most 900 tokens under every tokenizer. The three tokenizers never make more tokens than the text
# has UTF-8 bytes (o200k_base and Qwen3.5 are byte-level BPE, Gemma falls back to one token per byte;
# every token covers at least one byte), so a block of at most 898 bytes costs at most 898 + 2
# tokens with its separator. The only longer blocks are single sentences or code lines, which are
# never cut; ``bench/fill.py`` counts those of the built corpora (all far below 900 tokens).
MIN_CONTEXT_LENGTH = 30_000
MAX_WASTE = 0.03  # of L, lost at most after the last block
MAX_BLOCK_BYTES = int(MIN_CONTEXT_LENGTH * MAX_WASTE) - len("\n\n")
BLOCK_RULE_VERSION = 2  # 1: blank lines only (whole paragraphs, however long)

# Words before a "." that do not end a sentence (lower case, without the dot).
ABBREVIATIONS = frozenset(
    "mr mrs ms messrs mme mlle dr st jr sr prof rev hon gen col capt cpt lt sgt maj adm gov sen rep "  # noqa: SIM905 - words read better than 64 quoted strings
    "mt ft no nos vol vols fig figs pp p ed eds vs etc e.g i.e cf al inc ltd co corp bros dept est "
    "approx esq viz jan feb mar apr jun jul aug sep sept oct nov dec".split()
)
# End punctuation, closing quotes/brackets, then whitespace; the next character decides (see below).
_SENTENCE_END = re.compile(r"[.!?](?:[\"'\u201d\u2019)\]]*)(\s+)")
_OPENERS = "\"'\u201c\u2018(["
_DOTTED = re.compile(r"^(?:[A-Za-z]\.)+[A-Za-z]?$")  # U.S, e.g, i.e, J.R.R (the final dot is cut off)


def sentence_starts(paragraph: str) -> list[int]:
    """Offsets in ``paragraph`` where a sentence begins after the first.

    The rule: a ".", "!" or "?", optionally followed by closing quotes or brackets, then whitespace
    (spaces or a line break), then an upper-case letter or an opening quote or bracket. After a
    "." the word before it must not be a known abbreviation (``ABBREVIATIONS``: "Mr.", "e.g."), a
    single letter (an initial, "J. Austen") or a dotted abbreviation ("U.S."). The rule errs on
    the side of not cutting: a missed boundary only makes a block longer, a wrong one would cut a
    sentence.
    """
    out: list[int] = []
    for m in _SENTENCE_END.finditer(paragraph):
        nxt = m.end()
        if nxt >= len(paragraph):
            break
        c = paragraph[nxt]
        if not (c.isupper() or c in _OPENERS):
            continue
        if paragraph[m.start()] == ".":
            word_start = max(paragraph.rfind(" ", 0, m.start()), paragraph.rfind("\n", 0, m.start())) + 1
            word = paragraph[word_start : m.start()].lstrip(_OPENERS)
            if len(word) <= 1 or word.lower() in ABBREVIATIONS or _DOTTED.match(word):
                continue
        out.append(nxt)
    return out


def line_starts(paragraph: str) -> list[int]:
    """Offsets where each line after the first begins (the unit of source code: a line)."""
    return [m.end() for m in re.finditer("\n", paragraph)]


Unit = Literal["sentence", "line"]


def pack_units(paragraph: str, starts: list[int], max_bytes: int) -> list[str]:
    """Cut ``paragraph`` at some of ``starts`` into pieces of at most ``max_bytes`` UTF-8 bytes.

    Greedy, in order: a piece takes units while it stays within ``max_bytes``; a unit longer than
    ``max_bytes`` is a piece of its own, whole. The whitespace at a cut is dropped (it separated
    two units), so every piece is clean when the paragraph is: it starts where the paragraph or a
    unit starts (never on whitespace) and ends where a unit's text ends.
    """
    size = len(paragraph.encode("utf-8"))
    if size <= max_bytes or not starts:
        return [paragraph]
    bounds = [0, *starts, len(paragraph)]
    units = [paragraph[a:b] for a, b in zip(bounds, bounds[1:], strict=False)]
    # Byte offset of each unit's start, and of its end without the whitespace that follows it.
    offset = [0]
    for u in units:
        offset.append(offset[-1] + len(u.encode("utf-8")))
    end = [offset[i] + len(u.rstrip().encode("utf-8")) for i, u in enumerate(units)]
    pieces: list[str] = []
    first = 0  # index of the first unit of the current piece
    for i in range(1, len(units)):
        if end[i] - offset[first] > max_bytes:
            pieces.append("".join(units[first:i]).rstrip())
            first = i
    pieces.append("".join(units[first:]).rstrip())
    return pieces


@dataclass(frozen=True)
class BlockRule:
    """How a document is cut into blocks (recorded in the corpus recipe; see ``MAX_BLOCK_BYTES``).

    First at blank lines (``split_blocks``: paragraphs); then every paragraph longer than
    ``max_bytes`` (UTF-8) is cut at ``unit`` boundaries — sentences (``sentence_starts``) for
    prose, lines for source code — into consecutive pieces of at most ``max_bytes``
    (``pack_units``). A unit longer than ``max_bytes`` stays whole: a block never ends inside a
    sentence (or a code line). Blocks keep the document's order, and joining them with whitespace
    gives back every non-whitespace character of the text, in order.
    """

    unit: Unit = "sentence"
    max_bytes: int = MAX_BLOCK_BYTES
    version: int = BLOCK_RULE_VERSION

    def split(self, text: str) -> list[str]:
        starts = sentence_starts if self.unit == "sentence" else line_starts
        out: list[str] = []
        for para in split_blocks(text):
            out.extend(pack_units(para, starts(para), self.max_bytes))
        return out

    def as_dict(self) -> dict[str, Any]:
        return {"version": self.version, "unit": self.unit, "max_bytes": self.max_bytes}


def block_rule(kind: Kind) -> BlockRule:
    """The rule of a text kind: source code is cut at lines, prose at sentences."""
    return BlockRule(unit="line" if kind is Kind.CODE else "sentence")


@dataclass(frozen=True)
class Document:
    """One distractor unit: its corpus kind, a stable id, a human title, and its text."""

    kind: Kind
    doc_id: str
    title: str
    text: str

    def blocks(self) -> list[str]:
        """The blocks of the current rule of its kind (a built corpus stores its own: ``Corpus.blocks``)."""
        return block_rule(self.kind).split(self.text)


@dataclass(frozen=True)
class FileEntry:
    sha256: str
    size: int


@dataclass(frozen=True)
class CorpusManifest:
    """What a built corpus is made of and how to verify it (written as ``manifest.json``).

    ``recipe`` holds every choice that shapes the corpus (packages and pinned versions, file
    selection); ``fetch`` skips a kind whose manifest has the same recipe hash and whose files
    still match their hashes. ``fallback`` is True for the code corpus when the kernel UAPI
    headers were used instead of the linux-source tarball (``notes`` says why).
    """

    kind: Kind
    recipe: dict[str, Any]
    sources: tuple[dict[str, Any], ...]
    license: str
    files: dict[str, FileEntry]
    n_documents: int
    n_blocks: int
    total_chars: int
    total_bytes: int
    created_at: str
    code_version: str
    fallback: bool = False
    notes: tuple[str, ...] = field(default_factory=tuple)
    build_seconds: float = 0.0
    blocks: dict[str, Any] = field(default_factory=dict)  # the block rule and what it made (write_corpus)

    @property
    def recipe_sha256(self) -> str:
        return recipe_sha256(self.recipe)

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind.value,
            "recipe": self.recipe,
            "recipe_sha256": self.recipe_sha256,
            "sources": list(self.sources),
            "license": self.license,
            "files": {k: {"sha256": v.sha256, "size": v.size} for k, v in sorted(self.files.items())},
            "n_documents": self.n_documents,
            "n_blocks": self.n_blocks,
            "total_chars": self.total_chars,
            "total_bytes": self.total_bytes,
            "created_at": self.created_at,
            "code_version": self.code_version,
            "fallback": self.fallback,
            "notes": list(self.notes),
            "build_seconds": round(self.build_seconds, 3),
            "blocks": self.blocks,
        }

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> CorpusManifest:
        return cls(
            kind=Kind(d["kind"]),
            recipe=d["recipe"],
            sources=tuple(d["sources"]),
            license=d["license"],
            files={k: FileEntry(v["sha256"], int(v["size"])) for k, v in d["files"].items()},
            n_documents=int(d["n_documents"]),
            n_blocks=int(d["n_blocks"]),
            total_chars=int(d["total_chars"]),
            total_bytes=int(d["total_bytes"]),
            created_at=d["created_at"],
            code_version=d["code_version"],
            fallback=bool(d.get("fallback", False)),
            notes=tuple(d.get("notes", ())),
            build_seconds=float(d.get("build_seconds", 0.0)),
            blocks=dict(d.get("blocks", {})),
        )


def recipe_sha256(recipe: dict[str, Any]) -> str:
    return sha256_bytes(canonical_json(recipe).encode("utf-8"))
