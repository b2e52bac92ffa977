"""The fault tests' common starting point, built once per test run.

Every fault test starts from the same work folder (:mod:`tests.faults.harness`): a small demo
release (1,500 papers, seed 0), the stages' snapshot, the tiny suite, and, for the tests of the later
stages, the outputs of ``prune``, ``paths``, ``build``, ``run`` and ``export`` as their inputs. Each
module used to make that folder again by running those commands (about 25 s of CPU in subprocesses
each time); now the first test to need it builds it (under the file
lock of :func:`tests.conftest.shared_build`) and every module works on a copy of its own, made with
:func:`tests.faults.harness.copy_work`. The commands under test still run for real on the copy.
The reference runs of ``PIPELINE`` (their output digests and durations) are kept beside the folders,
so a test that needs a stage's uninterrupted run can take it from there instead of running it again.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import shared_build
from tests.faults.harness import PAPERS, OracleServer, Reference, copy_work, freeze_code, reference, setup, stages

SEED = 0
PIPELINE = ("prune", "paths", "build", "run", "export")


@dataclass(frozen=True)
class Prepared:
    """Two work folders (each with its code frozen beside it, as :func:`freeze_code` leaves it)."""

    setup: Path  # what harness.setup makes: the releases, the stages' snapshot, the suite
    pipeline: Path  # the same, then the reference runs of PIPELINE (their outputs are the later stages' inputs)
    references: dict[str, Reference]  # PIPELINE's reference runs in ``pipeline``


def _build(root: Path) -> Prepared:
    first = root / "setup"
    freeze_code(first)
    setup(first, PAPERS, SEED)
    work = root / "pipeline"
    ids = copy_work(first, work)
    server = OracleServer(work)
    try:
        references = {stage.name: reference(work, stage) for stage in stages(ids, PAPERS, server.url) if stage.name in PIPELINE}
    finally:
        server.close()
    (root / "references.json").write_text(json.dumps(references), encoding="utf-8")
    return Prepared(first, work, references)


def _reopen(root: Path) -> Prepared:
    references = json.loads((root / "references.json").read_text(encoding="utf-8"))
    return Prepared(root / "setup", root / "pipeline", {name: (digests, seconds) for name, (digests, seconds) in references.items()})  # JSON lists back to pairs


@pytest.fixture(scope="session")
def prepared(tmp_path_factory: pytest.TempPathFactory) -> Prepared:
    """The prepared work folders; copy them (:func:`copy_work`), never change them."""
    return shared_build(tmp_path_factory, "faults-prepared", _build, _reopen)
