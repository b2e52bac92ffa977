"""Every file format of the project: this package holds each one's model and reader/writer, and re-exports what they share.

Each file format the project writes has exactly one pydantic model, in one module of this package,
and every reader and writer goes through it: ``snapshot`` (snapshot manifests and Parquet schemas),
``pools`` (pruned sets and path pools), ``examples`` (examples and their recipes), ``suites`` (suite
specs, suite manifests, a build's ``.partial`` lines), ``journal`` (run records and settings),
``dataset`` (a dataset folder's manifest, its rows' schema and its reader), ``report`` (``summary.json``, ``alpha.json``),
``release_store`` (the release store's state), ``release`` (an S2AG release or diff folder's
``release.json``/``diff.json``, an OpenAlex folder's ``openalex.json``) and ``tokenizers`` (the tokenizer manifest). Stages
import file models from here, never from one another; where each file lives is
:mod:`graphniah.layout`'s. Each model is versioned (by ``format_version``, or the field its format
names), and its reader checks the version *before* it validates the shape, so a file of another
version is never misread as this one:

* a version this code writes is read as is;
* an older version with a registered upgrade is upgraded (each format says in its module docstring
  which older versions it upgrades and how; the upgrades are tested);
* anything else — a newer version, or an older one without an upgrade — is a :class:`GraphNIAHError`
  naming the file (and line), the version found and the versions this code reads.

A file written before versions existed has no ``format_version``; it is version 1 of its format.

What the formats share lives in ``base`` (:class:`Format`, :class:`Frozen`, :class:`ArtifactHash`);
the names other modules use (tasks, their labels, renderings, reasoning efforts, tokenizers, distractor
kinds) are defined once in ``names``. This ``__init__`` only re-exports them, loaded on first access.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from graphniah.lazy import attribute

if TYPE_CHECKING:
    from graphniah.formats.base import ArtifactHash, Format, Frozen, add_version
    from graphniah.formats.names import (
        DISTRACTOR_KINDS,
        EFFORTS,
        NO_DISTRACTOR,
        PAPER_TASKS,
        RENDERS,
        TASK_LABELS,
        TASKS,
        TOKENIZERS,
        DistractorKind,
        ReasoningEffort,
        Render,
        Task,
        TokenizerName,
    )

# Where each public name lives; loaded on first access (the names module imports only the standard library).
_HOMES = {
    **dict.fromkeys(["ArtifactHash", "Format", "Frozen", "add_version"], "graphniah.formats.base"),
    **dict.fromkeys(["DISTRACTOR_KINDS", "EFFORTS", "NO_DISTRACTOR", "PAPER_TASKS", "RENDERS", "TASK_LABELS", "TASKS",
                     "TOKENIZERS", "DistractorKind", "ReasoningEffort", "Render", "Task", "TokenizerName"],
                    "graphniah.formats.names"),
}

__all__ = [*_HOMES]  # the public names are the map's keys


def __getattr__(name: str) -> Any:
    return attribute(__name__, _HOMES, name)
