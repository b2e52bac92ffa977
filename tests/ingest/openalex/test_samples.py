"""Real OpenAlex records (../shared/fixtures/openalex-samples, never committed): every record
parses, every field maps as docs/openalex.md says, and nothing is dropped without a counted reason.

The expectations are computed here in plain Python from the raw records, not by the reader."""

from __future__ import annotations

import datetime as dt
import json
import re
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest

from graphniah.formats.snapshot import Snapshot
from graphniah.ingest.build import ingest_openalex
from tests.conftest import REPO
from tests.ingest.openalex.conftest import write_folder

SAMPLES = REPO.parent / "shared" / "fixtures" / "openalex-samples"
EARLY = dt.date(1000, 1, 1)  # the records are old: a cutoff before all of them keeps every complete date


@pytest.fixture(scope="module")
def samples() -> dict[str, list[dict[str, Any]]]:
    if not SAMPLES.is_dir():
        pytest.skip(f"real OpenAlex samples not found at {SAMPLES}")
    page = json.loads((SAMPLES / "api-page-works.json").read_text(encoding="utf-8"))
    assert page["meta"]["next_cursor"]
    one = json.loads((SAMPLES / "work-W2741809807.json").read_text(encoding="utf-8"))
    processed = [json.loads(line) for line in (SAMPLES / "works-200-processed.jsonl").read_text(encoding="utf-8").splitlines() if line.strip()]
    return {"2025-06-11": [*page["results"], one], "2025-12-31": processed}


def _num(wid: str) -> int:
    m = re.fullmatch(r"https://openalex\.org/W(\d+)", wid)
    assert m, wid
    return int(m.group(1))


def _fields(w: dict[str, Any]) -> list[str]:
    topics = sorted({t["field"]["display_name"].strip() for t in w.get("topics") or [] if t.get("field")})
    return topics or sorted({c["display_name"].strip() for c in w.get("concepts") or [] if c.get("level") == 0})


@pytest.fixture(scope="module")
def snapshot(samples: dict[str, list[dict[str, Any]]], tmp_path_factory: pytest.TempPathFactory) -> Snapshot:
    root = tmp_path_factory.mktemp("samples")
    folder = write_folder(root / "oa", samples)
    return Snapshot.open(ingest_openalex(folder, EARLY, root / "snap"))


def test_every_record_is_read_and_accounted_for(samples: dict[str, list[dict[str, Any]]], snapshot: Snapshot) -> None:
    winners: dict[int, dict[str, Any]] = {}
    for date in sorted(samples):  # newer partitions overwrite older records of a work
        for w in samples[date]:
            winners[_num(w["id"])] = w
    records = sum(len(v) for v in samples.values())
    src, rows = snapshot.manifest.source, snapshot.manifest.rows["papers"]
    assert (src["records_read"], src["works"], src["merged"]) == (records, len(winners), 0)
    assert src["superseded"] == records - len(winners)
    assert rows["read"] == len(winners) == rows["kept"] + sum(rows["dropped"].values())
    assert src["type_preprint"]["works"] == sum(w["type"] == "preprint" for w in winners.values()) >= 8
    # every drop has its counted reason, and only complete dates and non-empty titles survive
    complete = {n for n, w in winners.items() if re.fullmatch(r"\d{4}-\d{2}-\d{2}", w.get("publication_date") or "")}
    assert rows["dropped"]["no_publication_date"] == sum(not w.get("publication_date") for w in winners.values())
    assert rows["kept"] == len(complete) - rows["dropped"]["empty_title"] - rows["dropped"]["mathml_title"]


def test_every_field_maps(samples: dict[str, list[dict[str, Any]]], snapshot: Snapshot) -> None:
    winners = {_num(w["id"]): w for date in sorted(samples) for w in samples[date]}
    papers = pq.read_table(snapshot.papers_path).to_pylist()
    assert len(papers) > 150
    for p in papers:
        w = winners[p["corpusid"]]
        assert p["title"] == (w["title"] if w["title"] is not None else w["display_name"]).strip()
        assert p["doi"] == (w["doi"].removeprefix("https://doi.org/") if w["doi"] else None)
        assert p["publication_date"] == dt.date.fromisoformat(w["publication_date"])
        assert p["year"] == w["publication_year"]
        source = (w.get("primary_location") or {}).get("source") or {}
        assert p["venue"] == (source.get("display_name") or None)
        assert p["journal"] == (source.get("display_name") if source.get("type") == "journal" else None)
        assert [(a["id"], a["name"]) for a in p["authors"]] == [
            (a["author"]["id"].removeprefix("https://openalex.org/") if a["author"]["id"] else None, a["author"]["display_name"])
            for a in w["authorships"]]
        assert p["fields_of_study"] == _fields(w)
        # none of these records is on arXiv or a preprint server: the publication date is the earliest
        assert p["arxiv_id"] is None and p["earliest_public_date"] == p["publication_date"]


def test_references_inside_the_set_become_edges(samples: dict[str, list[dict[str, Any]]], snapshot: Snapshot) -> None:
    winners = {_num(w["id"]): w for date in sorted(samples) for w in samples[date]}
    kept = set(pq.read_table(snapshot.papers_path).column("corpusid").to_pylist())
    expected = sorted({(c, _num(r)) for c, w in winners.items() for r in w["referenced_works"] if c in kept and _num(r) in kept and c != _num(r)})
    edges = pq.read_table(snapshot.edges_path).to_pylist()
    assert [(e["citing"], e["cited"]) for e in edges] == expected and len(expected) > 0
    refs = sum(len(w["referenced_works"]) for w in winners.values())
    assert snapshot.manifest.rows["edges"]["read"] == refs


def test_the_work_with_repository_copies(samples: dict[str, list[dict[str, Any]]], snapshot: Snapshot) -> None:
    one = json.loads((SAMPLES / "work-W2741809807.json").read_text(encoding="utf-8"))
    assert len(one["locations"]) == 7
    row = next(p for p in pq.read_table(snapshot.papers_path).to_pylist() if p["corpusid"] == 2741809807)
    assert row["venue"] == "PeerJ" and row["doi"] == "10.7717/peerj.4375"
    # created_date (2017-08-08) is not the publication date
    assert row["publication_date"] == dt.date(2018, 2, 13) == row["earliest_public_date"]


def test_a_real_api_page_is_what_fetch_writes(tmp_path: Path) -> None:
    if not SAMPLES.is_dir():
        pytest.skip(f"real OpenAlex samples not found at {SAMPLES}")
    from graphniah.ingest.openalex.api import fetch_works
    from tests.ingest.openalex.fake_api import FakeOpenAlex

    page = json.loads((SAMPLES / "api-page-works.json").read_text(encoding="utf-8"))
    with FakeOpenAlex(page["results"]) as srv:
        result = fetch_works(tmp_path / "f", dt.date(2017, 1, 1), dt.date(2018, 12, 31), base_url=srv.base_url, backoff_s=0.001)
    assert result.records == len(page["results"])
    snap = Snapshot.open(ingest_openalex(tmp_path / "f", dt.date(2017, 1, 1), tmp_path / "snap"))
    assert snap.manifest.rows["papers"]["read"] == len(page["results"]) and not snap.manifest.synthetic
