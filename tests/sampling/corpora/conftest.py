"""Fixtures for the corpus tests: the built corpora under the data folder (fetched once)."""

from __future__ import annotations

import pytest

from graphniah.sampling.corpora import CorpusManifest, fetch


@pytest.fixture(scope="session")
def built_corpora() -> dict[str, CorpusManifest]:
    """The four text corpora, built by the setup step (``graphniah corpora fetch``) or here.

    ``fetch`` is idempotent: when the setup step already ran it only checks the manifests and
    file hashes (about a second).
    """
    return {m.kind.value: m for m in fetch()}
