"""`make refresh`: one pipeline from the newest S2AG release to path pools.

    S2AG (API key set)  ─┐                                   ┌─ snapshots/<release>/cutoff=<date>/
                         ├─▶ release store (DuckDB) ─snapshot─┤     papers, edges, manifest
    demo release (none) ─┘   load once, then diffs in order   └─▶ pruned/ + paths/ per depth

The release store is updated incrementally: the first run loads a whole release, later runs
download and apply only the diffs since the stored release (docs/architecture.md). Without a key the
embedded synthetic demo release takes the place of S2AG and every artifact says so.

With ``source="openalex"`` (``make refresh SOURCE=openalex``) the works published since the cutoff
come from the OpenAlex API instead, which needs no key (``graphniah.ingest.openalex.api``; given an
e-mail for its polite pool or an API base), or else from the same demo world written as OpenAlex
records; the snapshot is the same format either way (docs/openalex.md).
"""

from __future__ import annotations

import datetime as dt
import itertools
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from graphniah.errors import GraphNIAHError
from graphniah.formats.release import read_openalex_descriptor
from graphniah.formats.snapshot import MANIFEST_FILE, Snapshot, read_snapshot_manifest
from graphniah.graph.citation_graph import CitationGraph
from graphniah.graph.store import build_path_pools, prune_snapshot
from graphniah.ingest.build import snapshot_from_store
from graphniah.ingest.demo_release import DemoReleaseSet, write_demo_releases
from graphniah.ingest.demo_release.world import WORLD_VERSION
from graphniah.ingest.openalex.layout import DESCRIPTOR as OPENALEX_DESCRIPTOR
from graphniah.ingest.s2ag.limits import Limits
from graphniah.ingest.s2ag.store import ReleaseStore
from graphniah.layout import SNAPSHOTS_ROOT, snapshot_dir
from graphniah.progress import NO_PROGRESS, Progress
from graphniah.seeds import DEMO_RELEASE_SEED

DEFAULT_DEPTHS = (4, 8, 16, 32)
DEFAULT_POOL = 1000
DEMO_PAPERS = 300_000  # room for ~10 disjoint 250-paper components at depth 32 (docs/demo-release.md)
DEMO_RELEASES = 3
SOURCES = ("s2ag", "openalex")

@dataclass(frozen=True)
class RefreshResult:
    snapshot: Snapshot
    source: str  # "s2ag" or "demo"; "openalex" or "demo-openalex"
    release_id: str
    diffs_applied: tuple[str, ...]
    pools: dict[int, int] = field(default_factory=dict)  # depth -> paths found
    pruned: dict[int, int] = field(default_factory=dict)  # depth -> papers kept


def _update_store_from_api(store: ReleaseStore, root: Path, api_key: str, api_base: str | None, progress: Progress) -> tuple[str, tuple[str, ...]]:
    from graphniah.ingest.s2ag.api import DEFAULT_BASE, S2AGClient

    with S2AGClient(api_key, api_base or DEFAULT_BASE, progress=progress) as client:
        latest = client.latest_release()
        if store.release_id is None:
            progress.note(f"store is empty: downloading the whole release {latest}")
            store.load_release(client.download_release(latest, root))
            return latest, ()
        if store.release_id == latest:
            progress.note(f"store already holds the latest release {latest}")
            return latest, ()
        progress.note(f"applying diffs {store.release_id} → {latest}")
        steps = client.download_diffs(store.release_id, latest, root)
        for step in steps:
            store.apply_diff(step)
            progress.note(f"  applied {step.name}")
        return latest, tuple(s.name for s in steps)


def _demo_releases(root: Path, papers: int, seed: int, progress: Progress) -> tuple[DemoReleaseSet, bool]:
    """The demo release set under ``root`` (generated when missing or made with other settings)."""
    if (root / "releases").is_dir():
        rs = DemoReleaseSet.open(root)
        m = rs.manifest(rs.release_ids[-1])
        same_world = m.world_version == WORLD_VERSION  # absent: made before the version was recorded
        if same_world and m.papers == papers and m.seed == seed and len(rs.release_ids) == DEMO_RELEASES:
            return rs, False
        progress.note(f"the demo release in {root} was made with other settings: generating it again")
    progress.note(f"generating the synthetic demo release ({papers:,} papers, {DEMO_RELEASES} releases, seed {seed})")
    return write_demo_releases(root, papers=papers, seed=seed, releases=DEMO_RELEASES, replace=True), True


def _update_store_from_demo(store: ReleaseStore, rs: DemoReleaseSet, fresh: bool, progress: Progress) -> tuple[str, tuple[str, ...]]:
    ids = rs.release_ids
    if store.release_id is None or fresh or store.release_id not in ids or not _loaded_from(store, rs.release_dir(ids[0])):
        progress.note(f"loading demo release {ids[0]} into the store")
        store.load_release(rs.release_dir(ids[0]))
    pos = ids.index(_held_release(store))
    applied = []
    for a, b in itertools.pairwise(ids[pos:]):
        store.apply_diff(rs.diff_dir(a, b))
        applied.append(f"{a}_to_{b}")
        progress.note(f"applied demo diff {a} → {b}")
    return _held_release(store), tuple(applied)


def _loaded_from(store: ReleaseStore, release_dir: Path) -> bool:
    """Whether the store's base release was loaded from the files now in ``release_dir`` (names and
    sizes): the demo release set is shared with the OpenAlex path, which may generate it again."""
    from graphniah.ingest.s2ag.layout import READ_DATASETS, release_sources

    state = store.state
    if state is None:
        return False
    sources = release_sources(release_dir)
    files = {(s.relpath, s.path.stat().st_size) for ds in READ_DATASETS for s in sources[ds]}
    return {(i.path, i.size) for i in state.base.inputs} == files


def _held_release(store: ReleaseStore) -> str:
    """The release a store holds once one was loaded (never None after ``load_release``)."""
    rid = store.release_id
    if rid is None:
        raise GraphNIAHError(f"release store {store.path} holds no release after loading one")
    return rid


def refresh(
    cutoff: dt.date,
    root: Path = SNAPSHOTS_ROOT,
    *,
    source: str = "s2ag",
    demo: bool | None = None,
    api_key: str | None = None,
    api_base: str | None = None,
    mailto: str | None = None,
    depths: Sequence[int] = DEFAULT_DEPTHS,
    pool_size: int = DEFAULT_POOL,
    seed: int = 0,
    demo_papers: int = DEMO_PAPERS,
    memory_limit: str | int | None = None,
    progress: Progress = NO_PROGRESS,
) -> RefreshResult:
    """Bring the release store up to date, build the snapshot for ``cutoff``, prune, and pool paths.

    ``demo=None`` means: S2AG when ``api_key`` is given, the demo release otherwise. Every step
    is idempotent: a snapshot, pruned set or pool that is already complete for the same inputs is
    kept, so re-running after an interruption redoes only what was missing. The release store
    and the snapshot query run within ``memory_limit`` (``--memory-limit``; default: half the RAM).

    ``source="openalex"`` takes OpenAlex works instead, which need no key (``_refresh_openalex``):
    fetched from the API when ``mailto`` or ``api_base`` is given (or ``demo=False``), else the
    same demo world in OpenAlex form.
    """
    limits = Limits.resolve(memory_limit)
    if source not in SOURCES:
        raise GraphNIAHError(f"unknown source {source!r}: choose one of {', '.join(SOURCES)}")
    if source == "openalex":
        live = (mailto is not None or api_base is not None) if demo is None else not demo
        snap, release = _refresh_openalex(cutoff, root, live, api_base, mailto, demo_papers, limits, progress)
        pruned, pools = build_graph_artifacts(snap, depths, pool_size, seed, progress)
        return RefreshResult(snap, "openalex" if live else "demo-openalex", release, (), pools, pruned)
    use_demo = (api_key is None) if demo is None else demo
    if use_demo:
        why = "S2_API_KEY is not set" if api_key_from_env() is None else "demo requested"
        progress.note(f"{why}: using the embedded synthetic demo release (labelled synthetic in every manifest)")
        base = root / "demo"
        store = ReleaseStore.open(base / "store.duckdb", limits)
        rs, fresh = _demo_releases(base / "s2ag", demo_papers, DEMO_RELEASE_SEED, progress)
        release, applied = _update_store_from_demo(store, rs, fresh, progress)
        snap_name = f"demo-{release}"
    else:
        assert api_key is not None
        base = root / "s2ag"
        store = ReleaseStore.open(base / "store.duckdb", limits)
        release, applied = _update_store_from_api(store, base, api_key, api_base, progress)
        snap_name = release

    out = snapshot_dir(root, snap_name, cutoff)
    if _snapshot_current(out, store):
        progress.note(f"snapshot {out} is up to date")
    else:
        progress.note(f"building snapshot {out}")
        snapshot_from_store(store, cutoff, out, replace=True)
    snap = Snapshot.open(out)

    pruned, pools = build_graph_artifacts(snap, depths, pool_size, seed, progress)
    return RefreshResult(snap, "demo" if use_demo else "s2ag", release, applied, pools, pruned)


def _snapshot_current(out: Path, store: ReleaseStore) -> bool:
    """True when ``out`` is a complete snapshot built from exactly the store's current state."""
    state = store.state
    if state is None:
        return False
    return _built_from(out, state.release_id, lambda inputs: inputs == state.all_inputs())


def _built_from(out: Path, release_id: str, same_inputs: Callable[[list[dict[str, Any]]], bool]) -> bool:
    """True when ``out`` is a complete, intact snapshot of ``release_id`` whose recorded inputs pass ``same_inputs``."""
    if not (out / MANIFEST_FILE).is_file():
        return False
    try:
        m = read_snapshot_manifest(out / MANIFEST_FILE)
    except GraphNIAHError:  # a damaged manifest, or one this code does not read: the snapshot is rebuilt
        return False
    if m.earliest_public_date is None:  # built before the preprint guard (format 1 or 2): the runner refuses it
        return False
    if not (m.release_id == release_id and same_inputs(m.inputs)):
        return False
    try:  # its tables as they were written (a damaged one is rebuilt: the command its error names is this one)
        Snapshot(out).check_tables()
    except GraphNIAHError:
        return False
    return True


def _openalex_demo(base: Path, papers: int, progress: Progress) -> Path:
    """The demo world in OpenAlex form under ``base/openalex``, converted from the S2AG-form demo
    release set under ``base/s2ag`` (generated or converted again when made with other settings)."""
    from graphniah.ingest.demo_release.openalex import convert_demo_releases

    rs, fresh = _demo_releases(base / "s2ag", papers, DEMO_RELEASE_SEED, progress)
    folder = base / "openalex"
    desc = folder / OPENALEX_DESCRIPTOR
    wanted = {"partitions": tuple(rs.release_ids), "world_version": WORLD_VERSION, "seed": DEMO_RELEASE_SEED, "papers_newest_release": papers}
    if not fresh and desc.is_file() and {k: getattr(read_openalex_descriptor(desc), k) for k in wanted} == wanted:
        return folder
    progress.note(f"writing the synthetic demo world in OpenAlex form ({folder})")
    return convert_demo_releases(rs, folder, replace=True)


def _refresh_openalex(cutoff: dt.date, root: Path, live: bool, api_base: str | None, mailto: str | None, demo_papers: int,
                      limits: Limits, progress: Progress) -> tuple[Snapshot, str]:
    """The OpenAlex snapshot for ``cutoff``: works published since the cutoff fetched into
    ``root/openalex/works`` (a new partition each day; an interrupted fetch resumes), or the demo
    world in OpenAlex form under ``root/demo/openalex``; built unless already built from the same files."""
    from graphniah.ingest.build import ingest_openalex
    from graphniah.ingest.openalex.api import DEFAULT_BASE, fetch_works
    from graphniah.ingest.openalex.layout import open_works

    if live:
        folder = root / "openalex" / "works"
        today = dt.datetime.now(dt.UTC).date()
        progress.note(f"fetching OpenAlex works published from {cutoff} to {today} (no key needed) into {folder}")
        fetch_works(folder, cutoff, today, mailto=mailto, base_url=api_base or DEFAULT_BASE, progress=progress)
    else:
        progress.note("no OpenAlex e-mail (--mailto, OPENALEX_MAILTO) or API given: using the embedded SYNTHETIC demo world "
                      "in OpenAlex form (labelled synthetic in every manifest)")
        folder = _openalex_demo(root / "demo", demo_papers, progress)
    works = open_works(folder)
    files = {(p.relpath, p.path.stat().st_size) for p in works.parts} | {(m.relative_to(folder).as_posix(), m.stat().st_size) for m in works.merged}
    snap_name = works.release_id if live else f"demo-openalex-{works.release_id}"
    out = snapshot_dir(root, snap_name, cutoff)
    if _built_from(out, works.release_id, lambda inputs: {(i.get("path"), i.get("size")) for i in inputs} == files):
        progress.note(f"snapshot {out} is up to date")
    else:
        progress.note(f"building snapshot {out}")
        ingest_openalex(folder, cutoff, out, replace=True, limits=limits)
    return Snapshot.open(out), works.release_id


def build_graph_artifacts(snap: Snapshot, depths: Sequence[int], pool_size: int, seed: int, progress: Progress) -> tuple[dict[int, int], dict[int, int]]:
    """Pruned sets and path pools for ``depths`` (reused when already built for this snapshot and seed)."""
    graph = CitationGraph.load(snap)
    pruned = prune_snapshot(snap, depths, graph=graph, progress=progress)
    outcomes = build_path_pools(snap, depths, pool_size, seed, graph=graph, pruned=pruned, progress=progress)
    return {k: r.n_kept for k, r in pruned.items()}, {o.depth: o.pool.size for o in outcomes}


def api_key_from_env() -> str | None:
    key = os.environ.get("S2_API_KEY", "").strip()
    return key or None
