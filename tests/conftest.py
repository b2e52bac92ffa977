"""Shared test fixtures, and how the suite is spread over pytest-xdist workers.

``make test`` runs the suite on every core (``-n auto --dist loadgroup``, see pyproject.toml). Two
things make that pay:

- The expensive session fixtures (the 300k-paper demo snapshot) are built once per run, not once per
  worker: the first worker to need one builds it in the run's shared temporary folder under a file
  lock, the others wait for the lock and open what it built (:func:`shared_build`).
- Tests are handed out in work units (xdist groups): a module's tests stay on one worker so its
  module fixtures are built once, and a package with package-scoped fixtures stays together
  (:data:`PACKAGE_GROUPS`). The units are handed out longest first (:data:`FIRST`), so the
  two-minute fault tests do not start last and leave one core idle at the end.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import pytest

REPO = Path(__file__).resolve().parent.parent
# Real S2AG records live beside the repository (in ../shared); they are never committed.
S2AG_SAMPLES = REPO.parent / "shared" / "fixtures" / "s2ag-samples"

T = TypeVar("T")

# Under xdist every core already runs a worker, so a library's own thread pool (OpenMP in scikit-learn's
# gradient boosting, BLAS) puts a second thread on a busy core, and OpenMP's waits for it then cost far
# more than the work: beside two busy processes, two tests of test_learned.py (4 s alone) took more than
# 50 s, and 13 s with one thread. Subprocesses inherit the setting. Set before the test modules import
# those libraries; threadpoolctl limits the ones a plugin has loaded already.
if os.environ.get("PYTEST_XDIST_WORKER") is not None:
    for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(_var, "1")
    from threadpoolctl import threadpool_limits

    threadpool_limits(1)

# Packages whose package-scoped fixtures (real examples sampled and packed from the demo snapshot)
# would be built again on every worker that ran one of their modules: each runs as one unit.
PACKAGE_GROUPS = ("tests/baselines/", "tests/view/", "tests/ingest/demo_release/", "tests/ingest/openalex/")
# Modules that must run on one worker together: they open the session's demo store (DuckDB, one writer).
MODULE_GROUPS = {"tests/test_demo.py": "demo-store", "tests/test_install.py": "demo-store", "tests/report/test_page.py": "demo-store"}

# Work units handed out first, longest first (the rest keep collection order and come after): a
# greedy longest-first order leaves the two workers ending within one small unit of each other. With
# the longest units in collection order instead, a 25-second package came last and one worker ran
# alone for 27 s at the end (233ad75). Wall seconds per unit from one `-n 2` run at d88c53f
# (bench/pytest_cpu.py, docs/speed.md; the workers then ended 5 s apart): the demo-store unit 87, the
# kill test 53 (with the fault tests' prepared folder), the baselines unit 51 (it builds the demo
# snapshot first, while the first worker runs the kill test, so the demo-store unit, queued third,
# finds it built), then 37 down to 11; every unit not listed took under 11 s. The kill test comes
# first although the demo-store unit is longer: the demo snapshot must be built before that unit starts.
FIRST = (
    "tests/faults/test_kill.py",
    "tests/baselines/",
    "demo-store",
    "tests/ingest/demo_release/",
    "tests/faults/test_disk.py",
    "tests/faults/test_fuzz.py",
    "tests/sampling/examples/test_learned.py",
    "tests/view/",
    "tests/integrations/test_lm_eval.py",
    "tests/sampling/examples/test_similarity.py",
    "tests/sampling/examples/test_sample.py",
    "tests/faults/test_concurrent.py",
    "tests/ingest/openalex/",
    "tests/integrations/test_inspect_task.py",
    "tests/report/test_alpha.py",
    "tests/ingest/test_build.py",
    "tests/test_stages.py",
    "tests/run/test_batch.py",
    "tests/sampling/test_suites.py",
    "tests/sampling/examples/test_render.py",
    "tests/faults/test_batch_kill.py",
    "tests/graph/test_prune.py",
    "tests/sampling/test_packing.py",
    "tests/faults/test_hostile.py",
)


def shared_build(tmp_path_factory: pytest.TempPathFactory, name: str, build: Callable[[Path], T],
                 reopen: Callable[[Path], T]) -> T:
    """``build(folder)`` once per test run, whatever the number of xdist workers.

    Without xdist this is ``build`` in a fresh temporary folder. Under xdist the folder is
    ``<run's base temp>/<name>``, shared by the workers: the first one to get here builds it while
    holding ``<name>.lock`` and then writes ``<name>.done``; every later caller (on any worker)
    takes the lock, sees the marker and calls ``reopen(folder)`` instead. A build that fails writes
    ``<name>.failed`` with its error, and later callers fail with that error instead of building
    again over the half-built folder (whose files the failed build may still hold open).
    """
    if os.environ.get("PYTEST_XDIST_WORKER") is None:
        return build(tmp_path_factory.mktemp(name))
    from filelock import FileLock

    shared = tmp_path_factory.getbasetemp().parent  # pytest-<n>/, the parent of every worker's popen-gw<i>/
    folder, done, failed = shared / name, shared / f"{name}.done", shared / f"{name}.failed"
    with FileLock(str(shared / f"{name}.lock")):
        if done.exists():
            return reopen(folder)
        if failed.exists():
            raise RuntimeError(f"the shared fixture {name} failed to build on another worker: {failed.read_text(encoding='utf-8')}")
        folder.mkdir(exist_ok=True)
        try:
            value = build(folder)
        except BaseException as exc:  # a pytest-timeout or a KeyboardInterrupt too: nobody may build again
            failed.write_text(f"{type(exc).__name__}: {exc}\n", encoding="utf-8")
            raise
        done.write_text("built\n", encoding="utf-8")
        return value


def _unit_of(nodeid: str) -> str:
    """The work unit of a test id: its module's group (MODULE_GROUPS), else its package (PACKAGE_GROUPS),
    else its module. A test id that xdist suffixed with ``@<group>`` is in that group."""
    if "@" in nodeid and nodeid.rfind("@") > nodeid.rfind("]"):
        return nodeid.rsplit("@", 1)[1]
    path = nodeid.split("::", 1)[0]
    return MODULE_GROUPS.get(path) or next((p for p in PACKAGE_GROUPS if path.startswith(p)), path)


def _unit(item: pytest.Item) -> str:
    """The work unit of a test (:func:`_unit_of`); an explicit ``xdist_group`` mark must name that same
    unit, since the scheduler sees only the test ids (:func:`pytest_xdist_make_scheduler`)."""
    unit = _unit_of(item.nodeid)
    marker = item.get_closest_marker("xdist_group")
    if marker is not None:
        group = str(marker.args[0] if marker.args else marker.kwargs.get("name", "default"))
        if group != unit:
            raise pytest.UsageError(f"{item.nodeid}: xdist_group {group!r} is not its work unit {unit!r}; "
                                    "list its module in MODULE_GROUPS (tests/conftest.py)")
    return unit


@pytest.hookimpl(tryfirst=True)  # before xdist's own hook, which reads the groups into the test ids
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Group every test into its work unit and put the longest units first (a stable sort: the
    order within a unit and among the other units stays the collection order)."""
    rank = {unit: i for i, unit in enumerate(FIRST)}
    for item in items:
        if item.get_closest_marker("xdist_group") is None:
            item.add_marker(pytest.mark.xdist_group(_unit(item)))
    items.sort(key=lambda item: rank.get(_unit(item), len(FIRST)))


def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """``--dist loadgroup`` that hands out whole work units (:func:`_unit_of`).

    xdist's own loadgroup scheduler reads a test's group from a suffix its worker hook writes into the
    test id (``Item._nodeid``); pytest 9 keeps the id elsewhere, so no id carries the suffix, every
    test became a unit of its own, and each worker set up the module and package fixtures of the
    modules it got a test of (a module's 60k-paper release was built on both workers). This
    scheduler (xdist's documented hook) takes the unit from the test id's path instead.
    """
    if config.getvalue("dist") != "loadgroup":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class WorkUnits(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return _unit_of(nodeid)

    return WorkUnits(config, log)


@pytest.fixture(scope="session")
def s2ag_samples() -> Path:
    if not S2AG_SAMPLES.is_dir():
        pytest.skip(f"real S2AG samples not found at {S2AG_SAMPLES}")
    return S2AG_SAMPLES


@pytest.fixture(scope="session")
def demo_snapshot(tmp_path_factory: pytest.TempPathFactory):
    """The embedded default, built by the real refresh pipeline: demo releases -> store + diffs ->
    snapshot -> pruned sets -> path pools of 1,000 paths for depths 4, 8, 16, 32 (about a minute),
    once per test run (shared by the xdist workers: :func:`shared_build`)."""
    import datetime as dt

    from graphniah.formats.snapshot import Snapshot
    from graphniah.refresh import refresh

    cutoff = dt.date(2026, 4, 1)

    def reopen(root: Path) -> Snapshot:  # the one snapshot refresh built: <root>/demo-<release>/cutoff=<date>
        (path,) = root.glob(f"demo-*/cutoff={cutoff.isoformat()}")
        return Snapshot.open(path)

    return shared_build(tmp_path_factory, "snapshots", lambda root: refresh(cutoff, root, demo=True).snapshot, reopen)


@pytest.fixture(scope="session")
def demo_graph(demo_snapshot):
    """The demo snapshot's citation graph, loaded once for the session: every test module that samples
    from the demo builds its ``SamplingContext(demo_snapshot, demo_graph)`` around it (the graph is
    read-only; each context keeps its own masks, pools and corpora)."""
    from graphniah.graph.citation_graph import CitationGraph

    return CitationGraph.load(demo_snapshot)


@dataclass(frozen=True)
class DemoRun:
    """A demo run on the session's snapshot: its result and the folder that holds its examples/, runs/ and reports/."""

    folder: Path
    result: Any  # graphniah.demo.DemoResult (imported lazily, as every fixture here imports the package)


@pytest.fixture(scope="session")
def demo_run(demo_snapshot, tmp_path_factory: pytest.TempPathFactory) -> DemoRun:
    """``run_demo`` at two examples per value on the session's demo snapshot, report and viewer included
    (about 45 s), once per worker: the tests that read a demo's outputs (tests/test_demo.py,
    tests/report/test_page.py) share it. They are in the ``demo-store`` work unit (MODULE_GROUPS), so
    one worker runs them all and the demo runs once per test run. A test may run the demo again on its
    folder (which must then reuse everything) but changes nothing in it."""
    from graphniah.demo import run_demo

    folder = tmp_path_factory.mktemp("demo-run")
    root = demo_snapshot.path.parent.parent  # the fixture's snapshots folder: refresh finds it up to date
    result = run_demo(root, folder / "examples", folder / "runs", folder / "reports", per_value=2)
    return DemoRun(folder, result)
