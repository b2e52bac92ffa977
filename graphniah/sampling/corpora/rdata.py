"""Read character vectors out of an R lazy-load database (``Rdata.rdx`` + ``Rdata.rdb``) without R.

Debian's ``r-cran-janeaustenr`` ships the six novels as R data in a lazy-load database. The index
(``.rdx``) is a gzip-compressed serialized R list whose ``variables`` element maps each object
name to an (offset, length) pair into the ``.rdb`` file; each ``.rdb`` entry is a 4-byte
big-endian uncompressed length followed by the compressed serialization of one object (zlib for
the default compression; a one-byte type tag '2' bzip2, 'Z' xz, '0' none, '1' zlib otherwise).

The serialization format is R's XDR format ("X\\n", big-endian), versions 2 and 3. Only the
types that data objects use are decoded: NULL, symbols, pairlists, character/logical/integer/
double vectors and lists, with attributes and back-references. Anything else raises, naming the
unsupported type, rather than guessing.
"""

from __future__ import annotations

import bz2
import gzip
import lzma
import struct
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from graphniah.errors import GraphNIAHError

# R SEXP type codes (src/include/Rinternals.h) and serialization pseudo-types (serialize.c).
_SYMSXP, _LISTSXP, _CLOSXP, _ENVSXP, _PROMSXP, _LANGSXP = 1, 2, 3, 4, 5, 6
_CHARSXP, _LGLSXP, _INTSXP, _REALSXP, _STRSXP, _DOTSXP = 9, 10, 13, 14, 16, 17
_VECSXP, _EXPRSXP = 19, 20
_REFSXP, _NILVALUE = 255, 254
_SPECIAL_ENVS = {253, 252, 251, 250, 242, 241}  # global/unbound/missing/basenamespace/empty/base
_IS_OBJECT, _HAS_ATTR, _HAS_TAG = 1 << 8, 1 << 9, 1 << 10
_LATIN1, _UTF8 = 1 << 2, 1 << 3


@dataclass(frozen=True)
class RVector:
    """A decoded R vector: its SEXP type, values, and attributes (name -> value)."""

    sexptype: int
    values: list[Any]
    attributes: dict[str, Any]


@dataclass(frozen=True)
class RPair:
    tag: str | None
    car: Any
    cdr: Any


class _Reader:
    def __init__(self, data: bytes, where: str) -> None:
        self.b = data
        self.p = 0
        self.refs: list[Any] = []
        self.where = where

    def int32(self) -> int:
        """The next big-endian 32-bit signed integer."""
        (v,) = struct.unpack_from(">i", self.b, self.p)
        self.p += 4
        return int(v)

    def length(self) -> int:
        n = self.int32()
        if n == -1:  # long vector: two more ints
            hi, lo = self.int32(), self.int32()
            n = (hi << 32) + lo
        return n

    def item(self) -> Any:
        flags = self.int32()
        t = flags & 0xFF
        if t == _NILVALUE:
            return None
        if t == _REFSXP:
            idx = flags >> 8 or self.int32()
            return self.refs[idx - 1]
        if t in _SPECIAL_ENVS:
            return None
        if t == _SYMSXP:
            sym = self.item()
            self.refs.append(sym)
            return sym
        if t in (_LISTSXP, _LANGSXP, _CLOSXP, _PROMSXP, _DOTSXP):
            attr = self.item() if flags & _HAS_ATTR else None
            tag = self.item() if flags & _HAS_TAG else None
            car = self.item()
            cdr = self.item()
            del attr
            return RPair(tag if isinstance(tag, str) else None, car, cdr)
        if t == _CHARSXP:
            n = self.int32()
            if n == -1:
                return None  # NA_character_
            raw = self.b[self.p : self.p + n]
            self.p += n
            enc = "latin-1" if (flags >> 12) & _LATIN1 and not (flags >> 12) & _UTF8 else "utf-8"
            return raw.decode(enc, errors="replace")
        if t in (_LGLSXP, _INTSXP):
            n = self.length()
            vals = list(struct.unpack_from(f">{n}i", self.b, self.p))
            self.p += 4 * n
        elif t == _REALSXP:
            n = self.length()
            vals = list(struct.unpack_from(f">{n}d", self.b, self.p))
            self.p += 8 * n
        elif t in (_STRSXP, _VECSXP, _EXPRSXP):
            n = self.length()
            vals = [self.item() for _ in range(n)]
        else:
            raise GraphNIAHError(f"{self.where}: R serialization type {t} is not supported by this reader")
        attrs = _pairlist_dict(self.item()) if flags & _HAS_ATTR else {}
        return RVector(t, vals, attrs)


def _pairlist_dict(node: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    while isinstance(node, RPair):
        if node.tag is not None:
            out[node.tag] = node.car
        node = node.cdr
    return out


def unserialize(data: bytes, where: str = "R data") -> Any:
    """Decode one object in R's XDR serialization format (versions 2 and 3)."""
    if data[:2] != b"X\n":
        raise GraphNIAHError(f"{where}: not R XDR serialization (starts with {data[:2]!r})")
    r = _Reader(data, where)
    r.p = 2
    version = r.int32()
    r.int32()  # writer R version
    r.int32()  # minimal reader R version
    if version == 3:
        n = r.int32()
        r.p += n  # native encoding name
    elif version != 2:
        raise GraphNIAHError(f"{where}: R serialization version {version} is not supported")
    return r.item()


def _decompress_entry(blob: bytes, method: int, where: str) -> bytes:
    """One .rdb entry: 4-byte length, then zlib data (method 1) or a type byte and data (2, 3)."""
    (n,) = struct.unpack_from(">i", blob, 0)
    body = blob[4:]
    if method == 1:
        out = zlib.decompress(body)
    else:
        decoders: dict[bytes, Callable[[bytes], bytes]] = {b"Z": lzma.decompress, b"2": bz2.decompress, b"1": zlib.decompress, b"0": bytes}
        tag = body[:1]
        if tag not in decoders:
            raise GraphNIAHError(f"{where}: unknown compression tag {tag!r}")
        out = decoders[tag](body[1:])
    if len(out) != n:
        raise GraphNIAHError(f"{where}: entry decompressed to {len(out)} bytes, expected {n}")
    return out


def read_lazyload(prefix: str | Path) -> dict[str, Any]:
    """All objects of a lazy-load database ``<prefix>.rdx``/``<prefix>.rdb``, by name."""
    prefix = Path(prefix)
    rdx, rdb = prefix.with_suffix(".rdx"), prefix.with_suffix(".rdb")
    for f in (rdx, rdb):
        if not f.is_file():
            raise GraphNIAHError(f"R lazy-load database file missing: {f}")
    index = unserialize(gzip.decompress(rdx.read_bytes()), str(rdx))
    if not isinstance(index, RVector) or index.sexptype != _VECSXP:
        raise GraphNIAHError(f"{rdx}: index is not an R list")
    names = index.attributes.get("names")
    top = dict(zip(names.values, index.values, strict=True)) if isinstance(names, RVector) else {}
    variables = top.get("variables")
    if not isinstance(variables, RVector):
        raise GraphNIAHError(f"{rdx}: index has no 'variables' element")
    var_names = variables.attributes["names"].values
    compressed = top.get("compressed")
    method = int(compressed.values[0]) if isinstance(compressed, RVector) and compressed.values else 1
    data = rdb.read_bytes()
    out: dict[str, Any] = {}
    for name, pos in zip(var_names, variables.values, strict=True):
        off, length = (int(x) for x in pos.values)
        blob = _decompress_entry(data[off : off + length], method, f"{rdb}:{name}")
        out[name] = unserialize(blob, f"{rdb}:{name}")
    return out


def character_vectors(prefix: str | Path) -> dict[str, list[str]]:
    """The character-vector objects of a lazy-load database (NA entries become empty strings)."""
    return {
        name: [v if v is not None else "" for v in obj.values]
        for name, obj in read_lazyload(prefix).items()
        if isinstance(obj, RVector) and obj.sexptype == _STRSXP
    }
