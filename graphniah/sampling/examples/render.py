"""Rendering a sampled subgraph as text: paper blocks, questions, chat messages, statistics.

Format (appendix A.5, with this project's template files in ``prompts/``):

- one block per paper that cites at least one other paper of its component, in the order the
  sampler added the papers (a later stage cuts distractor components from the end of that order);
- a block is: title line, authors line, publication line, references header, one reference line
  per cited paper of the component; the authors and publication lines are left out when the
  metadata is missing, and no line of a block is ever empty;
- publication line: "Published in {venue} on {date}", or "Uploaded to arXiv on {date}" for an arXiv
  paper without another venue, with whichever of venue/date exists; dates read "September 1, 2025";
- reference lines in APA order (first author's surname, first author, year, title) reading
  "authors (year). title. source." where the source is the venue, else ``arXiv:{id}``, else
  "arXiv" for an arXiv paper without id, else nothing; authors and source are left out when
  missing, and a missing year is written APA's way ("n.d.") so that the line can be read back.

A reference line is a function of the cited paper alone, so every mention of one paper in one
context is the same string: the text-only verifier relies on that.
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from collections.abc import Mapping, Sequence

from graphniah.formats import Render, Task
from graphniah.formats.examples import ExampleStats, Message, PaperMeta, option_letters
from graphniah.text import PromptSet, load_prompts

MONTHS = (
    "January", "February", "March", "April", "May", "June",
    "July", "August", "September", "October", "November", "December",
)  # fmt: skip
_ARXIV_VENUES = frozenset({"arxiv", "arxiv.org"})


def format_date(d: dt.date) -> str:
    """``September 1, 2025``: English month name, day without a leading zero (locale-independent)."""
    return f"{MONTHS[d.month - 1]} {d.day}, {d.year}"


def printed_venue(venue: str | None) -> str | None:
    """The venue a block or reference prints for a paper's ``PaperMeta.venue``: None for none and
    for arXiv (S2AG writes "arXiv.org" as a venue; arXiv is printed as an arXiv source instead)."""
    return None if venue is None or venue.casefold() in _ARXIV_VENUES else venue


def _venue(p: PaperMeta) -> str | None:
    """The publication venue, or None when there is none besides arXiv."""
    return printed_venue(p.venue)


def _is_arxiv(p: PaperMeta) -> bool:
    return p.arxiv_id is not None or (p.venue is not None and p.venue.casefold() in _ARXIV_VENUES)


def _year(p: PaperMeta) -> int | None:
    """Publication year shown in references: the date's year (so block and reference agree), else ``year``."""
    return p.publication_date.year if p.publication_date is not None else p.year


def _source(p: PaperMeta, pr: PromptSet) -> str | None:
    venue = _venue(p)
    if venue is not None:
        return venue
    if p.arxiv_id is not None:
        return pr.block.source_arxiv_id.fill({"arxiv_id": p.arxiv_id})
    return pr.block.source_arxiv if _is_arxiv(p) else None


def publication_line(p: PaperMeta, prompts: PromptSet | None = None) -> str | None:
    """The publication line of ``p``'s block, or None when neither venue, arXiv nor date is known."""
    b = (prompts or load_prompts()).block
    venue = _venue(p)
    date = format_date(p.publication_date) if p.publication_date is not None else None
    if venue is not None:
        return (
            b.published_venue_date.fill({"venue": venue, "date": date})
            if date
            else b.published_venue.fill({"venue": venue})
        )
    if _is_arxiv(p):
        return b.arxiv_date.fill({"date": date}) if date else b.arxiv.fill({})
    return b.published_date.fill({"date": date}) if date else None


def reference_line(p: PaperMeta, prompts: PromptSet | None = None) -> str:
    """``p`` as one APA-style reference line."""
    pr = prompts or load_prompts()
    b = pr.block
    year = _year(p)
    values = {"year": str(year) if year is not None else b.no_year, "title": p.title}
    source = _source(p, pr)
    if source is not None:
        values["source"] = source
    if p.authors:
        values["authors"] = b.author_separator.join(p.authors)
        tpl = b.reference_authors_source if source is not None else b.reference_authors
    else:
        tpl = b.reference_source if source is not None else b.reference_bare
    return tpl.fill(values)


def apa_key(p: PaperMeta) -> tuple[tuple[str, str], int, str, int]:
    """Sort key of a reference list: first author's surname and name, year (undated first), title.

    APA files a work without authors under its title; the corpus id only breaks exact ties so the
    order never depends on input order.
    """
    if p.authors:
        first = p.authors[0].casefold()
        name = (first.split()[-1], first)
    else:
        name = (p.title.casefold(), "")
    year = _year(p)
    return (name, -1 if year is None else year, p.title.casefold(), p.corpusid)


def render_block(paper: PaperMeta, cited: Sequence[PaperMeta], prompts: PromptSet | None = None) -> str:
    """The block of ``paper`` citing ``cited`` (non-empty; sorted here in APA order)."""
    if not cited:
        raise ValueError(f"paper {paper.corpusid} cites nothing in its component, so it has no block")
    pr = prompts or load_prompts()
    b = pr.block
    lines = [b.title.fill({"title": paper.title})]
    if paper.authors:
        lines.append(b.authors.fill({"authors": b.author_separator.join(paper.authors)}))
    pub = publication_line(paper, pr)
    if pub is not None:
        lines.append(pub)
    lines.append(b.references.fill({}))
    lines.extend(reference_line(c, pr) for c in sorted(cited, key=apa_key))
    return "\n".join(lines)


def render_component(
    papers: Mapping[int, PaperMeta],
    edges: Sequence[tuple[int, int]],
    order: Sequence[int],
    prompts: PromptSet | None = None,
) -> list[str]:
    """One block per paper of ``order`` that cites another paper, in ``order``.

    ``edges`` are ``(citing, cited)`` corpus-id pairs inside the component(s); ``order`` must list
    every citing paper exactly once (papers that cite nothing may be listed too; they get no block).
    """
    pr = prompts or load_prompts()
    if len(set(order)) != len(order):
        raise ValueError("render_component: order lists a paper twice")
    cites: dict[int, set[int]] = defaultdict(set)
    for citing, cited in edges:
        if citing == cited:
            raise ValueError(f"render_component: self-citation of paper {citing}")
        for pid in (citing, cited):
            if pid not in papers:
                raise ValueError(f"render_component: edge ({citing}, {cited}) names paper {pid} without metadata")
        cites[citing].add(cited)
    missing = set(cites) - set(order)
    if missing:
        raise ValueError(f"render_component: citing papers {sorted(missing)[:5]} are not in order")
    return [render_block(papers[pid], [papers[c] for c in cites[pid]], pr) for pid in order if pid in cites]


def question(
    task: Task,
    source: str,
    targets: Sequence[str] = (),
    none_option: bool = False,
    prompts: PromptSet | None = None,
    render: Render = "apa",
) -> str:
    """The question of ``task`` about titles (ids in the edge-list rendering): ``targets`` is [target]
    for yesno, the candidates for mc, [] for count."""
    pr = prompts or load_prompts()
    asking = pr.asking(render)
    titles = [source, *targets]
    if any("\n" in t or not t.strip() for t in titles):
        raise ValueError("question: titles must be non-empty single lines (build them with PaperMeta)")
    if task not in asking.questions:
        raise ValueError(f"the {render} rendering has no {task} question")
    tpl = asking.questions[task]
    if task == "yesno":
        if len(targets) != 1 or none_option:
            raise ValueError("question: a YES/NO question has exactly one target and no none option")
        return tpl.fill({"source": source, "target": targets[0]})
    if task == "mc":
        letters = option_letters(len(targets), none_option)
        if not targets or len(letters) != len(targets) + none_option:
            raise ValueError(f"question: {len(targets)} multiple-choice candidates cannot be lettered")
        label = pr.answer.label  # the set's option labels (A-D, 1-4, (a)-(d)); the stored answer stays the letter
        lines = [asking.mc_option.fill({"letter": label(letter), asking.option_field: t})
                 for letter, t in zip(letters, targets, strict=False)]
        if none_option:
            lines.append(asking.mc_none.fill({"letter": label(letters[-1])}))
        return tpl.fill({"source": source, "options": "\n".join(lines)})
    if targets or none_option:
        raise ValueError("question: a counting question has no targets and no none option")
    return tpl.fill({"source": source})


CONTEXT_SEPARATOR = "\n\n"


def build_messages(
    task: Task, question: str, context_blocks: Sequence[str], prompts: PromptSet | None = None, render: Render = "apa"
) -> list[Message]:
    """System and user message: question, then the context blocks joined by a blank line, then the reminder.

    The system message is the rendering's (``prompts/system`` or ``prompts/edges/system``); the user
    template and the reminders are shared.
    """
    pr = prompts or load_prompts()
    user = pr.user.fill(
        {"question": question, "context": CONTEXT_SEPARATOR.join(context_blocks), "format_reminder": pr.reminders[task]}
    )
    system = pr.edges.system[task] if render == "edges" else pr.system[task]
    return [Message(role="system", content=system), Message(role="user", content=user)]


def _words(text: str) -> int:
    return len(text.split())


def _reference_count(block: str, header: str) -> int:
    """Lines after the references header of a rendered block (each is one reference); every line of
    an edge-list block (which has no header) is one citation."""
    lines = block.split("\n")
    return len(lines) - lines.index(header) - 1 if header in lines else len(lines)


def example_stats(
    question: str,
    needle_blocks: Sequence[str],
    context_blocks: Sequence[str],
    nodes: int,
    edges: int,
    prompts: PromptSet | None = None,
) -> ExampleStats:
    """Table-2 style statistics; ``needle_blocks`` are the task components' blocks (also in ``context_blocks``)."""
    header = (prompts or load_prompts()).block.references.fill({})
    needle_words = sum(map(_words, needle_blocks))
    context_words = sum(map(_words, context_blocks))
    return ExampleStats(
        question_words=_words(question),
        context_words=context_words,
        needles=len(needle_blocks),
        needle_words=needle_words,
        needle_word_pct=100.0 * needle_words / context_words if context_words else 0.0,
        reference_lines=sum(_reference_count(b, header) for b in needle_blocks),
        nodes=nodes,
        edges=edges,
    )
