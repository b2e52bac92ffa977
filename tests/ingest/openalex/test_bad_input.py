"""Bad OpenAlex input: each problem is one GraphNIAHError line naming the file and the line (or byte)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from graphniah.errors import GraphNIAHError
from graphniah.ingest.build import ingest_openalex
from graphniah.ingest.openalex.layout import OLD_MANIFEST, write_manifest
from tests.ingest.openalex.conftest import CUTOFF, work, write_folder

PART = "data/works/updated_date=2026-06-01/part_000.gz"


def _error(folder: Path, tmp_path: Path) -> str:
    with pytest.raises(GraphNIAHError) as e:
        ingest_openalex(folder, CUTOFF, tmp_path / "snap")
    msg = str(e.value)
    assert "\n" not in msg
    assert not (tmp_path / "snap").exists()  # nothing half-written is left to be read
    return msg


def _manifest_line(folder: Path, rel: str) -> int:
    lines = (folder / OLD_MANIFEST).read_text(encoding="utf-8").splitlines()
    return next(i for i, line in enumerate(lines, start=1) if rel in line)


def test_truncated_part_named_with_its_byte_offset(tmp_path: Path) -> None:
    folder = write_folder(tmp_path / "oa", {"2026-06-01": [work(n) for n in range(1, 200)]})
    part = folder / PART
    data = part.read_bytes()
    part.write_bytes(data[: len(data) // 2])
    # the manifest still announces the whole file: the size check names the manifest's line
    msg = _error(folder, tmp_path)
    assert f"{folder / OLD_MANIFEST}, line {_manifest_line(folder, PART)}:" in msg and str(part) in msg and "incomplete download" in msg
    # a manifest that agrees with the cut file: the gzip check names the file and where it stops
    write_manifest(folder, "works", [(PART, 199)])
    msg = _error(folder, tmp_path)
    assert msg.startswith(f"{part}: truncated gzip file") and f"byte offset {len(data) // 2:,}" in msg


def test_work_without_id(tmp_path: Path) -> None:
    records = [work(1), work(2), {k: v for k, v in work(3).items() if k != "id"}, work(4)]
    folder = write_folder(tmp_path / "oa", {"2026-05-01": [work(9)], "2026-06-01": records})
    assert _error(folder, tmp_path) == f"{folder / PART}, line 3: the work has no id"


def test_work_with_an_id_of_another_entity(tmp_path: Path) -> None:
    folder = write_folder(tmp_path / "oa", {"2026-06-01": [work(1), work(2) | {"id": "https://openalex.org/A5048491430"}]})
    assert _error(folder, tmp_path).startswith(f"{folder / PART}, line 2: the work has id 'https://openalex.org/A5048491430', which is not")


def test_reference_that_is_no_work_id(tmp_path: Path) -> None:
    bad = work(2, referenced_works=["https://openalex.org/W1", "https://openalex.org/S205292342"])
    folder = write_folder(tmp_path / "oa", {"2026-06-01": [work(1), bad]})
    assert _error(folder, tmp_path) == (
        f"{folder / PART}, line 2: referenced_works entry 'https://openalex.org/S205292342' of work https://openalex.org/W2 "
        "is not a work id (https://openalex.org/W…)")


def test_invalid_json_line(tmp_path: Path) -> None:
    folder = write_folder(tmp_path / "oa", {"2026-06-01": [json.dumps(work(1)), '{"id": "https://openalex.org/W2", "title": ']})
    assert _error(folder, tmp_path).startswith(f"{folder / PART}, line 2: not valid JSON")


def test_missing_manifest(tmp_path: Path) -> None:
    folder = write_folder(tmp_path / "oa", {"2026-06-01": [work(1)]})
    (folder / OLD_MANIFEST).unlink()
    msg = _error(folder, tmp_path)
    assert f"{folder / OLD_MANIFEST} is missing" in msg and "unfinished download" in msg
    assert "is not an OpenAlex snapshot folder" in _error(tmp_path / "oa" / "data" / "works", tmp_path)


def test_manifest_lists_a_missing_file(tmp_path: Path) -> None:
    folder = write_folder(tmp_path / "oa", {"2026-05-01": [work(1)], "2026-06-01": [work(2)]})
    (folder / PART).unlink()
    line = _manifest_line(folder, PART)
    assert line > 1
    assert _error(folder, tmp_path) == (
        f"{folder / OLD_MANIFEST}, line {line}: lists s3://openalex/{PART}, but {folder / PART} does not exist "
        "(download it, or sync the folder again)")


def test_manifest_record_count_must_match(tmp_path: Path) -> None:
    folder = write_folder(tmp_path / "oa", {"2026-06-01": [work(1), work(2)]})
    write_manifest(folder, "works", [(PART, 3)])
    assert _error(folder, tmp_path) == f"{folder / OLD_MANIFEST} lists 3 works records, its files hold 2: download the folder again"
