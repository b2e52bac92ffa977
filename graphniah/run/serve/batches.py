r"""A fake provider batch service on 127.0.0.1: OpenAI's files and batches API, answered by a keyless policy.

What ``graphniah run --batch`` is tested and measured against (``tests/run/test_batch*.py``,
``tests/faults/test_batch_kill.py``, ``bench/batch.py``). It speaks the OpenAI-compatible flow that
LiteLLM's ``create_file`` / ``create_batch`` / ``retrieve_batch`` / ``list_batches`` /
``file_content`` send:

- ``POST /v1/files`` (multipart: ``purpose``, ``file``), ``GET /v1/files`` (list),
  ``GET /v1/files/{id}``, ``GET /v1/files/{id}/content``;
- ``POST /v1/batches`` (``input_file_id``, ``endpoint``, ``completion_window``, ``metadata``),
  ``GET /v1/batches`` (newest first, ``limit`` and ``after``), ``GET /v1/batches/{id}``,
  ``POST /v1/batches/{id}/cancel``.

Each line of an input file is a ``/v1/chat/completions`` request; its answer is the policy's
(:class:`graphniah.run.serve.policies.PolicyApp`: oracle, random, always-NO), wrapped as the
provider wraps a batch output line (``{"custom_id", "response": {"status_code", "body"}}``), so
scores are what the same policy gives direct calls. A batch is ``validating`` when created and
finishes on its ``polls_to_complete``-th retrieval (:class:`BatchFaults`), when its lines are
answered all at once.

What it can do to a client (:class:`BatchFaults`): fail chosen lines on their first submission
(a 500 line in the error file), expire chosen batches (every line goes to the error file as
``batch_expired``), answer 429 to the first creations, hold one request at a chosen point until
the test releases it (``pause``: before a creation takes effect, after it, or before a results
download) so a test can kill the client exactly there, and slow downloads. Its state (files,
batches and counts) is written to ``state_dir`` after every change, so a server started again on
the same folder (a restart in the middle of a run) keeps every batch.

It also speaks Anthropic's Message Batches (what ``graphniah run --batch`` sends to an
``anthropic/...`` model): ``POST /v1/messages/batches`` (``{"requests": [{"custom_id", "params"}]}``),
``GET /v1/messages/batches`` (newest first, ``limit`` and ``after_id``), ``GET
/v1/messages/batches/{id}`` (``processing_status``, ``request_counts``, ``results_url`` once
ended), ``GET /v1/messages/batches/{id}/results`` (``{"custom_id", "result": {"type": "succeeded" |
"errored" | "expired", ...}}`` lines) and ``POST .../cancel``; the same faults apply. Given an
``api_key``, every Anthropic request must carry it as ``x-api-key`` (401 otherwise), so a test sees
the key sent without it being written anywhere.

And it speaks Gemini batch mode (what ``graphniah run --batch`` sends to a ``gemini/...`` model):
``POST /v1beta/models/{model}:batchGenerateContent`` (``{"batch": {"display_name", "input_config":
{"requests": {"requests": [{"request", "metadata": {"key"}}]}}}}``), ``GET /v1beta/batches/{id}``
(an Operation: ``metadata`` is the batch, its ``state`` ``BATCH_STATE_*`` and ``batchStats``; once
done, ``response.inlinedResponses.inlinedResponses``, a ``response`` or an ``error`` with the
request's ``metadata``), ``GET /v1beta/batches`` (``pageSize``, ``pageToken``; ``operations``,
``nextPageToken``) and ``POST /v1beta/batches/{id}:cancel``. The same faults apply; there the
``content`` pause holds the first request that would carry a done batch's results. Given an
``api_key``, every Gemini request must carry it as ``x-goog-api-key`` (403 otherwise).

It counts, per custom id, the submissions (lines in created batches: what a provider bills) and
the answers it produced (:attr:`BatchServer.submitted`, :attr:`BatchServer.answered`): the exactly
once tests compare them with the journal.
"""

from __future__ import annotations

import datetime as dt
import json
import tempfile
import threading
import time
import uuid
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from email.parser import BytesParser
from email.policy import HTTP
from pathlib import Path
from typing import Any, Literal
from urllib.parse import parse_qs, urlparse

from graphniah.atomic import atomic_write_bytes, atomic_write_text
from graphniah.errors import GraphNIAHError
from graphniah.run.serve.policies import Policy, PolicyApp, PolicyServer
from graphniah.run.serve.server import AppServer, QuietHandler, Rejection

Pause = Literal["create-before", "create-after", "content"]
_MAX_BODY = 512 << 20  # an OpenAI batch file may hold 200 MB


@dataclass(frozen=True)
class BatchFaults:
    """What the fake service does to its client.

    Parameters
    ----------
    polls_to_complete : int
        A batch finishes on its n-th retrieval (1: the first poll sees it done).
    fail_first : frozenset of str
        Custom ids whose first submission fails (a 500 line in the error file); later ones succeed.
    expire : frozenset of int
        The n-th created batches (counting from 1, over the server's life) expire: no line answered.
    rate_limit_creates : int
        The first this many ``POST /v1/batches`` answer 429 (nothing is created).
    pause : {"create-before", "create-after", "content"} or None
        Hold the first such request until :meth:`BatchServer.release`: before a creation (which then
        fails with 503 and creates nothing), after a creation (the reply then goes out), or before a
        results download. :attr:`BatchServer.paused` is set when a request is held.
    content_delay_s : float
        Sleep before each results download.
    """

    polls_to_complete: int = 1
    fail_first: frozenset[str] = frozenset()
    expire: frozenset[int] = frozenset()
    rate_limit_creates: int = 0
    pause: Pause | None = None
    content_delay_s: float = 0.0


def _now() -> int:
    return int(time.time())


class BatchState:
    """The service's files, batches and counts, persisted as ``state.json`` beside a ``files/`` folder."""

    def __init__(self, folder: Path):
        self.folder = folder
        (folder / "files").mkdir(parents=True, exist_ok=True)
        path = folder / "state.json"
        doc: dict[str, Any] = json.loads(path.read_text()) if path.exists() else {}
        self.files: dict[str, dict[str, Any]] = doc.get("files", {})
        self.batches: dict[str, dict[str, Any]] = doc.get("batches", {})
        self.submitted: Counter[str] = Counter(doc.get("submitted", {}))
        self.answered: Counter[str] = Counter(doc.get("answered", {}))
        self.failed_once: set[str] = set(doc.get("failed_once", []))
        self.creates: int = int(doc.get("creates", 0))
        self.rate_limited: int = int(doc.get("rate_limited", 0))
        self.paused_once: bool = bool(doc.get("paused_once", False))

    def save(self) -> None:
        doc = {"files": self.files, "batches": self.batches, "submitted": dict(self.submitted),
               "answered": dict(self.answered), "failed_once": sorted(self.failed_once), "creates": self.creates,
               "rate_limited": self.rate_limited, "paused_once": self.paused_once}
        atomic_write_text(self.folder / "state.json", json.dumps(doc))

    def file_path(self, file_id: str) -> Path:
        return self.folder / "files" / file_id

    def add_file(self, data: bytes, filename: str, purpose: str) -> dict[str, Any]:
        fid = f"file-{uuid.uuid4().hex[:24]}"
        atomic_write_bytes(self.file_path(fid), data)
        obj = {"id": fid, "object": "file", "bytes": len(data), "created_at": _now(), "filename": filename,
               "purpose": purpose, "status": "processed", "status_details": None}
        self.files[fid] = obj
        return obj


def _iso(epoch: int | None) -> str | None:
    return None if epoch is None else dt.datetime.fromtimestamp(epoch, dt.UTC).isoformat().replace("+00:00", "Z")


def _error_line(custom_id: str, status: int | None, code: str, message: str) -> dict[str, Any]:
    if status is None:  # a line the batch never ran (expired): no response, an error object
        return {"id": f"batch_req_{uuid.uuid4().hex}", "custom_id": custom_id, "response": None,
                "error": {"code": code, "message": message}}
    return {"id": f"batch_req_{uuid.uuid4().hex}", "custom_id": custom_id,
            "response": {"status_code": status, "request_id": uuid.uuid4().hex,
                         "body": {"error": {"message": message, "type": "server_error", "code": code}}},
            "error": None}


class BatchApp:
    """The service without its HTTP plumbing (thread-safe: one lock over the state)."""

    def __init__(self, policy: Policy, state_dir: Path, faults: BatchFaults, seed: int = 0, prompts: str | Path | None = None,
                 api_key: str | None = None):
        self.policy = PolicyApp(policy, seed=seed, prompts=prompts)
        self.faults = faults
        self.api_key = api_key
        self.state = BatchState(state_dir)
        self.lock = threading.RLock()
        self.paused = threading.Event()
        self.released = threading.Event()

    # -- pausing --------------------------------------------------------------------------------

    def hold(self, point: Pause) -> bool:
        """Hold the calling request if the faults pause at ``point`` and no request was held yet."""
        with self.lock:
            if self.faults.pause != point or self.state.paused_once:
                return False
            self.state.paused_once = True
            self.state.save()
        self.paused.set()
        self.released.wait(120)
        return True

    # -- files ----------------------------------------------------------------------------------

    def upload(self, content_type: str, body: bytes) -> dict[str, Any]:
        msg = BytesParser(policy=HTTP).parsebytes(b"Content-Type: " + content_type.encode() + b"\r\n\r\n" + body)
        if not msg.is_multipart():
            raise Rejection(400, "a file upload must be multipart/form-data", "invalid_request", "invalid_request_error")
        fields: dict[str, tuple[str | None, bytes]] = {}
        for part in msg.iter_parts():
            name = part.get_param("name", header="content-disposition")
            payload = part.get_payload(decode=True)
            if isinstance(name, str) and isinstance(payload, bytes):
                fields[name] = (part.get_filename(), payload)
        if "file" not in fields or "purpose" not in fields:
            raise Rejection(400, "a file upload needs 'file' and 'purpose'", "invalid_request", "invalid_request_error")
        filename, data = fields["file"]
        with self.lock:
            obj = self.state.add_file(data, filename or "upload.jsonl", fields["purpose"][1].decode())
            self.state.save()
        return obj

    def file(self, file_id: str) -> dict[str, Any]:
        with self.lock:
            if file_id not in self.state.files:
                raise Rejection(404, f"no file {file_id}", "not_found", "invalid_request_error")
            return self.state.files[file_id]

    def content(self, file_id: str) -> bytes:
        self.file(file_id)
        if self.faults.content_delay_s:
            time.sleep(self.faults.content_delay_s)
        self.hold("content")
        return self.state.file_path(file_id).read_bytes()

    # -- batches --------------------------------------------------------------------------------

    def create(self, payload: Mapping[str, Any]) -> dict[str, Any]:
        fid = str(payload.get("input_file_id") or "")
        lines = self._lines(fid)
        obj = {"id": f"batch_{uuid.uuid4().hex[:24]}", "object": "batch",
               "endpoint": payload.get("endpoint", "/v1/chat/completions"), "errors": None,
               "input_file_id": fid, "completion_window": payload.get("completion_window", "24h"),
               "status": "validating", "output_file_id": None, "error_file_id": None, "created_at": _now(),
               "in_progress_at": None, "expires_at": _now() + 86400, "finalizing_at": None, "completed_at": None,
               "failed_at": None, "expired_at": None, "cancelling_at": None, "cancelled_at": None,
               "request_counts": {"total": len(lines), "completed": 0, "failed": 0},
               "metadata": dict(payload.get("metadata") or {}), "_polls": 0}
        return self._public(self._make(obj, lines))

    def _make(self, obj: dict[str, Any], lines: list[dict[str, Any]]) -> dict[str, Any]:
        """Create a batch of these lines (the faults first: pause, rate limit); the stored object."""
        if self.hold("create-before"):
            raise Rejection(503, "the service was interrupted before creating the batch", "unavailable", "server_error")
        with self.lock:
            if self.state.rate_limited < self.faults.rate_limit_creates:
                self.state.rate_limited += 1
                self.state.save()
                raise Rejection(429, "too many batch creations; retry later", "rate_limit_exceeded", "requests",
                                headers={"Retry-After": "0"})
            self.state.creates += 1
            obj["_seq"] = self.state.creates
            for line in lines:
                self.state.submitted[self.example_of(str(line.get("custom_id")), obj)] += 1
            self.state.batches[obj["id"]] = obj
            self.state.save()
        self.hold("create-after")
        return obj

    # -- Anthropic's Message Batches ------------------------------------------------------------

    def check_key(self, key: str | None, header: str = "x-api-key") -> None:
        if self.api_key is not None and key != self.api_key:
            if header == "x-goog-api-key":
                raise Rejection(403, "API key not valid", "PERMISSION_DENIED", "PERMISSION_DENIED")
            raise Rejection(401, "invalid x-api-key", "authentication_error", "authentication_error")

    def create_messages(self, payload: Mapping[str, Any]) -> dict[str, Any]:
        """``POST /v1/messages/batches``: the requests are stored as the batch's input file."""
        reqs = payload.get("requests")
        if not isinstance(reqs, list) or not reqs or not all(isinstance(r, Mapping) and "params" in r for r in reqs):
            raise Rejection(400, "requests: a non-empty list of {custom_id, params}", "invalid_request_error",
                            "invalid_request_error")
        with self.lock:
            fid = self.state.add_file(b"".join(json.dumps(r).encode() + b"\n" for r in reqs), "requests.jsonl",
                                      "message_batch")["id"]
        lines = self._lines(fid)
        obj = {"id": f"msgbatch_{uuid.uuid4().hex[:24]}", "_shape": "anthropic", "input_file_id": fid,
               "status": "validating", "output_file_id": None, "error_file_id": None, "created_at": _now(),
               "ended_at": None, "in_progress_at": None, "request_counts": {"total": len(lines)}, "metadata": {},
               "_polls": 0}
        return self._make(obj, lines)

    # -- Gemini batch mode ------------------------------------------------------------------------

    def create_gemini(self, model: str, payload: Mapping[str, Any]) -> dict[str, Any]:
        """``POST /v1beta/models/{model}:batchGenerateContent``: the inlined requests are stored as the input file."""
        batch = payload.get("batch")
        batch = batch if isinstance(batch, Mapping) else {}
        config = batch.get("input_config") or batch.get("inputConfig") or {}
        holder = config.get("requests") if isinstance(config, Mapping) else None
        reqs = holder.get("requests") if isinstance(holder, Mapping) else None
        if not isinstance(reqs, list) or not reqs or not all(isinstance(r, Mapping) and "request" in r for r in reqs):
            raise Rejection(400, "batch.input_config.requests.requests: a non-empty list of {request, metadata}",
                            "INVALID_ARGUMENT", "INVALID_ARGUMENT")
        lines = [{"custom_id": str((r.get("metadata") or {}).get("key")), "request": r["request"]} for r in reqs]
        with self.lock:
            fid = self.state.add_file(b"".join(json.dumps(x).encode() + b"\n" for x in lines), "requests.jsonl",
                                      "gemini_batch")["id"]
        obj = {"id": f"batches/{uuid.uuid4().hex[:20]}", "_shape": "gemini", "input_file_id": fid,
               "display_name": str(batch.get("display_name") or batch.get("displayName") or ""),
               "model": f"models/{model}", "status": "validating", "output_file_id": None, "error_file_id": None,
               "created_at": _now(), "ended_at": None, "in_progress_at": None,
               "request_counts": {"total": len(self._lines(fid))}, "_polls": 0}
        return self._make(obj, self._lines(fid))

    def operation(self, obj: Mapping[str, Any], with_results: bool = True) -> dict[str, Any]:
        """A stored batch as Gemini shows it: an Operation whose ``metadata`` is the batch (and, once done, its results)."""
        state = {"validating": "BATCH_STATE_PENDING", "in_progress": "BATCH_STATE_RUNNING", "completed": "BATCH_STATE_SUCCEEDED",
                 "expired": "BATCH_STATE_EXPIRED", "cancelled": "BATCH_STATE_CANCELLED"}[obj["status"]]
        counts = obj.get("_counts") or {"total": obj["request_counts"]["total"], "ok": 0, "failed": 0}
        done = obj["status"] in ("completed", "expired", "cancelled")
        stamp = _iso(obj.get("ended_at") or obj["created_at"])
        meta = {"@type": "type.googleapis.com/google.ai.generativelanguage.v1beta.GenerateContentBatch",
                "model": obj["model"], "displayName": obj["display_name"], "createTime": _iso(obj["created_at"]),
                "updateTime": stamp, "state": state, "name": obj["id"],
                # int64 fields travel as JSON strings
                "batchStats": {"requestCount": str(counts["total"]), "successfulRequestCount": str(counts["ok"]),
                               "failedRequestCount": str(counts["failed"]),
                               "pendingRequestCount": str(0 if done else counts["total"])}}
        op: dict[str, Any] = {"name": obj["id"], "metadata": meta, "done": done}
        if with_results and obj.get("output_file_id"):
            items = [json.loads(x) for x in self.content(obj["output_file_id"]).splitlines() if x.strip()]
            op["response"] = {"@type": "type.googleapis.com/google.ai.generativelanguage.v1beta.GenerateContentBatchOutput",
                              "inlinedResponses": {"inlinedResponses": items}}
        return op

    def list_gemini(self, size: int, token: str | None) -> dict[str, Any]:
        with self.lock:
            ordered = sorted((b for b in self.state.batches.values() if b.get("_shape") == "gemini"),
                             key=lambda b: b["_seq"], reverse=True)
        start = int(token) if token and token.isdigit() else 0
        page = ordered[start:start + size]
        out: dict[str, Any] = {"operations": [self.operation(b, with_results=False) for b in page]}
        if start + size < len(ordered):
            out["nextPageToken"] = str(start + size)
        return out

    def _finish_gemini(self, obj: dict[str, Any]) -> None:
        """A Gemini batch ends: its inlined responses, one per request in order, stored as a file (none if it expired)."""
        expired = obj["_seq"] in self.faults.expire
        lines = self._lines(obj["input_file_id"])
        out: list[dict[str, Any]] = []
        for line in lines if not expired else []:
            cid = str(line["custom_id"])
            if self._fails(cid):
                out.append({"error": {"code": 13, "message": "Internal error encountered.", "status": "INTERNAL"},
                            "metadata": {"key": cid}})
            else:
                out.append({**self._content(cid, line.get("request") or {}, obj["model"]), "metadata": {"key": cid}})
        if out:
            obj["output_file_id"] = self.state.add_file(b"".join(json.dumps(x).encode() + b"\n" for x in out),
                                                        f"{obj['id'].split('/')[-1]}_responses.jsonl", "gemini_batch")["id"]
        ok = sum(1 for x in out if "response" in x)
        obj["_counts"] = {"total": len(lines), "ok": ok, "failed": len(out) - ok}
        obj["status"] = "expired" if expired else "completed"
        obj["ended_at"] = _now()

    def _content(self, cid: str, request: Mapping[str, Any], model: str) -> dict[str, Any]:
        """The policy's answer to a GenerateContentRequest: ``{"response": GenerateContentResponse}`` (or an ``error``)."""
        def text(content: Any) -> str:
            parts = content.get("parts") if isinstance(content, Mapping) else None
            return "".join(str(p.get("text") or "") for p in parts or [] if isinstance(p, Mapping))

        system = request.get("system_instruction") or request.get("systemInstruction")
        messages = ([{"role": "system", "content": text(system)}] if system else []) + [
            {"role": "assistant" if c.get("role") == "model" else "user", "content": text(c)}
            for c in request.get("contents") or [] if isinstance(c, Mapping)]
        try:
            body = self.policy.complete({"model": model, "messages": messages}, None)
        except Rejection as rej:
            return {"error": {"code": 3, "message": rej.message, "status": "INVALID_ARGUMENT"}}
        self.state.answered[cid] += 1
        usage = body.get("usage") or {}
        return {"response": {
            "candidates": [{"content": {"parts": [{"text": body["choices"][0]["message"]["content"]}], "role": "model"},
                            "finishReason": "STOP", "index": 0}],
            "usageMetadata": {"promptTokenCount": usage.get("prompt_tokens", 0),
                              "candidatesTokenCount": usage.get("completion_tokens", 0),
                              "totalTokenCount": usage.get("prompt_tokens", 0) + usage.get("completion_tokens", 0)},
            "modelVersion": model.split("/", 1)[-1]}}

    @staticmethod
    def message_batch(obj: Mapping[str, Any], base: str) -> dict[str, Any]:
        """A stored batch as Anthropic shows a Message Batch (``base``: the server's own URL)."""
        ended = obj["status"] in ("completed", "expired", "cancelled")
        state = "ended" if ended else "canceling" if obj["status"] == "cancelling" else "in_progress"
        counts = obj.get("_counts") or {"processing": obj["request_counts"]["total"], "succeeded": 0, "errored": 0,
                                        "canceled": 0, "expired": 0}
        return {"id": obj["id"], "type": "message_batch", "processing_status": state, "request_counts": counts,
                "ended_at": _iso(obj.get("ended_at")), "created_at": _iso(obj["created_at"]),
                "expires_at": _iso(obj["created_at"] + 86400), "archived_at": None, "cancel_initiated_at": None,
                "results_url": f"{base}/v1/messages/batches/{obj['id']}/results" if ended else None}

    def list_messages(self, limit: int, after: str | None, base: str) -> dict[str, Any]:
        with self.lock:
            ordered = sorted((b for b in self.state.batches.values() if b.get("_shape") == "anthropic"),
                             key=lambda b: b["_seq"], reverse=True)
        if after is not None:
            ids = [b["id"] for b in ordered]
            ordered = ordered[ids.index(after) + 1:] if after in ids else []
        page = ordered[:limit]
        return {"data": [self.message_batch(b, base) for b in page], "has_more": len(ordered) > len(page),
                "first_id": page[0]["id"] if page else None, "last_id": page[-1]["id"] if page else None}

    def stored(self, batch_id: str) -> dict[str, Any]:
        with self.lock:
            obj = self.state.batches.get(batch_id)
            if obj is None:
                raise Rejection(404, f"no batch {batch_id}", "not_found_error", "not_found_error")
            return obj

    def _lines(self, file_id: str) -> list[dict[str, Any]]:
        self.file(file_id)
        try:
            lines = [json.loads(x) for x in self.state.file_path(file_id).read_bytes().splitlines() if x.strip()]
        except ValueError as err:
            raise Rejection(400, f"input file {file_id} is not JSON lines ({err})", "invalid_file", "invalid_request_error") from None
        ids = [str(x.get("custom_id")) for x in lines]
        if not lines or len(set(ids)) != len(ids):
            raise Rejection(400, f"input file {file_id} is empty or repeats a custom_id", "invalid_file", "invalid_request_error")
        return lines

    @staticmethod
    def _public(obj: Mapping[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in obj.items() if not k.startswith("_")}

    def retrieve(self, batch_id: str) -> dict[str, Any]:
        with self.lock:
            obj = self.state.batches.get(batch_id)
            if obj is None:
                raise Rejection(404, f"no batch {batch_id}", "not_found", "invalid_request_error")
            if obj["status"] in ("validating", "in_progress"):
                obj["_polls"] += 1
                obj["status"], obj["in_progress_at"] = "in_progress", obj["in_progress_at"] or _now()
                if obj["_polls"] >= self.faults.polls_to_complete:
                    self._finish(obj)
                self.state.save()
            return self._public(obj)

    def cancel(self, batch_id: str) -> dict[str, Any]:
        with self.lock:
            obj = self.state.batches.get(batch_id)
            if obj is None:
                raise Rejection(404, f"no batch {batch_id}", "not_found", "invalid_request_error")
            if obj["status"] in ("validating", "in_progress"):
                obj["status"], obj["cancelled_at"] = "cancelled", _now()
                self.state.save()
            return self._public(obj)

    def list(self, limit: int, after: str | None) -> dict[str, Any]:
        with self.lock:
            ordered = sorted(self.state.batches.values(), key=lambda b: (b["_seq"]), reverse=True)
        if after is not None:
            ids = [b["id"] for b in ordered]
            ordered = ordered[ids.index(after) + 1:] if after in ids else []
        page = ordered[:limit]
        return {"object": "list", "data": [self._public(b) for b in page], "first_id": page[0]["id"] if page else None,
                "last_id": page[-1]["id"] if page else None, "has_more": len(ordered) > len(page)}

    @staticmethod
    def example_of(cid: str, obj: Mapping[str, Any]) -> str:
        """The id a line is counted and faulted under: the custom id, past the key part of an Anthropic one
        (``graphniah run --batch`` sends ``<8 characters of its key>-<example id>`` there)."""
        return cid.split("-", 1)[1] if obj.get("_shape") == "anthropic" and "-" in cid else cid

    def _fails(self, cid: str) -> bool:
        """Whether this submission of ``cid`` fails (the first one of a ``fail_first`` id)."""
        if cid in self.faults.fail_first and cid not in self.state.failed_once:
            self.state.failed_once.add(cid)
            return True
        return False

    def _finish(self, obj: dict[str, Any]) -> None:
        """Answer a batch's lines (or expire them) and write its output and error files."""
        if obj.get("_shape") == "anthropic":
            self._finish_messages(obj)
            return
        if obj.get("_shape") == "gemini":
            self._finish_gemini(obj)
            return
        lines = self._lines(obj["input_file_id"])
        expired = obj["_seq"] in self.faults.expire
        out: list[dict[str, Any]] = []
        err: list[dict[str, Any]] = []
        for line in lines:
            cid = str(line["custom_id"])
            if expired:
                err.append(_error_line(cid, None, "batch_expired", "This request could not be executed before the completion window expired."))
            elif self._fails(cid):
                err.append(_error_line(cid, 500, "server_error", "The server had an error while processing this request."))
            else:
                out.append(self._answer(cid, line))
        now = _now()
        if out:
            obj["output_file_id"] = self.state.add_file(b"".join(json.dumps(x).encode() + b"\n" for x in out),
                                                        f"{obj['id']}_output.jsonl", "batch_output")["id"]
        if err:
            obj["error_file_id"] = self.state.add_file(b"".join(json.dumps(x).encode() + b"\n" for x in err),
                                                       f"{obj['id']}_error.jsonl", "batch_output")["id"]
        obj["request_counts"] = {"total": len(lines), "completed": len(out), "failed": 0 if expired else len(err)}
        obj["status"] = "expired" if expired else "completed"
        obj["expired_at" if expired else "completed_at"] = now
        obj["finalizing_at"] = now

    def _finish_messages(self, obj: dict[str, Any]) -> None:
        """An Anthropic batch ends: one results file, a ``result`` per request."""
        expired = obj["_seq"] in self.faults.expire
        out: list[dict[str, Any]] = []
        counts = dict.fromkeys(("processing", "succeeded", "errored", "canceled", "expired"), 0)
        for line in self._lines(obj["input_file_id"]):
            cid = str(line["custom_id"])
            if expired:
                result: dict[str, Any] = {"type": "expired"}
            elif self._fails(self.example_of(cid, obj)):
                result = {"type": "errored", "error": {"type": "error", "error": {
                    "type": "api_error", "message": "Internal server error while processing this request."}}}
            else:
                result = self._message(self.example_of(cid, obj), line.get("params") or {})
            counts[result["type"]] += 1
            out.append({"custom_id": cid, "result": result})
        obj["output_file_id"] = self.state.add_file(b"".join(json.dumps(x).encode() + b"\n" for x in out),
                                                    f"{obj['id']}_results.jsonl", "message_batch_results")["id"]
        obj["_counts"] = counts
        obj["status"] = "expired" if expired else "completed"
        obj["ended_at"] = _now()

    def _message(self, cid: str, params: Mapping[str, Any]) -> dict[str, Any]:
        """The policy's answer to a Messages API request, as a ``succeeded`` (or ``errored``) result."""
        system = params.get("system")
        messages = ([{"role": "system", "content": system}] if system else []) + list(params.get("messages") or [])
        try:
            body = self.policy.complete({"model": params.get("model"), "messages": messages}, None)
        except Rejection as rej:
            return {"type": "errored", "error": {"type": "error", "error": {"type": "invalid_request_error",
                                                                              "message": rej.message}}}
        self.state.answered[cid] += 1
        usage = body.get("usage") or {}
        return {"type": "succeeded", "message": {
            "id": f"msg_{uuid.uuid4().hex[:24]}", "type": "message", "role": "assistant", "model": params.get("model"),
            "content": [{"type": "text", "text": body["choices"][0]["message"]["content"]}], "stop_reason": "end_turn",
            "usage": {"input_tokens": usage.get("prompt_tokens", 0), "output_tokens": usage.get("completion_tokens", 0)}}}

    def _answer(self, cid: str, line: Mapping[str, Any]) -> dict[str, Any]:
        try:
            body = self.policy.complete(line.get("body") or {}, None)
            status = 200
        except Rejection as rej:
            return _error_line(cid, rej.status, rej.code, rej.message)
        self.state.answered[cid] += 1
        return {"id": f"batch_req_{uuid.uuid4().hex}", "custom_id": cid,
                "response": {"status_code": status, "request_id": uuid.uuid4().hex, "body": body}, "error": None}


class _Handler(QuietHandler):
    server: _Server

    def _json(self, obj: Any) -> None:
        self.send(200, json.dumps(obj).encode())

    def _route(self, method: str) -> None:
        app = self.server.app
        url = urlparse(self.path)
        parts = [p for p in url.path.split("/") if p]
        if parts[:1] == ["v1"]:
            parts = parts[1:]
        gemini = parts[:1] == ["v1beta"]
        query = {k: v[-1] for k, v in parse_qs(url.query).items()}
        try:
            body = self._body() if method == "POST" else b""
            if parts[:2] == ["messages", "batches"]:
                app.check_key(self.headers.get("x-api-key"))
                self._messages(app, method, parts[2:], query, body)
            elif gemini:
                app.check_key(self.headers.get("x-goog-api-key"), "x-goog-api-key")
                self._gemini(app, method, parts[1:], query, body)
            else:
                self._dispatch(app, method, parts, query, body)
        except Rejection as rej:
            self.send(rej.status, rej.body(), rej.headers)
        except ValueError as err:
            self.send(400, Rejection(400, f"bad request ({err})", "invalid_request", "invalid_request_error").body())

    def _body(self) -> bytes:
        length = int(self.headers.get("Content-Length") or 0)
        if length > _MAX_BODY:
            raise Rejection(413, "request body too large", "invalid_body", "invalid_request_error")
        return self.rfile.read(length) if length > 0 else b""

    def _dispatch(self, app: BatchApp, method: str, parts: list[str], query: Mapping[str, str], body: bytes) -> None:
        route = (method, *parts[:1], *(["{id}"] if len(parts) > 1 else []), *parts[2:])
        if route == ("GET", "health"):
            self._json({"status": "ok"})
        elif route == ("POST", "files"):
            self._json(app.upload(self.headers.get("Content-Type") or "", body))
        elif route == ("GET", "files"):
            with app.lock:
                data = [f for f in app.state.files.values() if query.get("purpose") in (None, f["purpose"])]
            self._json({"object": "list", "data": data, "has_more": False})
        elif route == ("GET", "files", "{id}"):
            self._json(app.file(parts[1]))
        elif route == ("GET", "files", "{id}", "content"):
            self.send(200, app.content(parts[1]), content_type="application/octet-stream")
        elif route == ("POST", "batches"):
            self._json(app.create(json.loads(body or b"{}")))
        elif route == ("GET", "batches"):
            self._json(app.list(int(query.get("limit", 20)), query.get("after")))
        elif route == ("GET", "batches", "{id}"):
            self._json(app.retrieve(parts[1]))
        elif route == ("POST", "batches", "{id}", "cancel"):
            self._json(app.cancel(parts[1]))
        else:
            raise Rejection(404, f"no route {method} {self.path}", "not_found", "invalid_request_error")

    def _messages(self, app: BatchApp, method: str, rest: list[str], query: Mapping[str, str], body: bytes) -> None:
        """Anthropic's Message Batches routes (``rest``: the path after ``/v1/messages/batches``)."""
        base = f"http://{self.headers.get('Host') or '127.0.0.1'}"
        if (method, len(rest)) == ("POST", 0):
            self._json(app.message_batch(app.create_messages(json.loads(body or b"{}")), base))
        elif (method, len(rest)) == ("GET", 0):
            self._json(app.list_messages(int(query.get("limit", 20)), query.get("after_id"), base))
        elif (method, len(rest)) == ("GET", 1):
            app.retrieve(rest[0])
            self._json(app.message_batch(app.stored(rest[0]), base))
        elif (method, rest[1:]) == ("GET", ["results"]) and app.stored(rest[0]).get("output_file_id"):
            self.send(200, app.content(app.stored(rest[0])["output_file_id"]), content_type="application/binary")
        elif (method, rest[1:]) == ("POST", ["cancel"]):
            app.cancel(rest[0])
            self._json(app.message_batch(app.stored(rest[0]), base))
        else:
            raise Rejection(404, f"no route {method} {self.path}", "not_found_error", "not_found_error")

    def _gemini(self, app: BatchApp, method: str, parts: list[str], query: Mapping[str, str], body: bytes) -> None:
        """Gemini batch mode's routes (``parts``: the path after ``/v1beta``)."""
        last = parts[-1] if parts else ""
        if method == "POST" and len(parts) == 2 and parts[0] == "models" and last.endswith(":batchGenerateContent"):
            model = last.removesuffix(":batchGenerateContent")
            self._json(app.operation(app.create_gemini(model, json.loads(body or b"{}"))))
        elif (method, parts) == ("GET", ["batches"]):
            self._json(app.list_gemini(int(query.get("pageSize", 50)), query.get("pageToken")))
        elif method == "GET" and len(parts) == 2 and parts[0] == "batches":
            app.retrieve(f"batches/{last}")
            self._json(app.operation(app.stored(f"batches/{last}")))  # a done batch's results: the content pause
        elif method == "POST" and len(parts) == 2 and parts[0] == "batches" and last.endswith(":cancel"):
            batch_id = f"batches/{last.removesuffix(':cancel')}"
            app.cancel(batch_id)
            self._json(app.operation(app.stored(batch_id)))
        else:
            raise Rejection(404, f"no route {method} {self.path}", "NOT_FOUND", "NOT_FOUND")

    def do_GET(self) -> None:
        self._route("GET")

    def do_POST(self) -> None:
        self._route("POST")


class _Server(AppServer):
    app: BatchApp

    def __init__(self, address: tuple[str, int], app: BatchApp):
        super().__init__(address, _Handler, app)


class BatchServer(PolicyServer):
    """The fake batch service running on 127.0.0.1 in a background thread; use as a context manager.

    The policy server's plumbing (``port``, ``url``, ``start``, ``serve_forever``, the context
    manager) around the batch service's app and routes.

    Parameters
    ----------
    policy : {"oracle", "random", "always-no"}
        Who answers the requests.
    state_dir : path, optional
        Where the state is kept (a temporary folder if None); a server started again on the same
        folder (and port) carries on where the last one stopped.
    faults : BatchFaults, optional
        What to do to the client.
    port : int
        0 picks a free port.
    api_key : str, optional
        The ``x-api-key`` every Anthropic request, and the ``x-goog-api-key`` every Gemini request,
        must carry (None: any).
    """

    def __init__(self, policy: Policy = "oracle", *, state_dir: str | Path | None = None,
                 faults: BatchFaults | None = None, port: int = 0, seed: int = 0, prompts: str | Path | None = None,
                 api_key: str | None = None):
        self._tmp = tempfile.TemporaryDirectory(prefix="graphniah-batches-") if state_dir is None else None
        folder = Path(self._tmp.name if self._tmp is not None else state_dir)  # type: ignore[arg-type]  # one of the two is set
        self.batch_app = BatchApp(policy, folder, faults or BatchFaults(), seed=seed, prompts=prompts, api_key=api_key)
        self.app = self.batch_app.policy
        try:
            self._httpd = _Server(("127.0.0.1", port), self.batch_app)  # type: ignore[assignment]  # the batch routes, same server class
        except OSError as err:
            raise GraphNIAHError(f"cannot listen on 127.0.0.1:{port}: {err.strerror}") from None
        self._thread = None

    @property
    def submitted(self) -> Counter[str]:
        """Submissions per custom id: how many created batches held a line with it."""
        with self.batch_app.lock:
            return Counter(self.batch_app.state.submitted)

    @property
    def answered(self) -> Counter[str]:
        """Answers produced per custom id (lines of output files)."""
        with self.batch_app.lock:
            return Counter(self.batch_app.state.answered)

    @property
    def paused(self) -> threading.Event:
        return self.batch_app.paused

    def release(self) -> None:
        """Let a held request go on."""
        self.batch_app.released.set()

    def stop(self) -> None:
        self.release()  # a held request must not keep its handler thread waiting
        super().stop()

    def close(self) -> None:
        """Stop and remove a temporary state folder."""
        self.stop()
        if self._tmp is not None:
            self._tmp.cleanup()

    def __exit__(self, *exc: object) -> None:
        self.close()
