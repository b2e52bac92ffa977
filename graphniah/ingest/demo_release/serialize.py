"""S2AG JSON lines for demo records, in the current or the legacy (2022) format.

Why Arrow string kernels: a 1,000,000-paper demo release has more than 5,000,000 citation rows
per release, and building each line with ``json.dumps`` would dominate the run time. Every line
is instead the element-wise concatenation of column pieces (literal JSON syntax, numbers cast to
strings, strings JSON-escaped once per distinct value), which Arrow does in C. The result of a
join is one contiguous buffer of ``line\\n`` records, which goes straight to gzip.

Field names, order and value conventions follow the real records in
``shared/fixtures/s2ag-samples`` (2022 release samples: ids as strings in citations and authors,
flat ``intents``, ``updated`` stamps, no ``citationid``; 2024 diff sample: integer ids,
``citationid``, nested ``intents``).
"""

from __future__ import annotations

import json
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc

from graphniah.ingest.demo_release import vocabulary as V
from graphniah.ingest.demo_release.records import JOURNAL_EMPTY, JOURNAL_NULL, REV_DATE, REV_DOI, REV_VENUE, Papers, ReleaseState, Venues, World

LS = pa.large_string()
_MS_PER_DAY = 86_400_000


def _lit(s: str) -> pa.Scalar:
    return pa.scalar(s, LS)


def _join(*parts: pa.Array | str) -> pa.Array:
    args = [p if isinstance(p, pa.Array) else _lit(p) for p in parts]
    return pc.binary_join_element_wise(*args, _lit(""))


def _ints(x: np.ndarray) -> pa.Array:
    return pc.cast(pa.array(np.asarray(x, dtype=np.int64)), LS)


def _strs(values: Sequence[str]) -> pa.Array:
    return pa.array(values, LS)


# ``json.dumps`` with any argument set builds a new encoder on each call (most of the time of a short
# record): the two encodings the release uses are made once. A string's JSON literal is the encoder's
# own escaping function (what ``json.dumps(s, ensure_ascii=False)`` returns for a str).
_COMPACT = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))
_UNICODE = json.JSONEncoder(ensure_ascii=False)
_literal = json.encoder.encode_basestring


def _json_strs(values: Sequence[str | None]) -> pa.Array:
    """JSON literals (quoted, escaped) of strings; ``None`` becomes ``null``."""
    return pa.array(["null" if v is None else _literal(v) for v in values], LS)


def _where(mask: np.ndarray, a: pa.Array | str, b: pa.Array | str) -> pa.Array:
    return pc.if_else(pa.array(np.asarray(mask, dtype=bool)), a if isinstance(a, pa.Array) else _lit(a), b if isinstance(b, pa.Array) else _lit(b))


def _stamps(ms: np.ndarray) -> pa.Array:
    """ISO-8601 stamps with milliseconds and 'Z', as in the legacy ``updated`` field."""
    t = pc.strftime(pa.array(np.asarray(ms, dtype=np.int64), pa.timestamp("ms")), format="%Y-%m-%dT%H:%M:%S")
    return _join(pc.cast(t, LS), "Z")


def _bool(mask: np.ndarray) -> pa.Array:
    return _where(mask, "true", "false")


def _take(a: pa.Array, idx: np.ndarray) -> pa.Array:
    return a.take(pa.array(idx, pa.int64()))


def _change_stamp(
    changed_at: npt.NDArray[np.int16], first_day: npt.NDArray[np.int64], jitter: npt.NDArray[np.int64], release_days: npt.NDArray[np.int64]
) -> npt.NDArray[np.int64]:
    """``updated`` time: when the record last changed, or when it first appeared."""
    first = first_day * _MS_PER_DAY + jitter % _MS_PER_DAY
    later = release_days[np.maximum(changed_at, 0)] * _MS_PER_DAY - _MS_PER_DAY // 2 - jitter % (_MS_PER_DAY // 4)
    stamp: npt.NDArray[np.int64] = np.where(changed_at >= 0, later, first)
    return stamp


def to_bytes(lines: pa.Array) -> pa.Buffer:
    """The concatenated bytes of a (large) string array without a Python object per line."""
    if len(lines) == 0:
        return pa.py_buffer(b"")
    if lines.null_count:
        raise ValueError("a rendered line is null")  # a bug in a piece, never user input
    offsets = np.frombuffer(lines.buffers()[1], dtype=np.int64, count=len(lines) + 1, offset=lines.offset * 8)
    return lines.buffers()[2][int(offsets[0]) : int(offsets[-1])]


class Renderer:
    """Renders records of one world in one format; static pieces are built once, in the constructor."""

    def __init__(self, world: World, legacy: bool) -> None:
        self.world = world
        self.legacy = legacy
        P, A = world.papers, world.authors
        self._cid = _ints(P.corpusid)
        # authors: one JSON object per author, joined per paper
        aid = _ints(np.maximum(A.authorid, 0))
        names = _json_strs(A.names)
        self._author_name = names
        self._author_id = aid
        entry = _join('{"authorId":"', aid, '","name":', names, "}")
        flat = _take(entry, A.paper_authors)
        lists = pa.LargeListArray.from_arrays(pa.array(A.paper_offsets, pa.int64()), flat)
        authors_json = _join("[", pc.binary_join(lists, _lit(",")), "]")
        cs = np.array([V.FIELDS[f].name == "Computer Science" for f in P.field.tolist()])
        dblp = [f'"journals/corr/abs-{a[:4]}-{a[5:]}"' if (a is not None and c) else "null" for a, c in zip(P.arxiv, cs, strict=True)]
        pubmed = _where(P.pubmed > 0, _join('"', _ints(P.pubmed), '"'), "null")
        self._head = _join(
            '{"corpusid":', self._cid, ',"externalids":{"ACL":null,"DBLP":', _strs(dblp),
            ',"ArXiv":', _json_strs(P.arxiv), ',"MAG":null,"CorpusId":"', self._cid, '","PubMed":', pubmed, ',"DOI":',
        )
        self._doi = _json_strs(P.doi)
        self._mid = _join(
            ',"PubMedCentral":null},"url":"https://www.semanticscholar.org/paper/', _strs(P.url_hash),
            '","title":', _json_strs(P.titles), ',"authors":', authors_json, ',"venue":',
        )
        ven = world.venues
        vnames = [v.name for v in ven.venues]
        vpiece = [_literal(n) + ',"publicationvenueid":"' + i + '"' for n, i in zip(vnames, ven.ids, strict=True)]
        self._venue = _take(_strs(vpiece + ['"","publicationvenueid":null']), np.where(P.venue >= 0, P.venue, len(vpiece)))
        years = P.day.astype("datetime64[D]").astype("datetime64[Y]").astype(np.int64) + 1970
        self._year = _ints(years)
        fos_table = []
        for f in range(len(V.FIELDS)):
            for s in range(-1, len(V.FIELDS)):
                e = [{"category": V.FIELDS[f].name, "source": "s2-fos-model"}]
                if s >= 0:
                    e.append({"category": V.FIELDS[s].name, "source": "external"})
                fos_table.append(json.dumps(e, separators=(",", ":")))
        fos_index = P.field.astype(np.int64) * (len(V.FIELDS) + 1) + P.second_field + 1
        fos = _take(_strs([*fos_table, "null"]), np.where(P.has_fields, fos_index, len(fos_table)))  # null: no fields listed
        ptypes = _take(_strs(["null", '["JournalArticle"]', '["Conference"]', '["Review"]']), P.pubtype.astype(np.int64))
        self._tail1 = _join(',"isopenaccess":', _bool(P.open_access), ',"s2fieldsofstudy":', fos, ',"publicationtypes":', ptypes, ',"publicationdate":')
        dates = pc.cast(pc.strftime(pa.array(P.day.astype(np.int32), pa.date32()), format="%Y-%m-%d"), LS)
        self._date = _where(P.year_only, "null", _join('"', dates, '"'))
        self._journal = _journal_json(P, ven)
        # citation contexts: a bank of rendered (contexts, intents) JSON literals
        bank = world.contexts
        self._ctx = _strs([_UNICODE.encode(list(s)) for s, _ in bank])
        if legacy:
            flat_int = [sorted({i for i in ints if i is not None}) for _, ints in bank]
            self._intents = _strs([json.dumps(x) if x else "null" for x in flat_int])
        else:
            self._intents = _strs([json.dumps([None if i is None else [i] for i in ints]) for _, ints in bank])

    # ------------------------------------------------------------------------------ papers

    def paper_lines(self, idx: np.ndarray, st: ReleaseState) -> pa.Array:
        P = self.world.papers
        pending = P.rev_step[idx] > st.index
        kind = P.rev_kind[idx]
        doi = _where(pending & (kind == REV_DOI), "null", _take(self._doi, idx))
        venue = _where(pending & (kind == REV_VENUE), '"","publicationvenueid":null', _take(self._venue, idx))
        date = _where(pending & (kind == REV_DATE), "null", _take(self._date, idx))
        parts: list[pa.Array | str] = [
            _take(self._head, idx), doi, _take(self._mid, idx), venue,
            ',"year":', _take(self._year, idx),
            ',"referencecount":', _ints(st.referencecount[idx]),
            ',"citationcount":', _ints(st.citationcount[idx]),
            ',"influentialcitationcount":', _ints(st.influentialcount[idx]),
            _take(self._tail1, idx), date, ',"journal":', _take(self._journal, idx),
        ]
        if self.legacy:
            ms = _change_stamp(st.paper_changed_at[idx], P.indexed[idx], P.updated_sec[idx], self.world.timeline.release_days)
            parts += [',"updated":"', _stamps(ms), '"']
        parts.append("}\n")
        return _join(*parts)

    def paper_keys(self, idx: np.ndarray) -> pa.Array:
        return _join('{"corpusid":', _take(self._cid, idx), "}\n")

    # --------------------------------------------------------------------------- citations

    def _citing_cited(self, idx: np.ndarray) -> tuple[pa.Array, pa.Array]:
        C, P = self.world.citations, self.world.papers
        citing = _ints(P.corpusid[C.citing[idx]])
        cited_ids = _ints(P.corpusid[np.maximum(C.cited[idx], 0)])
        resolved = C.cited[idx] >= 0
        if self.legacy:
            return _join('"', citing, '"'), _where(resolved, _join('"', cited_ids, '"'), "null")
        return citing, _where(resolved, cited_ids, "null")

    def citation_lines(self, idx: np.ndarray, st: ReleaseState) -> pa.Array:
        C = self.world.citations
        citing, cited = self._citing_cited(idx)
        has_ctx = (C.context[idx] >= 0) & (C.rev_step[idx] <= st.index)
        bank = np.maximum(C.context[idx], 0)
        ctx = _where(has_ctx, _take(self._ctx, bank), "null")
        intents = _where(has_ctx, _take(self._intents, bank), "null")
        infl = _bool(C.influential[idx])
        if self.legacy:
            ms = _change_stamp(st.row_changed_at[idx], C.first_day[idx], C.citationid[idx] * 7919, self.world.timeline.release_days)
            return _join(
                '{"citingcorpusid":', citing, ',"citedcorpusid":', cited, ',"isinfluential":', infl,
                ',"contexts":', ctx, ',"intents":', intents, ',"updated":"', _stamps(ms), '"}\n',
            )
        return _join(
            '{"citationid":', _ints(C.citationid[idx]), ',"citingcorpusid":', citing, ',"citedcorpusid":', cited,
            ',"isinfluential":', infl, ',"contexts":', ctx, ',"intents":', intents, "}\n",
        )

    def citation_keys(self, idx: np.ndarray) -> pa.Array:
        citing, cited = self._citing_cited(idx)
        if self.legacy:
            return _join('{"citingcorpusid":', citing, ',"citedcorpusid":', cited, "}\n")
        C = self.world.citations
        return _join('{"citationid":', _ints(C.citationid[idx]), ',"citingcorpusid":', citing, ',"citedcorpusid":', cited, "}\n")

    # ----------------------------------------------------------------------------- authors

    def author_lines(self, idx: np.ndarray, st: ReleaseState) -> pa.Array:
        A = self.world.authors
        aid = _take(self._author_id, idx)
        name = _take(self._author_name, idx)
        ext = _where(A.dblp[idx], _join('{"DBLP":[', name, '],"ORCID":null}'), "null")
        alias_json = _json_strs([A.alias[i] for i in idx.tolist()])
        aliases = _where(np.array([A.alias[i] is not None for i in idx.tolist()], dtype=bool), _join("[", name, ",", alias_json, "]"), "null")
        parts: list[pa.Array | str] = [
            '{"authorid":"', aid, '","externalids":', ext, ',"url":"https://www.semanticscholar.org/author/', aid,
            '","name":', name, ',"aliases":', aliases, ',"affiliations":null,"homepage":null,"papercount":', _ints(st.papercount[idx]),
            ',"citationcount":', _ints(st.author_citations[idx]), ',"hindex":', _ints(st.hindex[idx]),
        ]
        if self.legacy:
            ms = _change_stamp(st.author_changed_at[idx], A.first_seen[idx], A.authorid[idx] * 104_729, self.world.timeline.release_days)
            parts += [',"updated":"', _stamps(ms), '"']
        parts.append("}\n")
        return _join(*parts)

    def author_keys(self, idx: np.ndarray) -> pa.Array:
        return _join('{"authorid":"', _take(self._author_id, idx), '"}\n')

    # ------------------------------------------------------------------------------ venues

    def venue_lines(self, idx: np.ndarray, st: ReleaseState) -> pa.Array:
        ven = self.world.venues
        out = []
        for i in idx.tolist():
            v = ven.venues[i]
            rec = {
                "id": ven.ids[i],
                "alternate_issns": [],
                "alternate_names": list(v.abbreviations),
                "alternate_urls": [],
                "issn": ven.issn[i],
                "name": v.name,
                "type": v.kind,
                "url": ven.urls[i] if ven.rev_step[i] <= st.index else None,
            }
            out.append(_COMPACT.encode(rec) + "\n")
        return _strs(out)

    def venue_keys(self, idx: np.ndarray) -> pa.Array:
        return _strs([f'{{"id":"{self.world.venues.ids[i]}"}}\n' for i in idx.tolist()])


def _journal_json(P: Papers, ven: Venues) -> pa.Array:
    """S2's ``journal`` object: null, an empty name, a venue with volume/pages, or arXiv's abs/ id."""
    out = []
    for i in range(len(P)):
        kind = P.journal_kind[i]
        if kind == JOURNAL_NULL:
            out.append("null")
            continue
        vi = int(P.journal_venue[i])
        vol = str(P.volume[i]) if P.volume[i] else None
        pages = f"{P.first_page[i]}-{P.first_page[i] + P.n_pages[i]}" if P.first_page[i] else None
        if kind == JOURNAL_EMPTY:
            rec = {"name": "", "pages": pages, "volume": vol or ""}
        elif vi == 0 and P.arxiv[i] is not None:
            rec = {"name": "ArXiv", "pages": None, "volume": f"abs/{P.arxiv[i]}"}
        else:
            rec = {"name": ven.venues[vi].name if vi > 0 else "", "pages": pages, "volume": vol}
        out.append(_COMPACT.encode(rec))
    return _strs(out)
