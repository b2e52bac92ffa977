"""The learned-surface shortcut's reading: each question's candidate pairs as feature rows, and answers from scores.

What the rows hold and how scores become answers is stated in :mod:`graphniah.baselines.learned`.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from graphniah.baselines.reading import CheckerTitleSpace, TextQuestion, read_question, retrieve
from graphniah.formats.examples import Example, option_letters
from graphniah.seeds import DEFAULT_SEED, Stream, generator, suite_key
from graphniah.text import PromptSet, Undetermined
from graphniah.text.surface import SURFACE_FEATURES, PrintedPaper, pair_features
from graphniah.text.textcheck import normalize

__all__ = [
    "FEATURES",
    "TASK_CODES",
    "ContextPaper",
    "QuestionRows",
    "Reach",
    "Rule",
    "answers_from_scores",
    "question_rows",
    "read_papers",
    "retrieval_reach",
]

#: The columns a pair is scored on: the surface features, then presence, then the other shortcuts.
FEATURES: tuple[str, ...] = (
    *SURFACE_FEATURES,
    "has_block",
    "references",
    "mentions",
    "first_position",
    "source_has_block",
    "source_references",
    "source_mentions",
    "papers",
    "task",
    "topic_same_group",
    "title_rank",
    "retrieval_reachable",
)
#: The ``task`` column's codes (trees split on them like on any number).
TASK_CODES = {"yesno": 0, "mc": 1, "count": 2, "list": 3}

_FIELD = re.compile(r"\S(?:[^\n]*\S)?")  # one non-empty line without outer spaces (as rendered)
_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
           "November", "December")
_DATE = re.compile(rf"({'|'.join(_MONTHS)}) ([1-9]\d?), (\d+)")
_YEAR = re.compile(r"\d+|n\.d\.")


@dataclass(frozen=True)
class ContextPaper:
    """A paper as one context shows it: its printed record and where and how often it is named."""

    printed: PrintedPaper
    has_block: bool
    references: int  # reference lines of its block (0 without one)
    mentions: int  # its block and the reference lines naming it
    first_block: int  # the first block naming it (its own or a citing one), in context order


def _date(text: str | None) -> dt.date | None:
    m = _DATE.fullmatch(text) if text else None
    if m is None:
        return None
    try:
        return dt.date(int(m.group(3)), _MONTHS.index(m.group(1)) + 1, int(m.group(2)))
    except ValueError:
        return None


def _authors(text: str | None, pr: PromptSet) -> tuple[str, ...]:
    return tuple(a for a in text.split(pr.block.author_separator) if a) if text else ()


class _BlockReader:
    """The lines of a paper block read with the templates (what :func:`paper_blocks` returned is a block)."""

    def __init__(self, pr: PromptSet):
        self.pr, self.b = pr, pr.block
        self.header = self.b.references.fill({})
        self.arxiv_id = self.b.source_arxiv_id
        self._entries: dict[str, list[dict[str, str]]] = {}

    def venue(self, source: str | None) -> str | None:
        """A reference line's source as a venue: None for none and for arXiv sources."""
        if source is None or source == self.b.source_arxiv or self.arxiv_id.readings(source, {"arxiv_id": _FIELD}):
            return None
        return source

    def entry(self, line: str, venues: frozenset[str]) -> PrintedPaper | None:
        """A reference line's reading: the checker's order, a reading whose source a block prints first."""
        readings = self._entries.get(line)
        if readings is None:
            pats = {"authors": _FIELD, "year": _YEAR, "title": _FIELD, "source": _FIELD}
            readings = [r for tpl in self.b.reference_lines for r in tpl.readings(line, pats)]
            readings.sort(key=lambda r: (len(r.get("authors", "")), "source" not in r, -len(r["title"])))
            self._entries[line] = readings
        if not readings:
            return None
        r = next((r for r in readings if r.get("source") in venues), readings[0])
        year = int(r["year"]) if r["year"].isdigit() else None
        return PrintedPaper(r["title"], _authors(r.get("authors"), self.pr), self.venue(r.get("source")), year, None)

    def head(self, lines: Sequence[str]) -> tuple[PrintedPaper, int] | None:
        """The block's own record and the index of its references header."""
        t = self.b.title.readings(lines[0], {"title": _FIELD})
        if len(t) != 1:
            return None
        i, authors = 1, None
        a = self.b.authors.readings(lines[1], {"authors": _FIELD}) if len(lines) > 1 else []
        if len(a) == 1:
            authors, i = a[0]["authors"], 2
        venue, date = None, None
        if i < len(lines) and lines[i] != self.header:
            pub = [r for tpl in self.b.publication_lines for r in tpl.readings(lines[i], {"venue": _FIELD, "date": _DATE})]
            if pub:
                venue, date = pub[0].get("venue"), _date(pub[0].get("date"))
            i += 1
        year = date.year if date is not None else None
        return PrintedPaper(t[0]["title"], _authors(authors, self.pr), venue, year, date), i


def _printed_venues(heads: Sequence[tuple[PrintedPaper, int] | None]) -> frozenset[str]:
    return frozenset(h[0].venue for h in heads if h is not None and h[0].venue is not None)


def read_papers(blocks: Sequence[str], pr: PromptSet) -> dict[str, ContextPaper]:
    """Every paper the blocks name, keyed by the normal form of its title (first spelling kept).

    Parameters
    ----------
    blocks : the context's paper blocks in context order (:func:`graphniah.text.paper_blocks`).
    pr : the templates the blocks follow.

    Returns
    -------
    dict
        ``{normalised title: ContextPaper}``: a paper with a block is described by its block, one
        without by its first reference line.
    """
    reader = _BlockReader(pr)
    split = [b.split("\n") for b in blocks]
    heads = [reader.head(lines) for lines in split]
    venues = _printed_venues(heads)
    own: dict[str, tuple[PrintedPaper, int, int]] = {}
    cited: dict[str, PrintedPaper] = {}
    mentions: dict[str, int] = {}
    first: dict[str, int] = {}
    for k, (lines, head) in enumerate(zip(split, heads, strict=True)):
        if head is None:
            continue
        paper, header = head
        key = normalize(paper.title)
        own.setdefault(key, (paper, len(lines) - header - 1, k))
        mentions[key] = mentions.get(key, 0) + 1
        first.setdefault(key, k)
        for line in lines[header + 1 :]:
            ref = reader.entry(line, venues)
            if ref is None:
                continue
            rkey = normalize(ref.title)
            cited.setdefault(rkey, ref)
            mentions[rkey] = mentions.get(rkey, 0) + 1
            first.setdefault(rkey, k)
    out: dict[str, ContextPaper] = {}
    for key in first:
        if key in own:
            paper, refs, _ = own[key]
            out[key] = ContextPaper(paper, True, refs, mentions[key], first[key])
        else:
            out[key] = ContextPaper(cited[key], False, 0, mentions[key], first[key])
    return out


@dataclass(frozen=True)
class QuestionRows:
    """One question's candidate pairs: their titles (option order, or context order) and feature rows."""

    example_id: str
    task: str
    titles: tuple[str, ...]
    x: npt.NDArray[np.float64]
    none_option: bool = False


def _presence(p: ContextPaper | None, blocks: int) -> list[float]:
    if p is None:
        return [np.nan] * 4
    return [float(p.has_block), float(p.references), float(p.mentions), p.first_block / max(blocks - 1, 1)]


def _candidates(t: TextQuestion, papers: dict[str, ContextPaper]) -> tuple[str, ...]:
    if t.q.task in ("yesno", "mc"):
        return t.q.targets
    src = normalize(t.q.source)
    return tuple(p.printed.title for k, p in papers.items() if k != src)


@dataclass(frozen=True)
class _Shortcuts:
    """The other shortcuts' outputs for one question's candidates (columns of :data:`FEATURES`)."""

    same_group: npt.NDArray[np.float64]
    rank: npt.NDArray[np.float64]
    reachable: npt.NDArray[np.float64]


def _similarities(space: CheckerTitleSpace, source: str, titles: Sequence[str]) -> npt.NDArray[np.float64]:
    """The similarity of each of ``titles`` to ``source`` (all fitted in ``space``), in one product."""
    rows = [space.row[normalize(x)] for x in titles]
    if not rows:
        return np.empty(0)
    src = space.vectors[space.row[normalize(source)]]
    return np.asarray((space.vectors[rows] @ src.T).toarray(), dtype=np.float64).reshape(-1)


def _other_shortcuts(t: TextQuestion, titles: Sequence[str], candidates: Sequence[str], sims: npt.NDArray[np.float64],
                     space: CheckerTitleSpace, reach: set[str] | None, rng: np.random.Generator) -> _Shortcuts:
    """Topic group, title-similarity rank and retrieval reach of each candidate."""
    from graphniah.baselines.topics import group_titles
    from graphniah.sampling import COMPONENTS

    groups = group_titles(titles, COMPONENTS[t.q.task], rng)
    src_group = groups.group_of(t.q.source)
    same = np.array([np.nan if src_group is None or (g := groups.group_of(c)) is None else float(g == src_group)
                     for c in candidates])
    src = normalize(t.q.source)
    others = np.sort(_similarities(space, t.q.source, [x for x in titles if normalize(x) != src]))
    rank = (others.size - np.searchsorted(others, sims, side="right")) / max(others.size, 1)
    reachable = np.array([np.nan if reach is None else float(normalize(c) in reach) for c in candidates])
    return _Shortcuts(same, rank.astype(np.float64), reachable)


#: The retrieval shortcut's reading of a question: the normalised titles the kept blocks (of the
#: question's paper blocks, given) connect to the source; None when they do not name it.
Reach = Callable[[TextQuestion, Sequence[str]], set[str] | None]


def question_rows(ex: Example, pr: PromptSet, retrieved: Reach, *,
                  seed: int = DEFAULT_SEED) -> QuestionRows | None:
    """The feature rows of an example's candidate pairs, from its text alone (module docstring).

    Parameters
    ----------
    ex : the example; only its messages are read.
    pr : the templates its messages follow.
    retrieved : the normalised titles the retrieval shortcut's kept blocks connect to the source
        (None when they do not name it).
    seed : seeds the topic grouping's draws, with the example's id (as topic-cluster does).

    Returns
    -------
    QuestionRows or None
        None for the edge-list rendering and for text the templates do not read.
    """
    from graphniah.text import paper_blocks

    t = read_question(ex, pr)
    if t is None or t.render != "apa":
        return None
    blocks = paper_blocks(t.context, pr)
    papers = read_papers(blocks, pr)
    candidates = _candidates(t, papers)
    titles = [p.printed.title for p in papers.values()]
    space = CheckerTitleSpace.fit([*titles, t.q.source, *t.q.targets])
    sims = _similarities(space, t.q.source, candidates)
    src = papers.get(normalize(t.q.source))
    source = src.printed if src is not None else PrintedPaper(t.q.source)
    printed = [p.printed if (p := papers.get(normalize(c))) is not None else PrintedPaper(c) for c in candidates]
    surface = pair_features(source, printed, sims)
    presence = np.array([_presence(papers.get(normalize(c)), len(blocks)) for c in candidates]).reshape(len(candidates), 4)
    rng = generator(Stream.SHORTCUT, seed, suite_key(ex.id))
    other = _other_shortcuts(t, titles or [t.q.source], candidates, sims, space, retrieved(t, blocks), rng)
    fixed = [*_presence(src, len(blocks))[:3], float(len(papers)), float(TASK_CODES[t.q.task])]
    x = np.column_stack([surface, presence, np.tile(fixed, (len(candidates), 1)), other.same_group, other.rank,
                         other.reachable]) if candidates else np.empty((0, len(FEATURES)))
    return QuestionRows(ex.id, t.q.task, tuple(candidates), np.asarray(x, dtype=np.float64), t.q.none_option)


def retrieval_reach(pr: PromptSet, count_tokens: Callable[[str], int]) -> Reach:
    """The retrieval shortcut's reading as a function: the normalised titles its kept blocks connect to the source."""

    def reach(t: TextQuestion, blocks: Sequence[str]) -> set[str] | None:
        kept = retrieve(blocks, t.question, count_tokens)
        try:
            g = t.graph("\n\n".join(kept), pr)
            s = g.find(t.q.source)
        except Undetermined:
            return None
        return {title for i in g.component(s) for title in g.nodes[i].titles}

    return reach


@dataclass(frozen=True)
class Rule:
    """How scores become answers: a threshold per task, and the counting rule."""

    thresholds: dict[str, float]
    count_rule: str  # "above" (papers above the threshold) or "sum" (rounded sum of the scores)


def answers_from_scores(rows: QuestionRows, scores: npt.NDArray[np.float64], rule: Rule) -> str:
    """The answer to one question from its candidates' scores (module docstring, **Answers**).

    Parameters
    ----------
    rows : the question's candidates.
    scores : one score in [0, 1] per candidate.
    rule : the thresholds and the counting rule.

    Returns
    -------
    str
        ``"YES"``/``"NO"``, an option letter, a count, or the list's titles one a line (sorted as
        topic-cluster sorts them).
    """
    thr = rule.thresholds.get(rows.task, 0.5)
    if rows.task == "yesno":
        return "YES" if scores.size and scores[0] > thr else "NO"
    if rows.task == "mc":
        letters = option_letters(len(rows.titles), rows.none_option)
        if rows.none_option and not (scores > thr).any():
            return letters[-1]
        return letters[int(np.argmax(scores))]
    if rows.task == "count":
        n = int(np.floor(scores.sum() + 0.5)) if rule.count_rule == "sum" else int((scores > thr).sum())
        return str(n)
    chosen = [t for t, s in zip(rows.titles, scores, strict=True) if s > thr]
    return "\n".join(sorted(chosen, key=lambda t: (t.casefold(), t)))
