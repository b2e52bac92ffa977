"""The snapshot's citation graph in memory: undirected igraph graph plus directed CSR arrays.

Vertices are numbered ``0..n-1`` in ascending corpus-id order, so ``vertex -> corpusid`` is an
array lookup and ``corpusid -> vertex`` is a binary search (``numpy.searchsorted``); no Python
dictionary over a million papers is ever built. Everything is derived from the two Parquet tables
with vectorised numpy/Arrow operations:

* ``cites(v)`` / ``cited_by(v)``: CSR arrays of the directed citation edges (later stages grow
  trees by direction);
* ``neighbors(v)``: CSR of the undirected simple graph (a mutual citation is one undirected edge),
  which is what paths and pruning walk on;
* ``graph``: the same undirected simple graph as an ``igraph.Graph``, built on first use (building
  it is costly on millions of edges and not every caller needs it).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc

from graphniah.errors import GraphNIAHError
from graphniah.formats.snapshot import Snapshot, read_edges, read_papers

if TYPE_CHECKING:
    import igraph as ig

# A title with MathML in it (``<math ...>``, ``<mml:math ...>``, ``</mml:mi>``) cannot be rendered
# as plain text, so the paper is not usable in a prompt.
_MATHML = r"(?i)<\s*/?\s*(mml:|math\b)"


def usable_metadata_mask(titles: pa.Array | pa.ChunkedArray, authors: pa.Array | pa.ChunkedArray) -> npt.NDArray[np.bool_]:
    """Per paper: a non-blank title without MathML and at least one author with a non-blank name.

    These are the papers a prompt can show (title + author set is also the identity rule of the
    text-only verifier, so a paper without a named author could not be told apart from another
    paper of the same title). Vectorised over Arrow arrays.
    """
    titles = pa.chunked_array([titles]) if isinstance(titles, pa.Array) else titles
    authors = pa.chunked_array([authors]) if isinstance(authors, pa.Array) else authors
    n = len(titles)
    if len(authors) != n:
        raise ValueError("titles and authors must have the same length")
    blank = pc.equal(pc.utf8_length(pc.utf8_trim_whitespace(titles)), 0)
    mathml = pc.match_substring_regex(titles, _MATHML)
    title_ok = np.asarray(pc.and_not(pc.invert(pc.fill_null(blank, True)), pc.fill_null(mathml, False)))
    authors = authors.combine_chunks() if authors.num_chunks != 1 else authors.chunk(0)
    names = pc.struct_field(pc.list_flatten(authors), "name")
    named = np.asarray(pc.fill_null(pc.greater(pc.utf8_length(pc.utf8_trim_whitespace(names)), 0), False))
    parents = np.asarray(pc.list_parent_indices(authors))
    has_author = np.bincount(parents[named], minlength=n)[:n] > 0
    return title_ok & has_author


def _csr(src: npt.NDArray[np.int64], dst: npt.NDArray[np.int64], n: int) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """CSR (indptr, indices) of the pairs ``src -> dst``, each row's neighbours in ascending order."""
    order = np.argsort(src * np.int64(n) + dst, kind="stable")
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(src, minlength=n), out=indptr[1:])
    return indptr, dst[order].astype(np.int64, copy=False)


@dataclass(frozen=True, eq=False)
class CitationGraph:
    """A snapshot's citation graph; vertex ``v`` is the paper ``corpusids[v]`` (ascending)."""

    corpusids: npt.NDArray[np.int64]
    """vertex -> corpus id, strictly ascending."""
    citing: npt.NDArray[np.int64]
    """vertex ids: ``citing[i]`` cites ``cited[i]`` (one row per snapshot edge)."""
    cited: npt.NDArray[np.int64]
    has_usable_metadata: npt.NDArray[np.bool_]
    """bool per vertex: see ``usable_metadata_mask``."""
    snapshot_hash: str | None = None

    # ---- construction -------------------------------------------------------------------------
    @classmethod
    def from_arrays(
        cls,
        corpusids: npt.ArrayLike,
        citing: npt.ArrayLike,
        cited: npt.ArrayLike,
        has_usable_metadata: npt.ArrayLike | None = None,
        snapshot_hash: str | None = None,
        source: str = "edges",
    ) -> CitationGraph:
        """Build from corpus-id arrays (papers in any order; edges as corpus-id pairs).

        Raises ``GraphNIAHError`` naming ``source`` if a corpus id repeats, an edge end is not a
        paper, or an edge is a self-loop: the snapshot contract excludes all three.
        """
        ids_in = np.asarray(corpusids, dtype=np.int64)
        order = np.argsort(ids_in, kind="stable")
        ids = ids_in[order]
        if ids.size > 1 and np.any(ids[1:] == ids[:-1]):
            dup = ids[1:][ids[1:] == ids[:-1]][0]
            raise GraphNIAHError(f"{source}: corpus id {dup} appears more than once among the papers")
        if has_usable_metadata is None:
            usable = np.ones(ids.size, dtype=bool)
        else:
            usable = np.asarray(has_usable_metadata, dtype=bool)[order]
        g = cls(ids, np.empty(0, np.int64), np.empty(0, np.int64), usable, snapshot_hash)
        u = g.vertex_of(citing, source=source)
        v = g.vertex_of(cited, source=source)
        loops = u == v
        if np.any(loops):
            raise GraphNIAHError(f"{source}: paper {ids[u[loops][0]]} cites itself (self-loops are not allowed in a snapshot)")
        return cls(ids, u, v, usable, snapshot_hash)

    @classmethod
    def load(cls, snapshot: Snapshot, papers: pa.Table | None = None) -> CitationGraph:
        """Read ``papers.parquet`` (corpusid, title, authors) and ``edges.parquet`` of a snapshot.

        ``papers``: the snapshot's papers table when the caller has read it already."""
        if papers is None:
            papers = read_papers(snapshot, ["corpusid", "title", "authors"])
        edges = read_edges(snapshot, ["citing", "cited"])
        usable = usable_metadata_mask(papers.column("title"), papers.column("authors"))
        corpusids = np.asarray(papers.column("corpusid"), dtype=np.int64)
        del papers
        return cls.from_arrays(
            corpusids,
            np.asarray(edges.column("citing"), dtype=np.int64),
            np.asarray(edges.column("cited"), dtype=np.int64),
            usable,
            snapshot.content_hash,
            source=str(snapshot.edges_path),
        )

    # ---- ids ----------------------------------------------------------------------------------
    @property
    def n(self) -> int:
        return int(self.corpusids.size)

    def vertex_of(self, corpusids: npt.ArrayLike, source: str = "corpus ids") -> npt.NDArray[np.int64]:
        """Vertex ids of corpus ids (vectorised binary search); unknown ids raise ``GraphNIAHError``."""
        q = np.atleast_1d(np.asarray(corpusids, dtype=np.int64))
        pos = np.searchsorted(self.corpusids, q)
        pos_c = np.minimum(pos, max(self.n - 1, 0))
        ok = (pos < self.n) & (self.corpusids[pos_c] == q) if self.n else np.zeros(q.shape, bool)
        if not np.all(ok):
            raise GraphNIAHError(f"{source}: corpus id {int(q[~ok][0])} is not a paper of the snapshot")
        return pos.astype(np.int64)

    # ---- adjacency ----------------------------------------------------------------------------
    @cached_property
    def _cites_csr(self) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
        return _csr(self.citing, self.cited, self.n)

    @cached_property
    def _cited_by_csr(self) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
        return _csr(self.cited, self.citing, self.n)

    @cached_property
    def undirected_edges(self) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
        """The simple undirected edge list ``(a, b)`` with ``a < b``, sorted, mutual citations merged."""
        a = np.minimum(self.citing, self.cited)
        b = np.maximum(self.citing, self.cited)
        key = np.unique(a * np.int64(max(self.n, 1)) + b)
        return key // max(self.n, 1), key % max(self.n, 1)

    @cached_property
    def neighbor_csr(self) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
        """CSR ``(indptr, indices)`` of the undirected simple graph."""
        a, b = self.undirected_edges
        return _csr(np.concatenate([a, b]), np.concatenate([b, a]), self.n)

    def cites(self, v: int) -> npt.NDArray[np.int64]:
        """Vertices that ``v`` cites (a view into the CSR array; do not modify)."""
        ptr, idx = self._cites_csr
        return idx[ptr[v] : ptr[v + 1]]

    def cited_by(self, v: int) -> npt.NDArray[np.int64]:
        """Vertices that cite ``v``."""
        ptr, idx = self._cited_by_csr
        return idx[ptr[v] : ptr[v + 1]]

    def neighbors(self, v: int) -> npt.NDArray[np.int64]:
        """Undirected neighbours of ``v`` (cites ∪ cited_by, no repeats)."""
        ptr, idx = self.neighbor_csr
        return idx[ptr[v] : ptr[v + 1]]

    @property
    def degree(self) -> npt.NDArray[np.int64]:
        """Undirected degree per vertex."""
        return np.diff(self.neighbor_csr[0])

    @cached_property
    def graph(self) -> ig.Graph:
        """The undirected simple graph as igraph (vertex ids equal ours)."""
        import igraph as ig  # here, not with the module: it imports matplotlib.pyplot, and most callers use the CSR arrays only

        a, b = self.undirected_edges
        return ig.Graph(n=self.n, edges=np.ascontiguousarray(np.column_stack([a, b]), dtype=np.int64).data)
