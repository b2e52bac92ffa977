"""The model registry (``pipelines/models.yaml``): what the runner sends to each model and what it costs.

Each entry is a :class:`ModelEntry`. Two of its derived values matter downstream:

- :meth:`ModelEntry.settings_hash` identifies everything that can change a model's *response*: the
  LiteLLM model string, the sampling parameters, the reasoning effort and the extra request body
  (provider routing picks weights, e.g. FP8 on a second provider). It is what a journal record is
  keyed by, so changing any of these makes a re-run send everything again. The service tier, the
  base URL, the timeout, the prices and ``batch`` (send through the provider's batch API) are left
  out on purpose: they change cost, speed or where the request goes, not the distribution of answers (the paper mixes flex and standard answers freely).
- :meth:`ModelEntry.completion_kwargs` is the keyword set for ``litellm.acompletion``. OpenAI-style
  parameters go as keywords; ``top_k`` and ``min_p`` (not OpenAI parameters) go in ``extra_body``,
  which OpenRouter and llama.cpp both read.
  For ``gemini/`` models the sampling parameters the entry sets are also named in
  ``allowed_openai_params``: LiteLLM's price map says Gemini 3 Flash takes none and would refuse the
  call, where the paper sent them.

The registry file is found at ``$GRAPHNIAH_MODELS`` if set, else the registry shipped in the package (``pipelines/models.yaml``).
"""

from __future__ import annotations

import datetime as dt
import os
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any, Literal

import numpy as np
import numpy.typing as npt
import yaml
from pydantic import Field, ValidationError, model_validator

from graphniah.atomic import canonical_json, sha256_bytes
from graphniah.errors import GraphNIAHError, validation_detail, yaml_detail
from graphniah.formats import Frozen, ReasoningEffort, TokenizerName
from graphniah.resources import resource_dir

MODELS_ENV = "GRAPHNIAH_MODELS"
Tier = Literal["standard", "flex"]
Effort = ReasoningEffort  # the names are defined once, in graphniah.formats
#: The key sent to local endpoints, which ignore it (LiteLLM's OpenAI client insists on some key).
LOCAL_DUMMY_KEY = "graphniah-local-no-key"


class TierPrice(Frozen):
    """USD per million tokens at one service tier; optionally a higher price for long prompts.

    Gemini-3.1-Pro charges more once a prompt passes 200,000 tokens; the long-context price then
    applies to the whole request (input and output), which is how that provider bills.
    """

    input: float = Field(ge=0)
    output: float = Field(ge=0)
    above_input_tokens: int | None = Field(default=None, gt=0)
    input_above: float | None = Field(default=None, ge=0)
    output_above: float | None = Field(default=None, ge=0)

    @model_validator(mode="after")
    def _tiers_complete(self) -> TierPrice:
        parts = (self.above_input_tokens, self.input_above, self.output_above)
        if any(p is not None for p in parts) and any(p is None for p in parts):
            raise ValueError("a long-context price needs above_input_tokens, input_above and output_above together")
        return self

    def cost(self, prompt_tokens: int, completion_tokens: int) -> float:
        """Cost in USD of one request with these token counts (reasoning tokens are output tokens)."""
        long = self.above_input_tokens is not None and prompt_tokens > self.above_input_tokens
        i, o = self.input, self.output
        if long and self.input_above is not None and self.output_above is not None:  # set together (_tiers_complete)
            i, o = self.input_above, self.output_above
        return (prompt_tokens * i + completion_tokens * o) / 1e6

    def costs(self, prompt_tokens: npt.NDArray[np.int64], completion_tokens: float) -> npt.NDArray[np.float64]:
        """:meth:`cost` of many requests at once: one prompt length each, the same output length."""
        prompt = np.asarray(prompt_tokens, dtype=np.float64)
        i = np.full(prompt.shape, self.input)
        o = np.full(prompt.shape, self.output)
        if self.above_input_tokens is not None and self.input_above is not None and self.output_above is not None:
            long = prompt > self.above_input_tokens
            i[long], o[long] = self.input_above, self.output_above
        out: npt.NDArray[np.float64] = (prompt * i + completion_tokens * o) / 1e6
        return out


class Prices(Frozen):
    """Prices per tier; ``None`` where no price is known (never a guess)."""

    standard: TierPrice | None = None
    flex: TierPrice | None = None
    note: str = ""


class OutputTokens(Frozen):
    """Output tokens per example as one experiment measured them (reasoning tokens included).

    One row of a model's ``output_tokens`` prior: the mean and standard deviation over the ``n``
    examples the model answered, at one reasoning effort and target context length, and the table of
    the paper they come from. The cost estimate pools the rows that match a run
    (:func:`graphniah.run.cost.output_prior`).
    """

    table: int = Field(gt=0)
    reasoning_effort: Effort
    context_length: int = Field(default=200_000, gt=0)
    n: int = Field(gt=1)
    mean: float = Field(ge=0)
    std: float = Field(ge=0)


#: The sampling parameters a ``gemini/`` entry sends even where LiteLLM's map says the model takes none.
FORCED_GEMINI_PARAMS = frozenset({"temperature", "top_p"})


class Params(Frozen):
    """Sampling parameters; ``None`` means "not sent" (the provider's default applies)."""

    temperature: float | None = Field(default=None, ge=0)
    top_p: float | None = Field(default=None, gt=0, le=1)
    top_k: int | None = Field(default=None, ge=1)
    min_p: float | None = Field(default=None, ge=0, le=1)
    presence_penalty: float | None = None
    max_tokens: int | None = Field(default=None, ge=1)

    def sent(self) -> dict[str, Any]:
        return {k: v for k, v in self.model_dump().items() if v is not None}


class ModelEntry(Frozen):
    """One model of the registry (see ``pipelines/models.yaml`` for the field meanings)."""

    name: str
    litellm_model: str
    api_base: str | None = None
    api_key_env: str | None = None
    params: Params = Field(default_factory=Params)
    reasoning_effort: Effort | None = None
    service_tier: Tier = "standard"
    fallback_tier: Tier | None = None
    extra_body: dict[str, Any] = Field(default_factory=dict)
    knowledge_cutoff: dt.date | None = None
    cutoff_note: str = ""
    baseline: bool = False
    context_limit: int = Field(gt=0)
    max_input_tokens: int | None = Field(default=None, gt=0)
    tokenizer: TokenizerName | None = None
    price: Prices = Field(default_factory=Prices)
    output_tokens: tuple[OutputTokens, ...] = ()  # measured output tokens per example: the cost estimate's prior
    timeout_s: float = Field(default=3600.0, gt=0)
    batch: bool = False  # send through the provider's batch API (graphniah run --batch); not in the settings hash
    notes: str = ""

    @model_validator(mode="after")
    def _consistent(self) -> ModelEntry:
        if self.knowledge_cutoff is None and not self.baseline:
            raise ValueError("knowledge_cutoff is required (only a baseline that reads nothing but the prompt may omit it)")
        if self.fallback_tier is not None and self.fallback_tier == self.service_tier:
            raise ValueError(f"fallback_tier equals service_tier ({self.service_tier})")
        if self.fallback_tier is not None and self.service_tier != "flex":
            raise ValueError("fallback_tier only makes sense with service_tier: flex")
        if "/" not in self.litellm_model:
            raise ValueError(f"litellm_model must be 'provider/model', got {self.litellm_model!r}")
        clash = {"top_k", "min_p"} & set(self.extra_body)
        if clash:
            raise ValueError(f"set {sorted(clash)} under params, not extra_body")
        return self

    # -- identity -------------------------------------------------------------------------------

    def settings(self) -> dict[str, Any]:
        """Everything that affects the response (see the module docstring for what is left out)."""
        return {
            "litellm_model": self.litellm_model,
            "params": self.params.sent(),
            "reasoning_effort": self.reasoning_effort,
            "extra_body": self.extra_body,
        }

    @property
    def settings_hash(self) -> str:
        # A plain property: a cached value would survive ``model_copy(update=...)`` and go stale.
        return sha256_bytes(canonical_json(self.settings()).encode())

    @property
    def input_limit(self) -> int:
        return self.max_input_tokens or self.context_limit

    @property
    def is_local(self) -> bool:
        return self.api_key_env is None

    # -- requests -------------------------------------------------------------------------------

    def with_overrides(self, *, api_base: str | None = None, reasoning_effort: Effort | None = None,
                       timeout_s: float | None = None) -> ModelEntry:
        """A copy with the CLI's overrides applied (validated like a registry entry)."""
        data = self.model_dump()
        if api_base is not None:
            data["api_base"] = api_base
        if reasoning_effort is not None:
            data["reasoning_effort"] = reasoning_effort
        if timeout_s is not None:
            data["timeout_s"] = timeout_s
        return ModelEntry.model_validate(data)

    def tiers(self) -> tuple[Tier, ...]:
        """The tiers a request may be sent at, in order: the configured tier, then the fallback."""
        return (self.service_tier,) if self.fallback_tier is None else (self.service_tier, self.fallback_tier)

    def price_at(self, tier: Tier) -> TierPrice | None:
        return self.price.flex if tier == "flex" else self.price.standard

    def completion_kwargs(self, tier: Tier) -> dict[str, Any]:
        """Keyword arguments for ``litellm.acompletion`` (without messages, key and timeout).

        The standard tier is the provider's default, so no ``service_tier`` is sent for it.
        """
        params = self.params.sent()
        extra = dict(self.extra_body)
        for key in ("top_k", "min_p"):
            if key in params:
                extra[key] = params.pop(key)
        kw: dict[str, Any] = {"model": self.litellm_model, **params}
        forced = sorted(FORCED_GEMINI_PARAMS & params.keys()) if self.litellm_model.startswith("gemini/") else []
        if forced:
            # LiteLLM's map marks Gemini 3 Flash models as taking no sampling parameters and refuses the call;
            # the paper sent them temperature 1.0 and top_p 0.95 (appendix C), so they are named as wanted.
            kw["allowed_openai_params"] = forced
        if self.reasoning_effort is not None:
            kw["reasoning_effort"] = self.reasoning_effort
        if tier != "standard":
            kw["service_tier"] = tier
        if extra:
            kw["extra_body"] = extra
        if self.api_base is not None:
            kw["api_base"] = self.api_base
        return kw


class Registry(Mapping[str, ModelEntry]):
    """The loaded registry: ``registry[name]`` raises a ``GraphNIAHError`` listing the known names."""

    def __init__(self, entries: Mapping[str, ModelEntry], path: Path):
        self._entries = dict(entries)
        self.path = path

    def __getitem__(self, name: str) -> ModelEntry:
        try:
            return self._entries[name]
        except KeyError:
            raise GraphNIAHError(
                f"no model {name!r} in the registry {self.path}; known: {', '.join(sorted(self._entries))}"
            ) from None

    def __iter__(self) -> Iterator[str]:
        return iter(self._entries)

    def __len__(self) -> int:
        return len(self._entries)


def registry_path(explicit: str | os.PathLike[str] | None = None) -> Path:
    if explicit is not None:
        return Path(explicit)
    env = os.environ.get(MODELS_ENV)
    return Path(env) if env else resource_dir("pipelines") / "models.yaml"


def load_registry(path: str | os.PathLike[str] | None = None) -> Registry:
    """Read and validate the registry; any bad entry is an error naming the file, the model and the field."""
    p = registry_path(path)
    try:
        doc = yaml.safe_load(p.read_text(encoding="utf-8"))
    except OSError as err:
        raise GraphNIAHError(f"cannot read the model registry {p}: {err.strerror}") from None
    except yaml.YAMLError as err:
        raise GraphNIAHError(f"model registry {p} is not valid YAML: {yaml_detail(err)}") from None
    except UnicodeDecodeError as err:
        raise GraphNIAHError(f"model registry {p} is not UTF-8 text ({err.reason} at byte {err.start})") from None
    models = doc.get("models") if isinstance(doc, dict) else None
    if not isinstance(models, dict) or not models:
        raise GraphNIAHError(f"model registry {p} needs a non-empty 'models:' mapping")
    entries: dict[str, ModelEntry] = {}
    for name, body in models.items():
        if not isinstance(body, dict):
            raise GraphNIAHError(f"{p}: model {name!r} must be a mapping of fields")
        try:
            entries[str(name)] = ModelEntry.model_validate({"name": str(name), **body})
        except ValidationError as err:
            raise GraphNIAHError(f"{p}: model {name!r}: {validation_detail(err, 'entry')}") from None
    return Registry(entries, p)


def get_model(name: str, path: str | os.PathLike[str] | None = None) -> ModelEntry:
    return load_registry(path)[name]
