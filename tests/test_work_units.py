"""The work units that spread the suite over pytest-xdist workers (tests/conftest.py)."""

from __future__ import annotations

from tests.conftest import FIRST, MODULE_GROUPS, PACKAGE_GROUPS, REPO, _unit_of


def test_every_unit_handed_out_first_exists_once() -> None:
    """A unit in FIRST that no test belongs to any more (a module renamed, a package regrouped) would
    silently stop being handed out early: each must be a test module, a grouped package or a group name."""
    assert len(FIRST) == len(set(FIRST))
    groups = set(MODULE_GROUPS.values())
    for unit in FIRST:
        if unit in groups:
            continue
        path = REPO / unit
        if unit.endswith("/"):
            assert unit in PACKAGE_GROUPS and path.is_dir(), unit
        else:
            assert path.is_file() and path.name.startswith("test_") and path.suffix == ".py", unit
            assert _unit_of(f"{unit}::test_x") == unit, f"{unit} belongs to another unit: it cannot be listed alone"


def test_a_test_id_maps_to_its_group_then_its_package_then_its_module() -> None:
    assert _unit_of("tests/report/test_page.py::test_x") == "demo-store"
    assert _unit_of("tests/view/test_pages.py::test_x[a-b]") == "tests/view/"
    assert _unit_of("tests/run/test_batch.py::test_x") == "tests/run/test_batch.py"
    assert _unit_of("tests/run/test_batch.py::test_x[a@b]") == "tests/run/test_batch.py"  # an @ inside the parameters
    assert _unit_of("tests/run/test_batch.py::test_x@unit") == "unit"  # xdist's group suffix
