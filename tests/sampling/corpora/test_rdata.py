"""The R lazy-load reader: a hand-encoded database (R's XDR format) and the real Austen data."""

from __future__ import annotations

import gzip
import struct
import zlib

import pytest

from graphniah.errors import GraphNIAHError
from graphniah.sampling.corpora import open_corpus
from graphniah.sampling.corpora.rdata import RVector, character_vectors, read_lazyload, unserialize

# --- a minimal XDR writer, following R's serialize.c layout ------------------------------------


def _i(n: int) -> bytes:
    return struct.pack(">i", n)


def _charsxp(s: str | None) -> bytes:
    if s is None:
        return _i(9) + _i(-1)
    b = s.encode("utf-8")
    return _i(9 | (1 << 3) << 12) + _i(len(b)) + b  # UTF8 mark in the levels bits


class _Writer:
    def __init__(self) -> None:
        self.syms: list[str] = []

    def sym(self, name: str) -> bytes:
        if name in self.syms:  # REFSXP with the index packed into the flags
            return _i(255 | (self.syms.index(name) + 1) << 8)
        self.syms.append(name)
        return _i(1) + _charsxp(name)

    def attrs(self, pairs: list[tuple[str, bytes]]) -> bytes:
        out = b""
        for name, value in pairs:
            out += _i(2 | 1 << 10) + self.sym(name) + value
        return out + _i(254)

    def strsxp(self, values: list[str | None], names: list[str] | None = None) -> bytes:
        flags = 16 | (1 << 9 if names else 0)
        body = _i(flags) + _i(len(values)) + b"".join(_charsxp(v) for v in values)
        if names:
            body += self.attrs([("names", self.strsxp(names))])
        return body

    def vecsxp(self, items: list[bytes], names: list[str]) -> bytes:
        return _i(19 | 1 << 9) + _i(len(items)) + b"".join(items) + self.attrs([("names", self.strsxp(names))])

    def intsxp(self, values: list[int]) -> bytes:
        return _i(13) + _i(len(values)) + b"".join(_i(v) for v in values)


def _header(version: int = 3) -> bytes:
    head = b"X\n" + _i(version) + _i(0x040201) + _i(0x030500)
    return head + (_i(5) + b"UTF-8" if version == 3 else b"")


def test_unserialize_strings_lists_attributes_and_refs():
    for version in (2, 3):
        w = _Writer()
        obj = w.vecsxp([w.strsxp(["a", None, "ü"], names=["x", "y", "z"]), w.intsxp([1, -2])], names=["s", "n"])
        v = unserialize(_header(version) + obj)
        assert isinstance(v, RVector) and v.sexptype == 19
        assert v.attributes["names"].values == ["s", "n"]
        strs, ints = v.values
        assert strs.values == ["a", None, "ü"] and strs.attributes["names"].values == ["x", "y", "z"]
        assert ints.values == [1, -2]
    with pytest.raises(GraphNIAHError, match="not R XDR"):
        unserialize(b"A\n" + obj)
    with pytest.raises(GraphNIAHError, match="type 25"):
        unserialize(_header() + _i(25))


def test_read_a_lazyload_database(tmp_path):
    w = _Writer()
    entries, offsets, blob = {"book": w.strsxp(["Chapter 1", "", "It was a dark night."]), "k": w.intsxp([7])}, [], b""
    for payload in entries.values():
        data = _header() + payload
        rec = _i(len(data)) + zlib.compress(data)
        offsets.append(w.intsxp([len(blob), len(rec)]))
        blob += rec
    (tmp_path / "Rdata.rdb").write_bytes(blob)
    w2 = _Writer()
    variables = w2.vecsxp(offsets, names=list(entries))
    index = w2.vecsxp([variables, _i(254), _i(10) + _i(1) + _i(1)], names=["variables", "references", "compressed"])
    (tmp_path / "Rdata.rdx").write_bytes(gzip.compress(_header() + index))
    objs = read_lazyload(tmp_path / "Rdata")
    assert objs["k"].values == [7]
    assert character_vectors(tmp_path / "Rdata") == {"book": ["Chapter 1", "", "It was a dark night."]}
    with pytest.raises(GraphNIAHError, match="missing"):
        read_lazyload(tmp_path / "Nothing")


def test_austen_novels_read_from_the_debian_package(built_corpora):
    books = open_corpus("books")
    assert next(s["package"] for s in built_corpora["books"].sources) == "r-cran-janeaustenr"
    first = {
        "austen/prideprejudice": "It is a truth universally acknowledged, that a single man in possession",
        "austen/emma": "Emma Woodhouse, handsome, clever, and rich, with a comfortable home",
        "austen/persuasion": "Sir Walter Elliot, of Kellynch Hall, in Somersetshire, was a man who,",
    }
    for doc_id, opening in first.items():
        text = books.get(doc_id).text
        assert opening in text
        assert len(text) > 400_000
    assert len([d for d in books.documents if d.doc_id.startswith("austen/")]) == 6


def test_devils_dictionary_is_the_book_text(built_corpora):
    books = open_corpus("books")
    if "dict-devil" not in [s["package"] for s in built_corpora["books"].sources]:
        pytest.fail(f"dict-devil missing from the books corpus: {built_corpora['books'].notes}")
    text = books.get("bierce/devils-dictionary").text
    assert text.startswith("The Internet Wiretap")
    assert "ABASEMENT, n.  A decent and customary mental attitude" in text
    assert "00-database" not in text
