"""Drawing distractors, one at a time, for each kind (paper §3.2 step 4, appendix A.2.4; docs/architecture.md).

Each kind is a :class:`graphniah.sampling.packing.DistractorSource` that the packer asks for one distractor
after another, passing the example's generator:

- ``code``, ``essays``, ``books``: one document (a kernel source file, an essay, a book file) drawn
  uniformly among those not drawn yet for this example; once every document has been drawn a new
  pass begins, so documents repeat only when the corpus is smaller than the context. This matters
  for essays (49 essays, about 150k tokens in all): at L = 200,000 and above some essays appear
  twice — the same happens with any fixed essay set at long lengths, and each copy gets its own
  random positions. A prompt ends short of L by less than the first block that does not fit (the
  paper's rule), so the corpora store blocks no longer than a paragraph: long paragraphs (the
  packaged essays lost their blank lines) are cut at sentences, code at lines, into pieces of at
  most ``MAX_BLOCK_BYTES`` (``graphniah.sampling.corpora.records.BlockRule``), which keeps every
  prompt within 3% of L for every L >= 30,000.
- ``wikipedia``: passages retrieved by BM25 against the titles of the example's papers
  (``Corpus.retrieve``: every title's best passage, then every title's second best, ...), drawn in
  that ranking, so the passages most similar to the example's papers enter first and a cut drops
  the least similar; passages that share no term with any title follow in random order, then
  passes over the whole corpus as above. Positions in the context are random either way (keys).
- ``disjoint-component``: one more connected component sampled exactly like the example's own
  (backbone path of the same depth from the same pool, in random direction, grown by the same
  preferential attachment to the same size and α — in matched counting and listing to a size drawn
  like the other component's, never the source's), disjoint from every paper already in the example
  — no shared paper or title and no citation edge (:class:`graphniah.sampling.examples.grow.Occupied`) — so
  the citation edges among all rendered papers stay a forest of separate components and the
  question's components are untouched. Its blocks are rendered as in step 3, in the order the
  papers joined the component, so a cut drops the papers added last.
- ``none``: nothing is drawn (the context holds the needles only; packing still checks L).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from graphniah.atomic import canonical_json, sha256_bytes
from graphniah.errors import GraphNIAHError
from graphniah.formats.names import DISTRACTOR_KINDS, NO_DISTRACTOR
from graphniah.sampling.corpora import Corpus, open_corpus
from graphniah.sampling.corpora.build import DOCUMENTS_FILE
from graphniah.sampling.corpora.records import block_rule
from graphniah.sampling.examples.backbones import PoolIndex
from graphniah.sampling.examples.grow import Component, GrowthStats, Occupied, grow_components, paths_compatible
from graphniah.sampling.examples.papers import Papers
from graphniah.sampling.examples.render import render_component
from graphniah.sampling.packing import Distractor
from graphniah.text import PromptSet
from graphniah.text.edgelist import PaperIds, render_edge_component

NONE = NO_DISTRACTOR
MAX_COMPONENT_TRIES = 20  # growth attempts per distractor component before drawing stops


def check_kind(kind: str) -> str:
    if kind not in DISTRACTOR_KINDS:
        raise GraphNIAHError(f"unknown distractor kind {kind!r}; choose one of {', '.join(DISTRACTOR_KINDS)}")
    return kind


def corpus_fingerprint(corpus: Corpus) -> str:
    """What the recipe stores to pin a text corpus: the documents file hash of a built corpus (from its
    verified manifest; the file holds the blocks too), or for a user folder the hash of every
    document's id and text and of the block rule that cuts them."""
    ident: dict[str, object]
    if corpus.manifest is not None:
        ident = {"kind": corpus.kind.value, "documents_sha256": corpus.manifest.files[DOCUMENTS_FILE].sha256}
    else:
        ident = {
            "kind": corpus.kind.value,
            "folder_documents": [[d.doc_id, sha256_bytes(d.text.encode("utf-8"))] for d in corpus.documents],
            "blocks": block_rule(corpus.kind).as_dict(),
        }
    return sha256_bytes(canonical_json(ident).encode("utf-8"))


def load_corpus(kind: str, root: Path | None = None) -> Corpus:
    """Open the corpus of a text kind and read its documents now, so a missing or empty corpus fails
    before any sampling (with the error of ``open_corpus`` naming the folder and the fix)."""
    corpus = open_corpus(kind, root)
    if len(corpus) == 0:
        raise GraphNIAHError(f"the {kind} corpus at {corpus.path} has no documents (run 'graphniah corpora fetch')")
    return corpus


class DocumentSource:
    """Documents of a text corpus in random passes without replacement (documents repeat only once all
    were drawn); a subclass may put a ranked list first (``_ranked``)."""

    def __init__(self, corpus: Corpus) -> None:
        self.corpus = corpus
        self._queue: list[int] = []  # popped from the end
        self._passes = 0

    def _ranked(self) -> list[int] | None:
        """More documents to draw before the random passes (None: no more)."""
        return None

    def _next_pass(self, rng: np.random.Generator) -> list[int]:
        self._passes += 1
        order: list[int] = rng.permutation(len(self.corpus)).tolist()
        return order

    def draw(self, rng: np.random.Generator) -> Distractor:
        if not self._queue:
            more = self._ranked()
            self._queue = (more if more is not None else self._next_pass(rng))[::-1]
        doc = self.corpus[self._queue.pop()]
        return Distractor(f"{self.corpus.kind.value}:{doc.doc_id}", tuple(self.corpus.blocks(doc)))


class WikipediaSource(DocumentSource):
    """Passages ranked by BM25 against the example's titles (``Corpus.retrieve``: every title's best
    passage, then every title's second best, ...), then the passages no title matched in random
    order, then random passes over the whole corpus.

    The ranking is fetched lazily, ``k`` passages at a time with ``k`` doubling: ``retrieve(q, k)``
    is a prefix of ``retrieve(q, 2k)`` (the round robin lists every level-``j`` passage before any of
    level ``j + 1``, and levels below ``k`` are the same in both), so the drawn sequence does not
    depend on ``first_k`` — only the time spent does (the round robin over all passages costs about
    as much as the packing of a 200k-token prompt, and short prompts need a few thousand passages).
    """

    def __init__(self, corpus: Corpus, titles: Sequence[str], first_k: int = 1024) -> None:
        super().__init__(corpus)
        self.titles = list(titles)
        self._k = max(1, first_k)
        self._given = 0  # ranked passages handed out so far
        self._ranking_done = False
        self._seen: set[int] = set()
        self._index = {doc_id: i for i, doc_id in enumerate(corpus.ids)}

    def _ranked(self) -> list[int] | None:
        if self._ranking_done:
            return None
        ranked = [self._index[d.doc_id] for d in self.corpus.retrieve(self.titles, self._k)]
        new = ranked[self._given :]
        self._given = len(ranked)
        if len(ranked) < self._k:  # the ranking is complete
            self._ranking_done = True
        self._k *= 2
        self._seen.update(new)
        return new if new else self._ranked()

    def _next_pass(self, rng: np.random.Generator) -> list[int]:
        if self._passes == 0:  # first the passages no title matched, then whole passes
            self._passes = 1
            rest = np.asarray([i for i in range(len(self.corpus)) if i not in self._seen], dtype=np.int64)
            if rest.size:
                order: list[int] = rest[rng.permutation(rest.size)].tolist()
                return order
        return super()._next_pass(rng)


def wikipedia_source(corpus: Corpus, titles: Sequence[str], context_length: int | None = None) -> WikipediaSource:
    """The wikipedia source for an example's ``titles``; ``context_length`` only sizes the first
    retrieval (about one passage per 80 tokens of L, a little more than a passage holds on average)."""
    return WikipediaSource(corpus, titles, max(256, (context_length or 0) // 80))


@dataclass(frozen=True)
class RenderedComponent:
    """A distractor component and what each of its blocks shows: the block's paper and the papers it cites."""

    component: Component
    owners: tuple[int, ...]  # corpus id of the paper of each block, in block order
    cited: tuple[tuple[int, ...], ...]  # corpus ids each block lists as references

    def rendered(self, kept: int) -> tuple[set[int], int]:
        """Papers (corpus ids) and citations shown by the first ``kept`` blocks."""
        papers = set(self.owners[:kept])
        for refs in self.cited[:kept]:
            papers.update(refs)
        return papers, sum(len(r) for r in self.cited[:kept])


class ComponentSource:
    """Extra components, sampled like the example's own and disjoint from everything already in it.

    Backbones come from the depth's pool, uniformly among the paths still compatible with the
    example: no paper in it, no citation edge to it, no title of it. That set is kept exactly and
    updated after each component (a path × paper incidence test against the new papers and their
    neighbours, and a title-id test), so drawing stops — ``draw`` returns None — exactly when no
    compatible backbone is left, or when growth got stuck ``MAX_COMPONENT_TRIES`` times in a row.
    On a small snapshot (the demo) this limits how many components fit, and the prompt stays
    shorter than L (``Packed.stop == "exhausted"``).

    Parameters
    ----------
    papers : Papers
        The snapshot's papers (graph, title keys, metadata, scratch mask).
    index : PoolIndex
        The depth's path pool the backbones come from (built by ``PoolIndex.build``, with title ids).
    prompts : PromptSet
        The prompts the blocks are rendered with.
    occupied : Occupied
        The papers and titles already in the example; each drawn component is added to it.
    depth, alpha : int, float
        The components' depth and preferential-attachment exponent (the example's own).
    sizes : callable
        ``sizes(n, rng)``: the sizes of ``n`` more components (``ExampleSpec.other_sizes``).
    stats : GrowthStats, optional
        Where growth counts its rejects.
    ids : PaperIds, optional
        The example's paper ids when it is rendered as an edge list (None: APA blocks).
    """

    def __init__(self, papers: Papers, index: PoolIndex, prompts: PromptSet, occupied: Occupied, *, depth: int,
                 alpha: float, sizes: Callable[[int, np.random.Generator], list[int]],
                 stats: GrowthStats | None = None, ids: PaperIds | None = None) -> None:
        self.papers = papers
        self.prompts = prompts
        self.ids = ids
        self.depth, self.alpha, self.sizes = depth, alpha, sizes
        self.occupied = occupied
        self.stats = stats if stats is not None else GrowthStats()
        self.components: list[Component] = []  # every component drawn, used or not (for the invariant check)
        self._index = index
        self._blocked = np.zeros(self._index.size, dtype=bool)
        self._seen = 0  # occupied papers already reflected in ``_blocked``
        assert self._index.title_ids is not None  # built by PoolIndex.build
        self._title_ids, self._title_of = self._index.title_ids, self._index.title_of

    def _update_blocked(self) -> None:
        new = np.asarray(self.occupied.vertices[self._seen :], dtype=np.int64)
        self._seen = len(self.occupied.vertices)
        if new.size == 0:
            return
        graph, title_key = self.papers.graph, self.papers.title_key
        ptr, idx = graph.neighbor_csr
        touched = np.zeros(graph.n, dtype=bool)
        touched[new] = True
        touched[np.concatenate([idx[ptr[v] : ptr[v + 1]] for v in new.tolist()])] = True
        hit = np.fromiter(
            (t for v in new.tolist() if (t := self._title_of.get(title_key(v), -1)) >= 0), dtype=np.int64
        )
        self._blocked |= touched[self._index.paths].any(axis=1) | np.isin(self._title_ids, hit).any(axis=1)

    def draw(self, rng: np.random.Generator) -> Distractor | None:
        pp = self.papers
        # The knob's size; in matched counting/listing a size of its own, never the source's, so that
        # the papers of distractor components do not reveal the answer either.
        size = self.sizes(1, rng)[0]
        for _ in range(MAX_COMPONENT_TRIES):
            self._update_blocked()
            free = np.flatnonzero(~self._blocked)
            if free.size == 0:
                self.stats.rejects["distractor_no_backbone_left"] += 1
                return None
            i = int(free[rng.integers(free.size)])
            path = self._index.paths[i] if rng.random() < 0.5 else self._index.paths[i][::-1]
            reason = paths_compatible(pp.graph, [path], pp.title_key, pp.mask, self.occupied)
            if reason is not None:  # a mutual citation inside the path; never usable
                self._blocked[i] = True
                self.stats.rejects[f"distractor_paths_{reason}"] += 1
                continue
            comps = grow_components(
                pp.graph, [path], self.depth, size, self.alpha, rng, pp.title_key, pp.mask,
                self.stats, self.occupied,
            )
            if comps is None:
                continue
            comp = comps[0]
            self.occupied.add(comp.order, pp.title_key)
            self.components.append(comp)
            return render_distractor_component(pp, self.prompts, comp, self.ids)
        self.stats.rejects["distractor_component_stuck"] += 1
        return None


def render_distractor_component(papers: Papers, prompts: PromptSet, comp: Component, ids: PaperIds | None = None) -> Distractor:
    """Blocks of ``comp`` in the order its papers joined it (one per paper citing another one); with
    ``ids``, edge-list blocks whose ids come from the example's :class:`PaperIds` (so they stay unique)."""
    cid = papers.graph.corpusids
    order = [int(cid[v]) for v in comp.order]
    edges = [(int(cid[a]), int(cid[b])) for a, b in comp.edges]
    if ids is None:
        blocks = render_component(papers.meta(comp.order), edges, order, prompts)
    else:
        blocks = render_edge_component(edges, order, ids, prompts)
    cites: dict[int, list[int]] = defaultdict(list)
    for a, b in edges:
        cites[a].append(b)
    owners = tuple(p for p in order if p in cites)
    return Distractor(
        f"component:{int(cid[comp.source])}",
        tuple(blocks),
        RenderedComponent(comp, owners, tuple(tuple(cites[p]) for p in owners)),
    )
