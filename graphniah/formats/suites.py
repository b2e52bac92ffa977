"""The suite files: a suite's spec (``pipelines/suites/<name>.yaml``), its manifest and its build progress.

A suite spec says which variable a suite varies, over which values, and how every other variable is
drawn (:class:`SuiteSpec`; the meaning of each field is in :mod:`graphniah.sampling.suites`, which
builds suites). A built suite leaves two files beside its examples (paths:
:func:`graphniah.layout.suite_files`):

- ``<suite>.json``, the suite manifest (:class:`SuiteManifest`): the spec, seed, snapshot and every
  example's recipe. ``format_version`` 4; version 4 added ``examples_file``, the sha256 and size of
  the examples file, which every reader of that file checks first (:func:`recorded_examples_file`),
  and ``content_sha256``, the manifest's own seal (``Format.seal``), checked before it is read;
  version 3 is upgraded with neither recorded (its examples file is read unchecked, as before);
  version 2 is version 3 without ``checker`` and the examples' ``sha256`` (the verification
  ``graphniah build`` records), and version 1 (written before versions existed) is version 2
  without the field; both are upgraded on reading (nothing recorded as verified); any other
  version is an error naming the file;
- ``.<suite>.jsonl.partial`` while it is being built: one :class:`PartialLine` a line, each a finished
  example keyed by what it was built from (``format_version`` 1, not written: the file never
  outlives the build that wrote it).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import Field, SerializerFunctionWrapHandler, ValidationError, model_serializer, model_validator

from graphniah.atomic import canonical_json, write_json
from graphniah.errors import GraphNIAHError, validation_detail, yaml_detail
from graphniah.formats.base import ArtifactHash, Format, Frozen
from graphniah.formats.examples import DEFAULT_ALPHA, Recipe
from graphniah.formats.names import PAPER_TASKS, DistractorKind, Task
from graphniah.formats.recorded import SUITE_MANIFEST_FORMAT, recorded_examples_file

__all__ = [
    "EXAMPLE_VARIABLES",
    "PARTIAL_LINE_FORMAT",
    "SUITE_MANIFEST_FORMAT",
    "Draw",
    "Extra",
    "PartialLine",
    "Reuse",
    "ReuseRecord",
    "SizeRange",
    "SuiteManifest",
    "SuiteManifestExample",
    "SuiteSpec",
    "Variable",
    "has_value",
    "read_partial_lines",
    "read_suite_manifest",
    "read_suite_spec",
    "recorded_examples_file",
    "same_value",
    "write_suite_manifest",
]

Variable = Literal["depth", "component_size", "task", "distractor", "context_length", "reasoning_effort", "none_option",
                   "render"]
EXAMPLE_VARIABLES = ("depth", "component_size", "task", "distractor", "context_length", "none_option", "render")


def same_value(a: Any, b: Any) -> bool:
    """Values compare as JSON (``200000`` from YAML is the ``200000`` of a manifest; ``False`` is not ``0``)."""
    return canonical_json(a) == canonical_json(b)


def has_value(values: dict[Any, Any], v: Any) -> bool:
    """Whether ``v`` is one of the keys of ``values``, compared as JSON (:func:`same_value`)."""
    return any(same_value(k, v) for k in values)


class SizeRange(Frozen):
    min: int = Field(ge=1)
    max: int = Field(ge=1)


class Draw(Frozen):
    """How the variables a suite does not vary are drawn (defaults: the paper's §4.1)."""

    task: tuple[Task, ...] = PAPER_TASKS  # the list task only where a suite names it
    depth: tuple[int, ...] = (4, 8, 16, 32)
    component_size: SizeRange = SizeRange(min=100, max=250)
    distractor: tuple[str, ...] = tuple(k.value for k in DistractorKind)  # every kind, none excluded
    context_length: tuple[int, ...] = (200_000,)
    alpha: float = DEFAULT_ALPHA


class Reuse(Frozen):
    """Take the examples of one value from another built suite instead of building them."""

    suite: str = Field(min_length=1)  # the other suite's name
    for_value: Any  # the value of this suite they serve
    from_value: Any = None  # their value in the other suite (None: all of its examples)


class Extra(Frozen):
    """``n`` more examples of one value with some variables fixed (the demo's one edge-list example)."""

    value: Any
    n: int = Field(ge=1)
    fixed: dict[str, Any] = Field(default_factory=dict)


class SuiteSpec(Frozen):
    """One suite file (``pipelines/suites/<name>.yaml``)."""

    name: str
    description: str = ""
    vary: Variable
    values: tuple[Any, ...]
    per_value: int | None = Field(default=None, ge=1)
    counts: dict[Any, int] | None = None  # examples per value, when they differ (instead of per_value)
    same_examples: bool = False
    draw: Draw = Draw()
    fixed: dict[str, Any] = Field(default_factory=dict)
    reuse: Reuse | None = None
    # Multiple-choice examples pack with room for a fifth option, so that a none-option suite can
    # reuse them as its "before" examples with contexts identical to its "after" twins.
    reserve_none_option: bool = False
    # Matched sampling (graphniah.sampling.examples.similarity): wrong answers as similar to the
    # source as the true one; in counting the other components' sizes drawn from the suite's size
    # range (the varied values when the suite varies component_size), never the source's.
    match_similarity: bool = False
    # Every example gets a twin with the same components and no distractor text: the base that
    # NoLiMa's effective length compares a model's accuracy with (graphniah.report.effective).
    base: bool = False
    # More examples for single values, with some variables fixed, planned after the value groups.
    extra: tuple[Extra, ...] = ()
    # The template set(s) the prompts are worded in (prompts/sets/): one name, or a list, in which case
    # every example is rendered once per set (same spec, seed and index: the same forest and context).
    # Left out of the written spec when it is "default", so manifests read and write as before it existed.
    template: str | tuple[str, ...] = "default"

    @model_serializer(mode="wrap")
    def _omit_default_template(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        out: dict[str, Any] = handler(self)
        if self.template == "default":
            del out["template"]
        return out

    @property
    def templates(self) -> tuple[str, ...]:
        """The template sets, in order (one for a single name)."""
        return (self.template,) if isinstance(self.template, str) else self.template

    @model_validator(mode="after")
    def _check(self) -> SuiteSpec:
        if not self.values:
            raise ValueError("a suite needs at least one value")
        if not self.templates or len(set(self.templates)) != len(self.templates):
            raise ValueError(f"template must be a name or a list of distinct names, got {self.template!r}")
        if len(self.templates) > 1 and (self.reuse is not None or self.vary == "render"):
            raise ValueError("a suite that varies the template set can neither reuse examples nor vary the rendering")
        if self.vary == "reasoning_effort" and not self.same_examples:
            raise ValueError("reasoning effort is a run setting: set same_examples: true")
        unknown = set(self.fixed) - set(EXAMPLE_VARIABLES)
        if unknown:
            raise ValueError(f"unknown fixed variables {sorted(unknown)}")
        if (self.per_value is None) == (self.counts is None):
            raise ValueError("give either per_value (examples per value) or counts (a count for each value), not both")
        if self.counts is not None:
            self._check_counts(self.counts)
        if self.reuse is not None:
            self._check_reuse(self.reuse)
        for extra in self.extra:
            self._check_extra(extra)
        return self

    def _check_extra(self, extra: Extra) -> None:
        if self.same_examples:
            raise ValueError("extra examples belong to one value; this suite shares one set (same_examples)")
        if not has_value(dict.fromkeys(self.values), extra.value):
            raise ValueError(f"extra.value {extra.value!r} is not one of the values {list(self.values)}")
        unknown = set(extra.fixed) - {*EXAMPLE_VARIABLES, "template"}
        if unknown or self.vary in extra.fixed:
            raise ValueError(f"extra.fixed may fix the example variables other than {self.vary}, got {sorted(extra.fixed)}")
        if "template" in extra.fixed and self.templates != ("default",):
            raise ValueError("extra.fixed may name template sets only in a suite worded in the default set")

    def _check_counts(self, counts: dict[Any, int]) -> None:
        if self.same_examples:
            raise ValueError("counts needs one group of examples per value; this suite shares one set (same_examples)")
        missing = [v for v in self.values if not has_value(counts, v)]
        extra = [k for k in counts if not has_value(dict.fromkeys(self.values), k)]
        if missing or extra:
            raise ValueError(f"counts must give one count for each of the values {list(self.values)}"
                             + (f"; missing {missing}" if missing else "") + (f"; not a value: {extra}" if extra else ""))
        bad = {k: c for k, c in counts.items() if not isinstance(c, int) or c < 1}
        if bad:
            raise ValueError(f"counts must be positive integers, got {bad}")

    def _check_reuse(self, reuse: Reuse) -> None:
        if reuse.suite == self.name:
            raise ValueError("a suite cannot reuse its own examples")
        if self.same_examples:
            raise ValueError("reuse takes the examples of one value; this suite shares one set (same_examples)")
        if not has_value(dict.fromkeys(self.values), reuse.for_value):
            raise ValueError(f"reuse.for_value {reuse.for_value!r} is not one of the values {list(self.values)}")
        if self.vary == "none_option" and reuse.for_value is not False:
            raise ValueError("a none-option suite reuses its 'before' examples: set reuse.for_value: false")

    def count(self, value: Any, per_value: int | None = None) -> int:
        """Examples of ``value`` (``per_value`` overrides the file, the same for every value)."""
        if per_value is not None:
            return per_value
        if self.counts is not None:
            return next(c for k, c in self.counts.items() if same_value(k, value))
        assert self.per_value is not None  # the validator makes sure one of the two is given
        return self.per_value

    @property
    def example_values(self) -> tuple[Any, ...]:
        """The values that change the examples (one group for run-setting suites)."""
        return (None,) if self.same_examples else self.values

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = json.loads(self.model_dump_json())
        return out


def read_suite_spec(path: Path) -> SuiteSpec:
    """A suite file (YAML) through :class:`SuiteSpec`; every problem is an error naming the file."""
    try:
        return SuiteSpec.model_validate(yaml.safe_load(path.read_text(encoding="utf-8")))
    except OSError as err:
        raise GraphNIAHError(f"cannot read suite file {path}: {err.strerror}") from None
    except yaml.YAMLError as err:
        raise GraphNIAHError(f"{path}: not a valid suite file (not YAML: {yaml_detail(err)})") from None
    except UnicodeDecodeError as err:
        raise GraphNIAHError(f"{path}: not a valid suite file (not UTF-8: {err.reason} at byte {err.start})") from None
    except ValidationError as err:
        raise GraphNIAHError(f"{path}: not a valid suite file ({validation_detail(err)})") from None


class SuiteManifestExample(Frozen):
    """One example of a built suite: its id, index (its randomness), value of the varied variable, recipe."""

    id: str
    index: int = Field(ge=0)
    value: Any
    recipe: Recipe
    reused_from: str | None = None  # the suite it was copied from (``reuse``), if any
    # A suite with ``base: true``: ``base_id`` is the id of this example's no-distractor twin (its
    # own id when it has no distractors), and ``is_base`` marks a twin (an example of the base only).
    base_id: str | None = None
    is_base: bool = False
    # SHA-256 of the example's JSON line when this build verified it from its text (``verify``, under
    # the manifest's ``checker``); None for an example taken from elsewhere (another suite, an
    # interrupted build), which a later reader checks itself.
    sha256: str | None = None

    @model_serializer(mode="wrap")
    def _omit_unset(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        out: dict[str, Any] = handler(self)
        for name in ("reused_from", "base_id", "sha256"):
            if getattr(self, name) is None:
                del out[name]
        if not self.is_base:
            del out["is_base"]
        return out


class ReuseRecord(Frozen):
    """What a suite took from another built suite, and the hashes of that suite's files then."""

    suite: str
    for_value: Any
    from_value: Any = None
    n: int = Field(ge=0)
    seed: int
    snapshot_hash: str
    examples_sha256: str
    manifest_sha256: str


class SuiteManifest(Frozen):
    """``examples/<suite>.json``: how a suite's examples file was built (written by
    :func:`graphniah.sampling.suites.build_suite`)."""

    format_version: Literal[4] = 4
    kind: Literal["graphniah.suite"] = "graphniah.suite"
    suite: SuiteSpec
    seed: int
    per_value: int | None
    snapshot: str
    snapshot_hash: str
    synthetic: bool
    version: str
    created_at: str
    examples: tuple[SuiteManifestExample, ...]
    reuse: ReuseRecord | None = None
    checker: str | None = None  # textcheck.checker_version of the examples' recorded ``sha256`` verifications
    examples_file: ArtifactHash | None = None  # the examples file as written (None before version 4)

    @model_validator(mode="before")
    @classmethod
    def _counts_keys(cls, data: Any) -> Any:
        # JSON object keys are strings: ``counts: {200000: 100}`` comes back as ``{"200000": 100}``.
        # Give each key back the value it was written from (values compare as JSON, ``same_value``).
        suite = data.get("suite") if isinstance(data, dict) else None
        if isinstance(suite, dict) and isinstance(suite.get("counts"), dict):
            as_key = {canonical_json(v): v for v in suite.get("values") or ()} | {str(v): v for v in suite.get("values") or ()}
            counts = {as_key.get(k, k) if isinstance(k, str) else k: c for k, c in suite["counts"].items()}
            data = data | {"suite": suite | {"counts": counts}}
        return data


def read_suite_manifest(path: str | Path) -> SuiteManifest:
    """A suite manifest, read through :class:`SuiteManifest`; errors name the file."""
    return SUITE_MANIFEST_FORMAT.read_file(SuiteManifest, path)


def write_suite_manifest(path: str | Path, manifest: SuiteManifest) -> None:
    """Write ``manifest`` atomically, sealed (``content_sha256``: readers check it before anything else)."""
    write_json(path, SUITE_MANIFEST_FORMAT.seal(manifest.model_dump(mode="json")))


class PartialLine(Frozen):
    """One finished example of an interrupted build: the key of what it was built from, and its JSON line."""

    key: str = Field(min_length=1)
    example: str


PARTIAL_LINE_FORMAT = Format("suite build progress line", 1, hint="delete the .partial file; its examples are built again")


def read_partial_lines(path: Path, text: str) -> list[PartialLine]:
    """The complete lines ``text`` of the ``.partial`` file ``path``; errors name the file and line."""
    out: list[PartialLine] = []
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        where = f"{path}:{n}"
        try:
            out.append(PartialLine.model_validate(PARTIAL_LINE_FORMAT.parse_json(line, where)))
        except ValidationError as err:
            raise GraphNIAHError(f"{where}: not a valid {PARTIAL_LINE_FORMAT.what} ({validation_detail(err)}); "
                                 f"{PARTIAL_LINE_FORMAT.hint}") from None
    return out
