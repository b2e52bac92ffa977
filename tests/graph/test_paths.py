"""Path pools: induced paths of the right length, distinct up to reversal, capped, deterministic."""

from __future__ import annotations

import hashlib
import itertools
import json
from pathlib import Path
from typing import Any

import networkx as nx
import numpy as np
import pytest
from typer.testing import CliRunner

from graphniah.atomic import read_json
from graphniah.cli import app
from graphniah.errors import GraphNIAHError
from graphniah.formats.snapshot import Snapshot
from graphniah.graph import CitationGraph, build_path_pools, load_pool, load_pruned, prune_snapshot, sample_path_pool
from graphniah.graph import paths as paths_mod
from graphniah.graph.store import pool_file, pruned_file
from tests.graph.synthetic import edge_arrays, preferential_attachment, write_snapshot


def _pa_graph(n: int = 3000, seed: int = 5) -> tuple[CitationGraph, nx.Graph]:
    citing, cited = preferential_attachment(n, 3, np.random.default_rng(seed))
    usable = np.ones(n, dtype=bool)
    usable[np.random.default_rng(seed + 1).choice(n, n // 20, replace=False)] = False
    g = CitationGraph.from_arrays(np.arange(n, dtype=np.int64) * 2 + 11, citing * 2 + 11, cited * 2 + 11, usable)
    und = nx.Graph()
    und.add_edges_from(zip((citing * 2 + 11).tolist(), (cited * 2 + 11).tolist(), strict=True))
    return g, und


def _check_pool(g: CitationGraph, und: nx.Graph, paths: np.ndarray, length: int, cap: int) -> None:
    usable_ids = set(g.corpusids[g.has_usable_metadata].tolist())
    keys = set()
    for row in paths.tolist():
        assert len(row) == length and len(set(row)) == length
        assert all(und.has_edge(a, b) for a, b in itertools.pairwise(row))
        # induced: the graph has no edge between the path's papers but the consecutive ones
        assert und.subgraph(row).number_of_edges() == length - 1
        assert set(row) <= usable_ids
        key = tuple(row) if row[0] < row[-1] else tuple(reversed(row))
        assert key not in keys
        keys.add(key)
    _, counts = np.unique(paths, return_counts=True)
    assert counts.max(initial=0) <= cap


def test_pool_paths_are_induced_distinct_capped_and_use_usable_papers() -> None:
    g, und = _pa_graph()
    for depth, cap in ((4, 100), (8, 100), (16, 20)):
        pool = sample_path_pool(g, depth, 150, np.random.default_rng(depth), cap=cap)
        assert pool.complete and pool.size == 150 and pool.paths.shape == (150, 3 * depth - 2)
        _check_pool(g, und, pool.paths, 3 * depth - 2, cap)
    assert pool.stats.papers_at_cap > 0  # cap 20 on 150 paths of 46 papers binds


def test_pool_is_deterministic_from_the_seed() -> None:
    g, _ = _pa_graph()
    a = sample_path_pool(g, 8, 60, np.random.default_rng(7))
    b = sample_path_pool(g, 8, 60, np.random.default_rng(7))
    c = sample_path_pool(g, 8, 60, np.random.default_rng(8))
    assert np.array_equal(a.paths, b.paths) and a.stats == b.stats
    assert not np.array_equal(a.paths, c.paths)


def test_small_graph_pool_finds_exactly_the_distinct_paths() -> None:
    """A 10-cycle has exactly 10 simple paths of 7 papers (up to reversal): asking for 15 finds
    all 10 (duplicates rejected), then reports why it stopped."""
    cyc = nx.cycle_graph(10)
    citing, cited = edge_arrays(cyc)
    g = CitationGraph.from_arrays(np.arange(10), citing, cited)
    pool = sample_path_pool(g, 3, 15, np.random.default_rng(0), max_attempts=400)
    _check_pool(g, cyc, pool.paths, 7, 100)
    assert pool.size == 10 and not pool.complete
    assert pool.stats.stop_reason == "max_attempts"
    assert pool.stats.rejects.duplicate == pool.stats.attempts - 10 > 0
    # The cap makes the pool smaller and retires start papers instead of looping forever.
    capped = sample_path_pool(g, 3, 15, np.random.default_rng(0), cap=2, max_attempts=10_000)
    _check_pool(g, cyc, capped.paths, 7, 2)
    assert capped.stats.attempts < 10_000
    assert capped.stats.rejects.cap > 0


def test_dead_end_starts_are_retired_and_budget_is_counted() -> None:
    """K_{2,6} with a 2-paper tail: the bound admits 10-paper paths, the searches prove there are none."""
    g0 = nx.complete_bipartite_graph(2, 6)
    nx.add_path(g0, [2, 8, 9])
    citing, cited = edge_arrays(g0)
    g = CitationGraph.from_arrays(np.arange(10), citing, cited)
    # L = 10: the block bound says 8 + 2 = 10, yet the longest simple path has 5 + 2 = 7 papers.
    pool = sample_path_pool(g, 4, 5, np.random.default_rng(1))
    assert pool.size == 0
    assert pool.stats.stop_reason == "starts_used_up"
    assert pool.stats.rejects.exhausted == pool.stats.start_candidates > 0
    tiny = sample_path_pool(g, 4, 5, np.random.default_rng(1), step_budget=3, max_attempts=20)
    assert tiny.stats.rejects.budget == 20 and tiny.stats.stop_reason == "max_attempts"
    assert tiny.stats.steps == 60


def test_store_round_trip_and_manifest(tmp_path) -> None:
    n = 2000
    citing, cited = preferential_attachment(n, 3, np.random.default_rng(11))
    snap = Snapshot.open(write_snapshot(tmp_path / "snap", n, citing, cited, unusable={3, 4, 5}, snapshot_hash="abc"))
    pruned = prune_snapshot(snap, [4])
    kept = load_pruned(snap, 4)
    g = CitationGraph.load(snap)
    assert np.array_equal(kept, g.corpusids[pruned[4].kept])
    assert not set(kept.tolist()) & set(g.corpusids[[3, 4, 5]].tolist())
    pm = read_json(pruned_file(snap, 4).with_suffix(".json"))
    assert pm["snapshot_hash"] == "abc" and pm["papers_excluded_metadata_or_not_allowed"] == 3
    assert pm["removed_small_components"] + pm["removed_by_bound"] == pm["papers_in"] - pm["papers_kept"]

    [out] = build_path_pools(snap, [4], 100, seed=42)
    assert out.written == pool_file(snap, 4) and not out.reused
    m = read_json(pool_file(snap, 4).with_suffix(".json"))
    assert m["snapshot_hash"] == "abc" and m["seed"] == 42 and m["found"] == 100 and m["complete"]
    assert m["parameters"] == {"cap": 100, "step_budget": 100_000, "max_attempts": 3000}
    assert set(m["stats"]["rejects"]) == {"duplicate", "cap", "budget", "exhausted"}
    assert m["stats"]["attempts"] >= 100 and m["stats"]["steps"] >= 100 * 9
    assert "package_version" in m and m["pruning"]["papers_kept"] == len(kept)
    back = load_pool(snap, 4)
    assert np.array_equal(back.paths, out.pool.paths) and back.stats == out.pool.stats
    # format 3 records the file's size beside its sha256; a format-2 manifest (no size) still reads
    assert m["format_version"] == 3 and m["bytes"] == pool_file(snap, 4).stat().st_size
    assert m["sha256"] == hashlib.sha256(pool_file(snap, 4).read_bytes()).hexdigest()
    v3 = pool_file(snap, 4).with_suffix(".json").read_text()
    pool_file(snap, 4).with_suffix(".json").write_text(json.dumps({k: v for k, v in m.items() if k != "bytes"} | {"format_version": 2}))
    assert np.array_equal(load_pool(snap, 4).paths, out.pool.paths)
    pool_file(snap, 4).with_suffix(".json").write_text(v3)

    # Reuse: same inputs -> the file is kept; the depth's pool does not depend on other depths.
    [again] = build_path_pools(snap, [4], 100, seed=42)
    assert again.reused and np.array_equal(again.pool.paths, out.pool.paths)
    two = build_path_pools(snap, [3, 4], 100, seed=42, reuse=False)
    assert np.array_equal(two[1].pool.paths, out.pool.paths)

    # A changed file is detected.
    pool_file(snap, 4).write_bytes(b"garbage")
    with pytest.raises(GraphNIAHError, match=rf"^{pool_file(snap, 4)} was changed or damaged after it was written \(7 bytes, "
                                             rf"[\d,]+ recorded\); rebuild it with `graphniah paths --snapshot {snap.path}`$"):
        load_pool(snap, 4)


def test_a_pool_built_on_a_stored_pruning_records_the_same_manifest(tmp_path) -> None:
    """A run stopped after writing ``pruned/depth=K`` and before the pool (kill -9, as the refresh
    fault test does) resumes from the stored fixed point; the pool's manifest still records the
    whole snapshot's pruning, as an uninterrupted run writes it (times and dates aside)."""
    n = 2000
    citing, cited = preferential_attachment(n, 3, np.random.default_rng(11))
    snap = Snapshot.open(write_snapshot(tmp_path / "snap", n, citing, cited, unusable={3, 4, 5}, snapshot_hash="abc"))

    def untimed(path: Path) -> dict[str, object]:
        m = read_json(path)
        m["stats"].pop("seconds")
        return {k: v for k, v in m.items() if k not in ("created_at", "seconds")}

    build_path_pools(snap, [4], 100, seed=42, pruned=prune_snapshot(snap, [4]))
    whole = untimed(pool_file(snap, 4).with_suffix(".json"))
    assert whole["pruning"]["removed_small_components"] + whole["pruning"]["removed_by_bound"] > 0  # pruning removed papers
    pruned_manifest = pruned_file(snap, 4).with_suffix(".json").read_bytes()
    for resume in ("refresh", "paths"):  # pruning results handed over (refresh), or pruned again by the pool build
        pool_file(snap, 4).unlink()
        pool_file(snap, 4).with_suffix(".json").unlink()
        build_path_pools(snap, [4], 100, seed=42, pruned=prune_snapshot(snap, [4]) if resume == "refresh" else None)
        assert untimed(pool_file(snap, 4).with_suffix(".json")) == whole, resume
        assert pruned_file(snap, 4).with_suffix(".json").read_bytes() == pruned_manifest  # the stored pruning stands


def test_too_small_or_sparse_graph_gives_a_clear_error(tmp_path) -> None:
    # Twelve papers in a path: fine for depth 4 (10 papers), impossible for depth 5 (13 papers).
    citing, cited = edge_arrays(nx.path_graph(12))
    snap = Snapshot.open(write_snapshot(tmp_path / "snap", 12, citing, cited))
    with pytest.raises(GraphNIAHError) as err:
        build_path_pools(snap, [4, 5], 10, seed=1)
    msg = str(err.value)
    assert "depth 4: found 3 of 10" in msg and "depth 5: found 0 of 10" in msg
    assert "too small or too sparse" in msg and "--allow-short" in msg
    assert not pool_file(snap, 5).exists() and not pool_file(snap, 4).exists()
    outs = build_path_pools(snap, [4, 5], 10, seed=1, allow_short=True)
    assert [o.pool.size for o in outs] == [3, 0]
    assert load_pool(snap, 5).size == 0 and read_json(pool_file(snap, 5).with_suffix(".json"))["complete"] is False


def test_cli_prune_and_paths(tmp_path) -> None:
    n = 1500
    citing, cited = preferential_attachment(n, 3, np.random.default_rng(2))
    folder = write_snapshot(tmp_path / "snap", n, citing, cited)
    runner = CliRunner()
    res = runner.invoke(app, ["prune", "--snapshot", str(folder), "--depth", "4", "8"])
    assert res.exit_code == 0, res.output
    assert pruned_file(Snapshot(folder), 4).is_file() and pruned_file(Snapshot(folder), 8).is_file()
    res = runner.invoke(app, ["paths", "--snapshot", str(folder), "--depth", "4", "8", "--pool", "30", "--seed", "9"])
    assert res.exit_code == 0, res.output
    assert load_pool(Snapshot(folder), 8).size == 30
    res = runner.invoke(app, ["paths", "--snapshot", str(folder), "--depth", "4", "oops", "--seed", "9"])
    assert res.exit_code != 0


def test_cli_short_pool_exits_nonzero_unless_allowed(tmp_path) -> None:
    import subprocess
    import sys

    citing, cited = edge_arrays(nx.path_graph(8))
    folder = write_snapshot(tmp_path / "snap", 8, citing, cited)
    cmd = [sys.executable, "-c", "from graphniah.cli import main; main()", "paths", "--snapshot", str(folder), "--depth", "4", "--pool", "5", "--seed", "1"]
    res = subprocess.run(cmd, capture_output=True, text=True)
    assert res.returncode == 2
    assert "found 0 of 5 paths of 10 papers" in res.stderr and "too small or too sparse" in res.stderr
    res = subprocess.run([*cmd, "--allow-short"], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    assert "short pool" in res.stdout


def test_paths_with_chords_are_never_pooled() -> None:
    """A wheel-like graph: the only 4-paper paths around the rim are chordless once the hub is avoided."""
    # rim 0..7 as a cycle plus chords 0-2 and 4-6; every path through a chord's ends is not induced
    und = nx.cycle_graph(8)
    und.add_edges_from([(0, 2), (4, 6)])
    a, b = np.asarray(list(und.edges())).T
    g = CitationGraph.from_arrays(np.arange(8, dtype=np.int64), a.astype(np.int64), b.astype(np.int64))
    pool = sample_path_pool(g, 2, 100, np.random.default_rng(0), cap=100)
    found = {tuple(r) if r[0] < r[-1] else tuple(reversed(r)) for r in pool.paths.tolist()}
    expected = {
        tuple(p) if p[0] < p[-1] else tuple(reversed(p))
        for s, t in itertools.permutations(range(8), 2)
        for p in nx.all_simple_paths(und, s, t, cutoff=3)
        if len(p) == 4 and und.subgraph(p).number_of_edges() == 3
    }
    assert found == expected and len(expected) > 0


class _PlainSearch(paths_mod._PoolSearch):
    """The search written plainly in Python (how pools were sampled before it was compiled): lists,
    and each candidate order drawn with ``Generator.permutation`` of a numpy array."""

    def __init__(self, ptr: np.ndarray, idx: np.ndarray, end: np.ndarray, *args: Any) -> None:
        super().__init__(ptr, idx, end, *args)
        self.end = end
        self.on_path: set[int] = set()
        self.touch = np.zeros(end.size, dtype=np.int64)  # papers of the path adjacent to each paper

    def _admissible(self, u: int, missing: int) -> list[int]:
        nb = self.idx[self.ptr[u] : self.ptr[u + 1]]
        ok = [w not in self.on_path and self.touch[w] == 1 and self.uses[w] < self.cap and self.end[w] >= missing for w in nb.tolist()]
        return [int(w) for w in self.rng.permutation(nb[np.asarray(ok, dtype=bool)])]

    def _step(self, v: int, delta: int) -> None:
        if delta > 0:
            self.on_path.add(v)
        else:
            self.on_path.discard(v)
        self.touch[self.idx[self.ptr[v] : self.ptr[v + 1]]] += delta

    def _search(self, s: int, j: int) -> list[int] | None:
        length = self.length
        path = [s]
        self._step(s, 1)
        cands = [self._admissible(s, length - 1)] if length > 1 else []
        pos = [0]
        budget = self.step_budget
        result = None
        while True:
            if len(path) == length:
                result = list(path)
                break
            if budget == 0:
                self.over_budget += 1
                break
            budget -= 1
            if pos[-1] < len(cands[-1]):
                w = cands[-1][pos[-1]]
                pos[-1] += 1
                path.append(w)
                self._step(w, 1)
                if len(path) < length:
                    cands.append(self._admissible(w, length - len(path)))
                    pos.append(0)
            else:
                if len(path) == 1:
                    self.exhausted += 1
                    self._retire(j)
                    break
                self._step(path.pop(), -1)
                cands.pop()
                pos.pop()
        self.steps += self.step_budget - budget
        for v in path:
            self._step(v, -1)
        return result


@pytest.mark.parametrize("bit_generator", [np.random.PCG64, np.random.MT19937, np.random.Philox, np.random.SFC64])
def test_compiled_search_draws_the_same_pools_as_the_plain_one(monkeypatch: pytest.MonkeyPatch, bit_generator: type) -> None:
    """The compiled DFS gives the same paths and counters as the plain Python one above, and leaves
    the generator in the same state (the next draw agrees), through backtracking and budget
    exhaustion, whatever the bit generator."""
    g, _ = _pa_graph(1500, seed=9)
    runs = [(4, 200, 100_000), (8, 150, 40), (16, 40, 2_000)]  # small budgets force budget rejects
    over_budget = at_cap = 0
    for depth, size, budget in runs:
        rng_ours, rng_ref = (np.random.Generator(bit_generator(depth)) for _ in range(2))
        ours = sample_path_pool(g, depth, size, rng_ours, step_budget=budget, cap=30)
        with monkeypatch.context() as m:
            m.setattr(paths_mod, "_PoolSearch", _PlainSearch)
            ref = sample_path_pool(g, depth, size, rng_ref, step_budget=budget, cap=30)
        assert np.array_equal(ours.paths, ref.paths) and ours.stats == ref.stats and ours.size > 0
        assert rng_ours.integers(2**62) == rng_ref.integers(2**62)
        over_budget += ours.stats.rejects.budget
        at_cap += ours.stats.papers_at_cap
    assert over_budget > 0 and at_cap > 0  # budget exhaustion and the cap both happened
