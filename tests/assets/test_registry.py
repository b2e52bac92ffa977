"""The data folder that registry assets and corpora go to: an explicit folder, the environment, else the checkout's data/."""

from __future__ import annotations

from pathlib import Path

import pytest

from graphniah.assets import DATA_ENV, data_dir
from graphniah.errors import GraphNIAHError

REPO = Path(__file__).resolve().parents[2]


def test_a_source_checkout_keeps_its_data_in_the_repository(monkeypatch, tmp_path):
    monkeypatch.delenv(DATA_ENV, raising=False)
    monkeypatch.chdir(tmp_path)  # not ./data: the folder is found from the package, wherever the command runs
    assert data_dir() == REPO / "data"


def test_the_environment_and_an_explicit_folder_come_first(monkeypatch, tmp_path):
    monkeypatch.setenv(DATA_ENV, str(tmp_path / "env"))
    assert data_dir() == tmp_path / "env"
    assert data_dir(tmp_path / "given") == tmp_path / "given"


def test_a_file_is_no_data_folder(monkeypatch, tmp_path):
    (tmp_path / "file").write_text("x")
    monkeypatch.setenv(DATA_ENV, str(tmp_path / "file"))
    with pytest.raises(GraphNIAHError, match=r"data folder .*file \(from \$GRAPHNIAH_DATA\) is a file, not a folder"):
        data_dir()
