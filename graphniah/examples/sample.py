"""Sampling examples: draw backbone paths, grow components, pose the task, render, verify.

One example is a pure function of (snapshot, path pool, prompt templates, spec, seed, index):
its generator is ``default_rng(SeedSequence([seed, index]))``, and the spec (task, depth,
component size, label, options, α) is stored in the recipe. ``regenerate`` replays exactly that,
so ``graphniah show`` reproduces a prompt byte for byte from its recipe alone.

A batch assigns the spec: component sizes uniform in [100, 250] unless fixed, YES/NO labels in
consecutive pairs (one YES, one NO, random order) and multiple-choice answer letters in
consecutive groups of four (each letter once, random order) — the paper's answer balance
(appendix A.2.5).
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from graphniah import __version__
from graphniah.errors import GraphNIAHError
from graphniah.examples.backbones import PoolIndex
from graphniah.examples.grow import Component, GrowthStats, grow_components, paths_compatible
from graphniah.examples.prompts import PromptSet, Task, load_prompts
from graphniah.examples.records import Example, PaperMeta, Recipe, option_letters
from graphniah.examples.render import build_messages, example_stats, question, render_component
from graphniah.examples.textcheck import normalize, verify
from graphniah.graph.citation_graph import CitationGraph
from graphniah.graph.store import load_pool, pool_file
from graphniah.io import canonical_json, read_json, sha256_bytes
from graphniah.snapshot import Snapshot

MIN_SIZE, MAX_SIZE = 100, 250
DEFAULT_ALPHA = 0.1
COMPONENTS = {"yesno": 2, "mc": 4, "count": 2}
MAX_PATH_DRAWS = 100  # per attempt: compatible tuples drawn until none has a mutual citation inside a path
MAX_ATTEMPTS = 50  # per example: growth or verification failures before giving up


@dataclass(frozen=True)
class ExampleSpec:
    """Everything that defines an example besides the randomness."""

    task: Task
    depth: int
    component_size: int
    label: str | None = None  # "YES"/"NO" (yesno), the answer letter (mc), None (count)
    none_option: bool = False
    alpha: float = DEFAULT_ALPHA

    def __post_init__(self) -> None:
        if self.task not in COMPONENTS:
            raise GraphNIAHError(f"unknown task {self.task!r} (choose yesno, mc or count)")
        if self.alpha <= 0:
            raise GraphNIAHError(f"alpha must be > 0, got {self.alpha}")
        if self.depth < 2:
            raise GraphNIAHError(f"depth must be at least 2, got {self.depth}")
        if self.component_size < 3 * self.depth - 2:
            raise GraphNIAHError(
                f"component size {self.component_size} is smaller than the backbone of depth {self.depth} ({3 * self.depth - 2} papers)"
            )
        if self.task == "yesno" and self.label not in ("YES", "NO"):
            raise GraphNIAHError(f"a YES/NO example needs label YES or NO, got {self.label!r}")
        if self.task == "mc" and (self.label is None or self.label not in option_letters(COMPONENTS["mc"], False)):
            raise GraphNIAHError(f"a multiple-choice example needs an answer letter A-D, got {self.label!r}")
        if self.task == "count" and self.label is not None:
            raise GraphNIAHError("a counting example has no label")
        if self.none_option and self.task != "mc":
            raise GraphNIAHError("the 'none of these' option exists only for multiple choice")

    def params(self) -> dict:
        return {
            "task": self.task,
            "depth": self.depth,
            "component_size": self.component_size,
            "label": self.label,
            "none_option": self.none_option,
            "alpha": self.alpha,
        }


@dataclass
class SampleStats:
    attempts: int = 0
    growth_steps: int = 0
    rejects: Counter = field(default_factory=Counter)


class SamplingContext:
    """A loaded snapshot: citation graph, paper metadata aligned with vertices, path pools, prompts."""

    def __init__(self, snapshot: Snapshot, graph: CitationGraph | None = None, prompts: PromptSet | None = None):
        self.snapshot = snapshot
        self.graph = graph if graph is not None else CitationGraph.load(snapshot)
        papers = pq.read_table(snapshot.papers_path)
        if not np.array_equal(np.asarray(papers.column("corpusid"), dtype=np.int64), self.graph.corpusids):
            papers = papers.sort_by("corpusid")
        self._papers = papers  # row v describes vertex v (both ascending by corpus id)
        self._titles = papers.column("title").combine_chunks()
        self.prompts = prompts or load_prompts()
        self.mask = np.zeros(self.graph.n, dtype=bool)
        self._pools: dict[int, tuple[np.ndarray, str]] = {}
        self._pool_index: dict[int, PoolIndex] = {}

    @property
    def snapshot_hash(self) -> str:
        return self.snapshot.content_hash

    def pool(self, depth: int) -> tuple[np.ndarray, str]:
        """The pool of ``depth`` as vertex ids (n_paths × (3k−2)) and the pool file's sha256."""
        if depth not in self._pools:
            try:
                pool = load_pool(self.snapshot, depth)
            except (GraphNIAHError, OSError) as err:
                raise GraphNIAHError(
                    f"no usable path pool for depth {depth} in {self.snapshot.path} ({err}); run `graphniah paths --depth {depth}` or `make refresh`"
                ) from None
            sha = read_json(pool_file(self.snapshot, depth).with_suffix(".json"))["sha256"]
            verts = self.graph.vertex_of(pool.paths.reshape(-1), source=str(pool_file(self.snapshot, depth))).reshape(pool.paths.shape)
            self._pools[depth] = (verts, sha)
        return self._pools[depth]

    def pool_index(self, depth: int) -> PoolIndex:
        """The depth's pool with its path-conflict matrix (built once per context)."""
        if depth not in self._pool_index:
            verts, _ = self.pool(depth)
            self._pool_index[depth] = PoolIndex.build(verts, self.graph.neighbor_csr, self.graph.n, self.title_key)
        return self._pool_index[depth]

    @functools.cached_property
    def title_key(self) -> Callable[[int], str]:
        """Vertex -> the verifier's normalised title (two papers with equal keys could be confused)."""
        titles = self._titles

        @functools.lru_cache(maxsize=1 << 18)
        def key(v: int) -> str:
            return normalize(titles[v].as_py())

        return key

    def meta(self, vertices: Sequence[int]) -> dict[int, PaperMeta]:
        """``{corpusid: PaperMeta}`` of the given vertices."""
        rows = self._papers.take(pa.array(np.asarray(vertices, dtype=np.int64))).to_pylist()
        return {int(r["corpusid"]): PaperMeta.from_row(r) for r in rows}


def example_rng(seed: int, index: int) -> np.random.Generator:
    return np.random.default_rng(np.random.SeedSequence([seed, index]))


def _draw_paths(ctx: SamplingContext, spec: ExampleSpec, rng: np.random.Generator, stats: SampleStats) -> list[np.ndarray]:
    """Pairwise compatible pool paths (see ``backbones``), each in a uniformly random direction."""
    index = ctx.pool_index(spec.depth)
    k = COMPONENTS[spec.task]
    for _ in range(MAX_PATH_DRAWS):
        chosen = index.draw(k, rng)
        paths = [index.paths[i] if rng.random() < 0.5 else index.paths[i][::-1] for i in chosen]
        # The conflict matrix covers papers, titles and edges between paths; what is left to
        # reject here is a mutual citation inside one path (not a single-direction edge).
        reason = paths_compatible(ctx.graph, paths, ctx.title_key, ctx.mask)
        if reason is None:
            return paths
        stats.rejects[f"paths_{reason}"] += 1
    raise GraphNIAHError(
        f"could not draw {k} compatible paths from the depth-{spec.depth} pool in {MAX_PATH_DRAWS} tries "
        f"(rejects: {dict(stats.rejects)}); the snapshot is too small or too dense for this request"
    )


def _pose(spec: ExampleSpec, comps: list[Component]) -> tuple[int, list[int], str]:
    """Source vertex, target vertices (option order) and answer, from the grown components."""
    first = comps[0]
    if spec.task == "yesno":
        target = first.target if spec.label == "YES" else comps[1].target
        return first.source, [target], spec.label or ""
    if spec.task == "mc":
        letters = option_letters(COMPONENTS["mc"], False)
        wrong = [c.target for c in comps[1:]]
        pos = letters.index(spec.label or "")
        return first.source, wrong[:pos] + [first.target] + wrong[pos:], spec.label or ""
    return first.source, [], str(spec.component_size - 1)


def _example_id(recipe: Recipe, task: str) -> str:
    return f"{task}-{sha256_bytes(canonical_json(recipe.model_dump()).encode())[:16]}"


def build_example(ctx: SamplingContext, spec: ExampleSpec, seed: int, index: int, stats: SampleStats | None = None) -> Example:
    """The example of (spec, seed, index): deterministic, invariant-checked and text-verified."""
    stats = stats if stats is not None else SampleStats()
    rng = example_rng(seed, index)
    _, pool_hash = ctx.pool(spec.depth)
    recipe = Recipe(
        snapshot_hash=ctx.snapshot_hash,
        pool_hash=pool_hash,
        prompts_hash=ctx.prompts.hash,
        seed=seed,
        version=__version__,
        params=spec.params() | {"index": index},
    )
    for _ in range(MAX_ATTEMPTS):
        stats.attempts += 1
        paths = _draw_paths(ctx, spec, rng, stats)
        growth = GrowthStats()
        comps = grow_components(ctx.graph, paths, spec.depth, spec.component_size, spec.alpha, rng, ctx.title_key, ctx.mask, growth)
        stats.growth_steps += growth.steps
        stats.rejects.update({f"grow_{k}": v for k, v in growth.rejects.items()})
        if comps is None:
            continue
        _check_invariant(ctx, comps, spec)
        source, targets, answer = _pose(spec, comps)
        example = _render(ctx, spec, comps, source, targets, answer, recipe, rng)
        result = verify(example, ctx.prompts)
        if not result.ok:
            stats.rejects["verify"] += 1
            continue
        return example
    raise GraphNIAHError(
        f"could not build a {spec.task} example (depth {spec.depth}, size {spec.component_size}) in {MAX_ATTEMPTS} attempts "
        f"(rejects: {dict(stats.rejects)}); the snapshot is too small or sparse for this request"
    )


def _check_invariant(ctx: SamplingContext, comps: list[Component], spec: ExampleSpec) -> None:
    """The snapshot's edges induced on the example's papers are exactly the sampled forest."""
    verts = np.asarray([v for c in comps for v in c.order], dtype=np.int64)
    forest = {e for c in comps for e in c.edges}
    inside = np.zeros(ctx.graph.n, dtype=bool)
    inside[verts] = True
    induced = set()
    for v in verts:
        for u in ctx.graph.cites(int(v)):
            if inside[u]:
                induced.add((int(v), int(u)))
    titles = {ctx.title_key(int(v)) for v in verts}
    sizes_ok = all(len(c.order) == spec.component_size and len(c.edges) == spec.component_size - 1 for c in comps)
    if induced != forest or len(titles) != len(verts) or len(set(verts.tolist())) != len(verts) or not sizes_ok:
        raise AssertionError("internal error: sampled components violate the forest invariant")


def _render(
    ctx: SamplingContext,
    spec: ExampleSpec,
    comps: list[Component],
    source: int,
    targets: list[int],
    answer: str,
    recipe: Recipe,
    rng: np.random.Generator,
) -> Example:
    cid = ctx.graph.corpusids
    verts = [v for c in comps for v in c.order]
    meta = ctx.meta(verts)
    blocks: list[str] = []
    edges: list[tuple[int, int]] = []
    for c in comps:
        e = [(int(cid[a]), int(cid[b])) for a, b in c.edges]
        edges.extend(e)
        blocks.extend(render_component(meta, e, [int(cid[v]) for v in c.order], ctx.prompts))
    # Every block gets a random key; the context lists blocks in key order (appendix A.2.4).
    keys = rng.random(len(blocks))
    context = [blocks[i] for i in np.argsort(keys, kind="stable")]
    src = meta[int(cid[source])]
    tgt = [meta[int(cid[t])] for t in targets]
    q = question(spec.task, src.title, [t.title for t in tgt], spec.none_option, ctx.prompts)
    messages = build_messages(spec.task, q, context, ctx.prompts)
    return Example(
        id=_example_id(recipe, spec.task),
        task=spec.task,
        depth=spec.depth,
        component_size=spec.component_size,
        answer=answer,
        options=tuple(t.title for t in tgt) if spec.task == "mc" else (),
        none_option=spec.none_option,
        messages=tuple(messages),
        papers=tuple(int(cid[v]) for v in verts),
        edges=tuple(edges),
        source=src.corpusid,
        targets=tuple(t.corpusid for t in tgt),
        stats=example_stats(q, blocks, context, nodes=len(verts), edges=len(edges), prompts=ctx.prompts),
        recipe=recipe,
    )


def batch_specs(
    task: Task,
    depth: int,
    n: int,
    rng: np.random.Generator,
    *,
    component_size: int | None = None,
    label: str | None = None,
    none_option: bool = False,
    alpha: float = DEFAULT_ALPHA,
) -> list[ExampleSpec]:
    """Specs of a batch with balanced answers: YES/NO in pairs, letters A–D in groups of four."""
    sizes = [component_size or int(rng.integers(MIN_SIZE, MAX_SIZE + 1)) for _ in range(n)]
    if task == "yesno":
        labels = [label] * n if label else [lab for _ in range(0, n, 2) for lab in rng.permutation(["YES", "NO"]).tolist()][:n]
    elif task == "mc":
        letters = list(option_letters(COMPONENTS["mc"], False))
        labels = [label] * n if label else [x for _ in range(0, n, 4) for x in rng.permutation(letters).tolist()][:n]
    else:
        if label:
            raise GraphNIAHError("--label applies to yesno (YES/NO) and mc (A-D) only")
        labels = [None] * n
    return [ExampleSpec(task, depth, s, lab, none_option, alpha) for s, lab in zip(sizes, labels)]


def sample_examples(
    ctx: SamplingContext,
    specs: Sequence[ExampleSpec],
    seed: int,
    *,
    first_index: int = 0,
    stats: SampleStats | None = None,
    progress: Callable[[int], None] | None = None,
) -> Iterator[Example]:
    """Build the examples of ``specs`` in order (index ``first_index + i`` for the i-th spec)."""
    for i, spec in enumerate(specs):
        yield build_example(ctx, spec, seed, first_index + i, stats)
        if progress:
            progress(i + 1)


def spec_of(example: Example) -> tuple[ExampleSpec, int, int]:
    """The spec, seed and index stored in an example's recipe."""
    p = example.recipe.params
    spec = ExampleSpec(p["task"], int(p["depth"]), int(p["component_size"]), p.get("label"), bool(p.get("none_option")), float(p["alpha"]))
    return spec, example.recipe.seed, int(p["index"])


def regenerate(ctx: SamplingContext, example: Example) -> Example:
    """Rebuild an example from its recipe; raises if the inputs it was made from have changed."""
    r = example.recipe
    if r.snapshot_hash != ctx.snapshot_hash:
        raise GraphNIAHError(f"example {example.id} was made from snapshot {r.snapshot_hash[:12]}, not {ctx.snapshot_hash[:12]} ({ctx.snapshot.path})")
    if r.prompts_hash != ctx.prompts.hash:
        raise GraphNIAHError(f"example {example.id} was rendered with prompt set {r.prompts_hash[:12]}; the prompts/ folder now hashes to {ctx.prompts.hash[:12]}")
    spec, seed, index = spec_of(example)
    if ctx.pool(spec.depth)[1] != r.pool_hash:
        raise GraphNIAHError(f"example {example.id} was made from another depth-{spec.depth} path pool ({r.pool_hash[:12]})")
    return build_example(ctx, spec, seed, index)


def find_snapshot_by_hash(root: Path, snapshot_hash: str) -> Snapshot:
    for manifest in sorted(Path(root).glob("*/cutoff=*/manifest.json")):
        if read_json(manifest).get("snapshot_hash") == snapshot_hash:
            return Snapshot(manifest.parent)
    raise GraphNIAHError(f"no snapshot with hash {snapshot_hash[:12]} under {root}/")

