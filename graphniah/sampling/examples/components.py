"""Matching whole components: the other components of an example as close in subject to the source's
component as that component is to itself.

Target matching (:mod:`.similarity`) makes a wrong answer's *title* as similar to the source as the
true answer's. One level up a shortcut remains: a component grows along citations, citations mostly
stay inside a subject, so each component is a cluster of titles about one subject, and independently
drawn components are clusters about *different* subjects. Grouping the context's titles by subject
(the ``topic-cluster`` shortcut, :mod:`graphniah.baselines.topics`) then answers by group membership
without reading a citation. With ``match_components`` the backbones of the other components are
chosen so that no such grouping can tell them from the source's.

**Subject of a backbone.** A component is its backbone path (3k − 2 papers) plus leaves grown from
the path's papers along their citations, so its subject is the backbone's. Titles are rows of the
sampler's TF-IDF space (:class:`.similarity.TitleSpace`, unit length), and the similarity of two
titles is their cosine; a reader grouping titles by subject sees exactly these similarities. Split
the path into its two contiguous halves.

* Its **cohesion** ``self(p)`` is the mean cosine of a title of its first half with a title of its
  second half: how alike two titles of *one* component are, taken far apart along its backbone.
* The **affinity** ``cross(p, q)`` of paths ``p`` and ``q`` is the mean cosine of a title of ``p`` with
  a title of ``q``: how alike two titles of two *different* components are.

Both are means over pairs of titles, computed from the sums ``s₁(p)``, ``s₂(p)`` of each half's rows:
``self(p) = s₁(p) · s₂(p) / (n₁ n₂)`` and ``cross(p, q) = s(p) · s(q) / (|p| |q|)`` with ``s = s₁ + s₂``.
A path ``q`` is a **partner** of ``p`` when ``|cross(p, q) − self(p)| ≤`` :data:`COMPONENT_CALIPER`:
a title of the other component is on average as close to a title of the source's component as two
titles of the source's component are to each other. (Centroids of the halves, set to unit length,
measured the same thing less directly: their cosines mix in how diverse each half is, and on the demo
that version left topic-cluster below chance, at 42.5% of YES/NO and 18.5% of multiple-choice
questions at depth 16.) Partners are neither much *less* similar (the cue the
shortcut reads) nor much *more* similar than the component itself (which would turn the cue around:
"the other group is the source's").

**The draw.** The source's path and its direction are uniform, as without the control. Every other
component's path is a partner of the source's, compatible with the paths chosen so far (the
conflict matrix of :mod:`.backbones`), and uniform among such paths (counting and listing: each
with a uniform direction). Where targets are matched too (YES/NO, multiple choice), the partner set
is one more filter on the target candidates of :meth:`.similarity.MatchIndex.draw`, which draws
nothing from it, so the true target's rank among the options stays uniform. A source without enough
partners is drawn again; matched examples thus leave out the sources of the most unusual subjects.

**Title length.** With the same key the wrong targets of YES/NO and multiple choice have exactly the
true target's number of words (``\\w+`` runs of the title as printed), so picking the title with the
fewest or most words is a tie among all options. Lengths in characters still differ, so they get the
rank rule of similarities (:meth:`.similarity.MatchIndex.draw`): each candidate is shorter or longer
than the true title (ties in random order), the source is kept only when every similarity side and
length side can hold all wrong answers, and the true title's rank by length is drawn uniformly, so
"pick the shortest (longest) title" is right with probability 1/(m + 1). A residual remains, the
same as for similarities: a tuple whose nearest candidates conflict with a wrong answer already
chosen is drawn again after the ranks are drawn; on the demo the true target was the longest,
shortest and most similar option in 22–25% of 2,000 multiple-choice draws at each of depths 16 and 32.

With ``match_learned`` (:mod:`.learned`, every matched YES/NO and multiple-choice example built since
that rule, see ``spec.LEARNED_MATCH_TASKS``) the rank rule on lengths gives
way to the learned score, which weighs lengths with every
other printed cue; the word count and the partners stay.

The recipe records ``match_components: true``; recipes without it replay the draw without it.
Growth, the forest invariant, rendering, packing and the text verifier are unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import scipy.sparse as sp

from graphniah.sampling.examples.similarity import TitleSpace

__all__ = ["COMPONENT_CALIPER", "ComponentIndex"]

#: Largest gap between a partner's affinity to the source's backbone and that backbone's cohesion
#: (mean title cosines: on the demo a backbone's median cohesion is 0.05 at depth 16 and 0.04 at depth 32, the affinity of
#: two compatible backbones about 0.013).
COMPONENT_CALIPER = 0.01


@dataclass(frozen=True, eq=False)
class ComponentIndex:
    """A depth's pool paths by subject: each path's cohesion and every pair's affinity (module docstring)."""

    cohesion: npt.NDArray[np.float64]  # (n,) self(p)
    affinity: npt.NDArray[np.float64]  # (n, n) cross(p, q)

    @classmethod
    def build(cls, paths: npt.NDArray[np.int64], space: TitleSpace, titles: pa.Array) -> ComponentIndex:
        """``paths`` as vertex ids (n × (3k − 2)); ``titles`` indexed by vertex."""
        n, length = paths.shape
        rows = space.vectors(titles.take(pa.array(paths.reshape(-1))))  # unit rows, path after path
        half = length // 2
        position = np.tile(np.arange(length), n)
        owner = np.repeat(np.arange(n), length)
        # Row i of a half's aggregation matrix sums the TF-IDF rows of that half of path i.
        s1, s2 = (sp.csr_matrix(sp.csr_matrix((np.ones(int(sel.sum())), (owner[sel], np.flatnonzero(sel))), shape=(n, n * length)) @ rows)
                  for sel in (position < half, position >= half))
        cohesion = np.asarray(s1.multiply(s2).sum(axis=1)).ravel() / (half * (length - half))
        whole = s1 + s2
        affinity = np.asarray((whole @ whole.T).toarray()) / (length * length)
        return cls(cohesion, affinity)

    @property
    def n(self) -> int:
        return int(self.cohesion.size)

    def partners(self, path: int) -> npt.NDArray[np.bool_]:
        """The paths whose affinity to ``path`` is within the caliper of its cohesion (never itself)."""
        out: npt.NDArray[np.bool_] = np.abs(self.affinity[path] - self.cohesion[path]) <= COMPONENT_CALIPER
        out[path] = False
        return out

    def draw(self, conflict: npt.NDArray[np.bool_], k: int, rng: np.random.Generator) -> list[tuple[int, bool]] | None:
        """``k`` pairwise compatible (path, reversed) pairs: the source's uniform, the others uniform
        among its compatible partners, each in a uniform direction; None when too few partners are
        left (the tuple is drawn again)."""
        first = int(rng.integers(self.n))
        out = [(first, bool(rng.random() < 0.5))]
        free = self.partners(first) & ~conflict[first]
        for _ in range(k - 1):
            choices = np.flatnonzero(free)
            if choices.size == 0:
                return None
            j = int(choices[rng.integers(choices.size)])
            out.append((j, bool(rng.random() < 0.5)))
            free &= ~conflict[j]
        return out


