"""Sampling examples: draw backbone paths, grow components, pose the task, render, verify.

One example is a pure function of (snapshot, path pool, prompt templates, spec, seed, index):
its generator is ``default_rng(SeedSequence([seed, index]))``, and the spec (task, depth,
component size, label, options, α) is stored in the recipe. ``regenerate`` replays exactly that,
so ``graphniah show`` reproduces a prompt byte for byte from its recipe alone.

A batch assigns the spec: component sizes uniform in [100, 250] unless fixed, YES/NO labels in
consecutive pairs (one YES, one NO, random order) and multiple-choice answer letters in
consecutive groups of four (each letter once, random order) — the paper's answer balance
(appendix A.2.5).

With a context length L (``ExampleSpec.context_length``) building an example includes step 4:
distractors of the spec's kind (``graphniah.sampling.examples.distract``) are packed around the needle
blocks by ``graphniah.sampling.packing.pack`` so that the whole prompt has at most L tokens under every
tokenizer, and the exact counts are stored in ``Example.token_counts``. Packing draws from a child
of the example's generator (``rng.spawn``), so the paths and growth of a later attempt do not depend
on how many distractors an earlier one drew; needles that alone exceed L make the attempt start
over with new paths (appendix A.2.4). The recipe pins the corpus (``params["corpus"]``) and the
tokenizers (``params["tokenizers"]``) so ``regenerate`` can tell when either changed.
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components

from graphniah import __version__
from graphniah.atomic import canonical_json, sha256_bytes
from graphniah.errors import GraphNIAHError
from graphniah.formats.examples import Example, PaperMeta, Recipe, RecipeParams, option_letters, papers_from_table
from graphniah.formats.snapshot import Snapshot
from graphniah.graph.citation_graph import CitationGraph
from graphniah.graph.store import load_pool, pool_file, read_pool_manifest
from graphniah.progress import NO_PROGRESS, Progress, step
from graphniah.sampling.corpora import Corpus
from graphniah.sampling.examples.backbones import PoolIndex
from graphniah.sampling.examples.distract import (
    NONE,
    ComponentSource,
    DocumentSource,
    RenderedComponent,
    check_kind,
    corpus_fingerprint,
    load_corpus,
    wikipedia_source,
)
from graphniah.sampling.examples.grow import Component, GrowthStats, Occupied, grow_components, paths_compatible
from graphniah.sampling.examples.prompts import PromptSet, Task, load_prompts
from graphniah.sampling.examples.render import build_messages, example_stats, question, render_component
from graphniah.sampling.examples.textcheck import normalize, verify
from graphniah.sampling.packing import DistractorSource, Frame, NeedlesExceedLimit, Packed, pack, tokenizer_fingerprint
from graphniah.sampling.tokenizers import Tokenizer, load_all
from graphniah.seeds import Stream, generator

MIN_SIZE, MAX_SIZE = 100, 250
DEFAULT_ALPHA = 0.1
COMPONENTS = {"yesno": 2, "mc": 4, "count": 2}
MAX_PATH_DRAWS = 100  # per attempt: compatible tuples drawn until none has a mutual citation inside a path
MAX_ATTEMPTS = 50  # per example: growth or verification failures before giving up
MAX_CONTEXT_LENGTH = 1_050_000
_CONTEXT_SLOT = "\x00context\x00"  # stands for the context when the prompt frame is cut out


def check_packing(distractor: str, context_length: int | None) -> None:
    """A known distractor kind, L within [1, MAX_CONTEXT_LENGTH], and an L whenever there are distractors."""
    check_kind(distractor)
    if context_length is not None and not 1 <= context_length <= MAX_CONTEXT_LENGTH:
        raise GraphNIAHError(f"the context length must be between 1 and {MAX_CONTEXT_LENGTH:,}, got {context_length:,}")
    if distractor != NONE and context_length is None:
        raise GraphNIAHError(f"distractor kind {distractor!r} needs a context length (--context-length L)")


@dataclass(frozen=True)
class ExampleSpec:
    """Everything that defines an example besides the randomness."""

    task: Task
    depth: int
    component_size: int
    label: str | None = None  # "YES"/"NO" (yesno), the answer letter (mc), None (count)
    none_option: bool = False
    alpha: float = DEFAULT_ALPHA
    distractor: str = NONE  # none | code | essays | books | wikipedia | disjoint-component
    context_length: int | None = None  # L: the whole prompt's limit under every tokenizer; None: no packing
    # Pack as if the "none of these" option were asked, so that an example and its none-option twin
    # (same seed and index) get the very same context (the paper's none-option experiment).
    reserve_none_option: bool = False

    def __post_init__(self) -> None:
        check_packing(self.distractor, self.context_length)
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
        if (self.none_option or self.reserve_none_option) and self.task != "mc":
            raise GraphNIAHError("the 'none of these' option exists only for multiple choice")

    def params(self) -> dict[str, str | int | float | None]:
        return {
            "task": self.task,
            "depth": self.depth,
            "component_size": self.component_size,
            "label": self.label,
            "none_option": self.none_option,
            "alpha": self.alpha,
            "distractor": self.distractor,
            "context_length": self.context_length,
        } | ({"reserve_none_option": True} if self.reserve_none_option else {})


@dataclass
class SampleStats:
    attempts: int = 0
    growth_steps: int = 0
    rejects: Counter[str] = field(default_factory=Counter)
    stops: Counter[str] = field(default_factory=Counter)  # why packing stopped, per example (see packing.StopReason)
    token_counts: list[dict[str, int]] = field(default_factory=list)  # per packed example, in order


class SamplingContext:
    """A loaded snapshot: citation graph, paper metadata aligned with vertices, path pools, prompts."""

    def __init__(
        self,
        snapshot: Snapshot,
        graph: CitationGraph | None = None,
        prompts: PromptSet | None = None,
        *,
        tokenizers: Mapping[str, Tokenizer] | None = None,
        data_root: Path | None = None,
    ):
        """``tokenizers`` (default: the three of ``graphniah.sampling.tokenizers.load_all``, loaded on first
        use) and ``data_root`` (where corpora and tokenizer files live) matter only for packing."""
        self.snapshot = snapshot
        self._tokenizers = dict(tokenizers) if tokenizers is not None else None
        self.data_root = data_root
        self._corpora: dict[str, Corpus] = {}
        papers = pq.read_table(snapshot.papers_path)  # read once: metadata here, and the graph below
        self.graph = graph if graph is not None else CitationGraph.load(snapshot, papers)
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

    @property
    def tokenizers(self) -> dict[str, Tokenizer]:
        if self._tokenizers is None:
            self._tokenizers = load_all(self.data_root)
        return self._tokenizers

    def corpus(self, kind: str) -> Corpus:
        """The corpus of a text distractor kind, opened and read once (a missing one fails here)."""
        if kind not in self._corpora:
            self._corpora[kind] = load_corpus(kind, self.data_root)
        return self._corpora[kind]

    def packing_params(self, spec: ExampleSpec) -> dict[str, Any]:
        """Recipe entries that pin packing's inputs besides the snapshot: corpus and tokenizers."""
        out: dict[str, Any] = {}
        if spec.distractor not in (NONE, "disjoint-component"):
            out["corpus"] = corpus_fingerprint(self.corpus(spec.distractor))
        if spec.context_length is not None:
            out["tokenizers"] = {name: tokenizer_fingerprint(t) for name, t in self.tokenizers.items()}
        return out

    def pool(self, depth: int) -> tuple[np.ndarray, str]:
        """The pool of ``depth`` as vertex ids (n_paths × (3k−2)) and the pool file's sha256."""
        if depth not in self._pools:
            try:
                pool = load_pool(self.snapshot, depth)
            except (GraphNIAHError, OSError) as err:
                raise GraphNIAHError(
                    f"no usable path pool for depth {depth} in {self.snapshot.path} ({err}); run `graphniah paths --depth {depth}` or `make refresh`"
                ) from None
            sha = read_pool_manifest(self.snapshot, depth, checked=False).sha256  # load_pool checked it
            verts = self.graph.vertex_of(pool.paths.reshape(-1), source=str(pool_file(self.snapshot, depth))).reshape(pool.paths.shape)
            self._pools[depth] = (verts, sha)
        return self._pools[depth]

    @functools.cached_property
    def connected_parts(self) -> tuple[np.ndarray, np.ndarray]:
        """(part label per vertex, papers per part) of the snapshot's undirected citation graph."""
        ptr, idx = self.graph.neighbor_csr
        adj = sp.csr_matrix((np.ones(idx.size, dtype=np.int8), idx, ptr), shape=(self.graph.n, self.graph.n))
        _, labels = connected_components(adj, directed=False)
        return labels, np.bincount(labels)

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
        return papers_from_table(self._papers.take(pa.array(np.asarray(vertices, dtype=np.int64))))


def example_rng(seed: int, index: int) -> np.random.Generator:
    """Example ``index``'s generator: the ``example`` stream of :mod:`graphniah.seeds`."""
    return generator(Stream.EXAMPLE, seed, index)


def draw_paths(ctx: SamplingContext, spec: ExampleSpec, rng: np.random.Generator, stats: SampleStats) -> list[np.ndarray]:
    """Pairwise compatible pool paths (see ``backbones``), each in a uniformly random direction."""
    index = ctx.pool_index(spec.depth)
    k = COMPONENTS[spec.task]
    labels, sizes = ctx.connected_parts
    if sizes.max(initial=0) < spec.component_size:
        raise GraphNIAHError(
            f"the largest connected part of snapshot {ctx.snapshot.path} has {sizes.max(initial=0):,} papers; "
            f"a component of {spec.component_size:,} papers cannot grow in it"
        )
    for _ in range(MAX_PATH_DRAWS):
        chosen = index.draw(k, rng)
        paths = [index.paths[i] if rng.random() < 0.5 else index.paths[i][::-1] for i in chosen]
        # Components grow inside the snapshot's connected part of their backbone: it must hold them all.
        need = Counter(int(labels[p[0]]) for p in paths)
        if any(n * spec.component_size > sizes[part] for part, n in need.items()):
            stats.rejects["paths_part_too_small"] += 1
            continue
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
    """The example of (spec, seed, index): deterministic, invariant-checked, packed and text-verified."""
    stats = stats if stats is not None else SampleStats()
    rng = example_rng(seed, index)
    _, pool_hash = ctx.pool(spec.depth)
    recipe = Recipe(
        snapshot_hash=ctx.snapshot_hash,
        pool_hash=pool_hash,
        prompts_hash=ctx.prompts.hash,
        seed=seed,
        version=__version__,
        params=RecipeParams.model_validate(spec.params() | {"index": index} | ctx.packing_params(spec)),
    )
    for _ in range(MAX_ATTEMPTS):
        stats.attempts += 1
        paths = draw_paths(ctx, spec, rng, stats)
        growth = GrowthStats()
        comps = grow_components(ctx.graph, paths, spec.depth, spec.component_size, spec.alpha, rng, ctx.title_key, ctx.mask, growth)
        stats.growth_steps += growth.steps
        stats.rejects.update({f"grow_{k}": v for k, v in growth.rejects.items()})
        if comps is None:
            continue
        _check_invariant(ctx, comps, spec)
        source, targets, answer = _pose(spec, comps)
        needles = _needles(ctx, spec, comps, source, targets, rng)
        packed = None
        if spec.context_length is not None:
            try:
                packed = _pack(ctx, spec, comps, needles, rng, stats)
            except NeedlesExceedLimit:
                stats.rejects["needles_exceed_length"] += 1
                continue
        example = _assemble(ctx, spec, needles, answer, recipe, packed)
        result = verify(example, ctx.prompts)
        if not result.ok:
            stats.rejects["verify"] += 1
            continue
        if packed is not None:
            stats.stops[packed.stop] += 1
            stats.token_counts.append(dict(packed.token_counts))
        return example
    raise GraphNIAHError(
        f"could not build a {spec.task} example (depth {spec.depth}, size {spec.component_size}) in {MAX_ATTEMPTS} attempts "
        f"(rejects: {dict(stats.rejects)}); the snapshot is too small or sparse for this request"
        + (" or the context length too short for the needles" if stats.rejects["needles_exceed_length"] else "")
    )


def _check_invariant(ctx: SamplingContext, comps: list[Component], spec: ExampleSpec) -> None:
    """The snapshot's edges induced on the example's papers are exactly the sampled forest."""
    verts = np.asarray([v for c in comps for v in c.order], dtype=np.int64)
    forest = {e for c in comps for e in c.edges}
    inside = ctx.mask  # the shared scratch mask: all False between uses
    inside[verts] = True
    induced: set[tuple[int, int]] = set()
    try:
        for v in verts:
            out = ctx.graph.cites(int(v))
            induced.update((int(v), int(u)) for u in out[inside[out]])
    finally:
        inside[verts] = False
    titles = {ctx.title_key(int(v)) for v in verts}
    sizes_ok = all(len(c.order) == spec.component_size and len(c.edges) == spec.component_size - 1 for c in comps)
    if induced != forest or len(titles) != len(verts) or len(set(verts.tolist())) != len(verts) or not sizes_ok:
        raise AssertionError("internal error: sampled components violate the forest invariant")


@dataclass(frozen=True)
class _Needles:
    """The task's components rendered: blocks (component order) with their random keys, and the question."""

    blocks: list[str]
    keys: np.ndarray
    question: str
    meta: dict[int, PaperMeta]
    papers: list[int]  # corpus ids, component order
    edges: list[tuple[int, int]]
    source: PaperMeta
    targets: list[PaperMeta]


def _needles(ctx: SamplingContext, spec: ExampleSpec, comps: list[Component], source: int, targets: list[int], rng: np.random.Generator) -> _Needles:
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
    src = meta[int(cid[source])]
    tgt = [meta[int(cid[t])] for t in targets]
    q = question(spec.task, src.title, [t.title for t in tgt], spec.none_option, ctx.prompts)
    return _Needles(blocks, keys, q, meta, [int(cid[v]) for v in verts], edges, src, tgt)


def _source(ctx: SamplingContext, spec: ExampleSpec, comps: list[Component], needles: _Needles) -> DistractorSource | None:
    kind = spec.distractor
    if kind == NONE:
        return None
    if kind == "disjoint-component":
        occupied = Occupied()
        for c in comps:
            occupied.add(c.order, ctx.title_key)
        return ComponentSource(ctx, spec, occupied)
    if kind == "wikipedia":
        return wikipedia_source(ctx.corpus(kind), [needles.meta[p].title for p in needles.papers], spec.context_length)
    return DocumentSource(ctx.corpus(kind))


def _pack(ctx: SamplingContext, spec: ExampleSpec, comps: list[Component], needles: _Needles, rng: np.random.Generator, stats: SampleStats) -> Packed:
    """Step 4: distractors around the needles, the whole prompt at most L tokens under every tokenizer."""
    assert spec.context_length is not None
    q = needles.question
    if spec.reserve_none_option and not spec.none_option:  # budget for the longer question of the twin
        q = question(spec.task, needles.source.title, [t.title for t in needles.targets], True, ctx.prompts)
    slot = build_messages(spec.task, q, [_CONTEXT_SLOT], ctx.prompts)
    frame = Frame.around([(m.role, m.content) for m in slot], _CONTEXT_SLOT)
    source = _source(ctx, spec, comps, needles)
    packed = pack(frame, needles.blocks, needles.keys, source, spec.context_length, ctx.tokenizers, rng.spawn(1)[0])
    if isinstance(source, ComponentSource):
        stats.rejects.update({f"grow_{k}": v for k, v in source.stats.rejects.items()})
        _check_invariant(ctx, comps + source.components, spec)
    return packed


def _assemble(ctx: SamplingContext, spec: ExampleSpec, nd: _Needles, answer: str, recipe: Recipe, packed: Packed | None) -> Example:
    nodes, n_edges = len(nd.papers), len(nd.edges)
    if packed is None:
        context = [nd.blocks[i] for i in np.argsort(nd.keys, kind="stable")]
    else:
        context = list(packed.context)
        for u in packed.used:
            if isinstance(u.distractor.payload, RenderedComponent):
                papers, cites = u.distractor.payload.rendered(u.kept)
                nodes += len(papers)
                n_edges += cites
    messages = build_messages(spec.task, nd.question, context, ctx.prompts)
    token_counts = dict(packed.token_counts) if packed is not None else None
    if packed is not None and spec.reserve_none_option and not spec.none_option:
        # Packed with the twin's longer question: count this prompt exactly, it must fit as well.
        pairs = [(m.role, m.content) for m in messages]
        token_counts = {name: tok.chat_count(pairs) for name, tok in ctx.tokenizers.items()}
        if max(token_counts.values()) > (spec.context_length or 0):
            raise AssertionError("internal error: the shorter question made the prompt longer than L")
    elif packed is not None and [(m.role, m.content) for m in messages] != list(packed.messages):
        raise AssertionError("internal error: the packed prompt differs from the rendered messages")
    return Example(
        id=_example_id(recipe, spec.task),
        task=spec.task,
        depth=spec.depth,
        component_size=spec.component_size,
        answer=answer,
        options=tuple(t.title for t in nd.targets) if spec.task == "mc" else (),
        none_option=spec.none_option,
        messages=tuple(messages),
        papers=tuple(nd.papers),
        edges=tuple(nd.edges),
        source=nd.source.corpusid,
        targets=tuple(t.corpusid for t in nd.targets),
        stats=example_stats(nd.question, nd.blocks, context, nodes=nodes, edges=n_edges, prompts=ctx.prompts),
        recipe=recipe,
        token_counts=token_counts,
    )


def balanced_labels(tasks: Sequence[str], rng: np.random.Generator) -> list[str | None]:
    """Answers for a sequence of tasks: YES/NO in consecutive pairs of the YES/NO examples (one of
    each, random order), letters A–D in consecutive groups of four of the multiple-choice ones,
    None for counting (appendix A.2.5). The last pair or group may be incomplete."""
    groups = {"yesno": ["YES", "NO"], "mc": list(option_letters(COMPONENTS["mc"], False))}
    current: dict[str, list[str]] = {"yesno": [], "mc": []}
    out: list[str | None] = []
    for task in tasks:
        if task not in groups:
            out.append(None)
            continue
        if not current[task]:
            current[task] = rng.permutation(groups[task]).tolist()[::-1]  # popped from the end
        out.append(current[task].pop())
    return out


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
    distractor: str = NONE,
    context_length: int | None = None,
) -> list[ExampleSpec]:
    """Specs of a batch with balanced answers: YES/NO in pairs, letters A–D in groups of four."""
    sizes = [component_size or int(rng.integers(MIN_SIZE, MAX_SIZE + 1)) for _ in range(n)]
    if label and task == "count":
        raise GraphNIAHError("--label applies to yesno (YES/NO) and mc (A-D) only")
    labels = [label] * n if label else balanced_labels([task] * n, rng)
    return [ExampleSpec(task, depth, s, lab, none_option, alpha, distractor, context_length) for s, lab in zip(sizes, labels, strict=True)]


def sample_examples(
    ctx: SamplingContext,
    specs: Sequence[ExampleSpec],
    seed: int,
    *,
    first_index: int = 0,
    stats: SampleStats | None = None,
    progress: Progress = NO_PROGRESS,
) -> Iterator[Example]:
    """Build the examples of ``specs`` in order (index ``first_index + i`` for the i-th spec)."""
    with step(progress, len(specs), "sampling"):
        for i, spec in enumerate(specs):
            yield build_example(ctx, spec, seed, first_index + i, stats)
            progress.advance()


def spec_of(example: Example) -> tuple[ExampleSpec, int, int]:
    """The spec, seed and index stored in an example's recipe."""
    p = example.recipe.params
    spec = ExampleSpec(p.task, p.depth, p.component_size, p.label, p.none_option, p.alpha, p.distractor,
                       p.context_length, p.reserve_none_option)
    return spec, example.recipe.seed, p.index


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
    now = ctx.packing_params(spec)
    if "corpus" in now and r.params.corpus != now["corpus"]:
        raise GraphNIAHError(
            f"example {example.id} was packed with another {spec.distractor} corpus ({str(r.params.corpus)[:12]}); "
            f"the corpus at {ctx.corpus(spec.distractor).path} now hashes to {now['corpus'][:12]}"
        )
    if "tokenizers" in now and r.params.tokenizers != now["tokenizers"]:
        raise GraphNIAHError(f"example {example.id} was packed with other tokenizer files ({r.params.tokenizers}; now {now['tokenizers']})")
    return build_example(ctx, spec, seed, index)
