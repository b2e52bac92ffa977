"""Shortcut baselines: how far one gets on a suite without searching the citation graph.

Each shortcut reads an example's message text only (never its ``papers``/``edges``/``targets``) and
answers it the way a model that skips the search might:

==========================  ===========  =========================================================
shortcut                    tasks        rule
==========================  ===========  =========================================================
``title-similarity``        yesno, mc    TF-IDF cosine between titles: MC picks the candidate most
                                         like the source; YES/NO says YES above the suite's median
``retrieval``               every task   BM25 over the paper blocks with the question as the query,
                                         the top blocks up to 8,000 o200k tokens, then the exact
                                         answer from the citations those blocks state
``paper-count``             count        distinct papers named in the context / components per
                                         counting example − 1 (no citation read)
``topic-cluster``           every task   the context's titles grouped by subject (TF-IDF, 10
                                         nearest titles, spectral split into the design's number
                                         of components); answers by the source's group
                                         (:mod:`graphniah.baselines.topics`)
``learned-surface``         every task   a gradient-boosted classifier of (source, paper) pairs on
                                         every cue the text shows besides the citations (surface
                                         pair features, presence, the other shortcuts' outputs),
                                         trained on a separate draw of the suite's design
                                         (:mod:`graphniah.baselines.learned`)
==========================  ===========  =========================================================

The library API (used by ``graphniah baselines`` and by anyone measuring how a change to the
sampler moves the shortcuts):

* :func:`graphniah.baselines.shortcuts.answer` ``(name, examples) -> {example id: answer}`` runs one
  shortcut on a sequence of :class:`~graphniah.formats.examples.Example`; the answer is the string
  the shortcut gives (``"YES"``, a letter, a count) or ``None`` when it gives none. Examples of a
  task the shortcut does not answer are absent from the mapping. The shortcuts are also
  functions of their own (``title_similarity``, ``retrieval``, ``paper_count``,
  ``topics.topic_cluster``, ``learned.learned_surface``), and
  :func:`~graphniah.baselines.shortcuts.accuracy` scores a mapping through :mod:`graphniah.scoring`.
* :func:`graphniah.baselines.journals.write_baselines` writes each shortcut's answers as a journal
  ``runs/<suite>/baseline-<name>.jsonl`` (with its settings file) in the models' record format, so
  the report, the viewer and ``report --dataset`` show it as one more row.

This package's top level is light (names only); the shortcuts import the text checker, the
tokenizer, bm25s and scikit-learn when called. The modules: ``reading`` (how every shortcut reads an
example's text; the title space), ``shortcuts``, ``topics``, ``pairs`` (learned-surface's feature rows
and answer rule), ``training`` (its training draw and cached scorer), ``learned`` (its entry point),
``journals``.
"""

from __future__ import annotations

from typing import Literal, get_args

__all__ = ["BUDGET_TOKENS", "DEMO_TRAINING_PER_TASK", "JOURNAL_PREFIX", "SHORTCUTS", "SHORTCUT_TASKS", "TRAINING_PER_TASK", "ShortcutName", "is_baseline_model",
           "model_name"]

ShortcutName = Literal["title-similarity", "retrieval", "paper-count", "topic-cluster", "learned-surface"]
SHORTCUTS: tuple[ShortcutName, ...] = get_args(ShortcutName)
#: The tasks each shortcut answers (``None``: every task).
SHORTCUT_TASKS: dict[ShortcutName, tuple[str, ...] | None] = {
    "title-similarity": ("yesno", "mc"),
    "retrieval": None,
    "paper-count": ("count",),
    "topic-cluster": None,
    "learned-surface": None,
}
#: What the retrieval shortcut may read: its top blocks up to this many o200k_base tokens.
BUDGET_TOKENS = 8000
#: Questions per task of learned-surface's training draw unless the caller asks for another size
#: (issue 36: at least 1,000; the settings record the size drawn).
TRAINING_PER_TASK = 1000
#: The demo's training draw (``make demo`` must stay short): far below :data:`TRAINING_PER_TASK`, and
#: recorded as such in the journal's settings (``training.drawn_per_task``).
DEMO_TRAINING_PER_TASK = 25
#: Journals of shortcuts are ``<runs>/<suite>/baseline-<name>.jsonl``; the model field says the same.
JOURNAL_PREFIX = "baseline-"


def model_name(shortcut: ShortcutName) -> str:
    """The journal's model name of a shortcut: ``baseline-<name>``."""
    return JOURNAL_PREFIX + shortcut


def is_baseline_model(model: str) -> bool:
    """Whether a journal's model is one of the shortcuts (the report tables them apart)."""
    return model.startswith(JOURNAL_PREFIX) and model[len(JOURNAL_PREFIX):] in SHORTCUTS
