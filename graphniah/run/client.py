"""LiteLLM as the runner uses it: imported once, quiet, with the local price map.

LiteLLM is imported lazily with ``LITELLM_LOCAL_MODEL_COST_MAP=True`` (its price map is the one in
the installed package; nothing is fetched), its callbacks, telemetry and message logging off, and
its loggers silenced. API keys are read by LiteLLM from the provider's usual environment variable.
"""

from __future__ import annotations

import functools
import importlib.util
import json
import logging
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from graphniah.run.models import ModelEntry

_LITELLM: Any = None
#: The price map LiteLLM ships and reads when ``LITELLM_LOCAL_MODEL_COST_MAP`` is set.
_COST_MAP_FILE = "model_prices_and_context_window_backup.json"


def litellm_module() -> Any:
    """LiteLLM, imported once with the local price map and without callbacks, telemetry or logs."""
    global _LITELLM
    if _LITELLM is None:
        os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"
        os.environ.setdefault("LITELLM_LOG", "CRITICAL")
        import litellm

        litellm.suppress_debug_info = True
        litellm.telemetry = False
        litellm.turn_off_message_logging = True
        litellm.redact_messages_in_exceptions = True
        litellm.drop_params = False
        litellm.callbacks = []
        litellm.success_callback = []
        litellm.failure_callback = []
        for name in ("LiteLLM", "LiteLLM Router", "LiteLLM Proxy", "litellm", "httpx", "openai"):
            logging.getLogger(name).setLevel(logging.CRITICAL + 1)
        _drop_success_logging()
        _LITELLM = litellm
    return _LITELLM


def _drop_success_logging() -> None:
    """Do not run LiteLLM's per-call success logging, which we have no callbacks for.

    LiteLLM queues a "success handler" after every call even with no callbacks registered; it builds
    a logging payload (deep copies of the request, 200 KB-4 MB here) and costs several milliseconds of
    CPU per call, which at concurrency 32 made the runner, not the server, the bottleneck. Cost and
    usage are computed before the response is returned and are unaffected. The hook is internal to
    LiteLLM: if it moves, this does nothing and the runner is merely slower.
    """
    try:
        from litellm.litellm_core_utils.logging_worker import GLOBAL_LOGGING_WORKER
    except ImportError:
        return

    def discard(async_coroutine: Any) -> None:
        async_coroutine.close()

    if hasattr(GLOBAL_LOGGING_WORKER, "ensure_initialized_and_enqueue"):
        GLOBAL_LOGGING_WORKER.ensure_initialized_and_enqueue = discard  # type: ignore[method-assign]  # the point: replace LiteLLM's hook


def register_local_model(entry: ModelEntry) -> None:
    """Tell LiteLLM a local endpoint's (zero) price, so its cost is 0 rather than a failed lookup.

    LiteLLM prices only models in its map; for an unknown name it searches every provider variant on
    each response (milliseconds per call) and reports no cost. Only free local endpoints are
    registered (the registration lasts for the process, so a priced entry under the same name later
    would read 0 from LiteLLM; the budget uses the larger of LiteLLM's and the registry's figure, see
    ``RunRecord.spent_usd``). A real model's cost stays LiteLLM's own figure.
    """
    lit = litellm_module()
    price = entry.price.standard
    free = price is not None and price.input == price.output == 0 and price.above_input_tokens is None
    if price is None or not entry.is_local or not free or entry.litellm_model in lit.model_cost:
        return
    provider = entry.litellm_model.split("/", 1)[0]
    lit.register_model({entry.litellm_model: {
        "input_cost_per_token": price.input / 1e6, "output_cost_per_token": price.output / 1e6,
        "litellm_provider": provider, "mode": "chat", "max_input_tokens": entry.input_limit,
    }})


@functools.cache
def _shipped_cost_map() -> Mapping[str, Any]:
    spec = importlib.util.find_spec("litellm")  # finds the package without importing it (seconds of CPU)
    folders = list(spec.submodule_search_locations or []) if spec is not None else []
    for folder in folders:
        path = Path(folder) / _COST_MAP_FILE
        if path.is_file():
            data = json.loads(path.read_text(encoding="utf-8"))
            return data if isinstance(data, dict) else {}
    return {}


def litellm_cost_map() -> Mapping[str, Any]:
    """LiteLLM's price map (``model_cost``), without importing LiteLLM when it is not loaded yet.

    The map is the one the runner's LiteLLM uses (the file shipped in the installed package); once
    LiteLLM is loaded its live map is returned, which also holds the local models registered since.
    An installation without LiteLLM gives an empty map.
    """
    if _LITELLM is not None:
        return _LITELLM.model_cost  # type: ignore[no-any-return]  # LiteLLM is untyped
    return _shipped_cost_map()


def litellm_model_info(litellm_model: str) -> Mapping[str, Any] | None:
    """The price-map entry of a ``provider/model`` string: under the full string, else under the model's
    own name for that provider (OpenAI's models are listed without their prefix); None if absent."""
    cost_map = litellm_cost_map()
    info = cost_map.get(litellm_model)
    if info is None and "/" in litellm_model:
        provider, name = litellm_model.split("/", 1)
        info = cost_map.get(name)
        if info is not None and not str(info.get("litellm_provider", "")).startswith(provider):
            info = None
    return info if isinstance(info, dict) else None
