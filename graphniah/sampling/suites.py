"""Experiment suites: declarative files shipped in ``pipelines/suites/`` and the examples built from them.

A suite varies one variable over its values; for each value, every other variable is drawn per
example, uniformly and independently (the paper's §4.1): question depth from {4, 8, 16, 32},
component size from the integers in [100, 250], the task from the three tasks, the distractor kind
from all five, and the context length fixed at 200,000 unless it is the varied variable. Within each
value, YES/NO labels are assigned in consecutive pairs and multiple-choice answer letters in
consecutive groups of four (appendix A.2.5), so the last pair or group may be incomplete.

A suite gives either ``per_value`` (examples per value) or ``counts`` (one count per value, e.g.
``{200000: 100, 500000: 50, 922000: 50}``). Examples are shared in three ways (the paper's §4):

- ``reasoning-effort`` builds one set of examples (the values are run settings, not example settings);
- ``reuse: {suite: S, for_value: v[, from_value: w]}`` takes the examples of value ``v`` from the
  built suite ``S`` (those of its value ``w``, or all of them), copied byte for byte (same ids, same
  lines) instead of being built again: ``context-length`` reuses the 100 examples of
  ``reasoning-effort`` at 200,000 tokens and builds 50 and 50 at 500,000 and 922,000. ``S`` must
  have been built first, from the same snapshot and with the same seed; the manifest records the
  hashes of its files;
- ``none-option`` pairs each multiple-choice example without the fifth option ("before") with its
  twin that has it ("after"): the twin is built from the same spec, seed and index with the option
  added. The shipped suite takes the "before" examples from the ``task`` suite's multiple-choice
  examples (``reuse``), which pack with room for the option (``reserve_none_option: true`` in
  ``task.yaml``), so before and after have the very same context.

``build_suite`` writes ``examples/<suite>.jsonl`` (examples in plan order) and ``<suite>.json`` (the
suite manifest: the suite file, seed, snapshot, and every example's recipe). Examples are built in
worker processes; each finished example is appended (fsynced) to a ``.partial`` file, so an
interrupted build resumes with only the missing examples and the finished file is renamed into
place at the end.
"""

from __future__ import annotations

import datetime as dt
import json
import os
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import Field, SerializerFunctionWrapHandler, ValidationError, model_serializer, model_validator

from graphniah import __version__
from graphniah.atomic import atomic_write_text, canonical_json, sha256_bytes, write_json
from graphniah.errors import GraphNIAHError
from graphniah.formats import TASKS, Format, Frozen, Task, add_version
from graphniah.formats.examples import Recipe, parse_example
from graphniah.formats.snapshot import Snapshot
from graphniah.progress import NO_PROGRESS, Progress, step
from graphniah.resources import resource_dir
from graphniah.sampling.examples.prompts import PromptSet, load_prompts
from graphniah.sampling.examples.sample import (
    DEFAULT_ALPHA,
    ExampleSpec,
    SamplingContext,
    balanced_labels,
    build_example,
    spec_of,
)
from graphniah.seeds import Stream, generator, suite_key

SUITES_ENV = "GRAPHNIAH_SUITES"


def default_suites_dir() -> Path:
    """``$GRAPHNIAH_SUITES`` if set, else the suites shipped in the package (read at each call)."""
    env = os.environ.get(SUITES_ENV)
    return Path(env) if env else resource_dir("pipelines") / "suites"


Variable = Literal["depth", "component_size", "task", "distractor", "context_length", "reasoning_effort", "none_option"]
EXAMPLE_VARIABLES = ("depth", "component_size", "task", "distractor", "context_length", "none_option")


class SizeRange(Frozen):
    min: int = Field(ge=1)
    max: int = Field(ge=1)


class Draw(Frozen):
    """How the variables a suite does not vary are drawn (defaults: the paper's §4.1)."""

    task: tuple[Task, ...] = TASKS
    depth: tuple[int, ...] = (4, 8, 16, 32)
    component_size: SizeRange = SizeRange(min=100, max=250)
    distractor: tuple[str, ...] = ("code", "essays", "books", "wikipedia", "disjoint-component")
    context_length: tuple[int, ...] = (200_000,)
    alpha: float = DEFAULT_ALPHA


class Reuse(Frozen):
    """Take the examples of one value from another built suite instead of building them."""

    suite: str = Field(min_length=1)  # the other suite's name
    for_value: Any  # the value of this suite they serve
    from_value: Any = None  # their value in the other suite (None: all of its examples)


class SuiteSpec(Frozen):
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

    @model_validator(mode="after")
    def _check(self) -> SuiteSpec:
        if not self.values:
            raise ValueError("a suite needs at least one value")
        if self.vary == "reasoning_effort" and not self.same_examples:
            raise ValueError("reasoning effort is a run setting: set same_examples: true")
        unknown = set(self.fixed) - set(EXAMPLE_VARIABLES)
        if unknown:
            raise ValueError(f"unknown fixed variables {sorted(unknown)}")
        if (self.per_value is None) == (self.counts is None):
            raise ValueError("give either per_value (examples per value) or counts (a count for each value), not both")
        if self.counts is not None:
            if self.same_examples:
                raise ValueError("counts needs one group of examples per value; this suite shares one set (same_examples)")
            missing = [v for v in self.values if not _has_value(self.counts, v)]
            extra = [k for k in self.counts if not _has_value(dict.fromkeys(self.values), k)]
            if missing or extra:
                raise ValueError(f"counts must give one count for each of the values {list(self.values)}"
                                 + (f"; missing {missing}" if missing else "") + (f"; not a value: {extra}" if extra else ""))
            bad = {k: c for k, c in self.counts.items() if not isinstance(c, int) or c < 1}
            if bad:
                raise ValueError(f"counts must be positive integers, got {bad}")
        if self.reuse is not None:
            if self.reuse.suite == self.name:
                raise ValueError("a suite cannot reuse its own examples")
            if self.same_examples:
                raise ValueError("reuse takes the examples of one value; this suite shares one set (same_examples)")
            if not _has_value(dict.fromkeys(self.values), self.reuse.for_value):
                raise ValueError(f"reuse.for_value {self.reuse.for_value!r} is not one of the values {list(self.values)}")
            if self.vary == "none_option" and self.reuse.for_value is not False:
                raise ValueError("a none-option suite reuses its 'before' examples: set reuse.for_value: false")
        return self

    def count(self, value: Any, per_value: int | None = None) -> int:
        """Examples of ``value`` (``per_value`` overrides the file, the same for every value)."""
        if per_value is not None:
            return per_value
        if self.counts is not None:
            return next(c for k, c in self.counts.items() if _same_value(k, value))
        assert self.per_value is not None  # the validator makes sure one of the two is given
        return self.per_value

    @property
    def example_values(self) -> tuple[Any, ...]:
        """The values that change the examples (one group for run-setting suites)."""
        return (None,) if self.same_examples else self.values

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = json.loads(self.model_dump_json())
        return out


class SuiteManifestExample(Frozen):
    """One example of a built suite: its id, index (its randomness), value of the varied variable, recipe."""

    id: str
    index: int = Field(ge=0)
    value: Any
    recipe: Recipe
    reused_from: str | None = None  # the suite it was copied from (``reuse``), if any

    @model_serializer(mode="wrap")
    def _omit_unset(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        out: dict[str, Any] = handler(self)
        if self.reused_from is None:
            del out["reused_from"]
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
    """``examples/<suite>.json``: how a suite's examples file was built (written by :func:`build_suite`).

    Format: ``format_version`` 2. Version 1 (written before versions existed) is the same object
    without the field and is upgraded on reading; any other version is an error naming the file.
    """

    format_version: Literal[2] = 2
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

    @model_validator(mode="before")
    @classmethod
    def _counts_keys(cls, data: Any) -> Any:
        # JSON object keys are strings: ``counts: {200000: 100}`` comes back as ``{"200000": 100}``.
        # Give each key back the value it was written from (values compare as JSON, ``_same_value``).
        suite = data.get("suite") if isinstance(data, dict) else None
        if isinstance(suite, dict) and isinstance(suite.get("counts"), dict):
            as_key = {canonical_json(v): v for v in suite.get("values") or ()} | {str(v): v for v in suite.get("values") or ()}
            counts = {as_key.get(k, k) if isinstance(k, str) else k: c for k, c in suite["counts"].items()}
            data = data | {"suite": suite | {"counts": counts}}
        return data


SUITE_MANIFEST_FORMAT = Format("suite manifest", 2, {1: add_version(2)}, hint="build the suite again with graphniah build")


def read_suite_manifest(path: str | Path) -> SuiteManifest:
    """A suite manifest, read through :class:`SuiteManifest`; errors name the file."""
    return SUITE_MANIFEST_FORMAT.read_file(SuiteManifest, path)


def write_suite_manifest(path: str | Path, manifest: SuiteManifest) -> None:
    write_json(path, manifest.model_dump(mode="json"))


def load_suite(name_or_path: str | Path, suites_dir: str | Path | None = None) -> SuiteSpec:
    """A suite by name (``<suites_dir>/<name>.yaml``; default :func:`default_suites_dir`) or by path."""
    folder = Path(suites_dir) if suites_dir is not None else default_suites_dir()
    path = Path(name_or_path)
    if not path.suffix:
        path = folder / f"{name_or_path}.yaml"
    if not path.is_file():
        known = ", ".join(sorted(p.stem for p in folder.glob("*.yaml"))) or f"none ({folder} has no .yaml files)"
        raise GraphNIAHError(f"no suite {name_or_path!r} ({path} does not exist); known suites: {known}")
    try:
        return SuiteSpec.model_validate(yaml.safe_load(path.read_text(encoding="utf-8")))
    except (yaml.YAMLError, ValidationError) as err:
        raise GraphNIAHError(f"{path}: not a valid suite file: {err}") from None


def _same_value(a: Any, b: Any) -> bool:
    """Values compare as JSON (``200000`` from YAML is the ``200000`` of a manifest; ``False`` is not ``0``)."""
    return canonical_json(a) == canonical_json(b)


def _has_value(values: dict[Any, Any], v: Any) -> bool:
    return any(_same_value(k, v) for k in values)


@dataclass(frozen=True)
class SuiteItem:
    """One example of a suite: the value it belongs to, its spec and its index (its randomness).

    ``reused`` is the id of the example copied from another suite (``SuiteSpec.reuse``); such an
    item is never built.
    """

    value: Any
    spec: ExampleSpec
    index: int
    reused: str | None = None


@dataclass(frozen=True)
class ReusedExample:
    """One example of another built suite: its id, its value there, its spec and index, its line."""

    id: str
    value: Any
    spec: ExampleSpec
    index: int
    line: str  # the JSON line as written in the other suite's examples file (copied byte for byte)


@dataclass(frozen=True)
class ReusedSuite:
    """The examples a suite takes from another built suite, and what pins them."""

    name: str
    seed: int
    snapshot_hash: str
    examples_sha256: str
    manifest_sha256: str
    examples: tuple[ReusedExample, ...]

    def record(self, reuse: Reuse) -> ReuseRecord:
        return ReuseRecord(suite=self.name, for_value=reuse.for_value, from_value=reuse.from_value, n=len(self.examples),
                           seed=self.seed, snapshot_hash=self.snapshot_hash, examples_sha256=self.examples_sha256,
                           manifest_sha256=self.manifest_sha256)


def load_reused(suite: SuiteSpec, out_root: Path, snapshot_hash: str, seed: int, per_value: int | None = None) -> ReusedSuite:
    """The examples ``suite`` reuses from the suite built under ``out_root`` (see ``SuiteSpec.reuse``).

    The other suite must be completely built (its manifest lists exactly the lines of its examples
    file), from the same snapshot and with the same seed (so that every example of this suite
    comes from that seed, and a none-option twin is built from its "before" example's seed and
    index); the selected group must hold as many examples as this suite asks for that value.
    """
    reuse = suite.reuse
    if reuse is None:
        raise GraphNIAHError(f"suite {suite.name} reuses no other suite's examples")
    examples_path, manifest_path, _ = suite_paths(out_root, reuse.suite)
    hint = f"run 'graphniah build --suite {reuse.suite} --seed {seed} --out {out_root}' first"
    if not (examples_path.is_file() and manifest_path.is_file()):
        raise GraphNIAHError(f"suite {suite.name} reuses the examples of suite {reuse.suite}, which is not built under {out_root}: {hint}")
    manifest_bytes, examples_bytes = manifest_path.read_bytes(), examples_path.read_bytes()
    manifest = read_suite_manifest(manifest_path)
    entries = manifest.examples
    built_seed, built_snapshot = manifest.seed, manifest.snapshot_hash
    lines = examples_bytes.decode("utf-8").splitlines()
    parsed = [parse_example(line, f"{examples_path}:{i}") for i, line in enumerate(lines, 1)]
    if [e.id for e in entries] != [ex.id for ex in parsed]:
        raise GraphNIAHError(f"{examples_path} does not hold the examples its manifest {manifest_path} lists: {hint}")
    if built_snapshot != snapshot_hash:
        raise GraphNIAHError(f"suite {reuse.suite} under {out_root} was built from snapshot {built_snapshot[:12]}, not "
                             f"{snapshot_hash[:12]}: build it again from this snapshot ({hint})")
    if built_seed != seed:
        raise GraphNIAHError(f"suite {reuse.suite} under {out_root} was built with seed {built_seed}: build {suite.name} "
                             f"with --seed {built_seed} too, or {hint}")
    chosen: list[ReusedExample] = []
    for entry, line, ex in zip(entries, lines, parsed, strict=True):
        if reuse.from_value is not None and not _same_value(entry.value, reuse.from_value):
            continue
        spec, _, index = spec_of(ex)
        chosen.append(ReusedExample(ex.id, entry.value, spec, index, line))
    where = f"suite {reuse.suite}" + ("" if reuse.from_value is None else f" (value {reuse.from_value!r})")
    want = suite.count(reuse.for_value, per_value)
    if len(chosen) != want:
        raise GraphNIAHError(f"suite {suite.name} takes {want} examples for {reuse.for_value!r} from {where}, which has "
                             f"{len(chosen)}: build both with the same number of examples (-n)")
    if suite.vary == "none_option":
        unfit = [r.id for r in chosen if r.spec.task != "mc" or r.spec.none_option or not r.spec.reserve_none_option]
        if unfit:
            raise GraphNIAHError(
                f"suite {suite.name} needs multiple-choice examples without the fifth option, packed with room for it "
                f"(reserve_none_option: true in the suite file of {reuse.suite}); {len(unfit)} of {where} are not, e.g. {unfit[0]}"
            )
    return ReusedSuite(reuse.suite, built_seed, built_snapshot, sha256_bytes(examples_bytes), sha256_bytes(manifest_bytes),
                       tuple(chosen))


def plan_suite(suite: SuiteSpec, seed: int, per_value: int | None = None, reused: ReusedSuite | None = None) -> list[SuiteItem]:
    """Every example of the suite, deterministically from ``seed`` and the suite's name.

    Value group ``i`` draws from ``SeedSequence([seed, name_key, i])``, so two suites built with the
    same seed are still independent draws. The group of ``reuse.for_value`` is the ``reused``
    examples (``load_reused``), in their order and with their own indices; it draws nothing, and the
    indices of the other groups continue after its count, so examples built here never share an
    index (hence randomness) with the reused ones.
    """
    if suite.reuse is not None and reused is None:
        raise GraphNIAHError(f"suite {suite.name} reuses examples of suite {suite.reuse.suite}: plan it with them (load_reused)")
    if per_value is not None and per_value < 1:
        raise GraphNIAHError(f"examples per value must be at least 1, got {per_value}")
    name_key = suite_key(suite.name)
    d = suite.draw
    items: list[SuiteItem] = []
    index = 0
    values = suite.example_values
    if suite.vary == "none_option":
        values = (False,)  # built once without the option, then repeated with it (same indices)
    for vi, value in enumerate(values):
        n = suite.count(value, per_value)
        if reused is not None and suite.reuse is not None and _same_value(value, suite.reuse.for_value):
            items += [SuiteItem(value, r.spec, r.index, reused=r.id) for r in reused.examples]
            index += n
            continue
        rng = generator(Stream.SUITE, seed, name_key, vi)
        rows: list[dict[str, Any]] = []
        for _ in range(n):
            row: dict[str, Any] = {
                "task": d.task[int(rng.integers(len(d.task)))],
                "depth": d.depth[int(rng.integers(len(d.depth)))],
                "component_size": int(rng.integers(d.component_size.min, d.component_size.max + 1)),
                "distractor": d.distractor[int(rng.integers(len(d.distractor)))],
                "context_length": d.context_length[int(rng.integers(len(d.context_length)))],
                "none_option": False,
            }
            row.update(suite.fixed)
            if value is not None and suite.vary in EXAMPLE_VARIABLES:
                row[suite.vary] = value
            rows.append(row)
        labels = balanced_labels([r["task"] for r in rows], rng)
        for row, label in zip(rows, labels, strict=True):
            spec = ExampleSpec(
                task=row["task"],
                depth=int(row["depth"]),
                component_size=int(row["component_size"]),
                label=label,
                none_option=bool(row["none_option"]),
                alpha=d.alpha,
                distractor=row["distractor"],
                context_length=None if row["distractor"] == "none" else int(row["context_length"]),
            )
            if suite.reserve_none_option and spec.task == "mc":
                spec = replace(spec, reserve_none_option=True)
            items.append(SuiteItem(value, spec, index))
            index += 1
    if suite.vary == "none_option":
        # Both twins pack with room for the fifth option, so their contexts are identical (reused
        # "before" examples were packed so: load_reused checks it).
        base = [it if it.reused else replace(it, spec=replace(it.spec, reserve_none_option=True)) for it in items]
        items = base + [SuiteItem(True, replace(it.spec, none_option=True), it.index) for it in base]
    return items


def _item_key(item: SuiteItem, seed: int, snapshot_hash: str, prompts_hash: str) -> str:
    """What a finished example in a ``.partial`` file must match to be reused: the item and every
    input of its build (another seed, snapshot or prompt set makes it stale)."""
    return sha256_bytes(canonical_json({
        "value": item.value, "index": item.index, "spec": item.spec.params(),
        "seed": seed, "snapshot": snapshot_hash, "prompts": prompts_hash,
    }).encode())


# ---- building ---------------------------------------------------------------------------------

_WORKER_CTX: SamplingContext | None = None


def _init_worker(snapshot_dir: str, prompts_dir: str) -> None:
    global _WORKER_CTX  # one loaded snapshot per worker process (it is large)
    _WORKER_CTX = SamplingContext(Snapshot.open(snapshot_dir), prompts=load_prompts(prompts_dir))


def _build_in_worker(spec: ExampleSpec, seed: int, index: int) -> str:
    assert _WORKER_CTX is not None
    return build_example(_WORKER_CTX, spec, seed, index).model_dump_json()


def _read_partial(path: Path) -> dict[str, str]:
    """Finished lines of an interrupted build, keyed by item key; a torn last line is cut off."""
    done: dict[str, str] = {}
    if not path.exists():
        return done
    data = path.read_bytes()
    end = data.rfind(b"\n") + 1
    if end < len(data):  # a line cut by a crash: drop it, it is rebuilt
        with open(path, "r+b") as f:
            f.truncate(end)
    for line in data[:end].decode("utf-8").splitlines():
        if line.strip():
            rec = json.loads(line)
            done[rec["key"]] = rec["example"]
    return done


def _build_missing(todo: list[tuple[str, SuiteItem]], partial: Path, done: dict[str, str], snapshot: Snapshot, seed: int,
                   workers: int, prompt_set: PromptSet, progress: Progress) -> None:
    """Build the ``todo`` items, appending each finished one (fsynced) to ``partial`` and to ``done``."""
    if not todo:
        return
    with open(partial, "a", encoding="utf-8") as log:

        def record(key: str, line: str) -> None:
            done[key] = line
            log.write(json.dumps({"key": key, "example": line}) + "\n")
            log.flush()
            os.fsync(log.fileno())
            progress.advance()

        if workers <= 1:
            ctx = SamplingContext(snapshot, prompts=prompt_set)
            for key, it in todo:
                record(key, build_example(ctx, it.spec, seed, it.index).model_dump_json())
        else:
            with ProcessPoolExecutor(max_workers=workers, initializer=_init_worker, initargs=(str(snapshot.path), str(prompt_set.directory))) as pool:
                pending: dict[Future[str], str] = {}
                queue = list(todo)
                while queue or pending:
                    while queue and len(pending) < 2 * workers:
                        key, it = queue.pop(0)
                        pending[pool.submit(_build_in_worker, it.spec, seed, it.index)] = key
                    finished, _ = wait(pending, return_when=FIRST_COMPLETED)
                    for fut in finished:
                        record(pending.pop(fut), fut.result())


@dataclass(frozen=True)
class BuiltSuite:
    examples_path: Path
    manifest_path: Path
    n_examples: int
    reused: int


def suite_paths(out_root: Path, name: str) -> tuple[Path, Path, Path]:
    return out_root / f"{name}.jsonl", out_root / f"{name}.json", out_root / f".{name}.jsonl.partial"


def build_suite(
    suite: SuiteSpec,
    snapshot: Snapshot,
    seed: int,
    *,
    out_root: Path = Path("examples"),
    per_value: int | None = None,
    workers: int = 2,
    progress: Progress = NO_PROGRESS,
    prompts: str | Path | None = None,
) -> BuiltSuite:
    """Build (or finish building) the suite's examples; see the module docstring for the files.

    ``prompts`` is the template folder (default: :func:`~graphniah.sampling.examples.prompts.default_prompts_dir`).
    """
    taken = load_reused(suite, out_root, snapshot.content_hash, seed, per_value) if suite.reuse is not None else None
    items = plan_suite(suite, seed, per_value, taken)
    examples_path, manifest_path, partial = suite_paths(out_root, suite.name)
    out_root.mkdir(parents=True, exist_ok=True)
    done = _read_partial(partial)
    prompt_set = load_prompts(prompts)
    prompts_hash = prompt_set.hash
    keys = [_item_key(it, seed, snapshot.content_hash, prompts_hash) for it in items]
    reused = sum(k in done for k in keys)
    todo = [(k, it) for k, it in zip(keys, items, strict=True) if k not in done and it.reused is None]
    with step(progress, len(items), f"building {suite.name}"):
        progress.advance(len(items) - len(todo))
        _build_missing(todo, partial, done, snapshot, seed, workers, prompt_set, progress)
    copied = {r.id: r.line for r in taken.examples} if taken is not None else {}
    lines = [copied[it.reused] if it.reused is not None else done[k] for k, it in zip(keys, items, strict=True)]
    examples = [parse_example(line, f"{examples_path} (line {i})") for i, line in enumerate(lines, 1)]
    # The lines as they are: a reused example is the other suite's line byte for byte.
    atomic_write_text(examples_path, "".join(line + "\n" for line in lines))
    manifest = SuiteManifest(
        suite=suite,
        seed=seed,
        per_value=per_value or suite.per_value,
        snapshot=str(snapshot.path),
        snapshot_hash=snapshot.content_hash,
        synthetic=snapshot.manifest.synthetic,
        version=__version__,
        created_at=dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        examples=tuple(
            SuiteManifestExample(id=ex.id, index=it.index, value=it.value, recipe=ex.recipe,
                                 reused_from=taken.name if taken is not None and it.reused is not None else None)
            for ex, it in zip(examples, items, strict=True)
        ),
        reuse=taken.record(suite.reuse) if taken is not None and suite.reuse is not None else None,
    )
    write_suite_manifest(manifest_path, manifest)
    partial.unlink(missing_ok=True)
    return BuiltSuite(examples_path, manifest_path, len(examples), reused)
