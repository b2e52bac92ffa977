"""Two processes given the same output at once (``build`` of one suite, ``run`` of one model on one
suite, ``refresh`` of one root, ``export`` to one folder, ``view`` to one folder), started for real:
what is left equals one run alone's outputs, and a process that does not finish says so in one line
naming the output and the pid that holds it."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.faults.harness import (
    PAPERS,
    OracleServer,
    Stage,
    copy_work,
    graphniah_bin,
    output_files,
    reference,
    reset,
    stage_env,
    stages,
)


@pytest.fixture(scope="module")
def pipeline(prepared, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, dict[str, Stage]]]:
    work = tmp_path_factory.mktemp("two-at-once") / "work"
    # the inputs of the stages under test: the outputs of prune, paths, build and run (tests/faults/conftest.py)
    ids = copy_work(prepared.pipeline, work, omit=("dataset",))
    server = OracleServer(work)
    try:
        yield work, {s.name: s for s in stages(ids, PAPERS, server.url)}
    finally:
        server.close()


@pytest.mark.slow
@pytest.mark.parametrize("name", ["build", "run", "refresh", "export", "view"])
def test_two_processes_on_one_output_leave_what_one_leaves(pipeline, name):
    work, by_name = pipeline
    stage = by_name[name]
    # One run alone, on the inputs as they are now: build's and run's are in the prepared folder (its
    # reference runs, tests/faults/conftest.py), the others run here.
    expected = output_files(work, stage) if name in ("build", "run") else reference(work, stage)[0]
    expected = {k: v for k, v in expected.items() if not k.endswith("#lines")}
    assert expected
    reset(work, stage)
    procs = [subprocess.Popen([graphniah_bin(), *stage.argv], cwd=work, env=stage_env(work), stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for _ in range(2)]
    outcomes = [(p.wait(timeout=900), p.communicate()[1]) for p in procs]
    assert any(rc == 0 for rc, _ in outcomes), outcomes
    for rc, err in outcomes:
        if rc != 0:
            lines = err.strip().splitlines()
            assert len(lines) == 1, err
            assert "pid " in lines[0] and stage.outputs[0] in lines[0], lines[0]
    assert output_files(work, stage) == expected
