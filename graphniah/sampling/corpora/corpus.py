"""Open a built corpus (or a user's folder of text files), draw distractors, retrieve passages.

``open_corpus(kind)`` reads ``<data>/corpora/<kind>/documents.parquet`` after checking it against
its manifest; the blocks are the ones stored at build time (``model.BlockRule``). Any kind can instead come from a folder of text files the user points at
(``folder=...`` or ``$GRAPHNIAH_CORPUS_<KIND>``, e.g. ``GRAPHNIAH_CORPUS_WIKIPEDIA``): every
non-hidden regular file under it that is not binary is one document, cut into blocks by the
kind's current rule.

For wikipedia distractors the paper retrieves passages with BM25 against the example's paper
titles (pyserini's Lucene index). ``Corpus.retrieve`` does the same with ``bm25s`` using
Lucene's BM25 variant with pyserini's default parameters (k1 = 0.9, b = 0.4), English stop
words and Snowball English stemming (Lucene's English analyzer uses Porter stemming; the two
stemmers agree on almost all words).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow.parquet as pq

from graphniah.errors import GraphNIAHError
from graphniah.sampling.corpora.build import DOCUMENTS_FILE, corpora_root, read_manifest, verify_files
from graphniah.sampling.corpora.records import CorpusManifest, Document, Kind, block_rule, parse_kind, split_blocks

BM25_K1 = 0.9
BM25_B = 0.4


def folder_env(kind: Kind) -> str:
    return "GRAPHNIAH_CORPUS_" + kind.value.upper().replace("-", "_")


class Corpus:
    """The documents of one distractor kind, loaded on first use."""

    def __init__(self, kind: Kind, path: Path, manifest: CorpusManifest | None) -> None:
        self.kind = kind
        self.path = path
        self.manifest = manifest  # None for a user folder

    @property
    def is_user_folder(self) -> bool:
        return self.manifest is None

    @cached_property
    def documents(self) -> tuple[Document, ...]:
        if self.manifest is not None:
            table = pq.read_table(self.path / DOCUMENTS_FILE, columns=["doc_id", "title", "text"])
            cols = [table.column(c).to_pylist() for c in ("doc_id", "title", "text")]
            return tuple(Document(self.kind, i, t, x) for i, t, x in zip(*cols, strict=True))
        return _read_folder(self.kind, self.path)

    @cached_property
    def ids(self) -> tuple[str, ...]:
        return tuple(d.doc_id for d in self.documents)

    @cached_property
    def _by_id(self) -> dict[str, int]:
        return {d: i for i, d in enumerate(self.ids)}

    def __len__(self) -> int:
        return len(self.documents)

    def __getitem__(self, i: int) -> Document:
        return self.documents[i]

    def get(self, doc_id: str) -> Document:
        try:
            return self.documents[self._by_id[doc_id]]
        except KeyError:
            raise GraphNIAHError(f"{self.kind.value} corpus at {self.path} has no document {doc_id!r}") from None

    @cached_property
    def _stored_blocks(self) -> list[list[str]] | None:
        """Every document's blocks as written by the build (None for a user folder)."""
        if self.manifest is None:
            return None
        blocks: list[list[str]] = pq.read_table(self.path / DOCUMENTS_FILE, columns=["blocks"]).column("blocks").to_pylist()
        return blocks

    def blocks(self, doc: Document | int | str) -> list[str]:
        """The document's blocks (never empty; the packer never splits one further): those stored
        by the build for a built corpus, else its text cut by the kind's rule (``block_rule``)."""
        if isinstance(doc, str):
            doc = self.get(doc)  # a clear error for an unknown id
        if isinstance(doc, Document):
            i = self._by_id.get(doc.doc_id)
            if i is None or self.documents[i].text != doc.text:
                return block_rule(self.kind).split(doc.text)  # not one of this corpus's documents
            doc = i
        stored = self._stored_blocks
        return list(stored[doc]) if stored is not None else block_rule(self.kind).split(self.documents[doc].text)

    def draw(self, rng: np.random.Generator) -> Document:
        """One document uniformly at random (the paper draws distractors one at a time)."""
        return self.documents[int(rng.integers(len(self.documents)))]

    @cached_property
    def _bm25(self) -> Any:
        import bm25s
        import Stemmer

        stemmer = Stemmer.Stemmer("english")
        tokens = bm25s.tokenize(
            [d.text for d in self.documents], stopwords="en", stemmer=stemmer, show_progress=False
        )
        index = bm25s.BM25(k1=BM25_K1, b=BM25_B, method="lucene")
        index.index(tokens, show_progress=False)
        return index, stemmer

    def scores(self, query: str) -> np.ndarray:
        """BM25 score of every document for one query (0 where no query term occurs)."""
        import bm25s

        index, stemmer = self._bm25
        qtok = bm25s.tokenize([query], stopwords="en", stemmer=stemmer, return_ids=False, show_progress=False)[0]
        known = [t for t in qtok if t in index.vocab_dict]
        if not known:
            return np.zeros(len(self.documents), dtype=np.float32)
        return np.asarray(index.get_scores(known), dtype=np.float32)

    def retrieve(self, queries: Sequence[str], k: int) -> list[Document]:
        """Up to ``k`` distinct passages relevant to the queries, best first.

        Each query ranks the documents by BM25 (documents sharing no term with it are never
        returned); the result interleaves the rankings round-robin — every query's best passage,
        then every query's second best, and so on — skipping repeats, so each of an example's
        titles contributes passages. Ties within a ranking are broken by document order.
        """
        if k <= 0 or not queries or not self.documents:
            return []
        ranked: list[np.ndarray] = []
        for q in queries:
            s = self.scores(q)
            positive = np.flatnonzero(s > 0)
            order = positive[np.lexsort((positive, -s[positive]))][:k]
            ranked.append(order)
        out: list[int] = []
        seen: set[int] = set()
        depth = max((len(r) for r in ranked), default=0)
        for level in range(depth):
            for r in ranked:
                if level < len(r) and (i := int(r[level])) not in seen:
                    seen.add(i)
                    out.append(i)
                    if len(out) == k:
                        return [self.documents[j] for j in out]
        return [self.documents[j] for j in out]

    def __repr__(self) -> str:
        src = "user folder" if self.is_user_folder else "built corpus"
        return f"<Corpus {self.kind.value} ({src}) at {self.path}>"


def _read_folder(kind: Kind, folder: Path) -> tuple[Document, ...]:
    docs: list[Document] = []
    for p in sorted(folder.rglob("*")):
        rel = p.relative_to(folder)
        if not p.is_file() or any(part.startswith(".") for part in rel.parts):
            continue
        data = p.read_bytes()
        if b"\x00" in data:
            continue  # binary file
        text = data.decode("utf-8", errors="replace")
        if split_blocks(text):
            docs.append(Document(kind, rel.as_posix(), p.stem, text))
    if not docs:
        raise GraphNIAHError(f"{kind.value} corpus folder {folder} holds no non-empty text files")
    return tuple(docs)


def open_corpus(
    kind: Kind | str,
    root: Path | str | None = None,
    *,
    folder: Path | str | None = None,
    verify: bool = True,
) -> Corpus:
    """Open the corpus of ``kind``: a user folder if given (or set in ``$GRAPHNIAH_CORPUS_<KIND>``),
    else the built corpus under the data folder, hash-checked against its manifest (``verify``).
    """
    kind = parse_kind(kind)
    if not kind.is_text:
        raise GraphNIAHError("disjoint-component distractors are sampled from the citation graph, not read from a corpus")
    if folder is None and os.environ.get(folder_env(kind)):
        folder = os.environ[folder_env(kind)]
    if folder is not None:
        path = Path(folder).expanduser().resolve()
        if not path.is_dir():
            raise GraphNIAHError(f"{kind.value} corpus folder {path} does not exist")
        return Corpus(kind, path, None)
    path = corpora_root(root) / kind.value
    manifest = read_manifest(path)
    if manifest.kind is not kind:
        raise GraphNIAHError(f"{path}/manifest.json describes a {manifest.kind.value} corpus, not {kind.value}")
    if manifest.recipe.get("blocks") != block_rule(kind).as_dict():
        raise GraphNIAHError(
            f"{kind.value} corpus at {path} was cut into blocks by another rule ({manifest.recipe.get('blocks', 'v1: blank lines only')}; "
            f"now {block_rule(kind).as_dict()}): run 'graphniah corpora fetch' to re-split it"
        )
    if verify and (problems := verify_files(path, manifest)):
        raise GraphNIAHError(f"{kind.value} corpus at {path}: {'; '.join(problems)} (run 'graphniah corpora fetch')")
    return Corpus(kind, path, manifest)
