from __future__ import annotations

import pytest

from tests.run.helpers import DemoSuite, demo_suite


@pytest.fixture(scope="session")
def suite(tmp_path_factory: pytest.TempPathFactory) -> DemoSuite:
    return demo_suite(tmp_path_factory)
