"""Batch mode of the runner (``graphniah run --batch``): the pending examples go out as provider batches.

Modules: ``options`` (which providers, their limits, the poll interval), ``lines`` (a batch's
request and result lines, splitting by the limits), ``client`` (the provider's files and batches API
through LiteLLM), ``anthropic`` and ``gemini`` (Anthropic's Message Batches and Gemini batch mode,
through the providers' own endpoints), ``price`` (the batch price), ``send`` (the exactly-once loop: journal, submit,
poll, collect), ``status`` (the batches in flight, for ``graphniah batches``). The fake service the
tests and ``bench/batch.py`` run against is :mod:`graphniah.run.serve.batches`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from graphniah.lazy import attribute

if TYPE_CHECKING:
    from graphniah.run.batch.options import BatchOptions, Limits
    from graphniah.run.batch.send import BatchRun, BatchSummary, open_batches
    from graphniah.run.batch.status import InFlight, in_flight

_HOMES = {
    "BatchOptions": "graphniah.run.batch.options",
    "Limits": "graphniah.run.batch.options",
    "BatchRun": "graphniah.run.batch.send",
    "BatchSummary": "graphniah.run.batch.send",
    "open_batches": "graphniah.run.batch.send",
    "InFlight": "graphniah.run.batch.status",
    "in_flight": "graphniah.run.batch.status",
}

__all__ = [*_HOMES]  # the public names are the map's keys


def __getattr__(name: str) -> Any:
    return attribute(__name__, _HOMES, name)
