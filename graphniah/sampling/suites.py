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
  ``task.yaml``), so before and after have the very same context;
- a suite that varies ``render`` (``rendering``) is paired the same way: each example drawn for
  its first value is built again with each other rendering at its index (same forest,
  distractors and L);
- a suite whose ``template`` is a list of template sets (``prompt-sensitivity``) renders every
  example once per set, at its index: the same forest, and the same context, packed to fit the
  prompt of every listed set (``ExampleSpec.templates``); one name words the whole suite in that set.

The rendering is never drawn: it is APA unless fixed or varied. ``extra`` adds ``n`` examples to
one value with some variables fixed, drawn from a stream of their own after the value groups (the
demo's one edge-list example), so the other examples keep their indices. ``base: true`` adds, after
everything else, each example's no-distractor twin: its spec with distractor ``none`` and the same
L, seed and index, hence the same components; an example without distractors is its own twin. The
manifest records each example's twin (``base_id``) and marks the twins (``is_base``); the report
keeps them out of its tables and gives each model's base accuracy from them.

``build_suite`` writes ``examples/<suite>.jsonl`` (examples in plan order) and ``<suite>.json`` (the
suite manifest: the suite file, seed, snapshot, and every example's recipe). Examples are built in
up to ``workers`` worker processes, one for each :data:`EXAMPLES_PER_WORKER` examples to build (fewer
are built in this process: a worker's start-up costs more than it saves); each finished example is
appended (fsynced) to a ``.partial`` file, so an
interrupted build resumes with only the missing examples and the finished file is renamed into
place at the end. A build of a suite whose finished build is in place, with the same plan and inputs,
takes its examples as they are (``_finished``) and builds nothing.
"""

from __future__ import annotations

import datetime as dt
import os
from collections.abc import Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from graphniah import __version__
from graphniah.atomic import atomic_write_bytes, canonical_json, disk_error, sha256_bytes
from graphniah.errors import GraphNIAHError
from graphniah.formats import ArtifactHash
from graphniah.formats.examples import open_examples, parse_example
from graphniah.formats.snapshot import Snapshot
from graphniah.formats.suites import (
    EXAMPLE_VARIABLES,
    Extra,
    PartialLine,
    Reuse,
    ReuseRecord,
    SuiteManifest,
    SuiteManifestExample,
    SuiteSpec,
    read_partial_lines,
    read_suite_manifest,
    read_suite_spec,
    same_value,
    write_suite_manifest,
)
from graphniah.layout import EXAMPLES_ROOT, SuiteFiles, suite_files
from graphniah.progress import NO_PROGRESS, Progress, step
from graphniah.resources import resource_dir
from graphniah.sampling.examples.distract import NONE
from graphniah.sampling.examples.sample import build_example
from graphniah.sampling.examples.spec import (
    LEARNED_MATCH_TASKS,
    MATCHED_TASKS,
    WEIGHTED_MATCH_TASKS,
    ExampleSpec,
    SamplingContext,
    spec_of,
)
from graphniah.sampling.examples.targets import balanced_labels
from graphniah.seeds import Stream, generator, suite_key
from graphniah.text import PromptSet, checker_version, load_prompts, verify
from graphniah.text.prompts import load_template

SUITES_ENV = "GRAPHNIAH_SUITES"


def default_suites_dir() -> Path:
    """``$GRAPHNIAH_SUITES`` if set, else the suites shipped in the package (read at each call)."""
    env = os.environ.get(SUITES_ENV)
    return Path(env) if env else resource_dir("pipelines") / "suites"


def load_suite_spec(name_or_path: str | Path, suites_dir: str | Path | None = None) -> SuiteSpec:
    """A suite's spec by name (``<suites_dir>/<name>.yaml``; default :func:`default_suites_dir`) or by path."""
    folder = Path(suites_dir) if suites_dir is not None else default_suites_dir()
    path = Path(name_or_path)
    if not path.suffix:
        path = folder / f"{name_or_path}.yaml"
    if not path.is_file():
        known = ", ".join(sorted(p.stem for p in folder.glob("*.yaml"))) or f"none ({folder} has no .yaml files)"
        raise GraphNIAHError(f"no suite {name_or_path!r} ({path} does not exist); known suites: {known}")
    return read_suite_spec(path)


@dataclass(frozen=True)
class SuiteItem:
    """One example of a suite: the value it belongs to, its spec and its index (its randomness).

    ``reused`` is the id of the example copied from another suite (``SuiteSpec.reuse``); such an
    item is never built. ``twin`` marks the no-distractor twin of another item (``SuiteSpec.base``).
    """

    value: Any
    spec: ExampleSpec
    index: int
    reused: str | None = None
    twin: bool = False


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
    # The other suite's no-distractor twins (``base: true``): a twin this suite needs is copied from
    # them byte for byte when it is there (:func:`with_base_twins`).
    twins: tuple[ReusedExample, ...] = ()

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
    other = suite_files(out_root, reuse.suite)
    examples_path, manifest_path = other.examples, other.manifest
    hint = f"run 'graphniah build --suite {reuse.suite} --seed {seed} --out {out_root}' first"
    if not (examples_path.is_file() and manifest_path.is_file()):
        raise GraphNIAHError(f"suite {suite.name} reuses the examples of suite {reuse.suite}, which is not built under {out_root}: {hint}")
    with open_examples(examples_path) as f:  # checked against the manifest's hash of it
        manifest_bytes, examples_bytes = manifest_path.read_bytes(), f.read()
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
    twins: list[ReusedExample] = []  # the other suite's no-distractor twins, there to be copied too
    for entry, line, ex in zip(entries, lines, parsed, strict=True):
        spec, _, index = spec_of(ex)
        if entry.is_base:
            twins.append(ReusedExample(ex.id, entry.value, spec, index, line))
            continue
        if reuse.from_value is not None and not same_value(entry.value, reuse.from_value):
            continue
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
                       tuple(chosen), tuple(twins))


def matched(spec: ExampleSpec, suite: SuiteSpec) -> ExampleSpec:
    """``spec`` with matched sampling on; counting and listing draw the other components' sizes from
    the suite's size range (its values when it varies the component size)."""
    if spec.task in MATCHED_TASKS:  # a target in the question: its venue relation and its learned score matched too
        return replace(spec, match_similarity=True, match_venue=True, match_components=True,
                       match_learned=spec.task in LEARNED_MATCH_TASKS, match_weighted=spec.task in WEIGHTED_MATCH_TASKS)
    if suite.vary == "component_size":
        lo, hi = int(min(suite.values)), int(max(suite.values))
    else:
        lo, hi = suite.draw.component_size.min, suite.draw.component_size.max
    return replace(spec, match_similarity=True, size_range=(lo, hi), match_components=True)


def _slotted(spec: ExampleSpec, slots: dict[tuple[str, int], int]) -> ExampleSpec:
    """``spec`` with the next source slot of its task and depth when matched on the learned score, so the
    suite's questions take distinct sources (``source_slot``, similarity.DistinctSources); else unchanged."""
    if not spec.match_learned:
        return spec
    key = (spec.task, spec.depth)
    slots[key] = slots.get(key, -1) + 1
    return replace(spec, source_slot=slots[key])


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
    slots: dict[tuple[str, int], int] = {}
    values = _drawn_values(suite)
    # The value groups, then the extra groups (``extra``), each drawing from its own stream.
    groups: list[tuple[Any, int, Extra | None]] = [(v, suite.count(v, per_value), None) for v in values]
    groups += [(e.value, e.n, e) for e in suite.extra]
    for vi, (value, n, extra) in enumerate(groups):
        if extra is None and reused is not None and suite.reuse is not None and same_value(value, suite.reuse.for_value):
            items += [SuiteItem(value, r.spec, r.index, reused=r.id) for r in reused.examples]
            index += n
            continue
        rng = generator(Stream.SUITE, seed, name_key, vi)
        rows = _draw_rows(suite, rng, n, value, extra)
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
                render=row["render"],
            )
            if suite.reserve_none_option and spec.task == "mc":
                spec = replace(spec, reserve_none_option=True)
            if suite.match_similarity:
                spec = _slotted(matched(spec, suite), slots)
            items += [SuiteItem(value, s, index) for s in _row_wordings(spec, row.get("template"))]
            index += 1
    items = _worded(suite, _paired(suite, items))
    if suite.base:
        items = with_base_twins(items, reused.twins if reused is not None else ())
    return items


def _drawn_values(suite: SuiteSpec) -> tuple[Any, ...]:
    """The values whose examples are drawn. A paired suite draws one group and repeats it with each
    other value at the same indices (:func:`_paired`): none-option without the option, render its
    first value."""
    if suite.vary == "none_option":
        return (False,)
    if suite.vary == "render":
        return suite.values[:1]
    return suite.example_values


def _paired(suite: SuiteSpec, items: list[SuiteItem]) -> list[SuiteItem]:
    """The drawn items, then their twins with each other value of a paired suite (same spec, seed
    and index, so the same components: a render twin holds the same forest, distractors and L)."""
    if suite.vary == "none_option":
        # Both twins pack with room for the fifth option, so their contexts are identical (reused
        # "before" examples were packed so: load_reused checks it).
        base = [it if it.reused else replace(it, spec=replace(it.spec, reserve_none_option=True)) for it in items]
        return base + [SuiteItem(True, replace(it.spec, none_option=True), it.index) for it in base]
    if suite.vary == "render":
        return items + [SuiteItem(v, replace(it.spec, render=v), it.index) for v in suite.values[1:] for it in items]
    return items


def _worded(suite: SuiteSpec, items: list[SuiteItem]) -> list[SuiteItem]:
    """The items in the suite's template set; with several sets, every item once per set, set by set
    (same spec, seed and index: the same forest, and a context packed to fit every set's prompt)."""
    names = suite.templates
    if names == ("default",):
        return items
    if len(names) == 1:
        return [it if it.reused else replace(it, spec=replace(it.spec, template=names[0])) for it in items]
    return [replace(it, spec=replace(it.spec, template=t, templates=names)) for t in names for it in items]


def _row_wordings(spec: ExampleSpec, template: str | list[str] | None) -> list[ExampleSpec]:
    """An extra group's spec in the template set(s) its ``fixed`` names: one set, or each of a list at
    one index, the context packed for all of them (the demo's examples asked in two sets)."""
    if template is None:
        return [spec]
    if isinstance(template, str):
        return [replace(spec, template=template)]
    return [replace(spec, template=t, templates=tuple(template)) for t in template]


def _draw_rows(suite: SuiteSpec, rng: np.random.Generator, n: int, value: Any, extra: Extra | None) -> list[dict[str, Any]]:
    """The example variables of ``n`` examples of ``value``: drawn (§4.1), then the suite's fixed ones,
    the value, and an extra group's fixed ones. The rendering is never drawn (APA unless fixed or
    varied), so suites that do not name it plan exactly what they planned before it existed."""
    d = suite.draw
    rows: list[dict[str, Any]] = []
    for _ in range(n):
        row: dict[str, Any] = {
            "task": d.task[int(rng.integers(len(d.task)))],
            "depth": d.depth[int(rng.integers(len(d.depth)))],
            "component_size": int(rng.integers(d.component_size.min, d.component_size.max + 1)),
            "distractor": d.distractor[int(rng.integers(len(d.distractor)))],
            "context_length": d.context_length[int(rng.integers(len(d.context_length)))],
            "none_option": False,
            "render": "apa",
        }
        row.update(suite.fixed)
        if value is not None and suite.vary in EXAMPLE_VARIABLES:
            row[suite.vary] = value
        if extra is not None:
            row.update(extra.fixed)
        rows.append(row)
    return rows


def _twin_key(spec: ExampleSpec, index: int) -> str:
    """What identifies an example's no-distractor twin: its index and its spec without distractors."""
    return canonical_json([index, replace(spec, distractor=NONE).params()])


def with_base_twins(items: list[SuiteItem], available: Sequence[ReusedExample] = ()) -> list[SuiteItem]:
    """``items`` and, after them, the no-distractor twin of each item that has distractors: the same
    spec, index and value with distractor ``none`` (L kept, so the needles meet the same length
    check), hence the same components. An item without distractors is its own twin (its line is the
    twin's, byte for byte, so it is not planned twice); a twin among ``available`` (the twins of a
    reused suite) is copied from there byte for byte instead of being built."""
    have = {_twin_key(r.spec, r.index): r.id for r in available}
    twins = [SuiteItem(it.value, replace(it.spec, distractor=NONE), it.index, reused=have.get(_twin_key(it.spec, it.index)),
                       twin=True)
             for it in items if it.spec.distractor != NONE]
    return items + twins


def base_ids(items: Sequence[SuiteItem], ids: Sequence[str]) -> list[str]:
    """Per item (with its example's id), the id of its no-distractor twin (itself for a twin or an
    item without distractors); the items must hold every twin (:func:`with_base_twins`)."""
    twin_id = {_twin_key(it.spec, it.index): i for it, i in zip(items, ids, strict=True) if it.twin}
    return [i if it.twin or it.spec.distractor == NONE else twin_id[_twin_key(it.spec, it.index)]
            for it, i in zip(items, ids, strict=True)]


def _item_key(item: SuiteItem, seed: int, snapshot_hash: str, prompts_hash: str) -> str:
    """What a finished example in a ``.partial`` file must match to be reused: the item and every
    input of its build (another seed, snapshot or prompt set makes it stale)."""
    return sha256_bytes(canonical_json({
        "value": item.value, "index": item.index, "spec": item.spec.params(),
        "seed": seed, "snapshot": snapshot_hash, "prompts": prompts_hash,
    }).encode())


# ---- building ---------------------------------------------------------------------------------

_WORKER_CTX: SamplingContext | None = None

# A worker process pays a start-up of its own before its first example: the snapshot (SamplingContext),
# the graph, the tokenizers, each depth's pools and matching scorers. On the demo suite (per_value 2 to
# 8, 13 to 37 examples; docs/speed.md) two workers took 4 to 10 s more CPU than this process alone
# (about 7 s typical, up to 18 s with the other core busy), and a warm example costs 0.2 to 0.35 s. So a
# worker is started for every 20 examples to build, about what its start-up costs: the demo at per_value
# 2 and the tests' small builds run in this process, the shipped demo's 149 examples keep two workers.
# Scorers still to train are no reason for a pool: each of two workers prepares the depth to train one.
EXAMPLES_PER_WORKER = 20


def workers_for(n_todo: int, workers: int) -> int:
    """The worker processes that build ``n_todo`` examples: at most ``workers``, one per
    :data:`EXAMPLES_PER_WORKER` examples; 0 or 1 means none (built in this process)."""
    return max(0, min(workers, n_todo // EXAMPLES_PER_WORKER))


def _init_worker(snapshot_dir: str, prompts_dir: str) -> None:
    global _WORKER_CTX  # one loaded snapshot per worker process (it is large)
    _WORKER_CTX = SamplingContext(Snapshot.open(snapshot_dir), prompts=load_prompts(prompts_dir))


def _build_in_worker(spec: ExampleSpec, seed: int, index: int) -> str:
    assert _WORKER_CTX is not None
    return build_example(_WORKER_CTX, spec, seed, index).model_dump_json()


def _scorer_in_worker(depth: int, weighted: bool) -> None:
    """Train (or read) one matching scorer in a worker; it is stored in the snapshot for the others."""
    assert _WORKER_CTX is not None
    _WORKER_CTX.learned_match(depth, weighted)


def _scorers(todo: Sequence[tuple[str, SuiteItem]]) -> list[tuple[int, bool]]:
    """The matching scorers the ``todo`` items draw with, (depth, weighted), deepest first."""
    return sorted({(it.spec.depth, it.spec.match_weighted) for _, it in todo if it.spec.match_learned}, reverse=True)


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
    for rec in read_partial_lines(path, data[:end].decode("utf-8")):
        done[rec.key] = rec.example
    return done


def _build_missing(todo: list[tuple[str, SuiteItem]], partial: Path, done: dict[str, str], snapshot: Snapshot, seed: int,
                   workers: int, prompt_set: PromptSet, progress: Progress) -> None:
    """Build the ``todo`` items, appending each finished one (fsynced) to ``partial`` and to ``done``, in
    at most ``workers`` worker processes (:func:`workers_for`; the same bytes with any number)."""
    if not todo:
        return
    # Unbuffered: a write the disk refuses fails here, once, and not again when the file is closed.
    with open(partial, "ab", buffering=0) as log:

        def record(key: str, line: str) -> None:
            try:
                log.write((PartialLine(key=key, example=line).model_dump_json() + "\n").encode("utf-8"))
                os.fsync(log.fileno())
            except OSError as e:  # a torn last line is cut off by the next run (_read_partial)
                raise disk_error(e, partial) or e from None
            done[key] = line
            progress.advance()

        workers = workers_for(len(todo), workers)
        if workers <= 1:
            ctx = SamplingContext(snapshot, prompts=prompt_set)
            for key, it in todo:
                record(key, build_example(ctx, it.spec, seed, it.index).model_dump_json())
        else:
            with ProcessPoolExecutor(max_workers=workers, initializer=_init_worker, initargs=(str(snapshot.path), str(prompt_set.directory))) as pool:
                # Each scorer trained once, by one worker, before any example needs it (it is stored in the
                # snapshot and read by the others); else every worker trained every scorer its first
                # examples asked for at the same time (a third of a fresh demo suite's build).
                for trained in [pool.submit(_scorer_in_worker, depth, weighted) for depth, weighted in _scorers(todo)]:
                    trained.result()
                pending: dict[Future[str], str] = {}
                queue = list(todo)
                while queue or pending:
                    while queue and len(pending) < 2 * workers:
                        key, it = queue.pop(0)
                        pending[pool.submit(_build_in_worker, it.spec, seed, it.index)] = key
                    finished, _ = wait(pending, return_when=FIRST_COMPLETED)
                    for fut in finished:
                        record(pending.pop(fut), fut.result())


def _finished(files: SuiteFiles, suite: SuiteSpec, seed: int, per_value: int | None, snapshot: Snapshot, prompt_set: PromptSet,
              items: Sequence[SuiteItem], keys: Sequence[str], hashes: Sequence[str]) -> tuple[dict[str, str], set[str]]:
    """The lines of the finished build in place, by item key, when it is this same build; and the keys
    of those its manifest recorded as verified under today's checker.

    Same build: the manifest's suite, seed, size, snapshot and checker (the verifier's code and the
    template set) are these, the examples file has the bytes the manifest recorded, and each example's
    index, value, template hash and spec parameters are those of the plan's item at its place. A second
    ``make demo`` then rebuilds nothing; anything else builds as before (an unreadable manifest too).
    """
    if not (files.manifest.is_file() and files.examples.is_file()):
        return {}, set()
    try:
        m = read_suite_manifest(files.manifest)
    except GraphNIAHError:
        return {}, set()
    data = files.examples.read_bytes()
    lines = data.decode("utf-8", errors="replace").split("\n")[:-1]
    if not (m.suite == suite and m.seed == seed and m.per_value == (per_value or suite.per_value)
            and m.snapshot_hash == snapshot.content_hash and m.checker == checker_version(prompt_set)
            and m.examples_file == ArtifactHash(sha256=sha256_bytes(data), bytes=len(data))
            and len(m.examples) == len(items) == len(lines)):
        return {}, set()
    for e, it, h in zip(m.examples, items, hashes, strict=True):
        params = e.recipe.params.model_dump(mode="json")
        if (e.index, canonical_json(e.value), e.recipe.prompts_hash) != (it.index, canonical_json(it.value), h) or any(
                canonical_json(params.get(k)) != canonical_json(v) for k, v in it.spec.params().items()):
            return {}, set()
    done = {k: line for k, it, line in zip(keys, items, lines, strict=True) if it.reused is None}
    return done, {k for k, e, line in zip(keys, m.examples, lines, strict=True)
                  if k in done and e.sha256 == sha256_bytes(line.encode())}


@dataclass(frozen=True)
class BuiltSuite:
    examples_path: Path
    manifest_path: Path
    n_examples: int
    reused: int


def build_suite(
    suite: SuiteSpec,
    snapshot: Snapshot,
    seed: int,
    *,
    out_root: Path = EXAMPLES_ROOT,
    per_value: int | None = None,
    workers: int = 2,
    progress: Progress = NO_PROGRESS,
    prompts: str | Path | None = None,
) -> BuiltSuite:
    """Build (or finish building) the suite's examples; see the module docstring for the files.

    ``workers`` is the most worker processes the build starts (:func:`workers_for`: none for a build of
    fewer than ``2 * EXAMPLES_PER_WORKER`` examples); the examples are the same bytes with any number.
    ``prompts`` is the template folder (default: :func:`~graphniah.text.prompts.default_prompts_dir`).
    """
    taken = load_reused(suite, out_root, snapshot.content_hash, seed, per_value) if suite.reuse is not None else None
    items = plan_suite(suite, seed, per_value, taken)
    files = suite_files(out_root, suite.name)
    examples_path, manifest_path, partial = files.examples, files.manifest, files.partial
    out_root.mkdir(parents=True, exist_ok=True)
    prompt_set = load_prompts(prompts)
    hashes = [load_template(it.spec.template, prompt_set.directory).hash for it in items]
    keys = [_item_key(it, seed, snapshot.content_hash, h) for it, h in zip(items, hashes, strict=True)]
    done, verified = _finished(files, suite, seed, per_value, snapshot, prompt_set, items, keys, hashes)
    done |= _read_partial(partial)
    reused = sum(k in done for k in keys)
    todo = [(k, it) for k, it in zip(keys, items, strict=True) if k not in done and it.reused is None]
    with step(progress, len(items), f"building {suite.name}"):
        progress.advance(len(items) - len(todo))
        _build_missing(todo, partial, done, snapshot, seed, workers, prompt_set, progress)
    copied = {r.id: r.line for r in (*taken.examples, *taken.twins)} if taken is not None else {}
    lines = [copied[it.reused] if it.reused is not None else done[k] for k, it in zip(keys, items, strict=True)]
    examples = [parse_example(line, f"{examples_path} (line {i})") for i, line in enumerate(lines, 1)]
    # The lines as they are: a reused example is the other suite's line byte for byte.
    data = "".join(line + "\n" for line in lines).encode()
    atomic_write_bytes(examples_path, data)
    bases: list[str | None] = list(base_ids(items, [ex.id for ex in examples])) if suite.base else [None] * len(items)
    # Recorded as verified: the examples built in this call (the sampler verified each from its text)
    # and those resumed from .partial, checked again here (an earlier call built them, perhaps under
    # another checker), so an interrupted and resumed build writes the manifest an uninterrupted one does.
    checked = {k for k, _ in todo} | verified  # and a finished build's verified lines, taken as they are
    fresh = checked | {k for k, it, ex in zip(keys, items, examples, strict=True)
                       if it.reused is None and k not in checked and verify(ex, prompt_set).ok}
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
                                 reused_from=taken.name if taken is not None and it.reused is not None else None,
                                 base_id=base, is_base=it.twin, sha256=sha256_bytes(line.encode()) if k in fresh else None)
            for ex, it, base, k, line in zip(examples, items, bases, keys, lines, strict=True)
        ),
        reuse=taken.record(suite.reuse) if taken is not None and suite.reuse is not None else None,
        checker=checker_version(prompt_set),
        examples_file=ArtifactHash(sha256=sha256_bytes(data), bytes=len(data)),
    )
    write_suite_manifest(manifest_path, manifest)
    partial.unlink(missing_ok=True)
    return BuiltSuite(examples_path, manifest_path, len(examples), reused)
