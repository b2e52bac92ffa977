"""The S2AG Datasets API client against the fake API server (real HTTP on 127.0.0.1).

Every test starts its own ``FakeS2AG`` over one shared, read-only served folder (a small demo
release set) and downloads into its own ``tmp_path``; the server's request log is the witness for
what was (not) fetched again.
"""

from __future__ import annotations

import email.utils
import gzip
import json
import logging
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
import numpy as np
import pytest

from graphniah.errors import GraphNIAHError
from graphniah.ingest.demo_release import write_demo_releases
from graphniah.ingest.s2ag.api import DEFAULT_DATASETS, S2AGClient, local_names, redact_url
from tests.ingest.s2ag.fake_api import FakeS2AG, Faults, LoggedRequest
from tests.secret_scan import assert_secret_absent

KEY = "k3y-Sup3rSecret-7f1c9a0e4b"
RELEASES = ("2026-10-06", "2026-10-13", "2026-10-20")
FAST = {"max_retries": 6, "backoff_s": 0.001, "timeout_s": 10.0}


def _shard(path: Path, rng: np.random.Generator, rows: int) -> None:
    """A gzip JSON-lines shard of S2AG-shaped paper records, for hand-made edge-case releases."""
    lines = []
    for _ in range(rows):
        cid = int(rng.integers(1, 10**9))
        lines.append(
            json.dumps(
                {
                    "corpusid": cid,
                    "externalids": {"ArXiv": f"2609.{cid % 100000:05d}", "DOI": None},
                    "title": rng.bytes(24).hex(),
                    "authors": [{"authorId": str(int(rng.integers(1, 10**8))), "name": "A. Author"}],
                    "venue": "",
                    "year": 2026,
                    "publicationdate": "2026-09-01",
                    "journal": None,
                    "abstract": rng.bytes(200).hex(),
                }
            )
        )
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(gzip.compress(("\n".join(lines) + "\n").encode(), mtime=0))


_SERVED: dict[Path, Path] = {}


def served_demo(factory: pytest.TempPathFactory) -> Path:
    """The demo release set the fake server serves (three releases, two diffs), built once per
    session: the CLI tests reuse it through this function."""
    base = factory.getbasetemp()
    if base not in _SERVED:
        root = factory.mktemp("served") / "s2ag"
        rs = write_demo_releases(root, papers=2000, seed=1, releases=3, first_release=RELEASES[0], shard_rows=1000)
        assert rs.ids == RELEASES
        _SERVED[base] = root
    return _SERVED[base]


def shard(served: Path, folder: str, i: int = 0) -> str:
    """Relative path of the ``i``-th shard (by name) in a served folder."""
    return sorted(p for p in (served / folder).glob("*.gz"))[i].relative_to(served).as_posix()


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return served_demo(tmp_path_factory)


@pytest.fixture
def fake(served: Path) -> Iterator[FakeS2AG]:
    with FakeS2AG(served, api_key=KEY) as srv:
        yield srv


def _files(srv: FakeS2AG) -> list[LoggedRequest]:
    return [r for r in srv.requests if r.kind == "file"]


def _assert_same_tree(served: Path, got: Path) -> None:
    want = sorted(p.relative_to(served) for p in served.rglob("*.gz"))
    have = sorted(p.relative_to(got) for p in got.rglob("*.gz"))
    assert have == want
    for rel in want:
        assert (got / rel).read_bytes() == (served / rel).read_bytes(), rel


# ----------------------------------------------------------------------------- names and URLs


def test_local_names_are_unique_stable_and_query_free() -> None:
    urls = [
        "https://s3.example/staging/2026-09-01/papers/20260901_abc_0001.gz?X-Amz-Signature=aa&Expires=1",
        "https://s3.example/staging/2026-09-01/papers/shard%20two?sig=bb",
        "https://s3.example/a/dup.gz?sig=1",
        "https://s3.example/b/dup.gz?sig=2",
        "https://s3.example/a/dup.gz?sig=3",  # same object listed twice: one file
        "https://s3.example/c/..",
    ]
    names = local_names(urls)
    assert list(names)[:2] == ["20260901_abc_0001.gz", "shard_two.gz"]
    dups = [n for n in names if n.startswith("dup-")]
    assert len(dups) == 2 and len(set(dups)) == 2
    assert all(n.endswith(".gz") and "/" not in n and not n.startswith(".") for n in names)
    assert len(names) == 5
    fresh = [u.split("?")[0] + "?sig=fresh" for u in urls]
    assert list(local_names(fresh)) == list(names)  # new pre-signed queries, same names


def test_redact_url_drops_credentials() -> None:
    url = "https://user:pw@bucket.s3.amazonaws.com:8443/p/a.gz?X-Amz-Signature=abc&X-Amz-Credential=x#frag"
    assert redact_url(url) == "https://bucket.s3.amazonaws.com:8443/p/a.gz"


# ----------------------------------------------------------------------------- listings


def test_releases_latest_and_key_check(fake: FakeS2AG) -> None:
    with S2AGClient(KEY, fake.base_url, **FAST) as c:
        assert c.releases() == list(RELEASES)
        assert c.latest_release() == RELEASES[-1]
        info = c.release(RELEASES[0])
        assert {d.name for d in info.datasets} == set(DEFAULT_DATASETS)
        n_papers = len(list((fake.root / "releases" / RELEASES[0] / "papers").glob("*.gz")))
        assert n_papers > 1 and len(c.dataset(RELEASES[0], "papers").files) == n_papers
        with pytest.raises(GraphNIAHError, match=r"no https?://.*/release/1999-01-01"):
            c.release("1999-01-01")
    assert {r.key for r in fake.requests} == {"ok"}
    with S2AGClient(None, fake.base_url, **FAST) as c, pytest.raises(GraphNIAHError, match="set S2_API_KEY"):
        c.releases()
    with S2AGClient("wrong", fake.base_url, **FAST) as c, pytest.raises(GraphNIAHError, match="HTTP 403"):
        c.releases()
    assert [r.key for r in fake.requests[-2:]] == ["missing", "wrong"]


def test_unsafe_ids_are_refused_before_any_request(fake: FakeS2AG, tmp_path: Path) -> None:
    with S2AGClient(KEY, fake.base_url, **FAST) as c:
        for bad in ("../x", "a/b", ""):
            with pytest.raises(GraphNIAHError, match="invalid"):
                c.download_release(bad, tmp_path)
    assert fake.requests == ()


# ----------------------------------------------------------------------------- full downloads


def test_full_release_download_is_byte_exact_and_rerun_fetches_nothing(
    fake: FakeS2AG, served: Path, tmp_path: Path
) -> None:
    with S2AGClient(KEY, fake.base_url, **FAST) as c:
        folder = c.download_release("latest", tmp_path)
    assert folder == tmp_path / "releases" / RELEASES[-1]
    _assert_same_tree(served / "releases" / RELEASES[-1], folder)
    meta = json.loads((folder / "release.json").read_text())
    assert meta["release_id"] == RELEASES[-1] and meta["synthetic"] is False
    assert meta["missing_datasets"] == []
    served_papers = sorted(p.name for p in (served / "releases" / RELEASES[-1] / "papers").glob("*.gz"))
    assert [f["name"] for f in meta["datasets"]["papers"]["files"]] == served_papers
    assert not list(folder.rglob("*.part*"))
    n_served = len(list((served / "releases" / RELEASES[-1]).rglob("*.gz")))
    assert len(_files(fake)) == n_served and all(r.status == 200 and r.range is None for r in _files(fake))

    fake.clear_log()
    with S2AGClient(KEY, fake.base_url, **FAST) as c:
        assert c.download_release(RELEASES[-1], tmp_path) == folder
    assert fake.requests == ()  # complete marker: not even a listing
    fake.clear_log()
    (folder / "release.json").unlink()  # crash before the marker: files are kept, only listed again
    with S2AGClient(KEY, fake.base_url, **FAST) as c:
        c.download_release(RELEASES[-1], tmp_path)
    assert _files(fake) == [] and (folder / "release.json").exists()


def test_adding_a_dataset_reopens_the_release(fake: FakeS2AG, served: Path, tmp_path: Path) -> None:
    rid = RELEASES[0]
    with S2AGClient(KEY, fake.base_url, **FAST) as c:
        folder = c.download_release(rid, tmp_path, ["papers"])
        assert set(json.loads((folder / "release.json").read_text())["datasets"]) == {"papers"}
        fake.clear_log()
        c.download_release(rid, tmp_path, ["papers", "citations"])
    assert {r.file.split("/")[2] for r in _files(fake)} == {"citations"}
    assert set(json.loads((folder / "release.json").read_text())["datasets"]) == {"papers", "citations"}
    _assert_same_tree(served / "releases" / rid / "citations", folder / "citations")


def test_missing_optional_dataset_is_recorded_required_one_fails(tmp_path: Path) -> None:
    served = tmp_path / "served"
    rng = np.random.default_rng(3)
    _shard(served / "releases" / "2026-01-01" / "papers" / "a.gz", rng, 5)
    _shard(served / "releases" / "2026-01-01" / "citations" / "a.gz", rng, 5)
    (served / "releases" / "2026-01-01" / "release.json").write_text("{}")
    with FakeS2AG(served, api_key=KEY) as srv, S2AGClient(KEY, srv.base_url, **FAST) as c:
        folder = c.download_release("2026-01-01", tmp_path / "out")
        meta = json.loads((folder / "release.json").read_text())
        assert meta["missing_datasets"] == ["authors", "publication-venues"]
        assert set(meta["datasets"]) == {"papers", "citations"}
        with pytest.raises(GraphNIAHError, match="no dataset 'tldrs'"):
            c.download_release("2026-01-01", tmp_path / "out2", ["papers", "tldrs"])


def test_stray_shards_are_refused(fake: FakeS2AG, tmp_path: Path) -> None:
    stray = tmp_path / "releases" / RELEASES[0] / "papers" / "old-shard.gz"
    stray.parent.mkdir(parents=True)
    stray.write_bytes(b"x")
    with S2AGClient(KEY, fake.base_url, **FAST) as c, pytest.raises(GraphNIAHError, match=r"old-shard\.gz"):
        c.download_release(RELEASES[0], tmp_path, ["papers"])


def test_synthetic_release_folder_is_not_mixed_with_a_download(fake: FakeS2AG, tmp_path: Path) -> None:
    folder = tmp_path / "releases" / RELEASES[0]
    folder.mkdir(parents=True)
    (folder / "release.json").write_text(json.dumps({"release_id": RELEASES[0], "synthetic": True}))
    with S2AGClient(KEY, fake.base_url, **FAST) as c, pytest.raises(GraphNIAHError, match="synthetic"):
        c.download_release(RELEASES[0], tmp_path, ["papers"])


# ----------------------------------------------------------------------------- rate limits, errors


def test_429_storm_then_success(served: Path, tmp_path: Path) -> None:
    with FakeS2AG(served, api_key=KEY, faults=Faults(too_many_requests=5, retry_after=0)) as srv:
        with S2AGClient(KEY, srv.base_url, **FAST) as c:
            folder = c.download_release(RELEASES[0], tmp_path, ["papers"])
        statuses = [r.status for r in srv.requests]
    assert statuses[:5] == [429] * 5 and 429 not in statuses[5:]
    _assert_same_tree(served / "releases" / RELEASES[0] / "papers", folder / "papers")


def test_file_server_errors_and_retry_after_are_honoured(served: Path, tmp_path: Path) -> None:
    faults = Faults(too_many_requests=1, retry_after=0.4, server_errors=2, fault_scope="files")
    with FakeS2AG(served, api_key=KEY, faults=faults) as srv:
        t0 = time.monotonic()
        with S2AGClient(KEY, srv.base_url, **FAST) as c:
            folder = c.download_release(RELEASES[0], tmp_path, ["citations"])
        elapsed = time.monotonic() - t0
        assert [r.status for r in _files(srv)][:3] == [429, 503, 503]
    assert elapsed >= 0.4  # backoff_s is 1 ms: only Retry-After explains the wait
    _assert_same_tree(served / "releases" / RELEASES[0] / "citations", folder / "citations")


def test_retry_after_as_an_http_date_is_honoured(served: Path, tmp_path: Path) -> None:
    # An HTTP-date has whole seconds: 2 s ahead means a wait of more than 1 s once it is parsed.
    when = email.utils.format_datetime(datetime.now(UTC) + timedelta(seconds=2), usegmt=True)
    faults = Faults(too_many_requests=1, retry_after=when, fault_scope="api")
    with FakeS2AG(served, api_key=KEY, faults=faults) as srv:
        t0 = time.monotonic()
        with S2AGClient(KEY, srv.base_url, **FAST) as c:
            assert c.releases() == list(RELEASES)
        elapsed = time.monotonic() - t0
        assert [r.status for r in srv.requests][:2] == [429, 200]
    assert elapsed >= 1.0  # backoff_s is 1 ms: only the date explains the wait


@pytest.mark.parametrize("scope", ["api", "files"])
def test_bounded_retries_give_a_clear_error(served: Path, tmp_path: Path, scope: str) -> None:
    faults = Faults(too_many_requests=1000, retry_after=None, fault_scope=scope)  # type: ignore[arg-type]
    with FakeS2AG(served, api_key=KEY, faults=faults) as srv:
        with S2AGClient(KEY, srv.base_url, max_retries=3, backoff_s=0.001) as c:
            with pytest.raises(GraphNIAHError) as info:
                c.download_release(RELEASES[0], tmp_path, ["papers"])
        throttled = [r for r in srv.requests if r.status == 429]
        origin = srv.origin
    msg = str(info.value)
    assert len(throttled) == 4  # one try + three retries
    assert "HTTP 429" in msg and "gave up after 3 retries" in msg
    where = "/datasets/v1/release/" if scope == "api" else "/s3/" + shard(served, f"releases/{RELEASES[0]}/papers")
    assert f"{origin}{where}" in msg
    assert "?" not in msg and "X-Signature" not in msg and KEY not in msg and KEY not in repr(info.value)


# ----------------------------------------------------------------------------- resume paths


def test_expired_link_gets_a_fresh_list_and_resumes_without_refetching(served: Path, tmp_path: Path) -> None:
    target = shard(served, f"releases/{RELEASES[1]}/papers", 1)
    size = (served / target).stat().st_size
    cut = size // 3
    faults = Faults(single_use_links=True, cut_after={target: cut})
    with FakeS2AG(served, api_key=KEY, faults=faults) as srv:
        with S2AGClient(KEY, srv.base_url, **FAST) as c:
            c.download_release(RELEASES[1], tmp_path, ["papers"])
        log = list(srv.requests)
    mine = [(i, r) for i, r in enumerate(log) if r.file == target]
    assert [(r.status, r.range, r.first_byte, r.body_bytes) for _, r in mine] == [
        (200, None, 0, cut),  # cut mid-file
        (403, f"bytes={cut}-", None, 0),  # the same single-use link again: expired
        (206, f"bytes={cut}-", cut, size - cut),  # fresh link, resumed where the cut left off
    ]
    between = log[mine[1][0] + 1 : mine[2][0]]
    assert [r.path for r in between] == [f"/datasets/v1/release/{RELEASES[1]}/dataset/papers"]
    assert sum(r.body_bytes for _, r in mine) == size  # no byte fetched twice
    assert (tmp_path / target).read_bytes() == (served / target).read_bytes()


def test_links_that_never_stay_valid_give_a_bounded_error(served: Path, tmp_path: Path) -> None:
    with FakeS2AG(served, api_key=KEY, faults=Faults(link_ttl_s=0)) as srv:
        with S2AGClient(KEY, srv.base_url, max_retries=2, backoff_s=0.001) as c:
            with pytest.raises(GraphNIAHError, match=r"still answers 403 after 2 fresh file lists"):
                c.download_release(RELEASES[0], tmp_path, ["authors"])
        refused = [r for r in _files(srv) if r.status == 403]
        listings = [r for r in srv.requests if r.path.endswith("/dataset/authors")]
    assert len(refused) == 3 and len(listings) == 3  # first list + two fresh ones


def test_link_expiry_by_time(served: Path) -> None:
    # Two seconds to live: long enough for the first download on a loaded machine (0.3 s was not), short for a test.
    with FakeS2AG(served, api_key=KEY, faults=Faults(link_ttl_s=2.0)) as srv:
        with S2AGClient(KEY, srv.base_url, **FAST) as c:
            url = c.dataset(RELEASES[0], "authors").files[0]
        assert httpx.get(url).status_code == 200
        time.sleep(2.5)
        assert httpx.get(url).status_code == 403
    with FakeS2AG(served, api_key=KEY) as srv:
        with S2AGClient(KEY, srv.base_url, **FAST) as c:
            url = c.dataset(RELEASES[0], "authors").files[0]
        srv.expire_links()
        assert httpx.get(url).status_code == 403
        assert httpx.get(url.replace("X-Signature=", "X-Signature=0")).status_code == 403


def test_connection_cut_mid_file_resumes_with_range(served: Path, tmp_path: Path) -> None:
    target = shard(served, f"releases/{RELEASES[0]}/citations")
    size = (served / target).stat().st_size
    faults = Faults(cut_after={target: 1000})
    with FakeS2AG(served, api_key=KEY, faults=faults) as srv:
        with S2AGClient(KEY, srv.base_url, **FAST) as c:
            c.download_release(RELEASES[0], tmp_path, ["citations"])
        mine = [r for r in srv.requests if r.file == target]
    assert [(r.status, r.range, r.body_bytes) for r in mine] == [(200, None, 1000), (206, "bytes=1000-", size - 1000)]
    assert (tmp_path / target).read_bytes() == (served / target).read_bytes()


def test_partial_file_from_an_earlier_run_is_resumed(served: Path, tmp_path: Path) -> None:
    target = shard(served, f"releases/{RELEASES[0]}/authors")
    data = (served / target).read_bytes()
    part = tmp_path / (target + ".part")
    part.parent.mkdir(parents=True)
    part.write_bytes(data[:777])  # a crash left a prefix and no state file
    with FakeS2AG(served, api_key=KEY) as srv:
        with S2AGClient(KEY, srv.base_url, **FAST) as c:
            c.download_release(RELEASES[0], tmp_path, ["authors"])
        assert [(r.range, r.body_bytes) for r in _files(srv) if r.file == target] == [("bytes=777-", len(data) - 777)]
    assert (tmp_path / target).read_bytes() == data and not part.exists()


def test_a_server_that_ignores_range_makes_the_client_restart(served: Path, tmp_path: Path) -> None:
    target = shard(served, f"releases/{RELEASES[0]}/authors")
    size = (served / target).stat().st_size
    with FakeS2AG(served, api_key=KEY, faults=Faults(cut_after={target: 500}, ignore_range=True)) as srv:
        with S2AGClient(KEY, srv.base_url, **FAST) as c:
            c.download_release(RELEASES[0], tmp_path, ["authors"])
        mine = [(r.status, r.range, r.body_bytes) for r in _files(srv) if r.file == target]
    assert mine == [(200, None, 500), (200, "bytes=500-", size)]
    assert (tmp_path / target).read_bytes() == (served / target).read_bytes()


def test_truncated_body_is_detected_and_never_renamed(served: Path, tmp_path: Path) -> None:
    target = shard(served, f"releases/{RELEASES[0]}/authors")
    size = (served / target).stat().st_size
    with FakeS2AG(served, api_key=KEY, faults=Faults(overstate_length={target: 100})) as srv:
        for _ in range(2):  # a second run does not take the short file for complete either
            with S2AGClient(KEY, srv.base_url, **FAST) as c:
                with pytest.raises(GraphNIAHError, match=rf"announced {size + 100} bytes but now reports {size}"):
                    c.download_release(RELEASES[0], tmp_path, ["authors"])
    out = tmp_path / target
    assert not out.exists() and not (out.parent.parent / "release.json").exists()
    assert out.with_name(out.name + ".part").stat().st_size == size


# ----------------------------------------------------------------------------- diffs


def test_diffs_download_in_order_and_rerun_fetches_nothing(fake: FakeS2AG, served: Path, tmp_path: Path) -> None:
    with S2AGClient(KEY, fake.base_url, **FAST) as c:
        folders = c.download_diffs(RELEASES[0], "latest", tmp_path)
        assert c.download_diffs(RELEASES[1], RELEASES[1], tmp_path) == []
    steps = [f"{a}_to_{b}" for a, b in zip(RELEASES, RELEASES[1:], strict=False)]
    assert folders == [tmp_path / "diffs" / s for s in steps]
    _assert_same_tree(served / "diffs", tmp_path / "diffs")
    for (frm, to), folder in zip(zip(RELEASES, RELEASES[1:], strict=False), folders, strict=True):
        meta = json.loads((folder / "diff.json").read_text())
        assert (meta["from_release"], meta["to_release"], meta["synthetic"]) == (frm, to, False)
        assert set(meta["datasets"]) == set(DEFAULT_DATASETS)
    fake.clear_log()
    with S2AGClient(KEY, fake.base_url, **FAST) as c:
        assert c.download_diffs(RELEASES[0], RELEASES[-1], tmp_path) == folders
    assert _files(fake) == []
    with S2AGClient(KEY, fake.base_url, **FAST) as c, pytest.raises(GraphNIAHError, match="HTTP 404"):
        c.download_diffs(RELEASES[-1], RELEASES[0], tmp_path)


def test_expired_diff_link_refreshes_from_the_diff_list(served: Path, tmp_path: Path) -> None:
    target = shard(served, f"diffs/{RELEASES[1]}_to_{RELEASES[2]}/papers/update_files")
    size = (served / target).stat().st_size
    faults = Faults(single_use_links=True, cut_after={target: size // 2})
    with FakeS2AG(served, api_key=KEY, faults=faults) as srv:
        with S2AGClient(KEY, srv.base_url, **FAST) as c:
            c.download_diffs(RELEASES[0], RELEASES[2], tmp_path, ["papers", "citations"])
        mine = [r for r in srv.requests if r.file == target]
    assert [r.status for r in mine] == [200, 403, 206]
    assert sum(r.body_bytes for r in mine) == size
    assert (tmp_path / target).read_bytes() == (served / target).read_bytes()


# ----------------------------------------------------------------------------- the key stays secret


def test_the_key_never_reaches_a_file_log_or_error(
    served: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture, capfd: pytest.CaptureFixture[str]
) -> None:
    caplog.set_level(logging.DEBUG)  # httpx/httpcore debug logs included
    target = shard(served, f"releases/{RELEASES[0]}/papers")
    faults = Faults(too_many_requests=2, single_use_links=True, cut_after={target: 4096})
    texts: list[str] = []
    with FakeS2AG(served, api_key=KEY, faults=faults) as srv:
        with S2AGClient(KEY, srv.base_url, **FAST) as c:
            texts.append(repr(c))
            c.download_release(RELEASES[0], tmp_path, ["papers"])
            c.download_diffs(RELEASES[0], RELEASES[1], tmp_path, ["citations"])
            with pytest.raises(GraphNIAHError) as nf:
                c.release("2000-01-01")
            texts += [str(nf.value), repr(nf.value)]
        with S2AGClient(KEY + "x", srv.base_url, max_retries=1, backoff_s=0.001) as c:
            with pytest.raises(GraphNIAHError) as bad:
                c.releases()
            texts += [str(bad.value), repr(bad.value)]
        texts.append(repr(srv.requests))
        assert {r.key for r in _files(srv)} == {""}  # the pre-signed file host never sees the key
    with S2AGClient(KEY, "http://127.0.0.1:9/datasets/v1", max_retries=1, backoff_s=0.001) as c:
        with pytest.raises(GraphNIAHError) as down:  # nothing listens on port 9
            c.releases()
        texts += [str(down.value), repr(down.value), repr(down.value.__cause__), repr(down.value.__context__)]
    out, err = capfd.readouterr()
    texts += [out, err, caplog.text, *(r.getMessage() for r in caplog.records)]
    assert any("retry" in t for t in texts)  # the checks below did read the retry messages
    for t in texts:
        assert KEY not in t
    written = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert len(written) > 5
    assert_secret_absent(tmp_path, KEY)  # file names and decoded contents (gzip shards included)
