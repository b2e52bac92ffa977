"""Experiment suites: declarative files shipped in ``graphniah/resources/pipelines/experiments/`` and the examples built from them.

A suite varies one variable over its values; for each value, every other variable is drawn per
example, uniformly and independently (the paper's §4.1): question depth from {4, 8, 16, 32},
component size from the integers in [100, 250], the task from the three tasks, the distractor kind
from all five, and the context length fixed at 200,000 unless it is the varied variable. Within each
value, YES/NO labels are assigned in consecutive pairs and multiple-choice answer letters in
consecutive groups of four (appendix A.2.5), so the last pair or group may be incomplete.

Two suites reuse examples across values: ``reasoning-effort`` builds one set (the values are run
settings, not example settings), and ``none-option`` builds each multiple-choice example twice from
the same seed and index, once without and once with the fifth option, so everything but the option
list is the same.

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
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Literal

import numpy as np
import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from graphniah import __version__
from graphniah.errors import GraphNIAHError
from graphniah.sampling.examples.prompts import load_prompts
from graphniah.sampling.examples.records import Example, write_examples
from graphniah.sampling.examples.sample import DEFAULT_ALPHA, ExampleSpec, SamplingContext, balanced_labels, build_example
from graphniah.io import canonical_json, sha256_bytes, write_json
from graphniah.ingest.snapshot import Snapshot
from graphniah.resources import resource_dir

SUITES_DIR = resource_dir("pipelines") / "experiments"
Variable = Literal["depth", "component_size", "task", "distractor", "context_length", "reasoning_effort", "none_option"]
EXAMPLE_VARIABLES = ("depth", "component_size", "task", "distractor", "context_length", "none_option")


class _Strict(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class SizeRange(_Strict):
    min: int = Field(ge=1)
    max: int = Field(ge=1)


class Draw(_Strict):
    """How the variables a suite does not vary are drawn (defaults: the paper's §4.1)."""

    task: tuple[Literal["yesno", "mc", "count"], ...] = ("yesno", "mc", "count")
    depth: tuple[int, ...] = (4, 8, 16, 32)
    component_size: SizeRange = SizeRange(min=100, max=250)
    distractor: tuple[str, ...] = ("code", "essays", "books", "wikipedia", "disjoint-component")
    context_length: tuple[int, ...] = (200_000,)
    alpha: float = DEFAULT_ALPHA


class SuiteSpec(_Strict):
    name: str
    description: str = ""
    vary: Variable
    values: tuple[Any, ...]
    per_value: int = Field(ge=1)
    same_examples: bool = False
    draw: Draw = Draw()
    fixed: dict[str, Any] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _check(self) -> SuiteSpec:
        if not self.values:
            raise ValueError("a suite needs at least one value")
        if self.vary == "reasoning_effort" and not self.same_examples:
            raise ValueError("reasoning effort is a run setting: set same_examples: true")
        unknown = set(self.fixed) - set(EXAMPLE_VARIABLES)
        if unknown:
            raise ValueError(f"unknown fixed variables {sorted(unknown)}")
        return self

    @property
    def example_values(self) -> tuple[Any, ...]:
        """The values that change the examples (one group for run-setting suites)."""
        return (None,) if self.same_examples else self.values

    def to_json(self) -> dict[str, Any]:
        return json.loads(self.model_dump_json())


def load_suite(name_or_path: str | Path) -> SuiteSpec:
    """A suite by name (``<suites dir>/<name>.yaml``) or by path."""
    path = Path(name_or_path)
    if not path.suffix:
        path = SUITES_DIR / f"{name_or_path}.yaml"
    if not path.is_file():
        known = ", ".join(sorted(p.stem for p in SUITES_DIR.glob("*.yaml")))
        raise GraphNIAHError(f"no suite {name_or_path!r} ({path} does not exist); known suites: {known}")
    try:
        return SuiteSpec.model_validate(yaml.safe_load(path.read_text(encoding="utf-8")))
    except (yaml.YAMLError, ValidationError) as err:
        raise GraphNIAHError(f"{path}: not a valid suite file: {err}") from None


@dataclass(frozen=True)
class SuiteItem:
    """One example of a suite: the value it belongs to, its spec and its index (its randomness)."""

    value: Any
    spec: ExampleSpec
    index: int


def plan_suite(suite: SuiteSpec, seed: int, per_value: int | None = None) -> list[SuiteItem]:
    """Every example of the suite, deterministically from ``seed`` and the suite's name.

    Value group ``i`` draws from ``SeedSequence([seed, name_key, i])``, so two suites built with the
    same seed are still independent draws.
    """
    name_key = int(sha256_bytes(suite.name.encode())[:8], 16)
    n = per_value or suite.per_value
    d = suite.draw
    items: list[SuiteItem] = []
    index = 0
    values = suite.example_values
    if suite.vary == "none_option":
        values = (False,)  # built once without the option, then repeated with it (same indices)
    for vi, value in enumerate(values):
        rng = np.random.default_rng(np.random.SeedSequence([seed, name_key, vi]))
        rows: list[dict[str, Any]] = []
        for _ in range(n):
            row = {
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
        for row, label in zip(rows, labels):
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
            items.append(SuiteItem(value, spec, index))
            index += 1
    if suite.vary == "none_option":
        # Both twins pack with room for the fifth option, so their contexts are identical.
        base = [replace(it.spec, reserve_none_option=True) for it in items]
        items = [SuiteItem(False, sp, it.index) for sp, it in zip(base, items)] + [
            SuiteItem(True, replace(sp, none_option=True), it.index) for sp, it in zip(base, items)
        ]
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


def _init_worker(snapshot_dir: str) -> None:
    global _WORKER_CTX  # one loaded snapshot per worker process (it is large)
    _WORKER_CTX = SamplingContext(Snapshot.open(snapshot_dir))


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
    progress: Callable[[int, int], None] | None = None,
) -> BuiltSuite:
    """Build (or finish building) the suite's examples; see the module docstring for the files."""
    items = plan_suite(suite, seed, per_value)
    examples_path, manifest_path, partial = suite_paths(out_root, suite.name)
    out_root.mkdir(parents=True, exist_ok=True)
    done = _read_partial(partial)
    prompts_hash = load_prompts().hash
    keys = [_item_key(it, seed, snapshot.content_hash, prompts_hash) for it in items]
    reused = sum(k in done for k in keys)
    todo = [(k, it) for k, it in zip(keys, items) if k not in done]
    if progress:
        progress(len(items) - len(todo), len(items))
    if todo:
        with open(partial, "a", encoding="utf-8") as log:

            n_done = reused

            def record(key: str, line: str) -> None:
                nonlocal n_done
                done[key] = line
                n_done += 1
                log.write(json.dumps({"key": key, "example": line}) + "\n")
                log.flush()
                os.fsync(log.fileno())
                if progress:
                    progress(n_done, len(items))

            if workers <= 1:
                ctx = SamplingContext(snapshot)
                for key, it in todo:
                    record(key, build_example(ctx, it.spec, seed, it.index).model_dump_json())
            else:
                with ProcessPoolExecutor(max_workers=workers, initializer=_init_worker, initargs=(str(snapshot.path),)) as pool:
                    pending: dict[Future[str], str] = {}
                    queue = list(todo)
                    while queue or pending:
                        while queue and len(pending) < 2 * workers:
                            key, it = queue.pop(0)
                            pending[pool.submit(_build_in_worker, it.spec, seed, it.index)] = key
                        finished, _ = wait(pending, return_when=FIRST_COMPLETED)
                        for fut in finished:
                            record(pending.pop(fut), fut.result())
    examples = [Example.model_validate_json(done[k]) for k in keys]
    write_examples(examples_path, examples)
    manifest = {
        "kind": "graphniah.suite",
        "suite": suite.to_json(),
        "seed": seed,
        "per_value": per_value or suite.per_value,
        "snapshot": str(snapshot.path),
        "snapshot_hash": snapshot.content_hash,
        "synthetic": bool(snapshot.manifest.get("synthetic")),
        "version": __version__,
        "created_at": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
        "examples": [
            {"id": ex.id, "index": it.index, "value": it.value, "recipe": ex.recipe.model_dump()} for ex, it in zip(examples, items)
        ],
    }
    write_json(manifest_path, manifest)
    partial.unlink(missing_ok=True)
    return BuiltSuite(examples_path, manifest_path, len(examples), reused)
