"""The edge-list rendering: papers as 8-hex-character ids, citations as ``<id> -> <id>`` lines.

GraphWalks presents a graph as a bare edge list; this rendering poses GraphNIAH's questions on the
same sampled forest in that form, so the cost of the realistic (APA) format can be measured on
identical graphs. Everything but the text of the needles and the question is shared with the APA
rendering: the forest, the blocks' random keys, the distractors and the context length.

- **Ids.** A paper's id is the first 8 hex digits of ``sha256("graphniah-edge-id:{seed}:{index}:
  {corpusid}:{salt}")`` with salt 0, so it depends on the example (seed and index) and the paper
  only. Within an example the ids are unique: :class:`PaperIds` hands them out in a fixed order
  (the task's papers in component order, then each distractor component's papers as drawn) and
  takes the next salt for a paper whose id is already taken, so the assignment is a function of
  that order and replays exactly.
- **Blocks.** One block per citing paper (the APA rendering's block order, hence the same number
  of blocks and the same keys): one line per citation, ``{citing} -> {cited}`` from
  ``prompts/edges/edge.txt``, in increasing order of the cited id. Blocks are joined by blank lines
  with the distractors, as APA blocks are.
- **Question.** ``prompts/edges/question/*.txt`` with ids where the APA questions have titles
  (``render.question(..., render="edges")``).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence

from graphniah.atomic import sha256_bytes
from graphniah.text import PromptSet, load_prompts

__all__ = ["ID_LENGTH", "PaperIds", "render_edge_component"]

ID_LENGTH = 8


def _digest(seed: int, index: int, corpusid: int, salt: int) -> str:
    return sha256_bytes(f"graphniah-edge-id:{seed}:{index}:{corpusid}:{salt}".encode())[:ID_LENGTH]


class PaperIds:
    """The ids of one example's papers: deterministic, unique, assigned in the order first asked for."""

    def __init__(self, seed: int, index: int) -> None:
        self.seed = seed
        self.index = index
        self._of: dict[int, str] = {}
        self._taken: set[str] = set()

    def __call__(self, corpusid: int) -> str:
        got = self._of.get(corpusid)
        if got is None:
            salt = 0
            got = _digest(self.seed, self.index, corpusid, salt)
            while got in self._taken:  # rare: about n^2 / 2^33 for n papers
                salt += 1
                got = _digest(self.seed, self.index, corpusid, salt)
            self._of[corpusid] = got
            self._taken.add(got)
        return got

    def assign(self, corpusids: Iterable[int]) -> None:
        """Fix the ids of these papers now, in this order (what makes the assignment order explicit)."""
        for c in corpusids:
            self(c)

    def __len__(self) -> int:
        return len(self._of)


def render_edge_component(
    edges: Sequence[tuple[int, int]], order: Sequence[int], ids: PaperIds, prompts: PromptSet | None = None
) -> list[str]:
    """One block per paper of ``order`` that cites another paper, in ``order`` (as ``render_component``).

    ``edges`` are ``(citing, cited)`` corpus-id pairs; every paper of ``order`` gets its id before
    any line is written, so the ids follow ``order``, not the edges.
    """
    tpl = (prompts or load_prompts()).edges.edge
    if len(set(order)) != len(order):
        raise ValueError("render_edge_component: order lists a paper twice")
    ids.assign(order)
    cites: dict[int, list[str]] = defaultdict(list)
    for citing, cited in edges:
        if citing == cited:
            raise ValueError(f"render_edge_component: self-citation of paper {citing}")
        cites[citing].append(ids(cited))
    missing = set(cites) - set(order)
    if missing:
        raise ValueError(f"render_edge_component: citing papers {sorted(missing)[:5]} are not in order")
    return [
        "\n".join(tpl.fill({"citing": ids(p), "cited": c}) for c in sorted(cites[p])) for p in order if p in cites
    ]

