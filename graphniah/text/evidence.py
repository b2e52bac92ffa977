"""The evidence an answer needs: how far a breadth-first search from the source must go, and what it reads.

A reader who searches the context the way the prompt describes starts at the source's block and
follows citations in both directions, one hop at a time. Two numbers say how much of the context
that search must read before the answer is settled (stored in ``ExampleStats``):

- ``hops_needed``: the search depth that settles it. For a YES question, the distance of the
  target from the source (the search stops when it reaches the target). For every other question
  (NO, multiple choice, counting, list) the search must exhaust the source's component, so it is
  the source's eccentricity: the largest distance of any paper of the component.
- ``evidence_tokens``: the o200k tokens of the paper blocks the search reads. A citation is stated
  once, in the block of the citing paper, so expanding the papers at distances ``0 .. h-1`` reads
  the block of the citing end of every citation with an end at distance below ``h``. For YES, ``h``
  is the target's distance; otherwise the whole component is read (each of its blocks), and for
  multiple choice the candidates' own blocks as well (a reader checks each option's paper).

Blocks are counted one at a time and summed (the separators between them are not evidence).
Distances are over citations taken as undirected edges, as the prompt defines reachability.
"""

from __future__ import annotations

from collections import defaultdict, deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

__all__ = ["Evidence", "distances", "evidence"]


def distances(edges: Iterable[tuple[int, int]], source: int) -> dict[int, int]:
    """``{paper: hops from source}`` for every paper of the source's component (the source at 0)."""
    adj: dict[int, list[int]] = defaultdict(list)
    for a, b in edges:
        adj[a].append(b)
        adj[b].append(a)
    dist = {source: 0}
    queue = deque([source])
    while queue:
        v = queue.popleft()
        for w in adj[v]:
            if w not in dist:
                dist[w] = dist[v] + 1
                queue.append(w)
    return dist


@dataclass(frozen=True, slots=True)
class Evidence:
    tokens: int
    hops: int


def evidence(
    task: str,
    answer: str,
    source: int,
    targets: Sequence[int],
    edges: Sequence[tuple[int, int]],
    blocks: Mapping[int, str],
    count: Callable[[str], int],
) -> Evidence:
    """The evidence of one example (see the module docstring).

    ``edges`` are ``(citing, cited)`` corpus ids of the task's components, ``blocks`` the rendered
    block of each paper that has one, ``count`` the o200k token count of a text.
    """
    dist = distances(edges, source)
    if task == "yesno" and answer == "YES":
        hops = dist[targets[0]]
        read = {citing for citing, cited in edges if min(dist.get(citing, hops), dist.get(cited, hops)) < hops}
    else:
        hops = max(dist.values())
        read = {citing for citing, _ in edges if citing in dist}
        if task == "mc":
            read.update(t for t in targets if t in blocks)
    if hops < 1:
        raise ValueError(f"the source {source} has no citation in its component")
    return Evidence(sum(count(blocks[p]) for p in sorted(read)), hops)
