"""Shared test fixtures."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
# Real S2AG records live beside the repository (in ../shared); they are never committed.
S2AG_SAMPLES = REPO.parent / "shared" / "fixtures" / "s2ag-samples"


@pytest.fixture(scope="session")
def s2ag_samples() -> Path:
    if not S2AG_SAMPLES.is_dir():
        pytest.skip(f"real S2AG samples not found at {S2AG_SAMPLES}")
    return S2AG_SAMPLES
