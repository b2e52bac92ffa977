"""Surface leaks: does anything visible in a rendered prompt, short of following citations, give the answer away?

The shortcut baselines (``graphniah.baselines``) and ``bench/matched.py`` measure title similarity,
retrieval and the paper count. This benchmark measures the *surface* of the rendered prompt: where
the blocks sit, which papers have a block of their own, how often a title is mentioned, title
lengths, dates, the order of titles in the question against the context, and simple text
statistics against the counting answer.

Examples are sampled on the demo snapshot the way the demo suite draws them
(``pipelines/suites/demo.yaml``): matched sampling on, context length 60,000, distractors of the
five kinds (essays, wikipedia, code, books, disjoint-component), depth 16 or 32, component sizes
100-120, with ``batch_specs`` (balanced YES/NO and letters) and ``build_example``. Every cue is
read from the message text alone with the text checker's parser (``textcheck.split_messages``,
``parse_question``, ``parse_context``, ``paper_blocks``); the stored answer is used for scoring only.

Each rule is scored against its exact chance level: a rule that looks only at the text is right with
probability 1/2 (YES/NO: labels are balanced), 1/4 (multiple choice: letters balanced) or 1/21
(counting: the component size is uniform over 100-120) unless the text carries the answer. Rules
with a free choice (direction of a cue, threshold, regression) are cross-fitted: fitted on one half of
the examples and scored on the other, both ways, so every scored prediction is out of sample and the
chance level stays exact. Ties count fractionally (1/size of the tied set). The table gives the
95% Wilson interval of the accuracy, the two-sided binomial p-value against chance Holm-corrected over
all rows, and the verdict: LEAK when the corrected p-value is below 0.05. YES/NO and candidate
cues also print the AUC of the cue (true against wrong answers) for the size of the effect.

Rows marked ``[draws]`` score cues of the candidates themselves (title length, venue, date, author
count, each as the prompt prints it) on thousands of matched draws (``MatchIndex.draw``) without
rendering, to resolve effects of a few points that a few hundred prompts cannot (``draw_rows``).

Rows ``topic-cluster`` score that shortcut (``graphniah.baselines.topics``: the context's titles grouped
by subject, answers by the source's group) on the same examples; ``--unmatched`` samples with the
control off instead, to print the same table without it.

About 10 minutes at the defaults on an idle 2-core machine (mostly ``build_example``; ``--workers 2``
halves it). ``--save FILE`` keeps the examples as they are built and ``--load FILE`` scores them again.

    python bench/leaks.py [--snapshot DIR | --root /tmp/graphniah-bench-leaks] [--per-task 48] [--seed 5] [--workers 1]
                          [--draws 2000] [--save FILE | --load FILE] [--unmatched]
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import re
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
from scipy import stats as sps

from graphniah.formats import TASKS, DistractorKind
from graphniah.formats.examples import Example, PaperMeta, option_letters
from graphniah.formats.snapshot import Snapshot
from graphniah.sampling.examples.render import MONTHS
from graphniah.sampling.examples.sample import batch_specs, build_example
from graphniah.sampling.examples.spec import SIZE_TASKS, ExampleSpec, SamplingContext
from graphniah.seeds import Stream, generator, suite_key
from graphniah.stats import holm, wilson_interval
from graphniah.text import ParsedQuestion, TextGraph, load_prompts, paper_blocks, parse_context, parse_question, split_messages

DEPTHS = (16, 32)
SIZES = (100, 120)
DISTRACTORS = tuple(k.value for k in DistractorKind)
CONTEXT_LENGTH = 60_000
DEMO_SNAPSHOT = Path(__file__).resolve().parents[1] / "snapshots/demo-2026-10-20/cutoff=2026-04-01"
_DATE = re.compile(rf"\b({'|'.join(MONTHS)}) ([1-9]\d?), (\d{{4}})\b")
_WORD = re.compile(r"\w+")
_FIELD = re.compile(r"\S(?:[^\n]*\S)?")  # one non-empty line without outer spaces, as textcheck reads fields
_DATE_FIELD = re.compile(rf"(?:{'|'.join(MONTHS)}) [1-9]\d?, \d+")


# --------------------------------------------------------------------------- sampling


def draw_specs(task: str, n: int, seed: int, matched: bool = True) -> list[ExampleSpec]:
    """``n`` specs as the demo suite draws them: balanced labels from ``batch_specs``, then depth, size and
    distractor drawn per example, matched sampling on (counting and listing: other sizes from 100-120)."""
    rng = generator(Stream.SUITE, seed, suite_key("bench-leaks"), TASKS.index(task))  # a suite-like stream per task
    specs = batch_specs(task, DEPTHS[0], n, rng, component_size=SIZES[0], distractor=DISTRACTORS[0],  # type: ignore[arg-type]
                        context_length=CONTEXT_LENGTH, match_similarity=matched)
    out = []
    for s in specs:
        drawn = replace(s, depth=int(rng.choice(DEPTHS)), component_size=int(rng.integers(SIZES[0], SIZES[1] + 1)),
                        distractor=str(rng.choice(DISTRACTORS)))
        out.append(replace(drawn, size_range=SIZES) if task in SIZE_TASKS and matched else drawn)
    return out


_WORKER: SamplingContext | None = None


def _init(snapshot: str, data: str | None) -> None:
    global _WORKER  # one loaded snapshot per worker process
    _WORKER = SamplingContext(Snapshot.open(Path(snapshot)), data_root=Path(data) if data else None)


def _build(spec: ExampleSpec, seed: int, index: int) -> str:
    assert _WORKER is not None
    return build_example(_WORKER, spec, seed, index).model_dump_json()


def sample(snapshot: Path, data: Path | None, per_task: int, seed: int, workers: int, save: Path | None,
           matched: bool = True) -> list[Example]:
    """Build the examples, tasks interleaved (so an interrupted run still holds every task), each appended
    to ``save`` as one JSON line as soon as it is built (a shared machine may not finish the run)."""
    specs = {t: draw_specs(t, per_task, seed, matched) for t in TASKS}
    jobs = [(specs[t][i], seed, TASKS.index(t) * 100_000 + i) for i in range(per_task) for t in TASKS]
    init = (str(snapshot), str(data) if data else None)
    out: list[Example] = []
    with (save.open("a", encoding="utf-8") if save else contextlib.nullcontext()) as sink:
        if workers <= 1:
            _init(*init)
            lines: Iterable[str] = (_build(*j) for j in jobs)
        else:
            pool = ProcessPoolExecutor(workers, initializer=_init, initargs=init)
            lines = pool.map(_build, *zip(*jobs, strict=True))
        for i, line in enumerate(lines, 1):
            out.append(Example.model_validate_json(line))
            if sink is not None:
                sink.write(line + "\n")
                sink.flush()
            print(f"\rbuilt {i}/{len(jobs)}", end="", file=sys.stderr, flush=True)
        if workers > 1:
            pool.shutdown()
    print(file=sys.stderr)
    return out


def load(path: Path) -> list[Example]:
    """Examples saved by an earlier run (``--save``), one JSON line each; a torn last line is left out."""
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            out.append(Example.model_validate_json(line))
        except ValueError:
            print(f"{path}: skipped a line that is not a whole example (an interrupted write)", file=sys.stderr)
    return out


# --------------------------------------------------------------------------- reading the text


@dataclass(frozen=True)
class Paper:
    """What the text shows of one paper: where it sits and how it is mentioned."""

    pos: float  # its block's offset (share of the context), else the first block that cites it
    has_block: bool
    cited_by: int  # reference entries that name it
    degree: int  # citations in either direction
    adjacent: bool  # a neighbouring paper block (context order) has a citation with it
    words: int  # title length in words
    date: float  # its block's publication date (ordinal day), NaN without one
    first_mention: float  # first occurrence of the title in the context (share)
    venue: str | None  # as printed: its block's publication line, else its reference entries' source


@dataclass(frozen=True)
class Read:
    """One example as its text shows it (``answer``: the stored one, for scoring only)."""

    task: str
    answer: str
    question: ParsedQuestion
    source: Paper
    targets: tuple[Paper, ...]
    source_words: frozenset[str]
    target_words: tuple[frozenset[str], ...]
    blocks: int
    nodes: int
    references: int
    needle_share: float  # characters of paper blocks / characters of the context
    context_chars: int


def _offsets(context: str, blocks: Sequence[str]) -> list[int]:
    out, at = [], 0
    for b in blocks:
        at = context.index(b, at)
        out.append(at)
        at += len(b)
    return out


def _date(block: str, header: str) -> float:
    """The date on the block's publication line (the lines above the references header)."""
    m = _DATE.search(block.split("\n" + header, 1)[0].split("\n", 1)[-1])
    if m is None:
        return float("nan")
    return float(dt.date(int(m[3]), MONTHS.index(m[1]) + 1, int(m[2])).toordinal())


class _Text:
    """The parsed context of one example with per-node lookups."""

    def __init__(self, context: str, graph: TextGraph, blocks: list[str]) -> None:
        if sum(n.has_block for n in graph.nodes) != len(blocks) or graph.blocks != len(blocks):
            raise ValueError("blocks with equal keys: node i is not block i")
        self.context, self.g, self.blocks = context, graph, blocks
        self.header = load_prompts().block.references.fill({})
        n = len(context)
        self.pos = [o / n for o in _offsets(context, blocks)]
        self.nbrs: dict[int, set[int]] = {}
        self.cited: Counter[int] = Counter()
        for a, b in graph.edges:
            self.nbrs.setdefault(a, set()).add(b)
            self.nbrs.setdefault(b, set()).add(a)
            self.cited[b] += 1

    def paper(self, title: str) -> Paper:
        i = self.g.find(title)
        nb = self.nbrs.get(i, set())
        has = i < len(self.blocks)
        pos = self.pos[i] if has else min(self.pos[a] for a in nb if a < len(self.blocks))
        adjacent = has and any(j in nb for j in (i - 1, i + 1))
        first = self.context.find(title)
        return Paper(pos, has, self.cited[i], len(nb), adjacent, len(_WORD.findall(title)),
                     _date(self.blocks[i], self.header) if has else float("nan"), first / len(self.context),
                     self.venue(title, self.blocks[i] if has else None))

    def venue(self, title: str, block: str | None) -> str | None:
        """The venue the text prints for the paper of ``title``: the publication line of its block, else
        the source of a reference entry with that title (arXiv sources are no venue, as in the renderer)."""
        b = load_prompts().block
        if block is not None:
            lines = block.split("\n")
            line = lines[lines.index(self.header) - 1]
            for tpl in (b.published_venue_date, b.published_venue):
                got = tpl.readings(line, {"venue": _FIELD, "date": _DATE_FIELD})
                if len(got) == 1:
                    return got[0]["venue"]
            return None
        at = self.context.find(f"). {title}. ")
        if at < 0:
            return None
        line = self.context[self.context.rfind("\n", 0, at) + 1 : self.context.find("\n", at) % (len(self.context) + 1)]
        fixed = {"authors": _FIELD, "year": _FIELD, "title": re.compile(re.escape(title)), "source": _FIELD}
        for tpl in (b.reference_authors_source, b.reference_source):
            got = tpl.readings(line, fixed)
            if len(got) == 1:
                src = got[0]["source"]
                return None if src == b.source_arxiv or src.startswith(b.source_arxiv_id.literals[0]) else src
        return None


def words(title: str) -> frozenset[str]:
    return frozenset(w.casefold() for w in _WORD.findall(title) if len(w) > 1)


def read(e: Example) -> Read:
    task, qtext, context = split_messages(e.messages)
    q = parse_question(task, qtext)
    blocks = paper_blocks(context)
    g = parse_context(context)
    t = _Text(context, g, blocks)
    return Read(task, e.answer, q, t.paper(q.source), tuple(t.paper(x) for x in q.targets), words(q.source),
                tuple(words(x) for x in q.targets), len(blocks), len(g.nodes), len(g.edges),
                sum(map(len, blocks)) / len(context), len(context))


# --------------------------------------------------------------------------- scoring


@dataclass(frozen=True)
class Row:
    cue: str
    task: str
    correct: float  # expected number correct (ties fractional)
    n: int
    chance: float
    auc: float | None = None
    note: str = ""

    @property
    def p(self) -> float:
        return float(sps.binomtest(round(self.correct), self.n, self.chance).pvalue)


def folds(n: int) -> np.ndarray:
    """Fold of each example: alternate halves, so the balanced label groups split evenly."""
    return np.arange(n) % 2


def auc(pos: np.ndarray, neg: np.ndarray) -> float:
    pos, neg = pos[~np.isnan(pos)], neg[~np.isnan(neg)]
    if pos.size == 0 or neg.size == 0:
        return float("nan")
    return float((pos[:, None] > neg[None, :]).mean() + 0.5 * (pos[:, None] == neg[None, :]).mean())


def pick_scores(values: np.ndarray, truth: np.ndarray, sign: float) -> np.ndarray:
    """Per example, the chance that "pick the candidate with the largest ``sign`` · value" (ties and
    unknown values at random) is right. ``values``: examples × candidates."""
    v = np.where(np.isnan(values), -np.inf, sign * values)
    best = v == v.max(axis=1, keepdims=True)
    return best[np.arange(len(v)), truth] / best.sum(axis=1)


def pick_row(cue: str, values: np.ndarray, truth: np.ndarray) -> Row:
    """Candidate rule, direction (argmax or argmin) cross-fitted."""
    f = folds(len(values))
    got = 0.0
    for k in (0, 1):
        fit, test = f != k, f == k
        sign = max((1.0, -1.0), key=lambda s: pick_scores(values[fit], truth[fit], s).sum())
        got += float(pick_scores(values[test], truth[test], sign).sum())
    onehot = np.zeros(values.shape, dtype=bool)
    onehot[np.arange(len(values)), truth] = True
    return Row(cue, "mc", got, len(values), 0.25, auc(values[onehot], values[~onehot]))


def threshold_rule(x: np.ndarray, y: np.ndarray) -> Callable[[np.ndarray], np.ndarray]:
    """The threshold and direction that best separate ``y`` on (x, y) (NaN: its own side, fitted too)."""
    best, rule = -1.0, (0.0, 1.0, False)
    for t in np.unique(x[~np.isnan(x)]):
        for sign in (1.0, -1.0):
            for nan_yes in (False, True):
                pred = np.where(np.isnan(x), nan_yes, sign * x >= sign * t)
                acc = float((pred == y).mean())
                if acc > best:
                    best, rule = acc, (float(t), sign, nan_yes)
    t, sign, nan_yes = rule
    return lambda z: np.where(np.isnan(z), nan_yes, sign * z >= sign * t)


def yesno_row(cue: str, x: np.ndarray, yes: np.ndarray) -> Row:
    f = folds(len(x))
    got = sum(float((threshold_rule(x[f != k], yes[f != k])(x[f == k]) == yes[f == k]).sum()) for k in (0, 1))
    return Row(cue, "yesno", got, len(x), 0.5, auc(x[yes], x[~yes]))


def size_row(cue: str, task: str, x: np.ndarray, y: np.ndarray) -> Row:
    """Counting/listing: least-squares line of the answer on one feature, rounded, cross-fitted."""
    f, lo, hi = folds(len(x)), SIZES[0] - 1, SIZES[1] - 1
    got = 0.0
    for k in (0, 1):
        xf, yf = x[f != k], y[f != k]
        mu, sd = xf.mean(), xf.std()
        slope = np.cov((xf - mu) / sd, yf, bias=True)[0, 1] if sd > 0 else 0.0  # least squares on the standardized feature
        pred = yf.mean() + slope * ((x[f == k] - mu) / sd if sd > 0 else 0.0)
        got += float((np.clip(np.rint(pred), lo, hi) == y[f == k]).sum())
    rho = sps.spearmanr(x, y)
    return Row(cue, task, got, len(x), 1 / (hi - lo + 1), note=f"Spearman {rho.statistic:+.2f} (p {rho.pvalue:.2g})")


# --------------------------------------------------------------------------- cues per task


def _pair(r: Read, i: int) -> dict[str, float]:
    """Cues of target ``i`` (YES/NO: the target; MC: candidate i) relative to the source."""
    s, t = r.source, r.targets[i]
    union = r.source_words | r.target_words[i]
    return {
        "distance of its block to the source block": abs(t.pos - s.pos),
        "its block's offset": t.pos,
        "has its own block": float(t.has_block),
        "reference entries naming it": float(t.cited_by),
        "citations in the text (degree)": float(t.degree),
        "neighbouring block cites it / is cited": float(t.adjacent),
        "title length (words)": float(t.words),
        "title-length gap to the source (words)": float(abs(t.words - s.words)),
        "title word overlap with the source (Jaccard)": len(r.source_words & r.target_words[i]) / len(union) if union else 0.0,
        "publication-date gap to the source (days)": abs(t.date - s.date),
        "first mention of its title (offset)": t.first_mention,
        "first mention before the source's": float(t.first_mention < s.first_mention),
        "same venue as the source": float(s.venue is not None and s.venue == t.venue),
    }


def yesno_rows(reads: Sequence[Read]) -> list[Row]:
    yes = np.asarray([r.answer == "YES" for r in reads])
    rows = [Row("share of YES (always-YES accuracy)", "yesno", float(yes.sum()), len(yes), 0.5)]
    cues = [_pair(r, 0) for r in reads]
    rows += [yesno_row(c, np.asarray([x[c] for x in cues]), yes) for c in cues[0]]
    src = np.asarray([r.source.has_block for r in reads], dtype=float)
    rows.append(yesno_row("source has its own block", src, yes))
    return rows


def letter_rows(truth: np.ndarray) -> list[Row]:
    counts = np.bincount(truth, minlength=4)
    chi = sps.chisquare(counts)
    f = folds(len(truth))
    got = sum(float((truth[f == k] == np.bincount(truth[f != k], minlength=4).argmax()).sum()) for k in (0, 1))
    note = f"letters {'/'.join(map(str, counts))}, chi2 p {chi.pvalue:.2g}"
    return [Row("always the most frequent letter", "mc", got, len(truth), 0.25, note=note)]


def order_row(reads: Sequence[Read], truth: np.ndarray) -> Row:
    """Pick the candidate whose rank of first mention in the context equals its place in the question."""
    got = 0.0
    for r, t in zip(reads, truth, strict=True):
        ranks = np.argsort(np.argsort([p.first_mention for p in r.targets]))
        hit = ranks == np.arange(len(ranks))
        got += (hit[t] / hit.sum()) if hit.any() else 1 / len(ranks)
    return Row("context rank of the title = its question rank", "mc", got, len(reads), 0.25)


def mc_rows(reads: Sequence[Read]) -> list[Row]:
    letters = option_letters(4, False)
    truth = np.asarray([letters.index(r.answer) for r in reads])
    rows = letter_rows(truth)
    cues = [[_pair(r, i) for i in range(len(r.targets))] for r in reads]
    for c in cues[0][0]:
        rows.append(pick_row(c, np.asarray([[x[c] for x in per] for per in cues]), truth))
    rows.append(order_row(reads, truth))
    return rows


def size_rows(reads: Sequence[Read], task: str) -> list[Row]:
    y = np.asarray([int(r.answer) if task == "count" else len(r.answer.split("\n")) for r in reads])
    feats: dict[str, Callable[[Read], float]] = {
        "paper blocks": lambda r: r.blocks,
        "distinct papers (titles)": lambda r: r.nodes,
        "reference entries": lambda r: r.references,
        "context share of paper blocks": lambda r: r.needle_share,
        "context characters": lambda r: r.context_chars,
        "source title's first mention (offset)": lambda r: r.source.first_mention,
        "citations of the source (degree)": lambda r: r.source.degree,
    }
    return [size_row(name, task, np.asarray([fn(r) for r in reads], dtype=float), y) for name, fn in feats.items()]


def topic_rows(examples: Sequence[Example]) -> list[Row]:
    """The topic-cluster shortcut per task: YES/NO, MC and exact counts against chance; the list task's
    mean F1 against listing every paper, in the note (its row counts examples where it does better)."""
    from graphniah.baselines.shortcuts import response_text
    from graphniah.baselines.topics import topic_cluster
    from graphniah.report.listing import trivial_f1
    from graphniah.scoring import score_response

    answers = topic_cluster(examples)
    chance = {"yesno": 0.5, "mc": 0.25, "count": 1 / (SIZES[1] - SIZES[0] + 1)}
    rows = []
    for task in TASKS:
        ex = [e for e in examples if e.task == task and e.id in answers]
        if not ex:
            continue
        scored = [score_response(task, e.answer, response_text(answers[e.id])) for e in ex]
        if task != "list":
            rows.append(Row("topic-cluster shortcut", task, float(sum(s.correct for s in scored)), len(ex), chance[task]))
            continue
        f1 = np.asarray([s.listing.f1 if s.listing is not None else 0.0 for s in scored])
        every = np.asarray([trivial_f1(e.component_size, e.stats.nodes) for e in ex])
        rows.append(Row("topic-cluster shortcut: F1 above listing every paper", task, float((f1 > every).sum()), len(ex), 0.5,
                        note=f"mean F1 {100 * f1.mean():.1f}% against listing every paper {100 * every.mean():.1f}%"))
    return rows


# --------------------------------------------------------------------------- draw level


def draw_rows(ctx: SamplingContext, draws: int, seed: int, match_venue: bool = True, match_components: bool = True) -> list[Row]:
    """Two cues of the candidates themselves (title length, publication-date gap to the source) on
    ``draws`` matched draws per depth and task (``MatchIndex.draw``, what picks the YES/NO target and
    the MC candidates), without growing or rendering: thousands of draws cost seconds, so effects of a
    few points that a few hundred prompts cannot resolve show here. The question prints these titles
    verbatim and a block prints the date, so each is a cue a reader of the prompt has. ``match_venue``:
    the draw new matched examples make (venue relation matched too); False: the draw of older recipes.
    ``match_components``: the other components' backbones partners of the source's, and the wrong
    titles of the true one's length (``components.py``, new matched examples)."""
    rows = []
    for task, k in (("yesno", 2), ("mc", 4)):
        cues: dict[str, list[list[float]]] = {c: [] for c in DRAW_CUES}
        for depth in DEPTHS:
            rng = generator(Stream.SUITE, seed, suite_key("bench-leaks-draws"), depth * 10 + k)
            index, match = ctx.pool_index(depth), ctx.match_index(depth)
            tuples: list[list[int]] = []
            while len(tuples) < draws:
                partners = ctx.component_index(depth).partners if match_components else None
                drawn = match.draw(index.conflict, k, rng, match_venue=match_venue, partners=partners)
                if drawn is not None:  # the sampler draws again too
                    tuples.append([int((index.paths[i][::-1] if rev else index.paths[i])[j]) for i, rev in drawn
                                   for j in (depth - 1, 2 * depth - 2)])
            meta = ctx.meta(sorted({v for t in tuples for v in t}))
            cid = ctx.graph.corpusids
            for t in tuples:
                src, cands = meta[int(cid[t[0]])], [meta[int(cid[v])] for v in t[1::2]]  # t[1]: the true target
                for c, fn in DRAW_CUES.items():
                    cues[c].append([fn(src, x) for x in cands])
        rows += _draw_task_rows(task, {c: np.asarray(v, dtype=float) for c, v in cues.items()})
    return rows


def _gap(a: PaperMeta, b: PaperMeta) -> float:
    if a.publication_date is None or b.publication_date is None:
        return float("nan")
    return float(abs((a.publication_date - b.publication_date).days))


def _venue(p: PaperMeta) -> str | None:
    """The venue a block and a reference line print (arXiv is printed as an arXiv source, not a venue)."""
    return None if p.venue is None or p.venue.casefold() in ("arxiv", "arxiv.org") else p.venue


def _words(p: PaperMeta) -> int:
    return len(_WORD.findall(p.title))


#: Cues of a candidate ``c`` given the source ``s``, as the prompt shows them (question titles, block lines).
DRAW_CUES: dict[str, Callable[[PaperMeta, PaperMeta], float]] = {
    "title length (words)": lambda s, c: _words(c),
    "title-length gap to the source (words)": lambda s, c: abs(_words(c) - _words(s)),
    "publication-date gap to the source (days)": _gap,
    "same venue as the source": lambda s, c: float(_venue(s) is not None and _venue(s) == _venue(c)),
    "author-count gap to the source": lambda s, c: abs(len(c.authors) - len(s.authors)),
}


def _draw_task_rows(task: str, cues: dict[str, np.ndarray]) -> list[Row]:
    """Column 0 is the true target. YES/NO: example i shows the true target when i // 2 is even (YES),
    the wrong one otherwise (balanced like ``batch_specs``); MC: the candidates, true one in column 0 (ties
    count fractionally, so its column does not matter)."""
    out = []
    for cue, v in cues.items():
        name = f"[draws] {cue}"
        if task == "yesno":
            yes = np.arange(len(v)) // 2 % 2 == 0  # not i % 2: the folds alternate that way
            out.append(yesno_row(name, np.where(yes, v[:, 0], v[:, 1]), yes))
        else:
            out.append(pick_row(name, v, np.zeros(len(v), dtype=int)))
    return out


# --------------------------------------------------------------------------- table


def table(rows: Sequence[Row]) -> None:
    adjusted = holm([r.p for r in rows])
    print(f"{'cue':<52} {'task':<6} {'acc':>6} {'n':>4} {'chance':>6}  {'Wilson 95%':<15} {'AUC':>5} {'p Holm':>7}  verdict")
    for r, p in zip(rows, adjusted, strict=True):
        iv = wilson_interval(round(r.correct), r.n)
        auc_s = f"{r.auc:.3f}" if r.auc is not None and not np.isnan(r.auc) else "-"
        verdict = "LEAK" if p < 0.05 else ("beyond chance (uncorrected)" if not iv.contains(r.chance) else "chance")
        print(f"{r.cue:<52} {r.task:<6} {100 * r.correct / r.n:5.1f}% {r.n:>4} {100 * r.chance:5.1f}%  "
              f"[{100 * iv.low:4.1f}, {100 * iv.high:4.1f}]   {auc_s:>5} {p:7.3f}  {verdict}{'  ' + r.note if r.note else ''}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--snapshot", type=Path, help=f"a built snapshot folder (default: {DEMO_SNAPSHOT} if built, else the demo under --root)")
    ap.add_argument("--root", type=Path, default=Path("/tmp/graphniah-bench-leaks"))
    ap.add_argument("--data", type=Path, default=None, help="data root with the distractor corpora and tokenizers (default: GRAPHNIAH_DATA)")
    ap.add_argument("--per-task", type=int, default=48)
    ap.add_argument("--seed", type=int, default=5)
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--draws", type=int, default=2000, help="matched draws per depth and task for the draw-level rows (0: none)")
    ap.add_argument("--save", type=Path, help="append each built example to this JSON-lines file as it is built")
    ap.add_argument("--load", type=Path, help="score the examples of this JSON-lines file (from --save) instead of sampling")
    ap.add_argument("--unmatched", action="store_true", help="sample with the control off (match_similarity false)")
    args = ap.parse_args()
    snap = args.snapshot or (DEMO_SNAPSHOT if DEMO_SNAPSHOT.is_dir() else None)
    if snap is None:
        from graphniah.refresh import refresh

        snap = refresh(dt.date(2026, 4, 1), args.root, demo=True).snapshot.path
    t0 = time.perf_counter()
    examples = (load(args.load) if args.load
                else sample(Path(snap), args.data, args.per_task, args.seed, args.workers, args.save, not args.unmatched))
    t1 = time.perf_counter()
    by_task: dict[str, list[Read]] = {t: [] for t in TASKS}
    for e in examples:
        by_task[e.task].append(read(e))
    n = Counter(e.task for e in examples)
    print(f"snapshot {snap}: {len(examples)} examples ({', '.join(f'{t} {n[t]}' for t in TASKS)}; depth {'/'.join(map(str, DEPTHS))}, "
          f"sizes {SIZES[0]}-{SIZES[1]}, L={CONTEXT_LENGTH:,}, distractors {', '.join(DISTRACTORS)}, "
          f"{'unmatched' if args.unmatched else 'matched'}); "
          f"sampled in {t1 - t0:.0f}s, read from their text in {time.perf_counter() - t1:.0f}s\n")
    rows = [*yesno_rows(by_task["yesno"]), *mc_rows(by_task["mc"]), *size_rows(by_task["count"], "count"), *size_rows(by_task["list"], "list"),
            *topic_rows(examples)]
    if args.draws and not args.unmatched:
        t2 = time.perf_counter()
        rows += draw_rows(SamplingContext(Snapshot.open(Path(snap))), args.draws, args.seed)
        print(f"{args.draws:,} matched draws per depth and task (no rendering) in {time.perf_counter() - t2:.0f}s\n")
    table(rows)


if __name__ == "__main__":
    main()
