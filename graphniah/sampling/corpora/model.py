"""Records of the distractor corpora: kinds, documents, manifests, and the block split.

A corpus is a set of documents of one kind (a kernel source file, an essay, a book, a Wikipedia
passage). The context packer draws documents as distractors and splits each into blocks at blank
lines; a block is never split further.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from graphniah.io import canonical_json, sha256_bytes


class Kind(StrEnum):
    """Distractor kinds of the paper (§3.2 step 4). ``disjoint-component`` is sampled, not fetched."""

    CODE = "code"
    ESSAYS = "essays"
    BOOKS = "books"
    WIKIPEDIA = "wikipedia"
    DISJOINT_COMPONENT = "disjoint-component"

    @property
    def is_text(self) -> bool:
        return self is not Kind.DISJOINT_COMPONENT


TEXT_KINDS: tuple[Kind, ...] = (Kind.CODE, Kind.ESSAYS, Kind.BOOKS, Kind.WIKIPEDIA)


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
    at either end — the "clean" form that ``graphniah.sampling.tokenizers.joined_count`` relies on.
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


@dataclass(frozen=True)
class Document:
    """One distractor unit: its corpus kind, a stable id, a human title, and its text."""

    kind: Kind
    doc_id: str
    title: str
    text: str

    def blocks(self) -> list[str]:
        return split_blocks(self.text)


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
        )


def recipe_sha256(recipe: dict[str, Any]) -> str:
    return sha256_bytes(canonical_json(recipe).encode("utf-8"))
