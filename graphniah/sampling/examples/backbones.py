"""Drawing the backbone paths of one example from a path pool.

The components of an example need pairwise *compatible* paths: no shared paper, no shared
(normalised) title, and no citation edge between two of them (docs/architecture.md). The paper draws them
uniformly from the pool; we do the same — uniform over ordered tuples of distinct compatible
paths — by rejection, but test candidates against a precomputed ``conflict`` matrix instead of the
graph, so that even a pool where one tuple in a thousand is compatible costs milliseconds:

    conflict = (P Pᵀ > 0) ∨ (P A Pᵀ > 0) ∨ (T Tᵀ > 0)

with ``P`` the path × paper incidence matrix, ``A`` the undirected adjacency of the snapshot and
``T`` the path × title incidence. Rejection sampling from the uniform distribution over all
ordered tuples and keeping the first compatible one yields the uniform distribution over
compatible tuples, whatever their share.

When compatible tuples are too rare for rejection (long paths in a small snapshot), ``draw`` falls
back to enumerating every compatible set (the k-cliques of the compatibility graph; there are few,
or rejection would have found one) and picks one uniformly, in uniformly random order. Either
branch returns a uniform compatible tuple, so their combination does too.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt
import scipy.sparse as sp

from graphniah.errors import GraphNIAHError

BATCH = 4096
REJECTION_BATCHES = 16
MAX_CLIQUE_VISITS = 5_000_000


@dataclass(frozen=True, eq=False)
class PoolIndex:
    """A depth's pool as vertex ids plus its path-conflict matrix."""

    paths: npt.NDArray[np.int64]  # (n_paths, L) vertex ids
    conflict: npt.NDArray[np.bool_]  # (n_paths, n_paths), True on the diagonal
    title_ids: npt.NDArray[np.int64] | None = None  # (n_paths, L) ids of the papers' normalised titles
    title_of: dict[Hashable, int] = field(default_factory=dict)  # normalised title -> id

    @classmethod
    def build(
        cls, paths: npt.NDArray[np.int64], neighbor_csr: tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]], n_vertices: int, title_key: Callable[[int], Hashable]
    ) -> PoolIndex:
        n_paths, length = paths.shape
        rows = np.repeat(np.arange(n_paths), length)
        flat = paths.reshape(-1)
        P = sp.csr_matrix((np.ones(flat.size, dtype=np.int32), (rows, flat)), shape=(n_paths, n_vertices))
        ptr, idx = neighbor_csr
        A = sp.csr_matrix((np.ones(idx.size, dtype=np.int32), idx, ptr), shape=(n_vertices, n_vertices))
        titles: dict[Hashable, int] = {}
        tcol = np.fromiter((titles.setdefault(title_key(int(v)), len(titles)) for v in flat), dtype=np.int64, count=flat.size)
        T = sp.csr_matrix((np.ones(flat.size, dtype=np.int32), (rows, tcol)), shape=(n_paths, len(titles)))
        shared = (P @ P.T) + (P @ A @ P.T) + (T @ T.T)
        conflict = shared.toarray() > 0
        np.fill_diagonal(conflict, True)
        return cls(paths, conflict, tcol.reshape(paths.shape), titles)

    @property
    def size(self) -> int:
        return int(self.paths.shape[0])

    def draw(self, k: int, rng: np.random.Generator) -> npt.NDArray[np.int64]:
        """Indices of ``k`` pairwise compatible paths, uniform over such ordered tuples."""
        if self.size < k:
            raise GraphNIAHError(f"the pool has {self.size} paths; {k} disjoint ones are needed")
        pairs = [(a, b) for a in range(k) for b in range(a + 1, k)]
        for _ in range(REJECTION_BATCHES):
            cand = rng.integers(0, self.size, size=(BATCH, k))
            bad = np.zeros(BATCH, dtype=bool)
            for a, b in pairs:  # the diagonal is True, so repeated indices are rejected too
                bad |= self.conflict[cand[:, a], cand[:, b]]
            ok = np.flatnonzero(~bad)
            if ok.size:
                first: npt.NDArray[np.int64] = cand[ok[0]]
                return first
        cliques = self._cliques(k)
        if len(cliques) == 0:
            raise GraphNIAHError(
                f"no {k} pairwise compatible paths in a pool of {self.size}: its paths overlap too much "
                "(share papers, titles or citations); build a larger pool or use a larger snapshot"
            )
        return rng.permutation(cliques[int(rng.integers(len(cliques)))])

    def compatible_with(self, chosen: Sequence[int] | npt.NDArray[np.integer]) -> npt.NDArray[np.int64]:
        """Indices of the paths compatible with every path in ``chosen`` (for extra components)."""
        return np.flatnonzero(~self.conflict[np.asarray(chosen, dtype=np.int64)].any(axis=0))

    def _cliques(self, k: int) -> npt.NDArray[np.int64]:
        """All sets of ``k`` pairwise compatible paths, as sorted index rows (cached per k)."""
        # The class is frozen, so the cache lives in the instance dict rather than a field.
        cache: dict[int, npt.NDArray[np.int64]] = self.__dict__.setdefault("_clique_cache", {})
        if k in cache:
            return cache[k]
        compat = ~self.conflict
        order = np.arange(self.size)
        found: list[list[int]] = []
        visits = 0
        stack: list[tuple[list[int], npt.NDArray[np.bool_]]] = [([], np.ones(self.size, dtype=bool))]
        while stack:
            prefix, cand = stack.pop()
            if len(prefix) == k:
                found.append(prefix)
                continue
            for v in np.flatnonzero(cand):
                visits += 1
                if visits > MAX_CLIQUE_VISITS:
                    raise GraphNIAHError(f"too many partial sets of compatible paths to enumerate in a pool of {self.size}")
                stack.append((prefix + [int(v)], cand & compat[v] & (order > v)))
        cache[k] = np.asarray(found, dtype=np.int64).reshape(len(found), k)
        return cache[k]
