"""``data/tokenizers/manifest.json``: the pinned tokenizer assets a data folder holds and where they came from.

Written by ``graphniah tokenize fetch`` (:func:`graphniah.assets.tokenizers.fetch_assets`): the
o200k_base vocabulary file and its sha256, the sha256 of Gemma's ``tokenizer.json`` and
``tokenizer_config.json``, the Qwen3.5 package and vocabulary hash, and every registry file the
assets were taken from (:class:`SourceRecord`). A later fetch keeps the sources it did not fetch again.

**Format.** Version 1: the object as first written, without a ``format_version`` field. A file of
another version, or one that does not validate, is an error naming the file.
"""

from __future__ import annotations

import os

from pydantic import ConfigDict, Field

from graphniah.atomic import write_json
from graphniah.formats.base import Format, Frozen

__all__ = [
    "TOKENIZER_MANIFEST_FORMAT",
    "GemmaEntry",
    "O200kEntry",
    "QwenEntry",
    "SourceRecord",
    "TokenizerManifest",
    "read_tokenizer_manifest",
    "write_tokenizer_manifest",
]


class SourceRecord(Frozen):
    """One downloaded registry file (``graphniah.assets.Artifact``)."""

    registry: str
    package: str
    version: str
    filename: str
    sha256: str
    size: int = Field(ge=0)


class O200kEntry(Frozen):
    file: str  # relative to the data folder
    sha256: str
    url_sha1_name_for: str  # the URL whose sha1 names the file in tiktoken's cache


class GemmaEntry(Frozen):
    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)

    tokenizer: str = Field(alias="tokenizer.json")
    tokenizer_config: str = Field(alias="tokenizer_config.json")


class QwenEntry(Frozen):
    package: str
    vocab_sha256: str


class TokenizerManifest(Frozen):
    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)

    o200k_base: O200kEntry
    gemma: GemmaEntry
    qwen: QwenEntry = Field(alias="qwen3.5")
    sources: tuple[SourceRecord, ...]


TOKENIZER_MANIFEST_FORMAT = Format("tokenizer manifest", 1, hint="fetch the tokenizers again (graphniah tokenize fetch)")


def read_tokenizer_manifest(path: str | os.PathLike[str]) -> TokenizerManifest:
    return TOKENIZER_MANIFEST_FORMAT.read_file(TokenizerManifest, path)


def write_tokenizer_manifest(path: str | os.PathLike[str], manifest: TokenizerManifest) -> None:
    write_json(path, manifest.model_dump(mode="json", by_alias=True))
