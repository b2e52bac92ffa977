"""Training the learned-surface scorer on a draw of its own, and keeping it per snapshot and design.

The scorer of :mod:`graphniah.baselines.learned` must answer the suite out of sample, so it learns
from a separate draw:

* **Design.** The suite's own: each training spec is a spec of one of the suite's examples of the
  same task (read back from its recipe, cycled in suite order), so depths, component sizes, labels,
  the "none" option and the matched-sampling rules follow the suite's mix. Examples in the
  edge-list rendering are left out (the shortcut abstains there).
* **Text distractors dropped.** An essays, Wikipedia, code or books distractor only puts text between
  the paper blocks; the blocks, their order and every feature the scorer reads are the same without
  it, so those training specs are drawn without distractor and unpacked (much faster). A
  disjoint-component distractor adds papers and is kept as the suite has it.
* **Seed.** ``derived_seed(Stream.SHORTCUT, suite seed, suite_key("learned-surface/training"))``
  (:mod:`graphniah.seeds`): a seed no suite of the same seed draws its examples from.
* **Sources disjoint.** The draw keeps the suite's papers out of its sources: no training question's
  source or true target is the source or the stated true target (a YES target, a right option) of
  any suite question. A drawn backbone tuple that would break this is drawn again before anything
  grows (``build_example(avoid=...)``), so every built training question counts, and training
  questions may share a source among themselves (drawn independently, as the paper draws a suite).
  A training spec keeps no ``source_slot``: the suite's order of distinct sources is the suite's.
* **Size.** :data:`TRAINING_PER_TASK` questions per task unless the caller asks otherwise; an example
  that cannot be built is replaced by one more draw of its spec at a new index (at most as many
  replacements as the draw asks for), so the draw holds the size asked for. The settings record the
  size actually drawn, and say when it is smaller than the design's (:func:`size_label`: the demo's
  draw is), as the report does under its Shortcuts table.

The fitted scorer is cached in ``<runs>/.scorers/learned-surface-<key>.pkl`` (written atomically,
with a JSON sidecar holding the pickle's sha256, checked before loading), keyed by the snapshot's
hash, the prompts' hash, the training specs, the seed, the size, the suite papers kept out (a hash of
their sorted ids: two suites of one design with different questions draw differently) and
:data:`TRAINING_VERSION`: a re-run and the demo reuse it instead of training again.
"""

from __future__ import annotations

import pickle
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt
from threadpoolctl import threadpool_limits

from graphniah.atomic import atomic_write_bytes, atomic_write_text, canonical_json, sha256_bytes
from graphniah.baselines import TRAINING_PER_TASK
from graphniah.baselines.pairs import FEATURES, TASK_CODES, QuestionRows, Reach, Rule, answers_from_scores, question_rows
from graphniah.errors import GraphNIAHError
from graphniah.formats.examples import Example
from graphniah.progress import NO_PROGRESS, Progress, step
from graphniah.scoring import score_response
from graphniah.seeds import Stream, derived_seed, suite_key
from graphniah.text import PromptSet, Undetermined, parse_context, split_messages
from graphniah.text.textcheck import normalize

if TYPE_CHECKING:
    from sklearn.ensemble import HistGradientBoostingClassifier

    from graphniah.sampling import ExampleSpec, SamplingContext

__all__ = ["MODEL_PARAMS", "TRAINING_VERSION", "Scorer", "labels_of", "load_or_train", "size_label", "source_folds", "train_scorer", "training_seed"]

#: Bumped when features, labels or the training rule change: older cached scorers are not reused.
#: 2: the suite's sources kept out at the draw (not dropped after it), failures replaced.
TRAINING_VERSION = 3
#: The classifier's parameters (fixed before any suite was scored; no early stopping, so the fit is
#: a function of the data alone).
MODEL_PARAMS: dict[str, Any] = {"max_iter": 200, "learning_rate": 0.1, "max_leaf_nodes": 31, "min_samples_leaf": 20,
                                "l2_regularization": 1.0, "early_stopping": False, "random_state": 0}
#: Thresholds tried on the out-of-fold scores.
_GRID = np.round(np.arange(0.05, 0.96, 0.05), 2)
_TEXT_DISTRACTORS = frozenset({"essays", "wikipedia", "code", "books"})


def training_seed(suite_seed: int) -> int:
    """The seed of the training draw for a suite drawn with ``suite_seed`` (module docstring)."""
    return derived_seed(Stream.SHORTCUT, suite_seed, suite_key("learned-surface/training"))


@dataclass(frozen=True)
class Scorer:
    """A fitted scorer with its answer rule and what it was trained on."""

    model: HistGradientBoostingClassifier
    rule: Rule
    model_hash: str
    training: dict[str, Any]  # the draw: seed, sizes per task, dropped examples, design notes

    def scores(self, x: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
        """P(reachable) of each row (score many questions' rows in one call: each call has a fixed cost)."""
        if not len(x):
            return np.empty(0)
        with threadpool_limits(1):  # OpenMP threads on a busy machine cost seconds per call
            return np.asarray(self.model.predict_proba(x)[:, 1], dtype=np.float64)


def labels_of(ex: Example, rows: QuestionRows, pr: PromptSet) -> npt.NDArray[np.float64]:
    """Whether each candidate is reachable from the source: the stored answer (YES/NO, multiple
    choice), else the source's component in the graph the full context states."""
    from graphniah.formats.examples import option_letters

    if rows.task == "yesno":
        return np.array([float(ex.answer == "YES")])
    if rows.task == "mc":
        letters = option_letters(len(rows.titles), False)
        return np.array([float(letter == ex.answer) for letter in letters])
    _, _, context = split_messages(ex.messages, pr)
    g = parse_context(context, pr)
    s = g.find(_source_title(ex, pr))
    reach = {t for i in g.component(s) for t in g.nodes[i].titles}
    return np.array([float(normalize(t) in reach) for t in rows.titles])


def _source_title(ex: Example, pr: PromptSet) -> str:
    from graphniah.baselines.reading import read_question

    t = read_question(ex, pr)
    if t is None:
        raise GraphNIAHError(f"training example {ex.id}: its messages do not follow the templates")
    return t.q.source


def training_specs(suite: Sequence[Example], per_task: int) -> list[ExampleSpec]:
    """The training draw's specs: the suite's APA specs of each task cycled to ``per_task`` (module docstring)."""
    from graphniah.sampling import spec_of

    by_task: dict[str, list[ExampleSpec]] = {}
    for ex in suite:
        if ex.recipe.params.render == "apa":
            spec = spec_of(ex)[0]
            if spec.distractor in _TEXT_DISTRACTORS:
                spec = replace(spec, distractor="none", context_length=None)
            spec = replace(spec, source_slot=None)
            by_task.setdefault(ex.task, []).append(spec)
    return [specs[i % len(specs)] for task in sorted(by_task, key=TASK_CODES.__getitem__) for specs in (by_task[task],)
            for i in range(per_task)]


def size_label(drawn_per_task: dict[str, int]) -> dict[str, Any]:
    """What the settings say about the draw's size against :data:`TRAINING_PER_TASK` (issue 36 asks for at
    least that many questions per task): the demo's smaller draw is labelled as such, never passed off."""
    short = {t: n for t, n in drawn_per_task.items() if n < TRAINING_PER_TASK}
    drawn = ", ".join(f"{t} {n:,}" for t, n in short.items()) or "nothing drawn"
    size = (f"at least the design's {TRAINING_PER_TASK:,} questions per task" if drawn_per_task and not short else
            f"smaller than the design's {TRAINING_PER_TASK:,} questions per task ({drawn}"
            "): a reader trained on more questions may find cues this one missed")
    return {"design_per_task": TRAINING_PER_TASK, "size": size}


def suite_papers(suite: Sequence[Example]) -> frozenset[int]:
    """The papers a training question may not have as source or true target: every suite question's
    source, and its true target where the question states it (a YES target, the right option)."""
    from graphniah.formats.examples import option_letters

    out = {ex.source for ex in suite}
    for ex in suite:
        if ex.task == "yesno" and ex.answer == "YES":
            out.add(ex.targets[0])
        elif ex.task == "mc" and ex.answer in (letters := option_letters(len(ex.targets), False)):
            out.add(ex.targets[letters.index(ex.answer)])
    return frozenset(out)


def _draw(ctx: SamplingContext, specs: Sequence[ExampleSpec], seed: int, avoid: frozenset[int],
          progress: Progress) -> tuple[list[Example], int, int]:
    """The training examples, none with a source or true target in ``avoid`` (module docstring); (examples,
    backbone tuples drawn again for touching ``avoid``, examples that failed to build and were replaced)."""
    from graphniah.sampling import SampleStats, build_example

    out: list[Example] = []
    queue = list(specs)
    stats = SampleStats()
    failed = 0
    with step(progress, len(specs), "learned-surface training draw"):
        i = 0
        while i < len(queue):
            try:
                out.append(build_example(ctx, queue[i], seed, i, stats, avoid=avoid))
                progress.advance()
            except GraphNIAHError:
                failed += 1
                if failed <= len(specs):  # one more draw of the same spec, at a new index
                    queue.append(queue[i])
            i += 1
    return out, stats.rejects["paths_avoided_source"], failed


def _features(examples: Sequence[Example], pr: PromptSet, reach: Reach, seed: int,
              labelled: bool) -> list[tuple[Example, QuestionRows, npt.NDArray[np.float64]]]:
    out = []
    for ex in examples:
        rows = question_rows(ex, pr, reach, seed=seed)
        if rows is None or not len(rows.titles):
            continue
        try:
            y = labels_of(ex, rows, pr) if labelled else np.empty(0)
        except Undetermined:
            continue
        out.append((ex, rows, y))
    return out


def _fit(x: npt.NDArray[np.float64], y: npt.NDArray[np.float64]) -> HistGradientBoostingClassifier:
    from sklearn.ensemble import HistGradientBoostingClassifier

    model = HistGradientBoostingClassifier(**MODEL_PARAMS)
    # scikit-learn cannot bin a column that is missing everywhere (e.g. no pair with two printed days in
    # a small draw); as a constant it is never split on, so what the column holds when scoring is irrelevant.
    missing = np.asarray(np.isnan(x).all(axis=0), dtype=bool)
    x = np.where(missing[None, :], 0.0, x)
    with threadpool_limits(1):  # see Scorer.scores
        model.fit(x, y.astype(np.int64))
    return model


def _task_score(ex: Example, rows: QuestionRows, scores: npt.NDArray[np.float64], rule: Rule) -> float:
    scored = score_response(ex.task, ex.answer, f"\\answer{{{answers_from_scores(rows, scores, rule)}}}")
    return scored.listing.f1 if scored.listing is not None else float(scored.correct)


def _choose_rule(data: Sequence[tuple[Example, QuestionRows, npt.NDArray[np.float64]]],
                 oof: Sequence[npt.NDArray[np.float64]]) -> tuple[Rule, dict[str, float]]:
    """Per task the threshold of the grid, and for counting the rule, best on the out-of-fold scores."""
    thresholds: dict[str, float] = {}
    best: dict[str, float] = {}
    count_rule = "above"
    for task in TASK_CODES:
        items = [(ex, rows, s) for (ex, rows, _), s in zip(data, oof, strict=True) if rows.task == task]
        if not items:
            continue
        options = [(float(t), "above") for t in _GRID] + ([(0.5, "sum")] if task == "count" else [])
        results = [(float(np.mean([_task_score(ex, rows, s, Rule({task: t}, r)) for ex, rows, s in items])), -abs(t - 0.5), t, r)
                   for t, r in options]
        value, _, t, r = max(results)
        thresholds[task], best[task] = t, value
        if task == "count":
            count_rule = r
    return Rule(thresholds, count_rule), best


def source_folds(sources: Sequence[int]) -> npt.NDArray[np.int64]:
    """The out-of-fold split of the training questions: fold 0 or 1 per question, by its source.

    Notes
    -----
    The draw asks some sources more than once; a source on both sides would let a fold remember its
    true target and inflate the out-of-fold scores the answer rule is chosen on. Distinct sources, in
    increasing id, alternate between the folds.
    """
    _, by_source = np.unique(np.asarray(sources, dtype=np.int64), return_inverse=True)
    return (by_source % 2).astype(np.int64)


def train_scorer(examples: Sequence[Example], pr: PromptSet, reach: Reach,
                 seed: int) -> tuple[HistGradientBoostingClassifier, Rule, str, dict[str, Any]]:
    """Fit the scorer on labelled training examples; the answer rule from two-fold out-of-fold scores.

    Returns
    -------
    tuple
        The model fitted on every example, the rule, the model's hash (sha256 of the training
        matrix, labels and parameters) and what the out-of-fold rule achieved per task.
    """
    data = _features(examples, pr, reach, seed, labelled=True)
    if not data:
        raise GraphNIAHError("the learned-surface training draw holds no example it can read")
    x = np.vstack([rows.x for _, rows, _ in data])
    y = np.concatenate([lab for _, _, lab in data])
    fold = source_folds([ex.source for ex, _, _ in data])
    owner = np.repeat(fold, [len(rows.titles) for _, rows, _ in data])
    oof_all = np.empty(len(y))
    for f in (0, 1):
        if (owner == f).all() or not (owner == f).any() or len(set(y[owner != f])) < 2:
            oof_all[owner == f] = float(y[owner != f].mean()) if (owner != f).any() else 0.5
            continue
        fold_model = _fit(x[owner != f], y[owner != f])
        with threadpool_limits(1):
            oof_all[owner == f] = fold_model.predict_proba(x[owner == f])[:, 1]
    cuts = np.cumsum([len(rows.titles) for _, rows, _ in data])[:-1]
    rule, achieved = _choose_rule(data, np.split(oof_all, cuts))
    if len(set(y)) < 2:
        raise GraphNIAHError("the learned-surface training draw has labels of one kind only")
    model = _fit(x, y)
    h = sha256_bytes(x.tobytes() + y.tobytes() + canonical_json({"params": MODEL_PARAMS, "features": FEATURES}).encode())
    return model, rule, h, {"out_of_fold": achieved, "pairs": len(y)}


def _cache_paths(runs_root: Path, key: str) -> tuple[Path, Path]:
    folder = runs_root / ".scorers"
    return folder / f"learned-surface-{key}.pkl", folder / f"learned-surface-{key}.json"


def _load_cached(runs_root: Path, key: str) -> Scorer | None:
    import json

    pkl, meta = _cache_paths(runs_root, key)
    if not (pkl.exists() and meta.exists()):
        return None
    data = pkl.read_bytes()
    info = json.loads(meta.read_text())
    if info.get("sha256") != sha256_bytes(data):
        raise GraphNIAHError(f"{pkl}: the cached learned-surface scorer does not match its hash in {meta}; delete both to retrain")
    model, rule, model_hash, training = pickle.loads(data)  # our own file, its hash checked above
    return Scorer(model, rule, model_hash, training)


def load_or_train(suite: Sequence[Example], ctx_of: Callable[[], SamplingContext], pr: PromptSet,
                  reach: Reach, runs_root: Path, *, per_task: int = TRAINING_PER_TASK,
                  progress: Progress = NO_PROGRESS) -> Scorer:
    """The cached scorer for this suite's snapshot and design, else a freshly trained one (cached).

    Parameters
    ----------
    suite : the suite's examples (their recipes give the design, the snapshot and the seed).
    ctx_of : builds the sampling context of the suite's snapshot (called only when training).
    pr : the templates.
    reach : the retrieval shortcut's reading (:func:`graphniah.baselines.pairs.retrieval_reach`).
    runs_root : where the cache folder ``.scorers`` lives.
    per_task : questions per task in the training draw.
    progress : reports the draw.
    """
    specs = training_specs(suite, per_task)
    if not specs:
        raise GraphNIAHError("learned-surface: the suite holds no example in the paper-block rendering to take a design from")
    recipe = suite[0].recipe
    seed = training_seed(recipe.seed)
    avoid = suite_papers(suite)  # decides the draw as much as the design does: part of the key
    key_doc = {"version": TRAINING_VERSION, "snapshot": recipe.snapshot_hash, "prompts": pr.hash, "seed": seed,
               "per_task": per_task, "specs": [repr(s) for s in specs], "params": MODEL_PARAMS, "features": FEATURES,
               "kept_out": sha256_bytes(canonical_json(sorted(avoid)).encode())}
    key = sha256_bytes(canonical_json(key_doc).encode())[:16]
    cached = _load_cached(runs_root, key)
    if cached is not None:
        return replace(cached, training=cached.training | size_label(cached.training["drawn_per_task"]))
    progress.note(f"learned-surface: drawing {len(specs)} training examples (seed {seed})")
    examples, redrawn, failed = _draw(ctx_of(), specs, seed, avoid, progress)
    model, rule, model_hash, fit_info = train_scorer(examples, pr, reach, seed)
    per = {t: sum(ex.task == t for ex in examples) for t in TASK_CODES if any(ex.task == t for ex in examples)}
    training = {"seed": seed, "requested_per_task": per_task, "drawn_per_task": per,
                "sources": (f"disjoint from the suite's: the {len(avoid):,} papers that are a suite question's source or stated "
                            "true target are no training question's source or true target"),
                "suite_papers_kept_out": len(avoid), "redrawn_for_a_suite_paper": redrawn, "failed_and_replaced": failed, "snapshot_hash": recipe.snapshot_hash, "cache_key": key,
                "text_distractors": "dropped (paper blocks and their order unchanged)", **fit_info}
    data = pickle.dumps((model, rule, model_hash, training), protocol=5)
    pkl, meta = _cache_paths(runs_root, key)
    pkl.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_bytes(pkl, data)
    atomic_write_text(meta, canonical_json({"sha256": sha256_bytes(data), "model_hash": model_hash, "key": key_doc}) + "\n")
    return Scorer(model, rule, model_hash, training | size_label(per))
