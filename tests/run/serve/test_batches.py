"""The fake batch service (graphniah.run.serve.batches) over plain HTTP: the OpenAI files and batches
flow, completion after N polls, failed and expired lines, 429 on create, restarts, counts."""

from __future__ import annotations

import json

import httpx
import pytest

from graphniah.run.serve.batches import BatchFaults, BatchServer


def _lines(n: int) -> bytes:
    body = {"model": "local-always-no", "messages": [{"role": "user", "content": "Is it?"}]}
    return b"".join(json.dumps({"custom_id": f"c{i}", "method": "POST", "url": "/v1/chat/completions", "body": body}).encode()
                    + b"\n" for i in range(n))


def _upload(c: httpx.Client, data: bytes, name: str = "in.jsonl") -> dict:
    r = c.post("/files", files={"file": (name, data, "application/jsonl")}, data={"purpose": "batch"})
    assert r.status_code == 200, r.text
    return r.json()


def _create(c: httpx.Client, file_id: str, tag: str = "k") -> httpx.Response:
    return c.post("/batches", json={"input_file_id": file_id, "endpoint": "/v1/chat/completions",
                                    "completion_window": "24h", "metadata": {"graphniah_key": tag}})


def _results(c: httpx.Client, file_id: str | None) -> dict[str, dict]:
    if file_id is None:
        return {}
    return {x["custom_id"]: x for x in map(json.loads, c.get(f"/files/{file_id}/content").content.splitlines())}


def test_a_batch_finishes_on_its_nth_poll_with_one_answer_per_line(tmp_path):
    with BatchServer("always-no", faults=BatchFaults(polls_to_complete=3)) as srv, httpx.Client(base_url=srv.url) as c:
        f = _upload(c, _lines(3), "graphniah-k.jsonl")
        assert (f["filename"], f["purpose"], f["bytes"]) == ("graphniah-k.jsonl", "batch", len(_lines(3)))
        assert [x["id"] for x in c.get("/files", params={"purpose": "batch"}).json()["data"]] == [f["id"]]
        b = _create(c, f["id"]).json()
        assert (b["status"], b["request_counts"], b["metadata"]) == ("validating", {"total": 3, "completed": 0, "failed": 0},
                                                                      {"graphniah_key": "k"})
        states = [c.get(f"/batches/{b['id']}").json()["status"] for _ in range(4)]
        assert states == ["in_progress", "in_progress", "completed", "completed"]
        done = c.get(f"/batches/{b['id']}").json()
        assert done["request_counts"] == {"total": 3, "completed": 3, "failed": 0} and done["error_file_id"] is None
        out = _results(c, done["output_file_id"])
        assert sorted(out) == ["c0", "c1", "c2"]
        assert {x["response"]["status_code"] for x in out.values()} == {200}
        assert {x["response"]["body"]["choices"][0]["message"]["content"] for x in out.values()} == {"\\answer{NO}"}
        assert srv.submitted == srv.answered == {"c0": 1, "c1": 1, "c2": 1}


def test_failed_lines_expired_batches_and_429(tmp_path):
    faults = BatchFaults(fail_first=frozenset({"c1"}), expire=frozenset({2}), rate_limit_creates=1)
    with BatchServer("always-no", faults=faults) as srv, httpx.Client(base_url=srv.url) as c:
        f = _upload(c, _lines(3))
        r = _create(c, f["id"])
        assert r.status_code == 429 and r.json()["error"]["code"] == "rate_limit_exceeded" and srv.submitted == {}
        first = _create(c, f["id"]).json()
        done = c.get(f"/batches/{first['id']}").json()
        assert done["request_counts"] == {"total": 3, "completed": 2, "failed": 1}
        err = _results(c, done["error_file_id"])
        assert list(err) == ["c1"] and err["c1"]["response"]["status_code"] == 500
        second = _create(c, f["id"]).json()  # the second batch created expires: no line runs
        gone = c.get(f"/batches/{second['id']}").json()
        assert gone["status"] == "expired" and gone["output_file_id"] is None
        expired = _results(c, gone["error_file_id"])
        assert sorted(expired) == ["c0", "c1", "c2"]
        assert {x["error"]["code"] for x in expired.values()} == {"batch_expired"} and all(x["response"] is None for x in expired.values())
        assert srv.submitted == {"c0": 2, "c1": 2, "c2": 2} and srv.answered == {"c0": 1, "c2": 1}


def test_listing_pages_newest_first_and_unknown_ids_are_404(tmp_path):
    with BatchServer("always-no") as srv, httpx.Client(base_url=srv.url) as c:
        f = _upload(c, _lines(1))
        ids = [_create(c, f["id"], f"k{i}").json()["id"] for i in range(3)]
        page = c.get("/batches", params={"limit": 2}).json()
        assert [b["id"] for b in page["data"]] == ids[::-1][:2] and page["has_more"]
        rest = c.get("/batches", params={"limit": 2, "after": page["last_id"]}).json()
        assert [b["id"] for b in rest["data"]] == [ids[0]] and not rest["has_more"]
        assert c.post(f"/batches/{ids[0]}/cancel").json()["status"] == "cancelled"
        assert c.get("/batches/batch_nope").status_code == 404 and c.get("/files/file-nope/content").status_code == 404
        assert _create(c, "file-nope").status_code == 404


def test_a_restarted_server_keeps_its_batches_files_and_counts(tmp_path):
    state = tmp_path / "state"
    with BatchServer("always-no", state_dir=state, faults=BatchFaults(polls_to_complete=2)) as srv, \
            httpx.Client(base_url=srv.url) as c:
        f = _upload(c, _lines(2))
        b = _create(c, f["id"]).json()
        assert c.get(f"/batches/{b['id']}").json()["status"] == "in_progress"
    with BatchServer("always-no", state_dir=state, faults=BatchFaults(polls_to_complete=2)) as again, \
            httpx.Client(base_url=again.url) as c:
        done = c.get(f"/batches/{b['id']}").json()  # the second poll, counted across the restart
        assert done["status"] == "completed" and sorted(_results(c, done["output_file_id"])) == ["c0", "c1"]
        assert again.submitted == again.answered == {"c0": 1, "c1": 1}


@pytest.mark.parametrize("bad", [b"not json\n", _lines(1) + _lines(1)])
def test_an_input_file_that_is_not_json_lines_or_repeats_an_id_is_refused(tmp_path, bad):
    with BatchServer("always-no") as srv, httpx.Client(base_url=srv.url) as c:
        r = _create(c, _upload(c, bad)["id"])
        assert r.status_code == 400 and r.json()["error"]["code"] == "invalid_file" and srv.submitted == {}
