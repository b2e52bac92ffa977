"""release.json, diff.json and openalex.json: written with exactly the fields set, read back, bad ones refused by name."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from graphniah.errors import GraphNIAHError
from graphniah.formats.release import (
    DiffDescriptor,
    OpenAlexDescriptor,
    ReleaseDescriptor,
    read_diff_descriptor,
    read_openalex_descriptor,
    read_release_descriptor,
    write_descriptor,
)


def test_a_descriptor_is_written_with_the_fields_its_writer_set(tmp_path: Path) -> None:
    """The bytes are those of the writers before the model: indented, key-sorted JSON of the fields given."""
    fields = {"release_id": "2026-11-25", "synthetic": False, "source": "s2ag-datasets-api",
              "datasets": {"papers": {"description": "d", "files": [{"name": "a.gz", "bytes": 3}]}},
              "missing_datasets": ["authors"], "downloaded_at": "2026-11-26T00:00:00+00:00"}
    path = tmp_path / "release.json"
    write_descriptor(path, ReleaseDescriptor.model_validate(fields))
    assert path.read_text(encoding="utf-8") == json.dumps(fields, indent=2, sort_keys=True) + "\n"
    back = read_release_descriptor(path)
    assert (back.release_id, back.missing_datasets, back.world_version) == ("2026-11-25", ("authors",), None)

    diff = {"from_release": "2026-11-18", "to_release": "2026-11-25", "synthetic": True, "seed": 7}
    write_descriptor(tmp_path / "diff.json", DiffDescriptor.model_validate(diff))
    assert json.loads((tmp_path / "diff.json").read_text()) == diff
    assert read_diff_descriptor(tmp_path / "diff.json").synthetic is True


@pytest.mark.parametrize(("text", "message"), [
    ("{not json", r"release.json is not valid JSON"),
    ("[1]", r"release.json must hold a JSON object, not list"),
    ('{"synthetic": true}', r"release.json: field 'release_id' must be a non-empty string, got None"),
    ('{"release_id": ""}', r"field 'release_id' must be a non-empty string, got ''"),
    ('{"release_id": "r", "colour": "red"}', r"release.json: not a valid release descriptor \(.*colour"),
    ('{"release_id": "r", "format_version": 2}', r"release.json: release descriptor format_version 2 is not supported"),
])
def test_a_bad_release_descriptor_is_refused_naming_the_file(tmp_path: Path, text: str, message: str) -> None:
    (tmp_path / "release.json").write_text(text)
    with pytest.raises(GraphNIAHError, match=message):
        read_release_descriptor(tmp_path / "release.json")


def test_a_diff_descriptor_needs_both_ids(tmp_path: Path) -> None:
    (tmp_path / "diff.json").write_text('{"from_release": "a"}')
    with pytest.raises(GraphNIAHError, match=r"diff.json: field 'to_release' must be a non-empty string"):
        read_diff_descriptor(tmp_path / "diff.json")


def test_an_openalex_descriptor_round_trips_and_needs_its_release_id(tmp_path: Path) -> None:
    fields = {"release_id": "openalex-2026-11-01", "synthetic": False, "source": "openalex-api",
              "filter": "from_publication_date:2026-04-01", "fetched": "2026-11-01", "generator_version": "0.1.0"}
    path = tmp_path / "openalex.json"
    write_descriptor(path, OpenAlexDescriptor.model_validate(fields))
    assert path.read_text(encoding="utf-8") == json.dumps(fields, indent=2, sort_keys=True) + "\n"
    assert read_openalex_descriptor(path).fetched == "2026-11-01"
    path.write_text('{"release_id": 7}')
    with pytest.raises(GraphNIAHError, match=r"openalex.json: field 'release_id' must be a non-empty string, got 7"):
        read_openalex_descriptor(path)
