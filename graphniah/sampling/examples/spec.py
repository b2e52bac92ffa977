"""Example specs and the sampling context: what defines an example, and the snapshot it is drawn from.

- ``ExampleSpec``      task, depth, component size, label, options, α, distractors, rendering and
                       matching of one example (everything besides the randomness), with the recipe
                       entries it writes (``params``) and reads back (:func:`spec_of`)
- ``COMPONENTS``       how many components each task grows (the source's, and the ones whose targets
                       are the wrong answers or, in counting and listing, the other papers)
- ``other_sizes``      the other components' sizes (matched counting and listing: never the source's)
- ``SamplingContext``  a loaded snapshot: citation graph, paper metadata aligned with vertices, path
                       pools, prompts, and (for packing) tokenizers and corpora

Notes
-----
The sampler (:mod:`graphniah.sampling.examples.sample`) builds examples from a spec and a
context; :mod:`graphniah.sampling.examples.targets` poses the question on the grown components.
"""

from __future__ import annotations

import copy
import functools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components

from graphniah.errors import GraphNIAHError
from graphniah.formats import RENDERS, Render, Task
from graphniah.formats.examples import DEFAULT_ALPHA, Example, PaperMeta, option_letters, papers_from_table
from graphniah.formats.pools import read_pool
from graphniah.formats.snapshot import Snapshot, read_papers
from graphniah.graph import CitationGraph
from graphniah.layout import pool_file
from graphniah.sampling.corpora import Corpus
from graphniah.sampling.examples.backbones import PoolIndex
from graphniah.sampling.examples.components import ComponentIndex
from graphniah.sampling.examples.distract import NONE, check_kind, corpus_fingerprint, load_corpus
from graphniah.sampling.examples.learned import (
    SCORER_VERSION,
    WEIGHTED_VERSION,
    LearnedMatch,
    load_or_train,
    printed,
    row_features,
    scorer_file,
    training_pairs,
)
from graphniah.sampling.examples.papers import Papers
from graphniah.sampling.examples.similarity import DistinctSources, MatchIndex, TitleSpace, field_masks, venue_codes
from graphniah.sampling.packing import tokenizer_fingerprint
from graphniah.seeds import Stream, generator
from graphniah.text import EDGE_TASKS, PromptSet, Tokenizer, load_all, load_prompts, load_tokenizer
from graphniah.text.prompts import DEFAULT_TEMPLATE, load_template
from graphniah.text.textcheck import normalize

MIN_SIZE, MAX_SIZE = 100, 250
COMPONENTS = {"yesno": 2, "mc": 4, "count": 2, "list": 2}
MAX_CONTEXT_LENGTH = 1_050_000


def check_packing(distractor: str, context_length: int | None) -> None:
    """A known distractor kind, L within [1, MAX_CONTEXT_LENGTH], and an L whenever there are distractors."""
    check_kind(distractor)
    if context_length is not None and not 1 <= context_length <= MAX_CONTEXT_LENGTH:
        raise GraphNIAHError(f"the context length must be between 1 and {MAX_CONTEXT_LENGTH:,}, got {context_length:,}")
    if distractor != NONE and context_length is None:
        raise GraphNIAHError(f"distractor kind {distractor!r} needs a context length (--context-length L)")


MATCHED_TASKS = ("yesno", "mc")  # a target in the question: its wrong alternatives are similarity-matched
# The tasks whose matched draw picks the wrong answers by the learned score (learned.py) by default: on
# YES/NO a classifier trained anew on the new draw fell from 62% to 55% (bench/learned_matching.py).
LEARNED_MATCH_TASKS = ("yesno", "mc")
# Of those, the tasks whose wrong answers are drawn with weights on the score (the density ratio,
# ``match_weighted``) rather than as its nearest neighbours. Multiple choice: the nearest options make the
# true one the middle of its question (a classifier trained anew answered 65.7%/65.0% at depth 16/32,
# the rank rules 48.0%/46.7%); weighted, with each batch's sources distinct (source_slot), 25.3%/26.7%
# (chance) with folds split by question (docs/paper-deviations.md). YES/NO keeps the nearest draw, which
# the weighted one did not beat there.
WEIGHTED_MATCH_TASKS: tuple[str, ...] = ("mc",)
SIZE_TASKS = ("count", "list")  # the answer is the source component's size: the other sizes are redrawn


def check_matching(spec: ExampleSpec) -> None:
    """``size_range`` only with matched counting or listing, and one that leaves a size besides the source's."""
    if spec.match_venue and not (spec.match_similarity and spec.task in MATCHED_TASKS):
        raise GraphNIAHError("matching the venue applies to matched YES/NO and multiple choice only")
    if spec.match_components and not spec.match_similarity:
        raise GraphNIAHError("matching the components applies to matched sampling only (match_similarity)")
    if spec.match_learned and not (spec.match_components and spec.task in MATCHED_TASKS):
        raise GraphNIAHError("matching on the learned score applies to matched YES/NO and multiple choice with component matching only")
    if spec.match_weighted and not spec.match_learned:
        raise GraphNIAHError("the weighted draw (match_weighted) applies to matching on the learned score only")
    if spec.source_slot is not None and (not spec.match_learned or spec.source_slot < 0):
        raise GraphNIAHError(f"a source slot ({spec.source_slot}) applies to matching on the learned score only, and is >= 0")
    if spec.size_range is None:
        return
    lo, hi = spec.size_range
    if not spec.match_similarity or spec.task not in SIZE_TASKS:
        raise GraphNIAHError("a size range for the other components applies to matched counting and listing only")
    lo = max(lo, 3 * spec.depth - 2)  # no component is smaller than its backbone
    if lo > hi or (lo == hi == spec.component_size):
        raise GraphNIAHError(
            f"the other components' size range {list(spec.size_range)} holds no size of at least the backbone's "
            f"{3 * spec.depth - 2} papers besides the source component's {spec.component_size}"
        )


def check_template(spec: ExampleSpec) -> None:
    """A named template set words the APA rendering only, and is among the sets its context is packed for."""
    if spec.render == "edges" and (spec.template != DEFAULT_TEMPLATE or spec.templates):
        raise GraphNIAHError("template sets other than default word the APA rendering only (render: apa)")
    if spec.templates and spec.template not in spec.templates:
        raise GraphNIAHError(f"template {spec.template!r} is not among the sets its context is packed for {list(spec.templates)}")


def other_sizes(spec: ExampleSpec, count: int, rng: np.random.Generator) -> list[int]:
    """Sizes of ``count`` more components of a matched counting or listing example: each uniform in
    the size range, redrawn while it equals the source component's size (so the total paper count
    does not determine the answer). Without the control, or for other tasks: the knob's size."""
    if not (spec.match_similarity and spec.task in SIZE_TASKS):
        return [spec.component_size] * count
    lo, hi = spec.sizes_range
    lo = max(lo, 3 * spec.depth - 2)
    choices = np.setdiff1d(np.arange(lo, hi + 1), [spec.component_size])
    if choices.size == 0:
        raise GraphNIAHError(f"no component size in [{lo}, {hi}] besides the source component's {spec.component_size}")
    return [int(s) for s in rng.choice(choices, size=count)]


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
    # How the needles are written: APA paper blocks, or an edge list of paper ids (edgelist.py).
    # The forest, keys, distractors and L do not depend on it (see build_example).
    render: Render = "apa"
    # Matched sampling (similarity.py): wrong answers as similar to the source as the true one, and
    # in counting/listing the other components' sizes drawn from ``size_range`` (None: [MIN_SIZE,
    # MAX_SIZE]), never the source component's.
    match_similarity: bool = False
    size_range: tuple[int, int] | None = None
    # Matched YES/NO and MC: the wrong answers' venue relation to the source is the true target's too
    # (similarity.py). Off in recipes written before the rule, which replay without it.
    match_venue: bool = False
    # Matched sampling: the other components' backbones as close in subject to the source's as it is
    # to itself, and the wrong targets' title lengths the true one's (components.py). Off in recipes
    # written before the rule, which replay without it.
    match_components: bool = False
    # Matched YES/NO and MC: the wrong answers matched on a learned score of every printed cue
    # (learned.py); the recipe records the scorer's hash. Off in recipes written before the rule.
    match_learned: bool = False
    # With ``match_learned``: the wrong answers drawn with weights on the score (the density ratio), not
    # as its nearest neighbours (similarity.MatchIndex.weighted_draw). Off in recipes written before.
    match_weighted: bool = False
    # With ``match_learned``: the example's slot in its batch's order of distinct sources
    # (similarity.DistinctSources): its source is the slot's, so no two examples of a batch (same seed)
    # share a source or true target while the pool can spare one. None in recipes written before the rule.
    source_slot: int | None = None
    # The template set the prompt is worded in (prompts/sets/; "default": the files at the top of
    # prompts/), and the sets whose prompts the context is packed to fit, so that the example's
    # context is the same text under each of them (the prompt-sensitivity suite). Both are written
    # to the recipe only when set, so recipes made before the knob replay as the default set.
    template: str = DEFAULT_TEMPLATE
    templates: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        check_packing(self.distractor, self.context_length)
        check_matching(self)
        if self.render not in RENDERS:
            raise GraphNIAHError(f"unknown rendering {self.render!r} (choose {' or '.join(RENDERS)})")
        check_template(self)
        if self.render == "edges" and self.task not in EDGE_TASKS:
            raise GraphNIAHError(f"the edge-list rendering has no {self.task} question (tasks: {', '.join(EDGE_TASKS)})")
        if self.task not in COMPONENTS:
            raise GraphNIAHError(f"unknown task {self.task!r} (choose yesno, mc, count or list)")
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
        if self.task in ("count", "list") and self.label is not None:
            raise GraphNIAHError(f"a {self.task} example has no label")
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
        } | ({"reserve_none_option": True} if self.reserve_none_option else {}) | (
            {"render": self.render} if self.render != "apa" else {}
        ) | self.matching_params() | self.template_params()

    def template_params(self) -> dict[str, Any]:
        """Recipe entries of the template set, present only when it is not the default (old recipes unchanged)."""
        return ({"template": self.template} if self.template != DEFAULT_TEMPLATE else {}) | (
            {"templates": list(self.templates)} if self.templates else {})

    def matching_params(self) -> dict[str, Any]:
        """Recipe entries of matched sampling, present only when it is on (old recipes unchanged)."""
        if not self.match_similarity:
            return {}
        return ({"match_similarity": True} | ({"match_venue": True} if self.match_venue else {})
                | ({"match_components": True} if self.match_components else {})
                | ({"source_slot": self.source_slot} if self.source_slot is not None else {})
                | ({"size_range": list(self.sizes_range)} if self.task in SIZE_TASKS else {}))

    def other_sizes(self, count: int, rng: np.random.Generator) -> list[int]:
        """Sizes of ``count`` components besides the source's (see :func:`other_sizes`)."""
        return other_sizes(self, count, rng)

    @property
    def sizes_range(self) -> tuple[int, int]:
        """The range the other components' sizes come from in matched counting and listing."""
        return self.size_range or (MIN_SIZE, MAX_SIZE)


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
        """``tokenizers`` (default: the three of ``graphniah.text.tokenizers.load_all``, loaded on first
        use) and ``data_root`` (where corpora and tokenizer files live) matter only for packing."""
        self.snapshot = snapshot
        self._tokenizers = dict(tokenizers) if tokenizers is not None else None
        self.data_root = data_root
        self._corpora: dict[str, Corpus] = {}
        papers = read_papers(snapshot)  # read once: metadata here, and the graph below
        self.graph = graph if graph is not None else CitationGraph.load(snapshot, papers)
        if not np.array_equal(np.asarray(papers.column("corpusid"), dtype=np.int64), self.graph.corpusids):
            papers = papers.sort_by("corpusid")
        self._papers = papers  # row v describes vertex v (both ascending by corpus id)
        self._titles = papers.column("title").combine_chunks()
        self.prompts = prompts or load_prompts()
        self._worded: dict[str, SamplingContext] = {}
        self.mask = np.zeros(self.graph.n, dtype=bool)
        self._pools: dict[int, tuple[np.ndarray, str]] = {}
        self._pool_index: dict[int, PoolIndex] = {}

    def worded(self, template: str) -> SamplingContext:
        """This context with the prompts of template set ``template`` (the same loaded snapshot, pools
        and caches; only ``prompts`` differs), made once per set."""
        if template == self.prompts.name:
            return self
        if template not in self._worded:
            view = copy.copy(self)  # shallow: the graph, pools and index caches are shared
            view.prompts = load_template(template, self.prompts.directory)
            self._worded[template] = view
        return self._worded[template]

    @property
    def snapshot_hash(self) -> str:
        return self.snapshot.content_hash

    @property
    def tokenizers(self) -> dict[str, Tokenizer]:
        if self._tokenizers is None:
            self._tokenizers = load_all(self.data_root)
        return self._tokenizers

    @functools.cached_property
    def o200k(self) -> Tokenizer:
        """The tokenizer evidence is measured in: the packer's o200k_base when loaded, else o200k alone."""
        given = self._tokenizers or {}
        return given["o200k_base"] if "o200k_base" in given else load_tokenizer("o200k_base", self.data_root)

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
                manifest, paths = read_pool(self.snapshot, depth)
            except (GraphNIAHError, OSError) as err:
                raise GraphNIAHError(
                    f"no usable path pool for depth {depth} in {self.snapshot.path} ({err}); run `graphniah paths --depth {depth}` or `make refresh`"
                ) from None
            source = str(pool_file(self.snapshot.path, depth))
            verts = self.graph.vertex_of(paths.reshape(-1), source=source).reshape(paths.shape)
            sha = manifest.sha256
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
    def title_space(self) -> TitleSpace:
        """TF-IDF over the snapshot's eligible titles (matched sampling; fitted once per context)."""
        return TitleSpace.fit(self._titles)

    @functools.cached_property
    def _match_indexes(self) -> dict[int, MatchIndex]:
        return {}

    def match_index(self, depth: int) -> MatchIndex:
        """The depth's pool endpoints in title space, with the true pairs' strata (built once per context)."""
        if depth not in self._match_indexes:
            fos = self._papers.column("fields_of_study") if "fields_of_study" in self._papers.column_names else None
            masks = field_masks(fos, self.graph.n)
            self._match_indexes[depth] = MatchIndex.build(self.pool(depth)[0], depth, self.title_space, self._titles, masks,
                                                          self.venue_codes)
        return self._match_indexes[depth]

    @functools.cached_property
    def _component_indexes(self) -> dict[int, ComponentIndex]:
        return {}

    def component_index(self, depth: int) -> ComponentIndex:
        """The depth's pool paths by subject, for component matching (built once per context)."""
        if depth not in self._component_indexes:
            self._component_indexes[depth] = ComponentIndex.build(self.pool(depth)[0], self.title_space, self._titles)
        return self._component_indexes[depth]

    @functools.cached_property
    def _learned(self) -> dict[tuple[int, bool], LearnedMatch]:
        return {}

    def learned_match(self, depth: int, weighted: bool = False) -> LearnedMatch:
        """The depth's frozen matching scorer (:mod:`.learned`; ``weighted``: the weighted draw's, trained without
        the cosine caliper): read from the snapshot, or trained once and stored there."""
        if (depth, weighted) not in self._learned:
            index, pool = self.match_index(depth), self.pool_index(depth)
            ends = np.concatenate([self.pool(depth)[0][:, depth - 1], self.pool(depth)[0][:, 2 * depth - 2]]).tolist()
            cid = self.graph.corpusids
            metas = self.meta(ends)
            papers = tuple(printed(metas[int(cid[v])]) for v in ends)
            components = self.component_index(depth)

            def train(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
                return training_pairs(range(2 * index.n), lambda src: index.candidates(src, pool.conflict, components.partners,
                                                                                       caliper=not weighted),
                                      lambda src: (src + index.n) % (2 * index.n),
                                      lambda src, rows: row_features(papers, src, rows, index.cosines_from(src)[rows]), rng)

            self._learned[depth, weighted] = load_or_train(scorer_file(self.snapshot.path, depth, weighted), depth, papers, train,
                                                           WEIGHTED_VERSION if weighted else SCORER_VERSION)
        return self._learned[depth, weighted]

    def learned_params(self, spec: ExampleSpec) -> dict[str, Any]:
        """The recipe entry of matching on the learned score: the scorer's hash, when on."""
        if not spec.match_learned:
            return {}
        return {"match_learned": self.learned_match(spec.depth, spec.match_weighted).sha256} | (
            {"match_weighted": True} if spec.match_weighted else {})

    @functools.cached_property
    def _distinct(self) -> dict[tuple[int, ...], DistinctSources]:
        return {}

    def source_of(self, spec: ExampleSpec, seed: int) -> int | None:
        """The source row (:class:`.similarity.MatchIndex`) of ``spec.source_slot`` in the order of distinct
        sources of batch ``seed``, for the spec's draw; None without a slot, or past the pool's distinct sources."""
        if spec.source_slot is None:
            return None
        k, depth = COMPONENTS[spec.task], spec.depth
        key = (depth, seed, k, spec.match_venue, spec.match_components, spec.match_weighted)
        if key not in self._distinct:
            index, conflict = self.match_index(depth), self.pool_index(depth).conflict
            partners = self.component_index(depth).partners if spec.match_components else None
            learned = self.learned_match(depth, spec.match_weighted)
            verts = self.pool(depth)[0]

            def ok(src: int) -> bool:
                return index.source_ok(src, conflict, k, match_venue=spec.match_venue, partners=partners, learned=learned,
                                       weighted=spec.match_weighted)

            order = generator(Stream.SOURCE_ORDER, seed, depth).permutation(2 * index.n).astype(np.int64)
            self._distinct[key] = DistinctSources(order, ok, np.concatenate([verts[:, depth - 1], verts[:, 2 * depth - 2]]))
        return self._distinct[key].slot(spec.source_slot)

    @functools.cached_property
    def venue_codes(self) -> np.ndarray:
        """Vertex -> id of the venue its block and references print (similarity.venue_codes; -1: none)."""
        cols = [self._papers.column(c) if c in self._papers.column_names else None for c in ("venue", "journal")]
        return venue_codes(cols[0], cols[1], self.graph.n)

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

    @functools.cached_property
    def papers(self) -> Papers:
        """The snapshot's papers as the sampler's steps take them (graph, title keys, metadata, scratch mask)."""
        return Papers(self.graph, self.title_key, self.meta, self.mask)


def spec_of(example: Example) -> tuple[ExampleSpec, int, int]:
    """The spec, seed and index stored in an example's recipe."""
    p = example.recipe.params
    spec = ExampleSpec(p.task, p.depth, p.component_size, p.label, p.none_option, p.alpha, p.distractor,
                       p.context_length, p.reserve_none_option, render=p.render, template=p.template,
                       templates=tuple(p.templates or ()))
    if p.match_similarity:
        size_range = (p.size_range[0], p.size_range[1]) if p.size_range is not None else None
        spec = replace(spec, match_similarity=True, size_range=size_range, match_venue=p.match_venue,
                       match_components=p.match_components, match_learned=p.match_learned is not None,
                       match_weighted=p.match_weighted, source_slot=p.source_slot)
    return spec, example.recipe.seed, p.index

