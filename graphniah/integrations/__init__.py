"""Bridges to other evaluation harnesses.

- ``inspect_task``  the inspect_ai task ``graphniah`` (``pip install graphniah[inspect]``), registered
                    through ``_registry`` so that ``inspect eval graphniah/graphniah`` finds it
- ``lm_eval_task``  lm-evaluation-harness's task class and result processing (``graphniah[lm-eval]``)

The names in ``__all__`` load on first access: each needs its harness installed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from graphniah.lazy import attribute

if TYPE_CHECKING:
    from graphniah.integrations.inspect_task import dataset_samples, graphniah, graphniah_scorer
    from graphniah.integrations.lm_eval_task import GraphNIAHTask, process_results, task_docs

_HOMES = {
    **dict.fromkeys(["dataset_samples", "graphniah", "graphniah_scorer"], "graphniah.integrations.inspect_task"),
    **dict.fromkeys(["GraphNIAHTask", "process_results", "task_docs"], "graphniah.integrations.lm_eval_task"),
}

__all__ = [*_HOMES]  # the public names are the map's keys


def __getattr__(name: str) -> Any:
    return attribute(__name__, _HOMES, name)
