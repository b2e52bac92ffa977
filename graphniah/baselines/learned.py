"""The learned-surface shortcut: one classifier that combines every cue the text shows besides the citations.

Each of the other shortcuts tests one cue someone thought of. A reader that learns from examples
combines whatever is left, so this one learns: a gradient-boosted classifier (scikit-learn's
``HistGradientBoostingClassifier``, which learns non-monotone cues such as "the option of typical
length") gives each (source, paper) pair of a question P(the paper is reachable from the source |
what the text shows about the pair), and the answers follow from those scores.

**What it reads** (:mod:`graphniah.baselines.pairs`). The messages only, through the text checker's
reader (:mod:`graphniah.baselines.reading`), as topic-cluster does; the paper blocks' lines are read
with the prompt templates. A paper's printed record (:class:`~graphniah.text.surface.PrintedPaper`)
is its own block when it has one, else its reference line; a reference line is never followed to
its block. Per pair (:data:`~graphniah.baselines.pairs.FEATURES`):

* the surface pair features of :mod:`graphniah.text.surface`: title similarity (TF-IDF over the
  context's own titles), shared author names, same venue, year gap, printed-day gap (only where both
  papers have a block), title words and characters, author count;
* presence: block or not, the reference lines of its block, how often the context names it, where it
  is first named (its first block's place among the context's blocks, 0 to 1), the same for the
  source, the number of papers the context names, and the task;
* the other shortcuts' outputs: whether topic-cluster's grouping puts it with the source, its
  title-similarity rank among the context's papers (the share more similar to the source), and
  whether the retrieval shortcut's kept blocks connect it to the source.

**What it cannot see.** Which paper cites which beyond what retrieval's 8,000-token budget of blocks
states; abstracts and full texts (no prompt prints them); the structured fields of an example
(answer, papers, edges) outside training. It abstains on the edge-list rendering, whose ids say
nothing about a paper.

**Training** (:mod:`graphniah.baselines.training`): a separate draw with the suite's design,
another seed, sources disjoint from the suite's, so that its answers on the suite are out of
sample, :data:`~graphniah.baselines.TRAINING_PER_TASK` (1,000) questions per task unless the caller
asks for fewer, which the settings (``training.size``) and the report then say; the scorer is cached
per snapshot and design. Labels: the stored answer for YES/NO and
multiple choice; for counting and listing, the source's component in the citation graph the full
context states (the text checker's reading).

**Answers** (:func:`~graphniah.baselines.pairs.answers_from_scores`), with per-task thresholds
chosen on two-fold out-of-fold scores of the training draw (folds split by source, so a source the draw
asks twice is never on both sides):

* YES/NO: YES when the target's score passes the threshold;
* multiple choice: the option of highest score, or "none of these" when it is offered and no option
  passes the threshold;
* counting: the number of papers above the threshold, or the rounded sum of the scores, whichever is
  exact more often on the training draw;
* list: the titles of the papers above the threshold.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from graphniah.baselines import TRAINING_PER_TASK
from graphniah.baselines.pairs import Reach, answers_from_scores, question_rows, retrieval_reach
from graphniah.baselines.training import Scorer, load_or_train
from graphniah.errors import GraphNIAHError
from graphniah.formats.examples import Example
from graphniah.layout import RUNS_ROOT, SNAPSHOTS_ROOT, suite_manifest_of
from graphniah.progress import NO_PROGRESS, Progress
from graphniah.seeds import DEFAULT_SEED
from graphniah.text import PromptSet, load_prompts

if TYPE_CHECKING:
    from graphniah.formats.snapshot import Snapshot
    from graphniah.sampling import SamplingContext

__all__ = ["answer_with", "find_snapshot", "learned_surface"]


def find_snapshot(examples: Sequence[Example], examples_path: Path | None, snapshots: str | os.PathLike[str]) -> Snapshot:
    """The snapshot the examples were drawn from: the suite manifest's beside the examples file, else
    the one under ``snapshots`` with the recipes' hash."""
    from graphniah.formats.snapshot import Snapshot, find_snapshot_by_hash
    from graphniah.formats.suites import read_suite_manifest

    hashes = {ex.recipe.snapshot_hash for ex in examples}
    if len(hashes) != 1:
        raise GraphNIAHError(f"learned-surface trains per snapshot; the examples come from {len(hashes)} snapshots")
    (h,) = hashes
    manifest = suite_manifest_of(examples_path) if examples_path is not None else None
    if manifest is not None and manifest.is_file():
        folder = Path(read_suite_manifest(manifest).snapshot)
        if folder.is_dir() and Snapshot(folder).content_hash == h:
            return Snapshot(folder)
    return find_snapshot_by_hash(Path(snapshots), h)


def learned_surface(
    examples: Sequence[Example],
    prompts: PromptSet | None = None,
    *,
    seed: int = DEFAULT_SEED,
    data: Path | None = None,
    runs_root: str | os.PathLike[str] = RUNS_ROOT,
    snapshots: str | os.PathLike[str] = SNAPSHOTS_ROOT,
    examples_path: Path | None = None,
    per_task: int = TRAINING_PER_TASK,
    progress: Progress = NO_PROGRESS,
) -> tuple[dict[str, str | None], Scorer]:
    """The learned-surface shortcut on every example in the paper-block rendering (module docstring).

    Parameters
    ----------
    examples : the suite's examples; only their message text is read for answering.
    prompts : the templates the messages follow (default: the shipped ones).
    seed : seeds the topic grouping's draws (with each example's id), as for topic-cluster.
    data : the data folder holding the o200k_base encoding (retrieval's budget).
    runs_root : where the trained scorer is cached (``<runs_root>/.scorers``).
    snapshots : where to look for the examples' snapshot when no suite manifest names it.
    examples_path : the examples file (its suite manifest names the snapshot).
    per_task : questions per task of the training draw.
    progress : reports the training draw.

    Returns
    -------
    tuple
        ``({example id: answer}, the scorer)``; edge-list examples and examples of another prompt
        set are absent from the answers.
    """
    from graphniah.text import load_tokenizer

    pr = prompts or load_prompts()
    reach = retrieval_reach(pr, load_tokenizer("o200k_base", data).count)
    readable = [ex for ex in examples if ex.recipe.params.render == "apa"]
    if not readable:
        raise GraphNIAHError("learned-surface reads paper blocks; no example is in that rendering")

    def context() -> SamplingContext:
        from graphniah.sampling import SamplingContext

        return SamplingContext(find_snapshot(readable, examples_path, snapshots), prompts=pr)

    scorer = load_or_train(readable, context, pr, reach, Path(runs_root), per_task=per_task, progress=progress)
    return answer_with(scorer, examples, pr, reach, seed=seed), scorer


def answer_with(scorer: Scorer, examples: Sequence[Example], pr: PromptSet, reach: Reach, *,
                seed: int = DEFAULT_SEED) -> dict[str, str | None]:
    """Answer ``examples`` with a trained scorer (the second half of :func:`learned_surface`).

    Parameters
    ----------
    scorer : the trained scorer and its answer rule.
    examples : the examples; only their message text is read.
    pr : the templates.
    reach : the retrieval shortcut's reading (:func:`~graphniah.baselines.pairs.retrieval_reach`).
    seed : seeds the topic grouping's draws.

    Returns
    -------
    dict
        ``{example id: answer}`` for the examples in the paper-block rendering (None when the text
        names no candidate).
    """
    read = [rows for ex in examples if (rows := question_rows(ex, pr, reach, seed=seed)) is not None]
    # One scoring call for every question's rows: each call has a fixed cost.
    scores = np.split(scorer.scores(np.vstack([r.x for r in read])), np.cumsum([len(r.titles) for r in read])[:-1]) if read else []
    return {rows.example_id: answers_from_scores(rows, s, scorer.rule) if len(rows.titles) else None
            for rows, s in zip(read, scores, strict=True)}
