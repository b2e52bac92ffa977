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

With ``ExampleSpec.match_similarity`` (matched sampling, recorded in the recipe only when on) the
wrong answers' components are chosen by ``graphniah.sampling.examples.similarity`` (their targets as
similar to the source as the true target), and in counting and listing the other components'
sizes are drawn once per example, before any path, uniformly from ``size_range`` without the
source component's size (``other_sizes``; disjoint-component distractors draw theirs the same way),
so no function of the number of papers in the context gives the answer. ``ExampleSpec.match_venue``
(recorded only when on; set for every matched YES/NO and multiple-choice example built since the
rule exists) matches the wrong answers' venue relation to the source as well; recipes without it
replay the draw without it.

``ExampleSpec.source_slot`` (matched YES/NO and multiple choice built since the rule; ``batch_specs``
and suites give each such spec the next slot of its task and depth) fixes the source: slot ``j`` takes
the ``j``-th distinct source of the batch's order (``SamplingContext.source_of``,
``similarity.DistinctSources``), so questions of a batch do not repeat a source or true target while
the pool holds enough of them (a slot whose source the draw keeps rejecting falls back to a uniform
source after half its tries: on the demo, 299 distinct sources in a batch of 300 at depth 32). The paper draws every example's paths independently (appendix
A.2.1); each slot's source is still uniform over the pool's usable sources, only repeats inside a
batch are gone (docs/paper-deviations.md). Recipes without the key replay the uniform draw.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace

import numpy as np
import numpy.typing as npt

from graphniah import __version__
from graphniah.atomic import canonical_json, sha256_bytes
from graphniah.errors import GraphNIAHError
from graphniah.formats import Render, Task
from graphniah.formats.examples import DEFAULT_ALPHA, Example, Message, NeedlePositions, PaperMeta, Recipe, RecipeParams
from graphniah.progress import NO_PROGRESS, Progress, step
from graphniah.sampling.examples.distract import NONE, ComponentSource, DocumentSource, RenderedComponent, wikipedia_source
from graphniah.sampling.examples.grow import Component, GrowthStats, Occupied, grow_components, paths_compatible
from graphniah.sampling.examples.learned import scorer_file
from graphniah.sampling.examples.papers import Papers
from graphniah.sampling.examples.render import build_messages, example_stats, question, render_component
from graphniah.sampling.examples.spec import (
    COMPONENTS,
    LEARNED_MATCH_TASKS,
    MATCHED_TASKS,
    MAX_SIZE,
    MIN_SIZE,
    SIZE_TASKS,
    WEIGHTED_MATCH_TASKS,
    ExampleSpec,
    SamplingContext,
    other_sizes,
    spec_of,
)
from graphniah.sampling.examples.targets import balanced_labels, choose_targets
from graphniah.sampling.packing import DistractorSource, Frame, NeedlesExceedLimit, Packed, pack
from graphniah.seeds import Stream, generator
from graphniah.text import BLOCK_SEPARATOR, PromptSet, Tokenizer, Undetermined, solve, verify
from graphniah.text.edgelist import PaperIds, render_edge_component
from graphniah.text.evidence import evidence
from graphniah.text.positions import attached_positions
from graphniah.text.prompts import DEFAULT_TEMPLATE

MAX_PATH_DRAWS = 100  # per attempt: compatible tuples drawn until none has a mutual citation inside a path
# With component matching most draws are redrawn (on the demo about one multiple-choice draw in 10 is
# kept: partners, equal word counts, every similarity and length side filled; some sources have no
# partner at all); a draw costs a millisecond or two, so an attempt may take this many.
MAX_MATCHED_DRAWS = 2000
MAX_ATTEMPTS = 50  # per example: growth or verification failures before giving up
_CONTEXT_SLOT = "\x00context\x00"  # stands for the context when the prompt frame is cut out


@dataclass
class SampleStats:
    attempts: int = 0
    growth_steps: int = 0
    rejects: Counter[str] = field(default_factory=Counter)
    stops: Counter[str] = field(default_factory=Counter)  # why packing stopped, per example (see packing.StopReason)
    token_counts: list[dict[str, int]] = field(default_factory=list)  # per packed example, in order




def example_rng(seed: int, index: int) -> np.random.Generator:
    """Example ``index``'s generator: the ``example`` stream of :mod:`graphniah.seeds`."""
    return generator(Stream.EXAMPLE, seed, index)


def _draw_tuple(ctx: SamplingContext, spec: ExampleSpec, k: int, rng: np.random.Generator,
                source: int | None = None) -> list[np.ndarray] | None:
    """``k`` compatible pool paths, oriented: uniform (each direction uniform), or with the control on
    for a task with targets, the source's uniform (or ``source``, its slot's, :meth:`SamplingContext.source_of`)
    and the others similarity-matched (similarity.py), and with component matching the others' backbones
    partners of the source's (components.py)."""
    index = ctx.pool_index(spec.depth)
    drawn: list[tuple[int, bool]] | None
    if spec.match_similarity and spec.task in MATCHED_TASKS:
        partners = ctx.component_index(spec.depth).partners if spec.match_components else None
        learned = ctx.learned_match(spec.depth, spec.match_weighted) if spec.match_learned else None
        drawn = ctx.match_index(spec.depth).draw(index.conflict, k, rng, match_venue=spec.match_venue, partners=partners,
                                                 learned=learned, weighted=spec.match_weighted, source=source)
        return None if drawn is None else [index.paths[i][::-1] if rev else index.paths[i] for i, rev in drawn]
    if spec.match_components:
        drawn = ctx.component_index(spec.depth).draw(index.conflict, k, rng)
        return None if drawn is None else [index.paths[i][::-1] if rev else index.paths[i] for i, rev in drawn]
    chosen = index.draw(k, rng)
    return [index.paths[i] if rng.random() < 0.5 else index.paths[i][::-1] for i in chosen]


def draw_paths(
    ctx: SamplingContext, spec: ExampleSpec, rng: np.random.Generator, stats: SampleStats, want: Sequence[int] | None = None,
    *, source: int | None = None, avoid: frozenset[int] = frozenset(),
) -> list[np.ndarray]:
    """Pairwise compatible pool paths (see ``backbones``), each in a uniformly random direction (or
    similarity-matched, ``_draw_tuple``); ``want`` is each component's size (default: the spec's).

    ``source``: the source row of the example's slot (``spec.source_slot``), kept for the first half of the
    tries, then drawn as without a slot (a slot's source that never fits must not fail the example).
    ``avoid``: corpus ids no drawn source component may have as its source or true target (a tuple that
    does is drawn again): the learned-surface training draw keeps the suite's sources out this way."""
    k = COMPONENTS[spec.task]
    want = list(want) if want is not None else [spec.component_size] * k
    labels, sizes = ctx.connected_parts
    if sizes.max(initial=0) < spec.component_size:
        raise GraphNIAHError(
            f"the largest connected part of snapshot {ctx.snapshot.path} has {sizes.max(initial=0):,} papers; "
            f"a component of {spec.component_size:,} papers cannot grow in it"
        )
    tries = MAX_MATCHED_DRAWS if spec.match_components else MAX_PATH_DRAWS
    cid = ctx.graph.corpusids
    for t in range(tries):
        paths = _draw_tuple(ctx, spec, k, rng, source if t < tries // 2 else None)
        if paths is None:
            stats.rejects["paths_no_match"] += 1
            continue
        if avoid and not avoid.isdisjoint((int(cid[paths[0][spec.depth - 1]]), int(cid[paths[0][2 * spec.depth - 2]]))):
            stats.rejects["paths_avoided_source"] += 1
            continue
        # Components grow inside the snapshot's connected part of their backbone: it must hold them all.
        need: Counter[int] = Counter()
        for p, size in zip(paths, want, strict=True):
            need[int(labels[p[0]])] += size
        if any(n > sizes[part] for part, n in need.items()):
            stats.rejects["paths_part_too_small"] += 1
            continue
        # The conflict matrix covers papers, titles and edges between paths; what is left to
        # reject here is a mutual citation inside one path (not a single-direction edge).
        reason = paths_compatible(ctx.graph, paths, ctx.title_key, ctx.mask)
        if reason is None:
            return paths
        stats.rejects[f"paths_{reason}"] += 1
    raise GraphNIAHError(
        f"could not draw {k} compatible paths from the depth-{spec.depth} pool in {tries} tries "
        f"(rejects: {dict(stats.rejects)}); the snapshot is too small or too dense for this request"
    )


def _example_id(recipe: Recipe, task: str) -> str:
    return f"{task}-{sha256_bytes(canonical_json(recipe.model_dump()).encode())[:16]}"


def _wanted_sizes(spec: ExampleSpec, rng: np.random.Generator) -> list[int]:
    """Each component's size, the source's first. The other components' sizes (matched counting and
    listing: redrawn, never the source's) are drawn once per example, before any path, so every
    attempt grows the same sizes."""
    return [spec.component_size, *other_sizes(spec, COMPONENTS[spec.task] - 1, rng)]


def _grow(ctx: SamplingContext, spec: ExampleSpec, want: Sequence[int], rng: np.random.Generator,
          stats: SampleStats, source: int | None = None, avoid: frozenset[int] = frozenset()) -> tuple[list[Component] | None, GrowthStats]:
    """One attempt's growth: backbone paths drawn (:func:`draw_paths`), a component grown around each."""
    paths = draw_paths(ctx, spec, rng, stats, want, source=source, avoid=avoid)
    growth = GrowthStats()
    return grow_components(ctx.graph, paths, spec.depth, want, spec.alpha, rng, ctx.title_key, ctx.mask, growth), growth


def build_example(ctx: SamplingContext, spec: ExampleSpec, seed: int, index: int, stats: SampleStats | None = None, *,
                  avoid: frozenset[int] = frozenset()) -> Example:
    """The example of (spec, seed, index): deterministic, invariant-checked, packed and text-verified.

    ``avoid`` (corpus ids) keeps those papers from being the source or true target of the source's
    component (:func:`draw_paths`); it is not recorded, so an example built with it regenerates only
    with it (the learned-surface training draw, whose examples are never written, uses it)."""
    stats = stats if stats is not None else SampleStats()
    ctx = ctx.worded(spec.template)  # the template set's prompts; the randomness does not depend on it
    rng = example_rng(seed, index)
    _, pool_hash = ctx.pool(spec.depth)
    recipe = Recipe(
        snapshot_hash=ctx.snapshot_hash,
        pool_hash=pool_hash,
        prompts_hash=ctx.prompts.hash,
        seed=seed,
        version=__version__,
        params=RecipeParams.model_validate(spec.params() | {"index": index} | ctx.packing_params(spec) | ctx.learned_params(spec)),
    )
    want = _wanted_sizes(spec, rng)
    source = ctx.source_of(spec, seed)
    for _ in range(MAX_ATTEMPTS):
        stats.attempts += 1
        comps, growth = _grow(ctx, spec, want, rng, stats, source, avoid)
        stats.growth_steps += growth.steps
        stats.rejects.update({f"grow_{k}": v for k, v in growth.rejects.items()})
        if comps is None:
            continue
        _check_invariant(ctx.papers, comps, spec, want)
        source, targets, answer = choose_targets(spec, comps)
        needles = _needles(ctx.papers, ctx.prompts, spec, comps, source, targets, rng)
        if spec.render == "edges":
            edged = _as_edges(ctx, spec, needles, answer, PaperIds(seed, index), rng, stats)
            if edged is None:
                continue
            needles = edged
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


def grow_forest(ctx: SamplingContext, spec: ExampleSpec, seed: int, index: int) -> npt.NDArray[np.int64]:
    """The citations of the task components that ``build_example(ctx, spec, seed, index)`` grows first.

    Parameters
    ----------
    ctx : SamplingContext
        The snapshot the example is drawn from.
    spec : ExampleSpec
        The example's spec (its distractors, rendering and context length play no part).
    seed, index : int
        The batch seed and the example's index in it, as for ``build_example``.

    Returns
    -------
    numpy.ndarray
        One row ``(citing, cited)`` of vertex ids per citation of the grown components (an
        ``(edges, 2)`` int64 array), in component order.

    Raises
    ------
    GraphNIAHError
        When no attempt of ``MAX_ATTEMPTS`` grows the components.

    Notes
    -----
    The attempts are ``build_example``'s: the same generator, the same backbone draws and growth,
    stopped at the first forest that grows, before rendering, packing and text verification. The
    forest is therefore the example's own unless that example rejected its first grown forest
    later (needles longer than L, a text that does not verify), which is rare. The selection of α
    (``graphniah.report.alpha``) counts in-degrees on these forests.
    """
    rng = example_rng(seed, index)
    stats = SampleStats()
    want = _wanted_sizes(spec, rng)
    source = ctx.source_of(spec, seed)
    for _ in range(MAX_ATTEMPTS):
        comps, _ = _grow(ctx, spec, want, rng, stats, source)
        if comps is not None:
            return np.array([e for c in comps for e in c.edges], dtype=np.int64).reshape(-1, 2)
    raise GraphNIAHError(
        f"could not grow a {spec.task} example (depth {spec.depth}, size {spec.component_size}, alpha {spec.alpha}) in "
        f"{MAX_ATTEMPTS} attempts; the snapshot is too small or sparse for this request"
    )


def _sizes_ok(comps: list[Component], spec: ExampleSpec, want: Sequence[int] | None) -> bool:
    """Every component a tree (n papers, n − 1 edges) of its wanted size: ``want`` per component when
    given; otherwise the knob's size for all, or with matched counting/listing (sizes redrawn, see
    ``other_sizes``) for the source's component, the others any size except that one."""
    trees = all(len(c.edges) == len(c.order) - 1 for c in comps)
    got = [len(c.order) for c in comps]
    if want is not None:
        return trees and got == list(want)
    if spec.match_similarity and spec.task in SIZE_TASKS:
        return trees and got[0] == spec.component_size and spec.component_size not in got[1:]
    return trees and all(g == spec.component_size for g in got)


def _check_invariant(papers: Papers, comps: list[Component], spec: ExampleSpec, want: Sequence[int] | None = None) -> None:
    """The snapshot's edges induced on the example's papers are exactly the sampled forest."""
    verts = np.asarray([v for c in comps for v in c.order], dtype=np.int64)
    forest = {e for c in comps for e in c.edges}
    inside = papers.mask  # the shared scratch mask: all False between uses
    inside[verts] = True
    induced: set[tuple[int, int]] = set()
    try:
        for v in verts:
            out = papers.graph.cites(int(v))
            induced.update((int(v), int(u)) for u in out[inside[out]])
    finally:
        inside[verts] = False
    titles = {papers.title_key(int(v)) for v in verts}
    sizes_ok = _sizes_ok(comps, spec, want)
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
    block_of: dict[int, str]  # corpus id -> its block, for each paper that cites another
    ids: PaperIds | None = None  # the papers' ids when the needles are an edge list (None: APA blocks)


def _asked(spec: ExampleSpec, targets: list[PaperMeta]) -> list[str]:
    """The target titles the question names: none for counting and listing (they ask about all papers)."""
    return [] if spec.task in ("count", "list") else [t.title for t in targets]


def _needles(papers: Papers, prompts: PromptSet, spec: ExampleSpec, comps: list[Component], source: int, targets: list[int],
             rng: np.random.Generator) -> _Needles:
    """The task's components rendered as blocks with random keys, and the question on them (step 3)."""
    cid = papers.graph.corpusids
    verts = [v for c in comps for v in c.order]
    meta = papers.meta(verts)
    blocks: list[str] = []
    edges: list[tuple[int, int]] = []
    block_of: dict[int, str] = {}
    for c in comps:
        e = [(int(cid[a]), int(cid[b])) for a, b in c.edges]
        edges.extend(e)
        order = [int(cid[v]) for v in c.order]
        rendered = render_component(meta, e, order, prompts)
        citing = {a for a, _ in e}
        block_of.update(zip([p for p in order if p in citing], rendered, strict=True))  # render_component's order
        blocks.extend(rendered)
    # Every block gets a random key; the context lists blocks in key order (appendix A.2.4).
    keys = rng.random(len(blocks))
    src = meta[int(cid[source])]
    tgt = [meta[int(cid[t])] for t in targets]
    if spec.task == "list":  # the answer lists the titles in a fixed order: by title, case-blind
        tgt.sort(key=lambda p: (p.title.casefold(), p.title))
    q = question(spec.task, src.title, _asked(spec, tgt), spec.none_option, prompts)
    return _Needles(blocks, keys, q, meta, [int(cid[v]) for v in verts], edges, src, tgt, block_of)


def _question(prompts: PromptSet, spec: ExampleSpec, nd: _Needles, none_option: bool) -> str:
    """The question in the needles' rendering, with or without the "none of these" option."""
    if nd.ids is None:
        return question(spec.task, nd.source.title, _asked(spec, nd.targets), none_option, prompts)
    asked = [] if spec.task == "count" else [nd.ids(t.corpusid) for t in nd.targets]
    return question(spec.task, nd.ids(nd.source.corpusid), asked, none_option, prompts, render="edges")


def _as_edges(ctx: SamplingContext, spec: ExampleSpec, nd: _Needles, answer: str, ids: PaperIds,
              rng: np.random.Generator, stats: SampleStats) -> _Needles | None:
    """The APA needles ``nd`` as an edge list (same blocks in the same order, same keys), or None when
    the APA example of this seed and index rejects this attempt.

    The APA build rejects an attempt whose needles alone exceed L or whose text does not verify,
    after spawning its packing generator; rejecting the same attempts here (and spawning likewise)
    keeps both renderings on the same forest, keys and distractor draws. What could still part them
    is rare and counted in the rejects: a verification failure caused by the distractors themselves
    (a distractor run with the full block structure, an entry of a distractor component readable as
    another paper), or edge-list needles over L where the APA ones fit.
    """
    reason = _apa_rejects(ctx, spec, nd, answer)
    if reason is not None:
        stats.rejects[reason] += 1
        if spec.context_length is not None:
            rng.spawn(1)  # the APA build spawned its packing generator before rejecting
        return None
    blocks = render_edge_component(nd.edges, nd.papers, ids, ctx.prompts)
    citing = {a for a, _ in nd.edges}
    block_of = dict(zip([p for p in nd.papers if p in citing], blocks, strict=True))
    edged = replace(nd, blocks=blocks, block_of=block_of, ids=ids)
    return replace(edged, question=_question(ctx.prompts, spec, edged, spec.none_option))


def _apa_rejects(ctx: SamplingContext, spec: ExampleSpec, nd: _Needles, answer: str) -> str | None:
    """Why the APA build would reject the attempt of these (APA) needles before its distractors matter."""
    context = [nd.blocks[i] for i in np.argsort(nd.keys, kind="stable")]
    if spec.context_length is not None:
        # What pack checks first: the needles in the prompt packing would frame them with.
        q = _question(ctx.prompts, spec, nd, True) if spec.reserve_none_option and not spec.none_option else nd.question
        pairs = [(m.role, m.content) for m in build_messages(spec.task, q, context, ctx.prompts)]
        if any(tok.chat_count(pairs) > spec.context_length for tok in ctx.tokenizers.values()):
            return "needles_exceed_length"
    try:
        ok = solve(build_messages(spec.task, nd.question, context, ctx.prompts), ctx.prompts) == answer
    except Undetermined:
        ok = False
    return None if ok else "verify"


def _source(ctx: SamplingContext, spec: ExampleSpec, comps: list[Component], needles: _Needles) -> DistractorSource | None:
    kind = spec.distractor
    if kind == NONE:
        return None
    if kind == "disjoint-component":
        occupied = Occupied()
        for c in comps:
            occupied.add(c.order, ctx.title_key)
        return ComponentSource(ctx.papers, ctx.pool_index(spec.depth), ctx.prompts, occupied, depth=spec.depth,
                               alpha=spec.alpha, sizes=spec.other_sizes, ids=needles.ids)
    if kind == "wikipedia":
        return wikipedia_source(ctx.corpus(kind), [needles.meta[p].title for p in needles.papers], spec.context_length)
    return DocumentSource(ctx.corpus(kind))


def _pack(ctx: SamplingContext, spec: ExampleSpec, comps: list[Component], needles: _Needles, rng: np.random.Generator, stats: SampleStats) -> Packed:
    """Step 4: distractors around the needles, the whole prompt at most L tokens under every tokenizer."""
    assert spec.context_length is not None
    frame = _frame(ctx, spec, needles)
    source = _source(ctx, spec, comps, needles)
    packed = pack(frame, needles.blocks, needles.keys, source, spec.context_length, ctx.tokenizers, rng.spawn(1)[0])
    if isinstance(source, ComponentSource):
        stats.rejects.update({f"grow_{k}": v for k, v in source.stats.rejects.items()})
        _check_invariant(ctx.papers, comps + source.components, spec)
    return packed


def _frame(ctx: SamplingContext, spec: ExampleSpec, needles: _Needles) -> Frame:
    """The prompt around the context that packing budgets for: this example's, with the twin's longer
    question when it reserves the "none of these" option; with ``spec.templates``, every listed set's
    system message, and text before and after the context, joined, so the context packed fits the
    prompt of each set and is the same text under all of them (each prompt is counted again after)."""
    none_option = spec.none_option or spec.reserve_none_option  # budget for the longer question of the twin

    def of(c: SamplingContext) -> Frame:
        q = _question(c.prompts, spec, needles, True) if none_option and not spec.none_option else (
            needles.question if c is ctx else _question(c.prompts, spec, needles, spec.none_option))
        slot = build_messages(spec.task, q, [_CONTEXT_SLOT], c.prompts, render=spec.render)
        return Frame.around([(m.role, m.content) for m in slot], _CONTEXT_SLOT)

    if not spec.templates:
        return of(ctx)
    frames = [of(ctx.worded(t)) for t in spec.templates]
    system = "\n".join(dict.fromkeys(c for f in frames for _, c in f.fixed))
    return Frame(fixed=(("system", system),), role=frames[0].role, head="\n".join(dict.fromkeys(f.head for f in frames)),
                 tail="\n".join(dict.fromkeys(f.tail for f in frames)))


def _evidence(count: Callable[[str], int], spec: ExampleSpec, nd: _Needles, answer: str) -> dict[str, int]:
    """``evidence_tokens`` and ``hops_needed`` of the example (see ``graphniah.text.evidence``)."""
    ev = evidence(spec.task, answer, nd.source.corpusid, [t.corpusid for t in nd.targets], nd.edges, nd.block_of,
                  count)
    return {"evidence_tokens": ev.tokens, "hops_needed": ev.hops}


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
    messages = build_messages(spec.task, nd.question, context, ctx.prompts, render=spec.render)
    token_counts = dict(packed.token_counts) if packed is not None else None
    if packed is not None and ((spec.reserve_none_option and not spec.none_option) or spec.templates):
        # Packed with the twin's longer question, or every listed set's wording: count this prompt
        # exactly, it must fit as well.
        pairs = [(m.role, m.content) for m in messages]
        token_counts = {name: tok.chat_count(pairs) for name, tok in ctx.tokenizers.items()}
        if max(token_counts.values()) > (spec.context_length or 0):
            raise AssertionError("internal error: the shorter question made the prompt longer than L")
    elif packed is not None and [(m.role, m.content) for m in messages] != list(packed.messages):
        raise AssertionError("internal error: the packed prompt differs from the rendered messages")
    positions = _positions(ctx.o200k, ctx.prompts, spec, messages, context, packed, token_counts)
    if spec.task == "list":
        answer = "\n".join(t.title for t in nd.targets)
    stats = example_stats(nd.question, nd.blocks, context, nodes=nodes, edges=n_edges, prompts=ctx.prompts)
    return Example(
        id=_example_id(recipe, spec.task),
        task=spec.task,
        depth=spec.depth,
        component_size=spec.component_size,
        answer=answer,
        options=tuple(nd.ids(t.corpusid) if nd.ids else t.title for t in nd.targets) if spec.task == "mc" else (),
        none_option=spec.none_option,
        messages=tuple(messages),
        papers=tuple(nd.papers),
        edges=tuple(nd.edges),
        source=nd.source.corpusid,
        targets=tuple(t.corpusid for t in nd.targets),
        stats=stats.model_copy(update=_evidence(ctx.o200k.count, spec, nd, answer)),
        recipe=recipe,
        token_counts=token_counts,
        needle_positions=positions,
    )


def _positions(o200k: Tokenizer, prompts: PromptSet, spec: ExampleSpec, messages: Sequence[Message], context: Sequence[str],
               packed: Packed | None, token_counts: Mapping[str, int] | None) -> NeedlePositions:
    """Where the question and the paper blocks land, in o200k_base tokens, from the counts the packer
    took (an unpacked context's blocks are counted here, once): see ``positions.attached_positions``."""
    attached = packed.o200k_attached if packed is not None else None
    if attached is None:
        attached = tuple(o200k.count_batch([b + BLOCK_SEPARATOR for b in context]).tolist())
    chat = (token_counts or {}).get("o200k_base")
    return attached_positions(messages, context, attached, o200k, prompts, spec.render == "edges", chat)


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
    match_similarity: bool = False,
    render: Render = "apa",
    template: str = DEFAULT_TEMPLATE,
) -> list[ExampleSpec]:
    """Specs of a batch with balanced answers: YES/NO in pairs, letters A–D in groups of four.
    ``match_similarity`` turns the control on (similarity.py; other sizes from [MIN_SIZE, MAX_SIZE]; the
    venue relation matched too in YES/NO and multiple choice, the wrong answers matched on the
    learned score, learned.py, and spec ``i`` given source slot ``i``: the batch's sources distinct)."""
    sizes = [component_size or int(rng.integers(MIN_SIZE, MAX_SIZE + 1)) for _ in range(n)]
    if label and task in ("count", "list"):
        raise GraphNIAHError("--label applies to yesno (YES/NO) and mc (A-D) only")
    labels = [label] * n if label else balanced_labels([task] * n, rng)
    matched_targets = match_similarity and task in MATCHED_TASKS
    learned = match_similarity and task in LEARNED_MATCH_TASKS
    return [ExampleSpec(task, depth, s, lab, none_option, alpha, distractor, context_length, match_similarity=match_similarity,
                         render=render, match_venue=matched_targets, match_components=match_similarity,
                         match_learned=learned, match_weighted=match_similarity and task in WEIGHTED_MATCH_TASKS,
                         source_slot=i if learned else None, template=template)
            for i, (s, lab) in enumerate(zip(sizes, labels, strict=True))]


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


def regenerate(ctx: SamplingContext, example: Example) -> Example:
    """Rebuild an example from its recipe; raises if the inputs it was made from have changed."""
    r = example.recipe
    if r.snapshot_hash != ctx.snapshot_hash:
        raise GraphNIAHError(f"example {example.id} was made from snapshot {r.snapshot_hash[:12]}, not {ctx.snapshot_hash[:12]} ({ctx.snapshot.path})")
    spec, seed, index = spec_of(example)
    worded = ctx.worded(spec.template).prompts
    if r.prompts_hash != worded.hash:
        raise GraphNIAHError(f"example {example.id} was rendered with prompt set {r.prompts_hash[:12]}; the template set "
                             f"{spec.template} of the prompts/ folder now hashes to {worded.hash[:12]}")
    if ctx.pool(spec.depth)[1] != r.pool_hash:
        raise GraphNIAHError(f"example {example.id} was made from another depth-{spec.depth} path pool ({r.pool_hash[:12]})")
    if spec.match_learned and r.params.match_learned != (now_scorer := ctx.learned_match(spec.depth, spec.match_weighted).sha256):
        raise GraphNIAHError(
            f"example {example.id} was matched with another scorer ({str(r.params.match_learned)[:12]}); the one stored at "
            f"{scorer_file(ctx.snapshot.path, spec.depth, spec.match_weighted)} hashes to {now_scorer[:12]}"
        )
    now = ctx.packing_params(spec)
    if "corpus" in now and r.params.corpus != now["corpus"]:
        raise GraphNIAHError(
            f"example {example.id} was packed with another {spec.distractor} corpus ({str(r.params.corpus)[:12]}); "
            f"the corpus at {ctx.corpus(spec.distractor).path} now hashes to {now['corpus'][:12]}"
        )
    if "tokenizers" in now and r.params.tokenizers != now["tokenizers"]:
        raise GraphNIAHError(f"example {example.id} was packed with other tokenizer files ({r.params.tokenizers}; now {now['tokenizers']})")
    return build_example(ctx, spec, seed, index)
