"""The fault tests' common starting point, built once per test run.

Every fault test starts from the same work folder (:mod:`tests.faults.harness`): a small demo
release (1,500 papers, seed 0), the stages' snapshot, the tiny suite, and, for the tests of the later
stages, the outputs of ``prune``, ``paths``, ``build``, ``run`` and ``export`` as their inputs. Each
module used to make that folder again by running those commands (about 25 s of CPU in subprocesses
each time); now the first test to need it builds it (under the file
lock of :func:`tests.conftest.shared_build`) and every module works on a copy of its own, made with
:func:`tests.faults.harness.copy_work`. The commands under test still run for real on the copy.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import shared_build
from tests.faults.harness import PAPERS, OracleServer, copy_work, freeze_code, reference, setup, stages

SEED = 0
PIPELINE = ("prune", "paths", "build", "run", "export")


@dataclass(frozen=True)
class Prepared:
    """Two work folders (each with its code frozen beside it, as :func:`freeze_code` leaves it)."""

    setup: Path  # what harness.setup makes: the releases, the stages' snapshot, the suite
    pipeline: Path  # the same, then the reference runs of PIPELINE (their outputs are the later stages' inputs)


def _build(root: Path) -> Prepared:
    first = root / "setup"
    freeze_code(first)
    setup(first, PAPERS, SEED)
    work = root / "pipeline"
    ids = copy_work(first, work)
    server = OracleServer(work)
    try:
        for stage in stages(ids, PAPERS, server.url):
            if stage.name in PIPELINE:
                reference(work, stage)
    finally:
        server.close()
    return Prepared(first, work)


@pytest.fixture(scope="session")
def prepared(tmp_path_factory: pytest.TempPathFactory) -> Prepared:
    """The prepared work folders; copy them (:func:`copy_work`), never change them."""
    return shared_build(tmp_path_factory, "faults-prepared", _build,
                        lambda root: Prepared(root / "setup", root / "pipeline"))
