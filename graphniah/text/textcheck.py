r"""Text-only verification: read a prompt's messages back into a citation graph and answer it.

This is the benchmark's oracle. It sees nothing but the message texts (never an example's
``papers``/``edges``/``targets``) and reads them the way the prompt tells a model to:

1. **Messages.** The user message is split by the user template (``prompts/user.txt``) into
   question, context and format reminder; the reminder and the system message fix the task, and
   the question template of that task yields the source title and the target titles.
2. **Blocks.** The context is cut into *runs*: maximal sequences of non-blank lines. A run is a
   paper block iff the whole run has the block structure: a title line, optionally an authors
   line, optionally a publication line, the references header, then one or more lines that each
   read as a reference entry. Anything else (code, essays, passages that happen to contain
   "Title:" or "References:") is distractor text; a run that begins with a title line and has the
   references header but fails the structure is counted in ``TextGraph.rejected_runs``, which
   ``verify`` mentions as a hint when an answer disagrees.
3. **Identity.** A paper is identified by its *key* ``(normalize(title), {normalize(author)})``;
   ``normalize`` ignores case, punctuation and spacing, and the author *set* ignores order and
   repetition (the identity rule of the counting prompt). Blocks with equal keys are one paper.
4. **Reference entries** are ambiguous text: "A (2025). X. Y. Z." may be title "X" from venue
   "Y. Z", title "X. Y" from venue "Z", or title "X. Y. Z" without a venue. Every *reading* (every
   way the entry templates can produce the line) is enumerated, and the entry is resolved by fixed
   rules, failing with :class:`Undetermined` where the text leaves the answer open:

   a. if readings name two or more different block papers: failure;
   b. if readings name exactly one block paper: the entry is that paper, unless every reading that
      names it disagrees with the block on year or source *and* the entry has other readings
      (then the entry may be another paper: failure);
   c. otherwise the entry is a paper without a block. Entries are grouped when they share a key
      under some reading; a group of two or more distinct entry strings is one paper when each of
      them has a single key, and a failure otherwise (the text cannot tell whether they name one
      paper or two).
5. **Answer.** Each question title must match exactly one paper (a block's title, or any reading
   of a reference entry's title), else failure; then breadth-first search over citations taken as
   undirected edges gives the component of the source and the answer. For ``list`` the answer is
   the titles of the component's papers other than the source; a paper without a block has its title
   only through the readings of its entry, so a stored list agrees with the text when each line
   names one reachable paper under some reading and every reachable paper is named once
   (:func:`list_agrees`).

Notes
-----
*Why a successful parse recovers the rendered graph.*
Let a context be rendered by ``render.py`` from papers ``P`` (the task's components plus any
components added as distractors) and citation forest ``F`` on ``P`` (every paper of ``P`` has at
least one citation in ``F``), shuffled with distractor blocks and joined by blank lines. Assume

(R1) every field is one non-empty line (guaranteed by ``PaperMeta``) and the templates have
     literal text between placeholders (checked when they are loaded);
(R2) the keys of the papers in ``P`` are pairwise distinct (implied by distinct normalized titles,
     which the sampler enforces for titles);
(R3) no distractor run has the full block structure;
(R4) for distinct papers ``v != w`` of ``P``, no reading of ``v``'s reference line has ``w``'s key.

Claim: if ``solve`` returns, the graph it built is ``F`` (paper ``v`` <-> the node with ``v``'s key
among its readings) and its answer is ``F``'s answer.

Proof. *Blocks.* A rendered block has no blank line (R1) and is separated from its neighbours by
one, so it is exactly one run; its line kinds are told apart by their fixed prefixes, so it has
the block structure and its title line and authors line give the true title and author string
(the title template has literals on both sides of its one placeholder, so there is a single
reading). By (R3) no other run is a block. So the parsed blocks are exactly the rendered ones, each
with its true key; by (R2) distinct blocks have distinct keys, so no two are merged.
*Entries.* ``reference_line`` is a function of the cited paper only, so all mentions of ``v`` are
one string ``e(v)``, and the true values of ``v`` are one of the readings of ``e(v)`` (the
enumeration tries every split). If ``v`` has a block, the true reading names it and agrees with
it on year and source (block and entry are rendered from the same record); by (R4) no reading
names another paper, so rule (b) maps ``e(v)`` to ``v``. If ``v`` has no block, the true reading
names no block (R2), and by (R4) neither does any other, so rule (c) applies; no reading of
``e(v)`` has the key of another paper, so for ``w != v`` the strings differ (else the true reading
of ``e(w)`` would be a reading of ``e(v)`` with ``w``'s key) and, when the two groups share a key,
at least one reading is not true, so that string has two keys and the parse fails rather than
merging. Hence, on success, every entry string maps to the paper it was rendered from, and the
edges (block paper, entry paper) are exactly ``F``'s edges. Every paper of ``P`` has an edge, so
it appears as a block or an entry, and the nodes are exactly ``P``.
*Question.* Titles are single lines, so a successful question parse has the rendered titles. The
true node of a title always matches it (its block title, or the true reading of its entry), and
success means it is the only match. BFS on the undirected edges of ``F`` then gives the source's
component, and each task's answer is a function of that component and the matched targets.  []

Where (R2) or (R4) fail (two papers with one key; a title that is another paper's title followed
by ". " and more text, with the same authors), the parse either fails or merges papers exactly as
the identity rule in the prompt tells a model to, so the answer is still the one the text implies;
``verify`` then reports the example if that differs from the stored answer.
"""

from __future__ import annotations

import functools
import hashlib
import re
import unicodedata
from collections import defaultdict, deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from graphniah.errors import GraphNIAHError
from graphniah.formats import Render
from graphniah.formats.examples import Example, Message, option_letters
from graphniah.text.prompts import BlockTemplates, PromptSet, Task, load_prompts, load_template

Key = tuple[str, frozenset[str]]

_FIELD = re.compile(r"\S(?:[^\n]*\S)?")  # one non-empty line without outer spaces (as rendered)
_YEAR_DIGITS = r"\d+"
_MONTHS = "January|February|March|April|May|June|July|August|September|October|November|December"
_DATE = re.compile(rf"(?:{_MONTHS}) [1-9]\d?, (\d+)")
_LINES = re.compile(r"[^\n]+(?:\n[^\n]+)*")  # text without a blank line
# Any text at all. Written as a DOTALL ``.*`` because the regex engine runs that as one skip to
# the end, while ``[\s\S]*`` tests each of the context's ~4 million characters against a class.
_ANY = re.compile(r"(?s:.*)")
#: The end of a run: a line break followed by a blank line (``str.strip`` and ``\s`` agree on
#: what is whitespace: both use Python's ``str.isspace``).
_RUN_END = re.compile(r"\n[^\S\n]*(?=\n|\Z)")


class Undetermined(GraphNIAHError):
    """The message text does not determine an answer; the message says why."""


class _PunctuationToSpace(dict[int, int]):
    """``str.translate`` table: a punctuation code point (Unicode category P*) -> space, any other -> itself.

    Filled on demand, one entry per distinct code point met, so translating runs in C and the
    table stays as small as the alphabet of the titles and names read.
    """

    def __missing__(self, code: int) -> int:
        value = 0x20 if unicodedata.category(chr(code)).startswith("P") else code
        self[code] = value
        return value


_PUNCT_TO_SPACE = _PunctuationToSpace()


def _normalize(text: str) -> str:
    folded = unicodedata.normalize("NFKC", text).casefold()
    return " ".join(folded.translate(_PUNCT_TO_SPACE).split())


#: Case-, punctuation- and spacing-blind form of a title or name (NFKC, casefold, punctuation ->
#: space). Memoized for the sampler, which asks about the same titles many times; the checker
#: calls the uncached ``_normalize`` so that checking an example costs the same whether or not
#: its titles were seen before (what the export benchmark measures).
normalize = functools.lru_cache(maxsize=1 << 16)(_normalize)


def _author_set(authors: str | None, separator: str) -> frozenset[str]:
    if not authors:
        return frozenset()
    return frozenset(n for n in map(_normalize, authors.split(separator)) if n)


def identity_key(title: str, authors: Sequence[str], prompts: PromptSet | None = None) -> Key:
    """The key the reader gives a paper with this title and author list (authors as rendered, then split)."""
    sep = (prompts or load_prompts()).block.author_separator
    return _normalize(title), _author_set(sep.join(authors), sep)


@dataclass(frozen=True)
class ParsedQuestion:
    task: Task
    source: str
    targets: tuple[str, ...]
    none_option: bool


@dataclass(frozen=True)
class _Reading:
    """One way of reading a reference entry."""

    authors_text: str
    authors: frozenset[str]
    year: str
    title: str
    source: str | None

    @functools.cached_property  # asked for once per rule that looks at the entry; computed once
    def key(self) -> Key:
        return _normalize(self.title), self.authors


@dataclass(frozen=True)
class _PubInfo:
    """What a block's publication line says: the expected reference source and year."""

    kind: str  # "venue" | "arxiv" | "none"
    venue: str | None
    year: int | None


@dataclass(frozen=True)
class _Block:
    title: str
    key: Key
    infos: tuple[_PubInfo, ...]
    entries: tuple[str, ...]


@dataclass(frozen=True)
class TextNode:
    """A paper as the text presents it."""

    title: str  # the block's title, or the title of the entry's most plausible reading (``_leaf_title``)
    titles: frozenset[str]  # normalized titles under every reading
    keys: frozenset[Key]  # identity keys under every reading
    has_block: bool


@dataclass(frozen=True)
class TextGraph:
    """The citation graph read from a context: ``edges`` are (citing, cited) node indices."""

    nodes: tuple[TextNode, ...]
    edges: frozenset[tuple[int, int]]
    blocks: int
    rejected_runs: int

    @functools.cached_property
    def _by_title(self) -> dict[str, list[int]]:
        index: dict[str, list[int]] = defaultdict(list)
        for i, node in enumerate(self.nodes):
            for t in node.titles:
                index[t].append(i)
        return index

    def find(self, title: str, role: str = "paper") -> int:
        """The one node the question's ``title`` names; failure if none or several do."""
        hits = self._by_title.get(_normalize(title), [])
        if len(hits) != 1:
            what = "no paper in the context" if not hits else f"{len(hits)} different papers in the context"
            raise Undetermined(f"the {role} title {title!r} matches {what}")
        return hits[0]

    def component(self, node: int) -> set[int]:
        """Nodes reachable from ``node`` when citations are followed in either direction."""
        adj: dict[int, list[int]] = defaultdict(list)
        for a, b in self.edges:
            adj[a].append(b)
            adj[b].append(a)
        seen, queue = {node}, deque([node])
        while queue:
            for nxt in adj[queue.popleft()]:
                if nxt not in seen:
                    seen.add(nxt)
                    queue.append(nxt)
        return seen


@dataclass(frozen=True)
class VerifyResult:
    ok: bool
    expected: str
    recomputed: str | None
    reason: str


# --------------------------------------------------------------------------- messages and question


def _one(readings: list[dict[str, str]], what: str) -> dict[str, str]:
    if len(readings) != 1:
        raise Undetermined(
            f"{what} {'does not follow its template' if not readings else f'can be read in {len(readings)} ways'}"
        )
    return readings[0]


def split_messages(messages: Sequence[Message], prompts: PromptSet | None = None) -> tuple[Task, str, str]:
    """``(task, question, context)`` from a [system, user] message pair."""
    pr = prompts or load_prompts()
    if [m.role for m in messages] != ["system", "user"]:
        raise Undetermined(f"expected a system and a user message, got roles {[m.role for m in messages]}")
    reminders = {text: task for task, text in pr.reminders.items()}
    patterns = {
        "question": _LINES,
        "context": _ANY,
        "format_reminder": re.compile("|".join(map(re.escape, reminders))),
    }
    parts = _one(pr.user.readings(messages[1].content, patterns), "the user message")
    task = reminders[parts["format_reminder"]]
    if messages[0].content not in (pr.system[task], pr.edges.system.get(task)):
        raise Undetermined(f"the system message is not a {task} system prompt, which the format reminder implies")
    return task, parts["question"], parts["context"]


def rendering_of(messages: Sequence[Message], prompts: PromptSet | None = None) -> Render:
    """How the messages write their papers, told by the system prompt: ``edges`` when it is the
    edge-list one of its task (``prompts/edges/system``), else ``apa``."""
    pr = prompts or load_prompts()
    return "edges" if messages and messages[0].content in pr.edges.system.values() else "apa"


def parse_question(task: Task, text: str, prompts: PromptSet | None = None, render: Render = "apa") -> ParsedQuestion:
    """The question's source and targets (titles, or ids in the edge-list rendering)."""
    pr = prompts or load_prompts()
    asking = pr.asking(render)
    if task not in asking.questions:
        raise Undetermined(f"the {render} rendering has no {task} question")
    tpl = asking.questions[task]
    if task == "yesno":
        r = _one(tpl.readings(text, {"source": _FIELD, "target": _FIELD}), "the YES/NO question")
        return ParsedQuestion(task, r["source"], (r["target"],), False)
    if task in ("count", "list"):
        what = "the counting question" if task == "count" else "the list question"
        r = _one(tpl.readings(text, {"source": _FIELD}), what)
        return ParsedQuestion(task, r["source"], (), False)
    r = _one(tpl.readings(text, {"source": _FIELD, "options": _LINES}), "the multiple-choice question")
    lines = r["options"].split("\n")
    letters = option_letters(len(lines), False)
    if len(letters) != len(lines):
        raise Undetermined(f"the multiple-choice question has {len(lines)} option lines, more than there are letters")
    targets: list[str] = []
    none_option = False
    for i, (letter, line) in enumerate(zip(letters, lines, strict=True)):
        fixed = {"letter": re.compile(re.escape(pr.answer.label(letter)))}  # as the set labels options
        opt = asking.mc_option.readings(line, {**fixed, asking.option_field: _FIELD})
        if len(opt) == 1 and not none_option:
            targets.append(opt[0][asking.option_field])
        elif i == len(lines) - 1 and targets and asking.mc_none.readings(line, fixed):
            none_option = True
        else:
            raise Undetermined(f"option line {line!r} of the multiple-choice question does not read as option {letter}")
    return ParsedQuestion(task, r["source"], tuple(targets), none_option)


# --------------------------------------------------------------------------- context


MEMO_SIZE = 200_000  # blocks, and entry lines, a reader keeps (about 100 MB of a demo's contexts at most)
_READERS: dict[BlockTemplates, _Reader] = {}  # by the templates a reader reads with (frozen, compared by value)


def _reader(prompts: PromptSet | None) -> _Reader:
    """The reader of a set's block templates, made once per process, so that its memos serve every later parse."""
    b = (prompts or load_prompts()).block
    got = _READERS.get(b)
    if got is None:
        got = _READERS[b] = _Reader(prompts or load_prompts())
    return got


class _Reader:
    """Block and entry parsing against one template set."""

    def __init__(self, pr: PromptSet):
        b = pr.block
        self.b = b
        self.sep = b.author_separator
        self.header = b.references.fill({})
        self.title_prefix = b.title.literals[0]
        year = re.compile(rf"{_YEAR_DIGITS}|{re.escape(b.no_year)}")
        self.entry_patterns = {"authors": _FIELD, "year": year, "title": _FIELD, "source": _FIELD}
        self.pub_patterns = {"venue": _FIELD, "date": _DATE}
        self._entries: dict[str, tuple[_Reading, ...]] = {}
        self._blocks: dict[tuple[str, ...], _Block | None] = {}

    def entry(self, line: str) -> tuple[_Reading, ...]:
        """Every reading of a reference line (memoized: entries repeat across blocks)."""
        got = self._entries.get(line)
        if got is None:
            if len(self._entries) >= MEMO_SIZE:
                self._entries.clear()
            found: dict[_Reading, None] = {}  # an insertion-ordered set
            for tpl in self.b.reference_lines:
                for r in tpl.readings(line, self.entry_patterns):
                    rd = _Reading(
                        r.get("authors", ""),
                        _author_set(r.get("authors"), self.sep),
                        r["year"],
                        r["title"],
                        r.get("source"),
                    )
                    found[rd] = None
            # First reading = earliest year marker, then with a source, then the longest title.
            got = tuple(sorted(found, key=lambda x: (len(x.authors_text), x.source is None, -len(x.title))))
            self._entries[line] = got
        return got

    def publication(self, line: str) -> tuple[_PubInfo, ...]:
        infos = []
        for tpl in self.b.publication_lines:
            for r in tpl.readings(line, self.pub_patterns):
                m = _DATE.fullmatch(r["date"]) if "date" in r else None
                year = int(m.group(1)) if m else None
                kind = "venue" if "venue" in r else ("arxiv" if tpl in (self.b.arxiv, self.b.arxiv_date) else "none")
                infos.append(_PubInfo(kind, r.get("venue"), year))
        return tuple(infos)

    def block(self, run: Sequence[str]) -> _Block | None:
        """The block a run of lines is, or None when the run does not have the full block structure
        (memoized: one process reads the same examples again, in the oracle and every shortcut baseline)."""
        key = tuple(run)
        if key in self._blocks:
            return self._blocks[key]
        if len(self._blocks) >= MEMO_SIZE:
            self._blocks.clear()
        got = self._blocks[key] = self._block(run)
        return got

    def _block(self, run: Sequence[str]) -> _Block | None:
        title = self.b.title.readings(run[0], {"title": _FIELD})
        if len(title) != 1:
            return None
        i, authors = 1, None
        if i < len(run):
            a = self.b.authors.readings(run[i], {"authors": _FIELD})
            if len(a) == 1:
                authors, i = a[0]["authors"], i + 1
        infos: tuple[_PubInfo, ...] = (_PubInfo("none", None, None),)
        if i < len(run) and run[i] != self.header:
            infos = self.publication(run[i])
            if not infos:
                return None
            i += 1
        if i >= len(run) - 1 or run[i] != self.header:
            return None
        entries = tuple(run[i + 1 :])
        if not all(self.entry(e) for e in entries):
            return None
        t = title[0]["title"]
        return _Block(t, (_normalize(t), _author_set(authors, self.sep)), infos, entries)

    def agrees(self, r: _Reading, info: _PubInfo) -> bool:
        """Could reading ``r`` be the reference line of a paper whose block says ``info``?"""
        if r.year == self.b.no_year:
            year_ok = info.year is None
        else:
            year_ok = info.year is None or int(r.year) == info.year
        if info.kind == "venue":
            source_ok = r.source == info.venue
        elif info.kind == "arxiv":
            source_ok = r.source is not None and (
                r.source == self.b.source_arxiv or bool(self.b.source_arxiv_id.readings(r.source, {"arxiv_id": _FIELD}))
            )
        else:
            source_ok = r.source is None
        return year_ok and source_ok


def _runs(context: str, title_prefix: str) -> Iterable[list[str]]:
    """Maximal runs of non-blank lines that start with the title prefix (the only candidates for blocks).

    A line is blank when ``line.strip()`` is empty; lines are split at ``"\\n"`` only. Rather than
    splitting the whole context (~75k lines at 922k tokens, nearly all distractor text), this
    jumps with ``str.find`` from one line that starts with the prefix to the next; such a line
    starts a run iff it is the first line or the line before it is blank. The run then ends at the
    first blank line after it (:data:`_RUN_END`), and the search resumes there, since no run can
    start inside another. When the prefix is empty, starts with whitespace or spans lines, the
    jump is not valid and the lines are scanned one by one (:func:`_runs_by_line`).
    """
    if not title_prefix or title_prefix[0].isspace() or "\n" in title_prefix:
        yield from _runs_by_line(context, title_prefix)
        return
    needle = "\n" + title_prefix

    def next_start(after: int) -> int:  # the next line after ``after`` that starts with the prefix, or -1
        at = context.find(needle, after)
        return -1 if at < 0 else at + 1

    p = 0 if context.startswith(title_prefix) else next_start(0)
    while p >= 0:
        if p > 0 and context[context.rfind("\n", 0, p - 1) + 1 : p - 1].strip():
            p = next_start(p)  # the line before is not blank: not a run's first line
            continue
        end = _RUN_END.search(context, p)
        stop = len(context) if end is None else end.start()
        yield context[p:stop].split("\n")
        p = -1 if end is None else next_start(stop)


def _runs_by_line(context: str, title_prefix: str) -> Iterable[list[str]]:
    """:func:`_runs` by splitting the context into lines (the reference definition)."""
    lines = context.split("\n")
    start = None
    for i, line in enumerate([*lines, ""]):
        if line.strip():
            if start is None:
                start = i
        elif start is not None:
            if lines[start].startswith(title_prefix):
                yield lines[start:i]
            start = None


def _shorten(text: str, n: int = 120) -> str:
    return text if len(text) <= n else text[: n - 3] + "..."


def paper_blocks(context: str, prompts: PromptSet | None = None) -> list[str]:
    """The text of every run of ``context`` that reads as a paper block (rule 2), in context order.

    Joined by blank lines, any subset of them is a context that :func:`parse_context` reads as
    the citations those blocks state (what the shortcut baselines retrieve from).
    """
    reader = _reader(prompts)
    return ["\n".join(run) for run in _runs(context, reader.title_prefix) if reader.block(run) is not None]


def _venues(infos: Sequence[Sequence[_PubInfo]]) -> frozenset[str | None]:
    """The venues the blocks' publication lines state (what :func:`_leaf_title` settles a title by)."""
    return frozenset(info.venue for group in infos for info in group if info.kind == "venue")


def _leaf_title(readings: Sequence[_Reading], venues: frozenset[str | None]) -> str:
    """The title a paper without a block is shown by (what a list answer names): of its entry's readings,
    the first whose source is a venue some block's publication line states, else the first reading.

    Where a title ends and a venue begins is open in "A (2025). X. Y. Z." (rule 4); a venue the
    context prints elsewhere settles it the way a reader would. The paper itself is the same node
    under every reading, so this choice never changes the graph or any other answer.
    """
    return next((r.title for r in readings if r.source in venues), readings[0].title)


def parse_context(context: str, prompts: PromptSet | None = None) -> TextGraph:
    """The citation graph the context describes, by the rules in the module docstring."""
    reader = _reader(prompts)
    blocks: list[_Block] = []
    rejected = 0
    for run in _runs(context, reader.title_prefix):
        blk = reader.block(run)
        if blk is None:
            rejected += reader.header in run
        else:
            blocks.append(blk)
    node_of_key, infos, nodes = _block_nodes(blocks)
    entry_node, leaves = _entries_with_blocks(reader, blocks, node_of_key, infos, nodes)
    _add_blockless_papers(reader, leaves, infos, nodes, entry_node)
    edges = frozenset((node_of_key[blk.key], entry_node[e]) for blk in blocks for e in blk.entries)
    return TextGraph(tuple(nodes), edges, len(blocks), rejected)


def _block_nodes(blocks: Sequence[_Block]) -> tuple[dict[Key, int], list[list[_PubInfo]], list[TextNode]]:
    """Block papers: one node per key (blocks with one key are one paper by the identity rule),
    with the publication details of all its blocks."""
    node_of_key: dict[Key, int] = {}
    infos: list[list[_PubInfo]] = []
    titles: list[str] = []
    for blk in blocks:
        if blk.key not in node_of_key:
            node_of_key[blk.key] = len(infos)
            infos.append([])
            titles.append(blk.title)
        infos[node_of_key[blk.key]].extend(blk.infos)
    nodes = [TextNode(t, frozenset({k[0]}), frozenset({k}), True) for t, k in zip(titles, node_of_key, strict=True)]
    return node_of_key, infos, nodes


def _entries_with_blocks(
    reader: _Reader, blocks: Sequence[_Block], node_of_key: dict[Key, int], infos: list[list[_PubInfo]], nodes: list[TextNode]
) -> tuple[dict[str, int], list[str]]:
    """Reference entries: rules (a)-(b) against the blocks. Returns the node of each entry that names
    a block's paper, and the other entries (papers without a block) in context order."""
    entry_node: dict[str, int] = {}
    leaves: list[str] = []
    for line in dict.fromkeys(e for blk in blocks for e in blk.entries):
        readings = reader.entry(line)
        named: dict[int, list[_Reading]] = defaultdict(list)
        for r in readings:
            if (idx := node_of_key.get(r.key)) is not None:
                named[idx].append(r)
        if len(named) > 1:
            names = " / ".join(repr(nodes[i].title) for i in named)
            raise Undetermined(
                f"reference entry {_shorten(line)!r} can be read as {len(named)} papers with blocks: {names}"
            )
        if named:
            ((idx, rs),) = named.items()
            if len(readings) > len(rs) and not any(reader.agrees(r, info) for r in rs for info in infos[idx]):
                raise Undetermined(
                    f"reference entry {_shorten(line)!r} names the paper of block {nodes[idx].title!r} only with "
                    "a year or source that disagrees with that block, and it can also be read as another paper"
                )
            entry_node[line] = idx
        else:
            leaves.append(line)
    return entry_node, leaves


def _add_blockless_papers(
    reader: _Reader, leaves: Sequence[str], infos: Sequence[Sequence[_PubInfo]], nodes: list[TextNode], entry_node: dict[str, int]
) -> None:
    """Rule (c): group block-less entries that share a key under some reading (union-find); each
    group is one paper, appended to ``nodes``, and its entries are mapped to it in ``entry_node``."""
    parent = {line: line for line in leaves}

    def root(x: str) -> str:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    first_with_key: dict[Key, str] = {}
    for line in leaves:
        for r in reader.entry(line):
            other = first_with_key.setdefault(r.key, line)
            parent[root(line)] = root(other)
    groups: dict[str, list[str]] = defaultdict(list)
    for line in leaves:
        groups[root(line)].append(line)
    venues = _venues(infos)  # the same for every group: computed once, not once per block-less paper
    for members in groups.values():
        keys_of = [{r.key for r in reader.entry(m)} for m in members]
        if len(members) > 1 and any(len(k) > 1 for k in keys_of):
            raise Undetermined(
                f"reference entries {_shorten(members[0])!r} and {_shorten(members[1])!r} "
                "may or may not name the same paper"
            )
        member_readings = [r for m in members for r in reader.entry(m)]
        for m in members:
            entry_node[m] = len(nodes)
        nodes.append(
            TextNode(
                _leaf_title(member_readings, venues),
                frozenset(_normalize(r.title) for r in member_readings),
                frozenset(r.key for r in member_readings),
                False,
            )
        )


_EDGE_ID = r"[0-9a-f]{8}"  # graphniah.text.edgelist.ID_LENGTH hex digits


def edge_line_pattern(pr: PromptSet) -> re.Pattern[str]:
    """The citation-line template as a regex with one group per id. Ids have a fixed width, so a
    line that matches has exactly one reading."""
    tpl = pr.edges.edge
    parts = [re.escape(tpl.literals[0])]
    for field, lit in zip(tpl.fields, tpl.literals[1:], strict=True):
        parts.append(f"(?P<{field}>{_EDGE_ID})" + re.escape(lit))
    return re.compile("".join(parts))


def parse_edge_context(context: str, prompts: PromptSet | None = None) -> TextGraph:
    """The citation graph an edge-list context states (``prompts/edges/edge.txt``).

    A run (maximal lines without a blank one) is an edge block iff every line reads as a citation
    line; each such line is one edge (citing, cited) between the papers its ids name, and a paper is
    its id. Runs with only some citation lines are counted in ``rejected_runs``. The argument of the
    module docstring carries over with ids for keys: ids are unique within an example
    (:class:`graphniah.text.edgelist.PaperIds`), so (R2) and (R4) hold by construction,
    and under (R3) (no distractor run consists of citation lines only) the blocks are exactly the
    rendered ones, hence the edges exactly the forest's.
    """
    line_re = edge_line_pattern(prompts or load_prompts())
    node_of: dict[str, int] = {}
    citing: set[int] = set()
    edges: set[tuple[int, int]] = set()
    blocks = rejected = 0
    for run in _runs_by_line(context, ""):
        hits = [line_re.fullmatch(line) for line in run]
        if not all(hits):
            rejected += any(hits)
            continue
        blocks += 1
        for m in hits:
            assert m is not None  # all(hits) above
            a = node_of.setdefault(m["citing"], len(node_of))
            b = node_of.setdefault(m["cited"], len(node_of))
            if a == b:
                raise Undetermined(f"citation line {m.group()!r} has a paper cite itself")
            citing.add(a)
            edges.add((a, b))
    nodes = tuple(TextNode(i, frozenset({i}), frozenset({(i, frozenset())}), n in citing) for i, n in node_of.items())
    return TextGraph(nodes, frozenset(edges), blocks, rejected)


def edge_blocks(context: str, prompts: PromptSet | None = None) -> list[str]:
    """The text of every run of an edge-list ``context`` that reads as an edge block, in context order
    (:func:`paper_blocks` for the edge-list rendering; :func:`parse_edge_context` reads any subset)."""
    line_re = edge_line_pattern(prompts or load_prompts())
    return ["\n".join(run) for run in _runs_by_line(context, "") if all(line_re.fullmatch(line) for line in run)]


# --------------------------------------------------------------------------- answers


def parse_messages(messages: Sequence[Message], prompts: PromptSet | None = None) -> tuple[ParsedQuestion, TextGraph]:
    pr = prompts or load_prompts()
    task, question, context = split_messages(messages, pr)
    if rendering_of(messages, pr) == "edges":
        return parse_question(task, question, pr, render="edges"), parse_edge_context(context, pr)
    return parse_question(task, question, pr), parse_context(context, pr)


def answer_of(q: ParsedQuestion, g: TextGraph) -> str:
    """The answer to ``q`` on ``g`` (YES/NO, a letter, a count as a string, or titles one a line)."""
    s = g.find(q.source, "source")
    reach = g.component(s)
    if q.task == "count":
        return str(len(reach) - 1)
    if q.task == "list":
        return "\n".join(sorted((g.nodes[i].title for i in reach - {s}), key=lambda t: (t.casefold(), t)))
    targets = [g.find(t, "target" if q.task == "yesno" else "option") for t in q.targets]
    if s in targets or len(set(targets)) != len(targets):
        raise Undetermined("the question names one paper twice (source and a target, or two options)")
    if q.task == "yesno":
        return "YES" if targets[0] in reach else "NO"
    letters = option_letters(len(targets), q.none_option)
    hits = [letter for letter, t in zip(letters, targets, strict=False) if t in reach]
    if len(hits) == 1:
        return hits[0]
    if not hits and q.none_option:
        return letters[-1]
    raise Undetermined(f"{len(hits)} options are reachable from the source ({', '.join(hits) or 'none'})")


def list_agrees(answer: str, q: ParsedQuestion, g: TextGraph) -> bool:
    """Whether ``answer`` (titles, one a line) names every paper reachable from the source once and
    nothing else, a block-less paper being named by its title under any reading of its entry."""
    s = g.find(q.source, "source")
    named = [g._by_title.get(_normalize(line), []) for line in answer.split("\n")]
    if any(len(hits) != 1 for hits in named):
        return False
    nodes = [hits[0] for hits in named]
    return len(set(nodes)) == len(nodes) and set(nodes) == g.component(s) - {s}


def solve(messages: Sequence[Message], prompts: PromptSet | None = None) -> str:
    """The answer the messages determine, from their text alone; raises :class:`Undetermined` if none."""
    return answer_of(*parse_messages(messages, prompts))


def verify(example: Example, prompts: PromptSet | None = None) -> VerifyResult:
    """Recompute ``example``'s answer from its messages and compare it with the stored one (read with the
    example's own template set, from the folder of ``prompts``)."""
    pr = prompts or load_prompts()
    if example.recipe.params.template != pr.name:
        pr = load_template(example.recipe.params.template, pr.directory)
    note = ""
    if example.recipe.prompts_hash != pr.hash:
        note = f" (rendered with prompt set {example.recipe.prompts_hash[:12]}, checked against {pr.hash[:12]})"
    try:
        q, g = parse_messages(example.messages, pr)
        if q.task != example.task:
            return VerifyResult(
                False, example.answer, None, f"the text asks a {q.task} question, the example is {example.task}{note}"
            )
        got = answer_of(q, g)
        if got != example.answer and q.task == "list" and list_agrees(example.answer, q, g):
            return VerifyResult(True, example.answer, got, "")
    except Undetermined as err:
        return VerifyResult(False, example.answer, None, f"{err}{note}")
    if got != example.answer:
        reason = f"the text gives {got}, the stored answer is {example.answer}"
        if g.rejected_runs:
            reason += f"; {g.rejected_runs} block-like passage(s) did not parse as paper blocks"
        return VerifyResult(False, example.answer, got, reason + note)
    return VerifyResult(True, example.answer, got, "")


def checker_version(prompts: PromptSet) -> str:
    """What :func:`verify` depends on besides the example: this module's source bytes (the whole
    check is here) and the template set it reads the text with. A verification recorded under the
    same version for the same example bytes gives the same result again (``graphniah export`` takes
    the ones ``graphniah build`` recorded)."""
    h = hashlib.sha256(Path(__file__).read_bytes())
    h.update(prompts.hash.encode())
    return h.hexdigest()
