"""Path pools: distinct induced paths of ``L = 3k - 2`` papers, sampled by randomized DFS.

Pooled paths are *induced* (chordless): the snapshot has no citation between two papers of a path
other than between consecutive ones. An example's backbone must be exactly the subgraph the
snapshot induces on its papers (docs/architecture.md), so a path with a chord could never be used; the
search therefore only extends a path by a neighbour of its end that touches no other paper of it.
Every induced path is a simple path, so the pruning bounds stay sound for this search.

The search (``sample_path_pool``) follows the method's rules:

* a search starts at a paper drawn uniformly from those that can end an ``L``-path (sound test:
  ``end_bound >= L`` on the pruned graph, see ``block_cut_bounds``);
* each step moves to a neighbour drawn uniformly among those that are not on the path and can
  still complete it; when none is left the search backtracks; after ``step_budget`` steps
  (moves forward or back) the search is abandoned and a new start is drawn;
* a found path is kept only if neither it nor its reverse is already in the pool, and no paper
  may be in more than ``cap`` pooled paths; papers without usable metadata are never used
  (pruning already removed them).

"Can still complete it" is a cheap *necessary* condition, so it never hides a completion: a
neighbour ``w`` entered with ``r`` papers still missing (``w`` included) must be in the pruned
graph, not in ``cap`` pooled paths already, and have ``end_bound[w] >= r`` — the rest of the path
is a simple path starting at ``w`` in the pruned graph minus the current path, and removing
vertices can only shorten the longest such path. The exact test (longest path from ``w`` avoiding
the path) is NP-hard; dead ends it misses cost backtracking steps, not correctness.

Candidate lists are computed once when the search enters a paper and visited in a random order:
the path above that paper does not change until the search backtracks out of it, so the list stays
exactly the set of admissible neighbours, and walking a uniform permutation is the same as drawing
uniformly among the untried ones at each step.

A search that runs out of candidates at its start has proved that no admissible path starts there
(caps only grow), so that start is retired; so is a start already at the cap. When no start is
left, or ``max_attempts`` searches were made, the pool is returned short with the reason.

Notes
-----
*Same pools as the plain Python walk.* Each search runs compiled
(:mod:`graphniah.graph.path_search`, numba): a step touches a few papers, and in Python even
plain lists cost about a microsecond per step, most of the time of a deep pool. The compiled search
collects candidates in CSR order and orders them with the very loop and draws of
``Generator.shuffle`` on the caller's generator (proof in that module), so a pool is byte for byte
the one the Python walk (candidates ordered by ``Generator.permutation``, as before) samples:
``tests/graph/test_paths.py`` compares the two, budget exhaustion and four bit generators included.

*Why deep pools cost more than their length.* At depth 32 on the demo most steps go to the few
searches that end by budget. They start in small components (a few hundred papers: a 2-connected
core of chains between a few dozen branching papers, with pendant trees). Not all of them are
dead ends: some hold induced paths of the needed length that a search from most of their starts
does not reach within the budget (a larger budget finds them). A sound bound can only end a
search that provably cannot complete, so it cannot take that cost away. Two sound bounds were
tried and not adopted: the *region* bound (free papers reachable inside the block entered, plus
the heaviest block-cut arm leaving it) costs far more per step than it saves; the static
*directional* block bound (the block entered, less the path's end, plus its heaviest arm through
another cut vertex; O(1) per candidate) removes a large share of the steps at depth 16 as well
as at 32, so the ratio stays, and its per-edge block table costs more to build on the large
bench demo than a whole pool. Even with no wasted search the ratio is about 2, since a found path
costs about ``L`` steps (94 against 46). Any pruning changes later draws, hence the pools: adopting
one is a deliberate change of the pool format. What was changed instead is the cost of a step
(compiled, above): the steps stay, each a small fraction of its cost in Python.
``bench/graph.py`` prints the depth-32 / depth-16 time ratio.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from graphniah.graph.citation_graph import CitationGraph
from graphniah.graph.prune import PruneResult, prune

DEFAULT_CAP = 100
DEFAULT_STEP_BUDGET = 100_000


@dataclass(frozen=True)
class Rejects:
    """Why searches did not add a path."""

    duplicate: int = 0
    """found a path already in the pool (same or reversed)"""
    cap: int = 0
    """the drawn start paper was already in ``cap`` pooled paths"""
    budget: int = 0
    """no path within the step budget"""
    exhausted: int = 0
    """the search tried every admissible continuation: no path starts at that paper"""

    def as_dict(self) -> dict[str, int]:
        return {"duplicate": self.duplicate, "cap": self.cap, "budget": self.budget, "exhausted": self.exhausted}


@dataclass(frozen=True)
class PoolParams:
    """The sampling parameters (recorded in the pool manifest)."""

    cap: int = DEFAULT_CAP
    step_budget: int = DEFAULT_STEP_BUDGET
    max_attempts: int = 0

    def as_dict(self) -> dict[str, int]:
        return {"cap": self.cap, "step_budget": self.step_budget, "max_attempts": self.max_attempts}


@dataclass(frozen=True)
class PoolStats:
    attempts: int
    """start papers drawn"""
    steps: int
    """DFS moves (forward and backtrack) over all searches"""
    rejects: Rejects
    start_candidates: int
    """papers that passed the start test (``end_bound >= L``)"""
    papers_at_cap: int
    stop_reason: str | None
    """why the pool is short (``None`` when complete)"""
    seconds: float = field(default=0.0, compare=False)

    def as_dict(self) -> dict[str, object]:
        return {
            "attempts": self.attempts,
            "steps": self.steps,
            "rejects": self.rejects.as_dict(),
            "start_candidates": self.start_candidates,
            "papers_at_cap": self.papers_at_cap,
            "stop_reason": self.stop_reason,
            "seconds": round(self.seconds, 3),
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> PoolStats:
        return cls(
            attempts=int(d["attempts"]),
            steps=int(d["steps"]),
            rejects=Rejects(**{k: int(v) for k, v in d["rejects"].items()}),
            start_candidates=int(d["start_candidates"]),
            papers_at_cap=int(d["papers_at_cap"]),
            stop_reason=d.get("stop_reason"),
            seconds=float(d.get("seconds", 0.0)),
        )


@dataclass(frozen=True, eq=False)
class PathPool:
    """A pool of paths for one depth: ``paths[i]`` is a row of ``length`` corpus ids."""

    depth: int
    length: int
    requested: int
    paths: npt.NDArray[np.int64]
    """array (n_paths, length) of corpus ids, in the order the paths were found"""
    params: PoolParams
    stats: PoolStats

    @property
    def size(self) -> int:
        return int(self.paths.shape[0])

    @property
    def complete(self) -> bool:
        return self.size >= self.requested


def _restricted_csr(g: CitationGraph, alive: npt.NDArray[np.bool_]) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """CSR of the undirected graph induced on ``alive`` (same vertex ids, dead rows empty)."""
    ptr, idx = g.neighbor_csr
    rows = np.repeat(np.arange(g.n), np.diff(ptr))
    keep = alive[rows] & alive[idx]
    new_ptr = np.zeros(g.n + 1, dtype=np.int64)
    np.cumsum(np.bincount(rows[keep], minlength=g.n), out=new_ptr[1:])
    return new_ptr, idx[keep]


def _path_key(path: list[int]) -> bytes:
    """The same key for a path and its reverse (orient it so the smaller end comes first)."""
    arr = np.asarray(path, dtype=np.int64)
    if arr[0] > arr[-1]:
        arr = arr[::-1]
    return arr.tobytes()


def default_max_attempts(pool_size: int) -> int:
    """Searches allowed for a pool of ``pool_size`` paths before it is returned short."""
    return 20 * pool_size + 1000


def sample_path_pool(
    g: CitationGraph,
    depth: int,
    pool_size: int,
    rng: np.random.Generator,
    *,
    pruned: PruneResult | None = None,
    cap: int = DEFAULT_CAP,
    step_budget: int = DEFAULT_STEP_BUDGET,
    max_attempts: int | None = None,
) -> PathPool:
    """Sample up to ``pool_size`` distinct paths of ``3*depth - 2`` papers (see the module doc).

    ``pruned`` is ``prune(g, depth)`` (computed here when not given). ``max_attempts`` defaults to
    ``20 * pool_size + 1000`` searches. Deterministic given the generator's state.
    """
    if pool_size < 0 or cap < 1 or step_budget < 1:
        raise ValueError("pool_size must be >= 0, cap and step_budget >= 1")
    t0 = time.perf_counter()
    if pruned is None:
        pruned = prune(g, depth)
    if pruned.depth != depth or pruned.kept.shape != (g.n,):
        raise ValueError("pruned result is for another depth or graph")
    length = pruned.length
    if max_attempts is None:
        max_attempts = default_max_attempts(pool_size)
    alive = pruned.kept & g.has_usable_metadata
    end = np.where(alive, pruned.end_bound, 0)
    ptr, idx = _restricted_csr(g, alive)
    search = _PoolSearch(ptr, idx, end, length, cap, step_budget, rng)
    stop_reason = search.fill(pool_size, max_attempts)

    found = search.found
    verts = np.array(found, dtype=np.int64).reshape(len(found), length)
    stats = PoolStats(
        attempts=search.attempts,
        steps=search.steps,
        rejects=Rejects(duplicate=search.dup, cap=search.capped, budget=search.over_budget, exhausted=search.exhausted),
        start_candidates=search.start_candidates,
        papers_at_cap=int((search.uses >= cap).sum()),
        stop_reason=stop_reason,
        seconds=time.perf_counter() - t0,
    )
    params = PoolParams(cap=cap, step_budget=step_budget, max_attempts=max_attempts)
    return PathPool(depth, length, pool_size, g.corpusids[verts], params, stats)


class _PoolSearch:
    """The randomized DFS searches of one pool (see the module doc), and what they found and counted.

    ``ptr``/``idx`` is the CSR of the pruned graph, ``end`` its ``end_bound`` (0 off it). Each search
    runs compiled (:func:`graphniah.graph.path_search.search`, drawing from ``rng`` itself); this
    loop draws the starts, keeps the pool and retires starts.
    """

    def __init__(
        self, ptr: npt.NDArray[np.int64], idx: npt.NDArray[np.int64], end: npt.NDArray[np.int64],
        length: int, cap: int, step_budget: int, rng: np.random.Generator,
    ) -> None:
        from graphniah.graph import path_search

        n = end.size
        self.length, self.cap, self.step_budget, self.rng = length, cap, step_budget, rng
        self.starts = np.flatnonzero(end >= length)
        self.start_candidates = int(self.starts.size)
        self.n_starts = self.start_candidates  # starts[:n_starts] are the live ones (retired ones swapped out)
        self.uses = np.zeros(n, dtype=np.int64)
        self.seen: set[bytes] = set()
        self.found: list[list[int]] = []
        self.attempts = self.steps = 0
        self.dup = self.capped = self.over_budget = self.exhausted = 0
        # The search's arrays (path_search's doc): papers as int32, half the memory traffic per step.
        vertex = np.int32 if n < 2**30 else np.int64
        self.ptr, self.idx = ptr, idx.astype(vertex)
        self._limit = end.astype(vertex)  # end_bound, set to 0 once a paper is in ``cap`` pooled paths
        self._touch = np.zeros(n, dtype=vertex)
        self._kernel = path_search
        self._path = np.zeros(max(length, 1), dtype=np.int64)
        self._cand = np.zeros(path_search.candidate_capacity(ptr, length), dtype=vertex)
        self._stack = np.zeros((3, max(length, 1)), dtype=np.int64)  # cstart, clen, pos of each level
        self._next32, self._state = path_search.next32_address(rng)

    def fill(self, pool_size: int, max_attempts: int) -> str | None:
        """Search from random starts until the pool holds ``pool_size`` paths; returns why it is short (or None)."""
        while len(self.found) < pool_size:
            if self.n_starts == 0:
                return "no_start" if self.start_candidates == 0 else "starts_used_up"
            if self.attempts >= max_attempts:
                return "max_attempts"
            self.attempts += 1
            j = int(self.rng.integers(self.n_starts))
            s = int(self.starts[j])
            if self.uses[s] >= self.cap:
                self.capped += 1
                self._retire(j)
                continue
            result = self._search(s, j)
            if result is None:
                continue
            key = _path_key(result)
            if key in self.seen:
                self.dup += 1
                continue
            self.seen.add(key)
            self.found.append(result)
            self._use(np.asarray(result, dtype=np.int64))
        return None

    def _use(self, path: npt.NDArray[np.int64]) -> None:
        """Count a pooled path's papers (distinct) as used; those now at the cap can no longer be entered."""
        self.uses[path] += 1
        self._limit[path[self.uses[path] >= self.cap]] = 0

    def _retire(self, j: int) -> None:
        """Swap start ``starts[j]`` out of the live ones."""
        self.n_starts -= 1
        starts, n = self.starts, self.n_starts
        starts[j], starts[n] = starts[n], starts[j]

    def _search(self, s: int, j: int) -> list[int] | None:
        """Randomized DFS with backtracking from ``s`` (= ``starts[j]``): a path of ``length`` papers, or None."""
        k = self._kernel
        cstart, clen, pos = self._stack
        status, steps = k.search(s, self.length, self.step_budget, self.ptr, self.idx, self._limit, self._touch, self._path,
                                 self._cand, cstart, clen, pos, self._next32, self._state)
        self.steps += int(steps)
        if status == k.FOUND:
            return self._path[: self.length].tolist()  # type: ignore[no-any-return]
        if status == k.OVER_BUDGET:
            self.over_budget += 1
        else:
            self.exhausted += 1
            self._retire(j)
        return None


def explain_short(pool: PathPool, pruned: PruneResult | None = None) -> str:
    """A one-paragraph reason why ``pool`` has fewer paths than requested."""
    st = pool.stats
    head = f"depth {pool.depth}: found {pool.size} of {pool.requested} paths of {pool.length} papers"
    kept = f"pruning kept {pruned.n_kept} of {pruned.papers_allowed} papers" if pruned is not None else "pruned graph is empty"
    reasons = {
        "no_start": f"no paper can end a simple path of {pool.length} papers ({kept}); the graph is too small or too sparse for this depth",
        "starts_used_up": (
            f"every start paper was retired: {st.rejects.exhausted} searches proved no path starts there, "
            f"{st.rejects.cap} starts were already in the per-paper cap of paths"
        ),
        "max_attempts": (
            f"gave up after {st.attempts} searches ({st.rejects.duplicate} found duplicates, "
            f"{st.rejects.budget} ran out of steps, {st.rejects.exhausted} dead ends, {st.rejects.cap} capped starts)"
        ),
    }
    why = reasons.get(st.stop_reason or "", st.stop_reason or "")
    return f"{head}: {why}"
