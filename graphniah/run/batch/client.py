"""An OpenAI-compatible provider's files and batches API through LiteLLM (``create_file``, ``create_batch``, ``retrieve_batch``,
``list_batches``, ``file_list``, ``file_content``), as the batch loop needs it.

Every call is one HTTP request (LiteLLM's own retries are off: the loop retries, and a creation is
retried only after looking for the batch it may have made). The key is LiteLLM's usual environment
variable; a local endpoint gets the dummy key the direct runner sends.

How a batch is found again after a kill: the input file is named ``graphniah-<key>.jsonl`` and the
batch carries ``metadata: {"graphniah_key": <key>}``, where the key is journaled before the upload
(:class:`graphniah.formats.journal.BatchRecord`). :meth:`Batches.find_batch` lists the account's
batches, newest first, back to an hour before the intent was journaled.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from graphniah.errors import GraphNIAHError
from graphniah.formats.examples import ExampleRef
from graphniah.formats.journal import BatchCounts
from graphniah.run.batch.lines import ENDPOINT, LineResult, read_results, request_line
from graphniah.run.batch.options import provider_of
from graphniah.run.client import litellm_module
from graphniah.run.models import LOCAL_DUMMY_KEY, ModelEntry

TAG = "graphniah_key"
#: States after which a batch changes no more (``ended``: an Anthropic batch).
TERMINAL = frozenset({"completed", "failed", "expired", "cancelled", "ended"})
_LIST_PAGE = 100
_LOOKBACK_S = 3600  # how far before the intent a batch found by its tag may have been created (clock skew)


def api_key(entry: ModelEntry, what: str) -> str:
    """The key a provider's own batch endpoint is sent (``what`` names it in the error): the entry's environment
    variable, or the dummy key of a local endpoint. Only ever sent as a header, never written."""
    if entry.api_key_env is None:
        return LOCAL_DUMMY_KEY
    key = os.environ.get(entry.api_key_env) or ""
    if not key:
        raise GraphNIAHError(f"{entry.name}: the environment variable {entry.api_key_env} ({what}) is not set")
    return key


def file_name(key: str) -> str:
    return f"graphniah-{key}.jsonl"


@dataclass(frozen=True)
class Remote:
    """A batch as the provider reports it."""

    batch_id: str
    status: str
    counts: BatchCounts
    created_at: float
    output_file_id: str | None = None
    error_file_id: str | None = None
    tag: str | None = None
    results_url: str | None = None

    @property
    def terminal(self) -> bool:
        return self.status in TERMINAL

    @staticmethod
    def of(obj: Any) -> Remote:
        rc = getattr(obj, "request_counts", None)
        counts = BatchCounts(total=int(getattr(rc, "total", 0) or 0), completed=int(getattr(rc, "completed", 0) or 0),
                             failed=int(getattr(rc, "failed", 0) or 0))
        meta = getattr(obj, "metadata", None)
        tag = meta.get(TAG) if isinstance(meta, Mapping) else None
        return Remote(batch_id=str(obj.id), status=str(obj.status), counts=counts, created_at=float(obj.created_at or 0),
                      output_file_id=getattr(obj, "output_file_id", None), error_file_id=getattr(obj, "error_file_id", None),
                      tag=str(tag) if tag is not None else None)


class Batches:
    """The files and batches endpoints of one model's provider (an OpenAI-compatible one, via LiteLLM).

    The batch loop's interface to a provider (:class:`graphniah.run.batch.anthropic.AnthropicBatches` has
    the same, with ``uploads`` False and ``create_inline`` in place of ``upload`` and ``create``).
    """

    uploads = True

    def __init__(self, entry: ModelEntry):
        self.entry = entry
        self.litellm = litellm_module()
        self.kw: dict[str, Any] = {"custom_llm_provider": provider_of(entry.litellm_model), "max_retries": 0,
                                   "timeout": entry.timeout_s}
        if entry.is_local:
            self.kw["api_key"] = LOCAL_DUMMY_KEY
        if entry.api_base is not None:
            self.kw["api_base"] = entry.api_base

    def line(self, ref: ExampleRef) -> bytes:
        """One input-file line (:func:`graphniah.run.batch.lines.request_line`)."""
        return request_line(self.entry, ref)

    def upload(self, key: str, data: bytes) -> str:
        """Upload an input file named after ``key``; its file id."""
        f = self.litellm.create_file(file=(file_name(key), data, "application/jsonl"), purpose="batch", **self.kw)
        return str(f.id)

    def find_file(self, key: str) -> str | None:
        """The id of an input file uploaded for ``key`` already, if the provider lists one."""
        page = self.litellm.file_list(purpose="batch", **self.kw)
        for f in getattr(page, "data", None) or []:
            if getattr(f, "filename", None) == file_name(key):
                return str(f.id)
        return None

    def create(self, key: str, file_id: str) -> Remote:
        """Create the batch of an uploaded file, tagged with ``key``."""
        b = self.litellm.create_batch(completion_window="24h", endpoint=ENDPOINT, input_file_id=file_id,
                                      metadata={TAG: key}, **self.kw)
        return Remote.of(b)

    def find_batch(self, key: str, since: float, requests: int = 0, claimed: frozenset[str] = frozenset()) -> Remote | None:
        """A batch tagged with ``key``, looked for among those created from an hour before ``since`` (epoch s) on.

        (``requests`` and ``claimed`` serve providers whose batches carry no tag.)
        """
        after: str | None = None
        while True:
            page = self.litellm.list_batches(limit=_LIST_PAGE, **({"after": after} if after else {}), **self.kw)
            data = list(getattr(page, "data", None) or [])
            for b in data:
                r = Remote.of(b)
                if r.tag == key:
                    return r
            if not data or not getattr(page, "has_more", False) or Remote.of(data[-1]).created_at < since - _LOOKBACK_S:
                return None
            after = str(data[-1].id)

    def retrieve(self, batch_id: str) -> Remote:
        return Remote.of(self.litellm.retrieve_batch(batch_id=batch_id, **self.kw))

    def download(self, file_id: str) -> bytes:
        return bytes(self.litellm.file_content(file_id=file_id, **self.kw).content)

    def results(self, remote: Remote, key: str) -> dict[str, LineResult]:
        """A finished batch's result lines by custom id (the error file first: an answer wins over an error)."""
        results: dict[str, LineResult] = {}
        for fid in (remote.error_file_id, remote.output_file_id):
            if fid is not None:
                results.update(read_results(self.download(fid), f"{remote.batch_id} file {fid}"))
        return results
