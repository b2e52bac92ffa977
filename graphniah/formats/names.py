"""The names every stage shares, each list defined once: tasks, renderings, reasoning efforts, tokenizers
and distractor kinds.

Each registry is a ``Literal`` (or an enum) and the tuple of its values derived from it, so a type
and its list cannot drift apart; every other list of these names in the project reads one of them.
The module imports nothing but the standard library, so the command line's ``--help`` can show the
choices without loading the pipeline.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from typing import Literal, get_args

__all__ = [
    "DISTRACTOR_KINDS",
    "EFFORTS",
    "NO_DISTRACTOR",
    "PAPER_TASKS",
    "RENDERS",
    "TASKS",
    "TASK_LABELS",
    "TOKENIZERS",
    "DistractorKind",
    "ReasoningEffort",
    "Render",
    "Task",
    "TokenizerName",
]

#: The tasks: the paper's three (YES/NO, multiple choice, counting), in the paper's order, then
#: ``list`` (name every reachable paper; scored by F1), which this project adds.
Task = Literal["yesno", "mc", "count", "list"]
TASKS: tuple[Task, ...] = get_args(Task)
#: The paper's three tasks: what a suite draws from unless it names its tasks.
PAPER_TASKS: tuple[Task, ...] = ("yesno", "mc", "count")
#: How tables, figures and the HTML report name each task (one entry per task of ``Task``; keyed by
#: ``str`` so that a task name read from a file looks up as it is).
TASK_LABELS: Mapping[str, str] = {"yesno": "YES/NO", "mc": "Multiple choice", "count": "Counting", "list": "List"}
#: How an example writes its papers: APA paper blocks (the paper's format) or an edge list of ids
#: (GraphWalks' format; graphniah.text.edgelist).
Render = Literal["apa", "edges"]
RENDERS: tuple[Render, ...] = get_args(Render)
#: Reasoning efforts a model may be run at (LiteLLM's ``reasoning_effort``), lowest first.
ReasoningEffort = Literal["none", "minimal", "low", "medium", "high"]
EFFORTS: tuple[ReasoningEffort, ...] = get_args(ReasoningEffort)
#: The three tokenizers every prompt must fit under (graphniah.text.tokenizers counts with them; a
#: dataset row records a token count per name; a model of the registry names the one it counts with).
TokenizerName = Literal["o200k_base", "qwen3.5", "gemma"]
TOKENIZERS: tuple[TokenizerName, ...] = get_args(TokenizerName)


class DistractorKind(StrEnum):
    """Distractor kinds of the paper (§3.2 step 4). ``disjoint-component`` is sampled, not fetched."""

    CODE = "code"
    ESSAYS = "essays"
    BOOKS = "books"
    WIKIPEDIA = "wikipedia"
    DISJOINT_COMPONENT = "disjoint-component"

    @property
    def is_text(self) -> bool:
        return self is not DistractorKind.DISJOINT_COMPONENT


#: An example without distractors (its context holds the graph's papers only).
NO_DISTRACTOR = "none"
#: Every value an example's ``distractor`` takes: none, then each kind.
DISTRACTOR_KINDS: tuple[str, ...] = (NO_DISTRACTOR, *(k.value for k in DistractorKind))
