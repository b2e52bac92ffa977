"""The snapshot's papers as the sampler's steps read them: an explicit input instead of the whole context.

:class:`Papers` bundles what drawing backbones, growing components, rendering them and checking the
forest invariant read of a loaded snapshot — the citation graph, the verifier's title keys, the
paper metadata, and a scratch mask — so that a step (``distract.ComponentSource``, the sampler's
``_check_invariant``) names its inputs instead of reaching into
:class:`graphniah.sampling.examples.spec.SamplingContext`, which builds one (``SamplingContext.papers``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from graphniah.formats.examples import PaperMeta
from graphniah.graph import CitationGraph


@dataclass(frozen=True, eq=False)
class Papers:
    """A loaded snapshot's papers, by vertex id (ascending corpus id).

    Parameters
    ----------
    graph : CitationGraph
        The citation graph; vertex ``v`` is the paper with corpus id ``graph.corpusids[v]``.
    title_key : callable
        Vertex -> the verifier's normalised title (two papers with equal keys could be confused).
    meta : callable
        Vertices -> ``{corpusid: PaperMeta}`` of those papers.
    mask : numpy.ndarray
        A boolean scratch mask over the vertices, all False between uses (shared, not thread-safe).
    """

    graph: CitationGraph
    title_key: Callable[[int], str]
    meta: Callable[[Sequence[int]], dict[int, PaperMeta]]
    mask: npt.NDArray[np.bool_]
