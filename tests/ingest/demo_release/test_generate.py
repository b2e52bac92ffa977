"""The demo release generator: layout, formats, determinism, quirks, diffs, refusal rules."""

from __future__ import annotations

import collections
import gzip
import itertools
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from graphniah.errors import GraphNIAHError
from graphniah.ingest.demo_release import DATASETS, DemoReleaseSet, write_demo_releases
from graphniah.ingest.demo_release.citations import PRE_SHARE
from tests.ingest.demo_release.conftest import read_dataset

KEYS = {"papers": ("corpusid",), "authors": ("authorid",), "publication-venues": ("id",)}


def citation_key(rec: dict) -> tuple:
    return (rec["citationid"],) if "citationid" in rec else (rec["citingcorpusid"], rec["citedcorpusid"])


def key_of(ds: str, rec: dict) -> tuple:
    return citation_key(rec) if ds == "citations" else tuple(rec[k] for k in KEYS[ds])


def state(folder: Path, ds: str) -> dict:
    """Records by primary key; a key seen twice must carry the identical record (a duplicate row)."""
    out: dict = {}
    for _, rec in read_dataset(folder):
        k = key_of(ds, rec)
        assert out.get(k, rec) == rec, f"two different records under key {k} in {folder}"
        out[k] = rec
    return out


def all_files(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_layout_and_manifests(current_set: DemoReleaseSet):
    assert current_set.release_ids == ["2026-10-06", "2026-10-13", "2026-10-20"]
    for rid in current_set.release_ids:
        m = json.loads((current_set.release_dir(rid) / "release.json").read_text())
        assert m["release_id"] == rid and m["synthetic"] is True and m["format"] == "current"
        assert m["generator"] == "graphniah.ingest.demo_release" and m["seed"] == 7
        for ds in DATASETS:
            assert list((current_set.release_dir(rid) / ds).glob("*.jsonl.gz")), (rid, ds)
    assert current_set.manifest("2026-10-20").papers == 4000
    sizes = [current_set.manifest(r).papers for r in current_set.release_ids]
    assert sizes[0] < sizes[1] < sizes[2]
    for a, b in itertools.pairwise(current_set.release_ids):
        d = json.loads((current_set.diff_dir(a, b) / "diff.json").read_text())
        assert d == d | {"from_release": a, "to_release": b, "synthetic": True}
        for ds in DATASETS:
            assert (current_set.diff_dir(a, b) / ds / "update_files").is_dir()
            assert (current_set.diff_dir(a, b) / ds / "delete_files").is_dir()
    with pytest.raises(GraphNIAHError, match="consecutive"):
        current_set.diff_dir("2026-10-06", "2026-10-20")
    assert DemoReleaseSet.open(current_set.root).release_ids == current_set.release_ids


def test_deterministic(tmp_path):
    a = write_demo_releases(tmp_path / "a", papers=1500, seed=3, releases=2, shard_rows=700)
    b = write_demo_releases(tmp_path / "b", papers=1500, seed=3, releases=2, shard_rows=700)
    c = write_demo_releases(tmp_path / "c", papers=1500, seed=4, releases=2, shard_rows=700)
    fa, fb, fc = all_files(a.root), all_files(b.root), all_files(c.root)
    assert fa == fb
    papers = [k for k in fa if "/papers/" in k and k.endswith(".gz")]
    assert papers and all(fa[k] != fc.get(k) for k in papers)


def _sample_keys(samples: Path, ds: str) -> list[str]:
    with gzip.open(next((samples / "release-2022-samples" / ds).glob("*.gz")), "rt") as f:
        return list(json.loads(f.readline()))


@pytest.mark.parametrize("fmt", ["current", "legacy"])
def test_field_names_and_types_match_real_records(fmt, current_set, legacy_set, s2ag_samples):
    rs = current_set if fmt == "current" else legacy_set
    rel = rs.release_dir(rs.release_ids[-1])
    with gzip.open(s2ag_samples / "diff-2024-06-25-citations" / "update_files-000.gz", "rt") as f:
        current_citation_keys = list(json.loads(f.readline()))
    for ds in DATASETS:
        want = _sample_keys(s2ag_samples, ds)
        if fmt == "current":
            want = current_citation_keys if ds == "citations" else [k for k in want if k != "updated"]
        recs = [r for _, r in read_dataset(rel / ds)]
        assert recs
        for r in recs:
            assert list(r) == want, (ds, list(r), want)
    papers = [r for _, r in read_dataset(rel / "papers")]
    for p in papers:
        assert isinstance(p["corpusid"], int) and isinstance(p["externalids"]["CorpusId"], str)
        assert p["publicationdate"] is None or re.fullmatch(r"\d{4}-\d\d-\d\d", p["publicationdate"])
        assert isinstance(p["year"], int)
        assert all(set(a) == {"authorId", "name"} and isinstance(a["authorId"], str) for a in p["authors"])
    cits = [r for _, r in read_dataset(rel / "citations")]
    idtype = int if fmt == "current" else str
    for c in cits:
        assert isinstance(c["citingcorpusid"], idtype)
        assert c["citedcorpusid"] is None or isinstance(c["citedcorpusid"], idtype)
        assert isinstance(c["isinfluential"], bool)
        if c["contexts"] is not None:
            assert all(isinstance(s, str) and s for s in c["contexts"])
            if fmt == "current":
                assert len(c["intents"]) == len(c["contexts"])
                assert all(i is None or (isinstance(i, list) and all(isinstance(x, str) for x in i)) for i in c["intents"])
            else:
                assert c["intents"] is None or all(isinstance(x, str) for x in c["intents"])
        else:
            assert c["intents"] is None
    authors = [r for _, r in read_dataset(rel / "authors")]
    assert all(isinstance(a["authorid"], str) and a["papercount"] >= 1 for a in authors)
    # authors named in papers are exactly the authors dataset
    named = {a["authorId"]: a["name"] for p in papers for a in p["authors"]}
    assert named == {a["authorid"]: a["name"] for a in authors}
    venues = {v["id"] for _, v in read_dataset(rel / "publication-venues")}
    assert {p["publicationvenueid"] for p in papers} - {None} <= venues


def test_citations_point_back_in_time_and_resolve(current_set):
    for rid in current_set.release_ids:
        rel = current_set.release_dir(rid)
        papers = {p["corpusid"]: p for _, p in read_dataset(rel / "papers")}
        n_checked = 0
        for _, c in read_dataset(rel / "citations"):
            assert c["citingcorpusid"] in papers
            if c["citedcorpusid"] is None:
                continue
            assert c["citedcorpusid"] in papers, "a resolved citation points to a paper outside the release"
            assert c["citingcorpusid"] != c["citedcorpusid"]
            a, b = papers[c["citingcorpusid"]]["publicationdate"], papers[c["citedcorpusid"]]["publicationdate"]
            if a and b:
                assert b <= a, (c, a, b)
                n_checked += 1
            assert papers[c["citedcorpusid"]]["year"] <= papers[c["citingcorpusid"]]["year"]
        assert n_checked > 10_000


@pytest.mark.parametrize("fmt", ["current", "legacy"])
def test_diffs_reproduce_next_release(fmt, current_set, legacy_set):
    rs = current_set if fmt == "current" else legacy_set
    ids = rs.release_ids
    for a, b in itertools.pairwise(ids):
        d = rs.diff_dir(a, b)
        for ds in DATASETS:
            cur = state(rs.release_dir(a) / ds, ds)
            want = state(rs.release_dir(b) / ds, ds)
            updates = [r for _, r in read_dataset(d / ds / "update_files")]
            deletes = [r for _, r in read_dataset(d / ds / "delete_files")]
            for r in updates:
                cur[key_of(ds, r)] = r
            for r in deletes:
                cur.pop(key_of(ds, r))
            assert cur == want, (fmt, a, b, ds)
            # a diff is minimal: every update is new or different, every delete was present
            before = state(rs.release_dir(a) / ds, ds)
            assert all(before.get(key_of(ds, r)) != r for r in updates)
            if ds in ("papers", "citations", "authors"):
                assert updates and (deletes or ds == "authors"), (ds, len(updates), len(deletes))


def test_quirks_current(current_set):
    rel = current_set.release_dir(current_set.release_ids[-1])
    papers = [p for _, p in read_dataset(rel / "papers")]
    n = len(papers)
    year_only = [p for p in papers if p["publicationdate"] is None]
    assert year_only and all(isinstance(p["year"], int) for p in year_only)
    assert len(year_only) < 0.1 * n
    assert any(p["venue"] == "" for p in papers)
    assert any(p["journal"] is None for p in papers)
    assert any(p["journal"] is not None and p["journal"]["name"] == "" for p in papers)
    assert any(p["authors"] == [] for p in papers)
    assert any(p["externalids"]["ArXiv"] is None for p in papers) and any(p["externalids"]["ArXiv"] for p in papers)
    assert any(p["externalids"]["DOI"] is None for p in papers) and any(p["externalids"]["DOI"] for p in papers)
    assert any("<mml:math" in p["title"] for p in papers)
    assert any(re.search(r"<(i|sub|sup|b|scp)>", p["title"]) for p in papers)
    counts = collections.Counter(p["title"] for p in papers)
    dups = {t: k for t, k in counts.items() if k > 1}
    assert dups, "no exact-duplicate titles planted"
    assert sum(dups.values()) < 0.01 * n, "titles must be unique apart from a few planted duplicates"
    pre = sum(1 for p in papers if p["publicationdate"] and p["publicationdate"] < "2026-04-01")
    assert (PRE_SHARE - 0.07) * n < pre < (PRE_SHARE + 0.07) * n
    # arXiv ids read YYMM.NNNNN: the publication month for arXiv-only papers, no later for the others
    # (their preprint came first); preprint DOIs are dated no later than the publication date
    lagged = 0
    for p in papers:
        ax, d = p["externalids"]["ArXiv"], p["publicationdate"]
        if ax:
            assert re.fullmatch(r"\d{4}\.\d{5}", ax) and d
            month = d[2:4] + d[5:7]
            assert ax[:4] == month if p["venue"] == "arXiv.org" else ax[:4] <= month
            lagged += ax[:4] < month
        doi = p["externalids"]["DOI"] or ""
        if m := re.fullmatch(r"10\.1101/(\d{4})\.(\d{2})\.(\d{2})\.\d{6}", doi):
            assert "-".join(m.groups()) <= d
        elif m := re.fullmatch(r"10\.20944/preprints(\d{4})(\d{2})\.\d{4,}\.v1", doi):
            assert "-".join(m.groups()) <= d[:7]
        else:
            assert not doi.startswith(("10.1101/", "10.20944/"))
    assert lagged > 0 and any(re.match(r"10\.(1101|20944)/", p["externalids"]["DOI"] or "") for p in papers)
    assert len({p["externalids"]["ArXiv"] for p in papers if p["externalids"]["ArXiv"]}) == sum(1 for p in papers if p["externalids"]["ArXiv"])
    rows = read_dataset(rel / "citations")
    assert any(c["citedcorpusid"] is None for _, c in rows)
    assert any(c["contexts"] for _, c in rows) and any(c["contexts"] is None for _, c in rows)
    shards_of = collections.defaultdict(set)
    times = collections.Counter()
    for shard, c in rows:
        shards_of[c["citationid"]].add(shard)
        times[c["citationid"]] += 1
    dup = [k for k, v in times.items() if v > 1]
    assert dup and all(len(shards_of[k]) == 2 for k in dup), "duplicate rows must sit in different shards"


def test_quirks_legacy(legacy_set):
    rel = legacy_set.release_dir(legacy_set.release_ids[-1])
    rows = [c for _, c in read_dataset(rel / "citations")]
    assert all(isinstance(c["citingcorpusid"], str) and "citationid" not in c for c in rows)
    assert all(re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", c["updated"]) for c in rows)
    assert any(c["intents"] and all(isinstance(x, str) for x in c["intents"]) for c in rows)
    # (citing, cited) is the legacy key: no two different records share one
    state(rel / "citations", "citations")


def test_refuses_existing_folder(tmp_path):
    out = tmp_path / "demo"
    write_demo_releases(out, papers=300, seed=1, releases=1)
    before = all_files(out)
    with pytest.raises(GraphNIAHError, match="already exists"):
        write_demo_releases(out, papers=300, seed=2, releases=1)
    assert all_files(out) == before
    write_demo_releases(out, papers=300, seed=2, releases=1, replace=True)
    assert all_files(out) != before
    precious = tmp_path / "precious"
    precious.mkdir()
    (precious / "thesis.tex").write_text("do not delete")
    with pytest.raises(GraphNIAHError, match="no demo releases"):
        write_demo_releases(precious, papers=300, releases=1, replace=True)
    assert (precious / "thesis.tex").read_text() == "do not delete"


@pytest.mark.parametrize(
    "kwargs, msg",
    [({"papers": 10}, "--papers"), ({"releases": 0}, "--releases"), ({"first_release": "2026-13-01"}, "first_release"),
     ({"first_release": "2026-04-15"}, "days after"), ({"seed": -1}, "--seed")],
)
def test_bad_arguments(tmp_path, kwargs, msg):
    with pytest.raises(GraphNIAHError, match=msg):
        write_demo_releases(tmp_path / "x", **kwargs)
    assert not (tmp_path / "x").exists()


def test_cli(tmp_path):
    cmd = [sys.executable, "-c", "from graphniah.cli import main; main()", "demo-release", "--out", str(tmp_path / "d"),
           "--papers", "400", "--seed", "5", "--releases", "2", "--legacy-format"]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert "SYNTHETIC" in r.stdout and "2026-10-13" in r.stdout and "400" in r.stdout
    assert DemoReleaseSet.open(tmp_path / "d").manifest("2026-10-13").format == "legacy"
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and "already exists" in r.stderr
