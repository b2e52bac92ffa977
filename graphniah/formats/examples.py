"""Typed records of the examples stage: paper metadata, chat messages, and the example itself.

One example is one JSON line (``examples/<suite>.jsonl``). Everything a later stage needs is a field
of :class:`Example`, the recipe's parameters included (:class:`RecipeParams`); every reader and
writer of examples goes through :func:`parse_example`/:func:`example_to_json`. A reader that
holds a whole suite without its prompts (the runner, a dataset's reader) indexes the file with
:func:`index_examples`: one :class:`ExampleRef` per line, its prompt read back by byte offset.

**Format.** Each line carries ``format_version`` (currently 4), written first. Version 4 added the
needle positions (``needle_positions``: where the question and every paper block lie in the user
message, in o200k_base tokens, recorded when the example is built so the viewer need not tokenise
the prompt again). Version 3 is upgraded by setting the version; its examples keep ``None``
positions (the viewer then counts them, as it always did). Version 3 added the
``list`` task and the evidence statistics (``stats.evidence_tokens``, ``stats.hops_needed``): a
reader of version 2 cannot read either, so it must refuse such a file by its version rather than
misread it. Version 3 also added the recipe parameter ``render`` (``edges``: the papers as an edge
list of ids), written only when it is not ``apa``, so an example without it is an APA example and
keeps its id. Version 2 is upgraded by setting the version; its examples keep ``None`` evidence
(measuring it needs the tokenizer, which an upgrade on reading does not load). Version 1 is the
version-2 example without the field (files written before versions existed); it is upgraded by
adding the field — nothing else differs, and the typed parameters accept exactly what the sampler
wrote — so an old examples file keeps working and its ids are unchanged (they hash the recipe only).
Any other version is an error naming file, line and version (see :mod:`graphniah.formats`).
"""

from __future__ import annotations

import datetime as dt
import mmap
import os
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO, Literal

import pyarrow as pa
from pydantic import Field, SerializerFunctionWrapHandler, ValidationError, model_serializer, model_validator

from graphniah import layout
from graphniah.atomic import atomic_path, check_artifact, sha256_bytes
from graphniah.errors import GraphNIAHError, validation_detail
from graphniah.formats.base import Format, Frozen, add_version
from graphniah.formats.names import Render, Task
from graphniah.formats.recorded import recorded_examples_file

_WS = re.compile(r"\s+")
_UNCLEAN = re.compile(r"[^\S ]|  |^ | $")  # what clean_text changes: whitespace other than single inner spaces


def clean_text(value: str | None) -> str | None:
    """One-line display form of a metadata string: whitespace runs become one space; empty is None.

    S2AG titles and names sometimes carry newlines, tabs or doubled spaces. A rendered block must
    keep every field on its own line (the text-only verifier relies on it), so this is applied to
    every field when a :class:`PaperMeta` is built.
    """
    if value is None:
        return None
    if _UNCLEAN.search(value) is None:  # the common case, already clean: one scan that finds nothing
        return value or None
    text = _WS.sub(" ", value).strip()
    return text or None


@dataclass(frozen=True, slots=True)
class PaperMeta:
    """The metadata of one paper that rendering needs. Text fields are one line each (see ``clean_text``)."""

    corpusid: int
    title: str
    authors: tuple[str, ...] = ()
    venue: str | None = None
    publication_date: dt.date | None = None
    year: int | None = None
    arxiv_id: str | None = None

    def __post_init__(self) -> None:
        title = clean_text(self.title)
        if title is None:
            raise ValueError(f"paper {self.corpusid}: empty title")
        object.__setattr__(self, "title", title)
        object.__setattr__(self, "authors", tuple(a for a in map(clean_text, self.authors) if a is not None))
        object.__setattr__(self, "venue", clean_text(self.venue))
        object.__setattr__(self, "arxiv_id", clean_text(self.arxiv_id))

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> PaperMeta:
        """Build from one row of the snapshot's ``papers.parquet`` (``snapshot.PAPERS_SCHEMA``) as a dict.

        ``venue`` falls back to ``journal`` when the venue is empty: S2AG often fills only one of them.
        """
        authors = tuple(a["name"] for a in (row.get("authors") or ()) if a and a.get("name"))
        return cls(
            corpusid=int(row["corpusid"]),
            title=row["title"] or "",
            authors=authors,
            venue=clean_text(row.get("venue")) or clean_text(row.get("journal")),
            publication_date=row.get("publication_date"),
            year=row.get("year"),
            arxiv_id=row.get("arxiv_id"),
        )


def papers_from_table(table: pa.Table) -> dict[int, PaperMeta]:
    """``{corpusid: PaperMeta}`` for a (filtered) papers table; meant for the few hundred papers of an example."""
    return {p.corpusid: p for p in map(PaperMeta.from_row, table.to_pylist())}


class Message(Frozen):
    """One chat message, in the OpenAI/LiteLLM shape."""

    role: Literal["system", "user", "assistant"]
    content: str


class ExampleStats(Frozen):
    """Per-example statistics in the spirit of the paper's Table 2 (token counts are a later stage's job).

    ``needles`` is the number of paper blocks of the task's own components; ``nodes`` and ``edges``
    count the papers and citations of everything rendered in the context (including components added
    as distractors); words are whitespace-separated.
    """

    question_words: int = Field(ge=0)
    context_words: int = Field(ge=0)
    needles: int = Field(ge=0)
    needle_words: int = Field(ge=0)
    needle_word_pct: float = Field(ge=0, le=100)
    reference_lines: int = Field(ge=0)
    nodes: int = Field(ge=0)
    edges: int = Field(ge=0)
    # The evidence the answer needs (graphniah.text.evidence): o200k tokens of the paper
    # blocks a breadth-first search from the source reads to settle it, and that search's depth.
    # None only in examples upgraded from format version 2, which did not record them.
    evidence_tokens: int | None = Field(default=None, ge=0)
    hops_needed: int | None = Field(default=None, ge=1)


class NeedlePositions(Frozen):
    """Where the question and the paper blocks lie in the user message (the last one), in o200k_base
    tokens; a token offset is the count of the text before that point (see
    :mod:`graphniah.text.positions`, which computes them and proves them exact).

    ``blocks`` lists every paper block of the context (the task's needles and the blocks of
    components added as distractors), in text order, as (character offset in the user message,
    token offset, own token count). ``question`` is (token offset, token count) and ``context``
    (token offset, tokens up to the text after it); both are None only for a message that does not
    follow the prompt templates, which a sampled example always does.
    """

    tokens: int = Field(ge=0)
    question: tuple[int, int] | None
    context: tuple[int, int] | None
    blocks: tuple[tuple[int, int, int], ...]


#: The concentration parameter of preferential attachment unless a suite or command sets another (appendix B).
DEFAULT_ALPHA = 0.1


class RecipeParams(Frozen):
    """The sampler's parameters of one example: its spec (``ExampleSpec.params``), its index, and what
    pins packing's inputs (``corpus``: the text corpus's fingerprint; ``tokenizers``: each
    tokenizer's fingerprint).

    Serialised exactly as the sampler's dict always was — same keys in the same order, and
    ``reserve_none_option``/``corpus``/``tokenizers`` only when set — because an example's id is the
    hash of its recipe: typing the parameters must not change any id or any byte of a file.
    """

    task: Task
    depth: int = Field(ge=1)
    component_size: int = Field(ge=1)
    label: str | None
    none_option: bool
    alpha: float = Field(gt=0)
    distractor: str
    context_length: int | None
    reserve_none_option: bool = False
    # How the needles are written (graphniah.text.edgelist): APA paper blocks, or an
    # edge list of paper ids. Absent means APA, so examples written before the choice existed read
    # unchanged and keep their ids; only "edges" is written.
    render: Render = "apa"
    # The template set the prompt is worded in (graphniah.text.prompts.load_template; its hash is the
    # recipe's prompts_hash), written only when not "default", so older recipes replay as default;
    # ``templates``: the sets whose prompts the context was packed to fit (the same context under each).
    template: str = "default"
    templates: tuple[str, ...] | None = None
    # Matched sampling (graphniah.sampling.examples.similarity): absent means off, so examples written
    # before the control existed read unchanged and keep their ids; ``size_range`` is the range the
    # other components' sizes were drawn from (matched counting and listing only). ``match_venue``:
    # the wrong answers were matched on their venue relation to the source too (matched YES/NO and
    # multiple choice built since that rule; absent, as in older matched examples, means without it).
    # ``match_components``: the other components' backbones were matched in subject to the source's
    # (graphniah.sampling.examples.components), and in YES/NO and multiple choice the wrong answers'
    # title lengths to the true answer's; absent (every example built before the rule) means without.
    match_similarity: bool = False
    match_venue: bool = False
    match_components: bool = False
    # ``match_learned``: the sha256 of the frozen scorer the wrong answers were matched on
    # (graphniah.sampling.examples.learned); absent (every example built before the rule) means without.
    # ``match_weighted``: the wrong answers were drawn with weights on that score (the density ratio)
    # rather than as its nearest neighbours; absent means the nearest-neighbour draw.
    match_learned: str | None = None
    match_weighted: bool = False
    # ``source_slot``: the example's place in its batch's order of distinct sources (matched YES/NO and
    # multiple choice built since the rule, graphniah.sampling.examples.similarity.distinct_sources):
    # its source path is the slot's, so a batch repeats no source or true target the pool can spare;
    # absent (every example built before the rule) means the source drawn uniformly.
    source_slot: int | None = Field(default=None, ge=0)
    size_range: tuple[int, int] | None = None
    index: int = Field(ge=0)
    corpus: str | None = None
    tokenizers: dict[str, str] | None = None

    @model_serializer(mode="wrap")
    def _only_what_is_set(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        out: dict[str, Any] = handler(self)
        for flag in ("reserve_none_option", "match_similarity", "match_venue", "match_components", "match_weighted"):
            if not getattr(self, flag):
                del out[flag]
        if self.match_learned is None:
            del out["match_learned"]
        if self.source_slot is None:
            del out["source_slot"]
        if self.size_range is None:
            del out["size_range"]
        if self.render == "apa":
            del out["render"]
        if self.template == "default":
            del out["template"]
        if self.templates is None:
            del out["templates"]
        for name in ("corpus", "tokenizers"):
            if getattr(self, name) is None:
                del out[name]
        return out

    # Read access by key, as in the serialised JSON object: a key is present exactly when the
    # serialised form has it.
    def __contains__(self, key: object) -> bool:
        if key == "render":
            return self.render != "apa"
        if key == "template":
            return self.template != "default"
        if key == "source_slot":
            return self.source_slot is not None
        return key in type(self).model_fields and not (key in _OPTIONAL_PARAMS and not getattr(self, key))

    def __getitem__(self, key: str) -> Any:
        if key not in self:
            raise KeyError(key)
        return getattr(self, key)

    def get(self, key: str, default: Any = None) -> Any:
        try:
            return self[key]
        except KeyError:
            return default


_OPTIONAL_PARAMS = frozenset({"reserve_none_option", "corpus", "tokenizers", "match_similarity", "match_venue", "match_components",
                             "match_learned", "match_weighted", "source_slot", "size_range", "templates"})


class Recipe(Frozen):
    """What ``graphniah show`` needs to regenerate the example's prompt byte for byte."""

    snapshot_hash: str
    pool_hash: str
    prompts_hash: str
    seed: int
    version: str
    params: RecipeParams


_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


class Example(Frozen):
    """One benchmark example: question, rendered messages, ground truth, and its provenance.

    ``targets`` are corpus ids: the YES/NO target, or the multiple-choice candidates in option order
    (``options`` holds what the question shows for them, in the same order: their titles, or their ids
    in the edge-list rendering); empty for counting; for ``list``, every paper
    reachable from the source, in the order of the lines of ``answer`` (their titles, one a line).
    ``papers``/``edges`` are the task's components (``edges`` as ``(citing, cited)``); the
    text-only verifier never reads them.
    """

    format_version: Literal[4] = 4  # first, so a line says its version before anything else
    id: str
    task: Task
    depth: int = Field(ge=1)
    component_size: int = Field(ge=1)
    answer: str
    options: tuple[str, ...] = ()
    none_option: bool = False
    messages: tuple[Message, ...]
    papers: tuple[int, ...]
    edges: tuple[tuple[int, int], ...]
    source: int
    targets: tuple[int, ...]
    stats: ExampleStats
    recipe: Recipe
    token_counts: dict[str, int] | None = None
    needle_positions: NeedlePositions | None = None  # None: made before format version 4 recorded them

    @model_validator(mode="after")
    def _answer_fits_task(self) -> Example:
        if self.task == "yesno":
            ok = self.answer in ("YES", "NO") and len(self.targets) == 1 and not self.options
        elif self.task == "mc":
            n = len(self.options) + self.none_option
            ok = len(self.targets) == len(self.options) >= 1 and n <= len(_LETTERS) and self.answer in _LETTERS[:n]
        elif self.task == "list":
            lines = self.answer.split("\n")
            ok = (len(lines) == len(self.targets) >= 1 and len(set(self.targets)) == len(self.targets)
                  and all(line and line == line.strip() for line in lines) and not self.options)
        else:
            ok = self.answer.isascii() and self.answer.isdigit() and not self.targets and not self.options
        if not ok:
            raise ValueError(
                f"example {self.id}: answer {self.answer!r} with {len(self.targets)} targets and "
                f"{len(self.options)} options does not fit task {self.task}"
            )
        return self


EXAMPLES_FORMAT = Format("example", Example.model_fields["format_version"].default,
                         {1: add_version(2), 2: add_version(3), 3: add_version(4)},
                         hint="rebuild the examples with graphniah build or graphniah sample")
_FAST = EXAMPLES_FORMAT.fast_prefix()


def option_letters(n_options: int, none_option: bool) -> str:
    """The letters of a multiple-choice question: A, B, ... for the candidates, then one for "none"."""
    return _LETTERS[: n_options + none_option]


def example_to_json(example: Example) -> str:
    """One JSONL line (no trailing newline); UTF-8 text, field order fixed by the model."""
    return example.model_dump_json()


def write_examples(path: str | os.PathLike[str], examples: Iterable[Example]) -> int:
    """Write ``examples`` as JSON lines atomically (streamed, so a large suite is never held as one string)."""
    n = 0
    with atomic_path(path) as tmp, open(tmp, "w", encoding="utf-8", newline="\n") as f:
        for ex in examples:
            f.write(example_to_json(ex))
            f.write("\n")
            n += 1
    return n


def enumerate_examples(path: str | os.PathLike[str]) -> Iterator[tuple[int, Example]]:
    """``(line number, example)`` of a JSONL file of examples, read lazily; a bad line raises
    ``GraphNIAHError`` naming file and line."""
    for lineno, example, _ in example_lines(path):
        yield lineno, example


def example_lines(path: str | os.PathLike[str]) -> Iterator[tuple[int, Example, bytes]]:
    """:func:`enumerate_examples`, each example with its line as read (without the line break), for a
    reader that hashes the bytes (the viewer's page cache) rather than serialising the example again."""
    with open_examples(path) as f:
        for lineno, line in enumerate(file_lines(f), 1):
            if line and not line.isspace():  # not a blank line (isspace, unlike strip, copies nothing of a megabyte line)
                yield lineno, parse_example(line, f"{path}:{lineno}"), line


def open_examples(path: str | os.PathLike[str], buffering: int = -1) -> BinaryIO:
    """Open an examples file for reading, after checking it against the suite manifest beside it.

    A suite's examples file ``<suite>.jsonl`` has its sha256 and size in ``<suite>.json``
    (:func:`graphniah.formats.recorded.recorded_examples_file`, format 4 on): a file changed or damaged
    since it was written is one error line naming it and the command that builds it again
    (:func:`graphniah.atomic.check_artifact`, once per process). A file without such a manifest
    is read as it is. A file that cannot be opened is an error naming it.
    """
    recorded = recorded_examples_file(layout.suite_manifest_of(Path(path)))
    if recorded is not None:
        check_artifact(path, recorded[0].sha256, recorded[0].bytes, recorded[1])
    try:
        return open(path, "rb", buffering=buffering)
    except OSError as err:
        raise GraphNIAHError(f"cannot read examples file {path}: {err.strerror}") from None


_GIVE_BACK = 64 << 20  # bytes of a mapped file read before their pages are given back
#: A file that cannot be mapped is read in blocks of this size and split into lines here.
READ_BLOCK = 8 << 20


def file_lines(f: BinaryIO, *, ends: bool = False) -> Iterator[bytes]:
    """The lines of an open examples file, cut from a memory map of it.

    Why a map: a line is copied once, straight from the page cache, where ``readline`` grows and
    copies its buffer many times over for a line of a megabyte (one example of 200k tokens), and
    reading blocks and cutting them copies each line twice. With ``ends`` every line keeps its line
    break, exactly as ``for line in f`` gives them (their concatenation is the file, so hashing them
    hashes it: the export does); without, a line loses its ``\n`` and one ``\r`` before it. A file
    that cannot be mapped (empty, or not a regular file) is read in :data:`READ_BLOCK` blocks.
    """
    try:
        mm = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
    except (ValueError, OSError):
        yield from (_block_lines(f) if ends else map(_without_end, _block_lines(f)))
        return
    with mm:
        pos, n, given_back = 0, len(mm), 0
        while pos < n:
            end = mm.find(b"\n", pos) + 1 or n  # after the newline, or the end of a last line without one
            if ends:
                yield mm[pos:end]
            else:
                stop = end - 1 if mm[end - 1] == 0x0A else end
                yield mm[pos : stop - 1 if stop > pos and mm[stop - 1] == 0x0D else stop]
            pos = end
            done = pos - pos % mmap.PAGESIZE
            if done - given_back >= _GIVE_BACK and hasattr(mm, "madvise"):
                # The pages read so far leave this process (the page cache keeps them), so its resident
                # memory stays bounded instead of growing to the size of the file.
                mm.madvise(mmap.MADV_DONTNEED, given_back, done - given_back)
                given_back = done


def _without_end(line: bytes) -> bytes:
    line = line[:-1] if line.endswith(b"\n") else line
    return line[:-1] if line.endswith(b"\r") else line


def _block_lines(f: BinaryIO) -> Iterator[bytes]:
    """:func:`file_lines` (with ends) of a file read in :data:`READ_BLOCK` blocks, each line copied out once."""
    head: list[bytes] = []  # the start of a line that goes on in the next block
    while block := f.read(READ_BLOCK):
        start = 0
        while end := block.find(b"\n", start) + 1:
            piece = block[start:end]
            yield b"".join((*head, piece)) if head else piece
            head = []
            start = end
        if start < len(block):
            head.append(block[start:])
    if head:
        yield b"".join(head)


def parse_recipe(text: bytes | str, where: str) -> Recipe:
    """A recipe stored on its own (a dataset row's ``recipe`` column) as a :class:`Recipe`; errors name ``where``."""
    try:
        return Recipe.model_validate_json(text)
    except ValidationError as err:
        raise GraphNIAHError(f"{where}: not a valid recipe ({validation_detail(err)})") from None


def parse_example(line: bytes | str, where: str) -> Example:
    """One line of an examples file as an :class:`Example` (older versions upgraded); errors name ``where``."""
    raw = line.encode() if isinstance(line, str) else line
    try:
        if raw.startswith(_FAST):  # the common case: one parse, in pydantic-core
            return Example.model_validate_json(raw)
        return Example.model_validate(EXAMPLES_FORMAT.parse_json(raw, where))
    except ValidationError as err:
        EXAMPLES_FORMAT.parse_json(raw, where)  # a line that is not JSON, or of another version, says so
        raise GraphNIAHError(f"{where}: not a valid example ({validation_detail(err)})") from None


def iter_examples(path: str | os.PathLike[str]) -> Iterator[Example]:
    """Read a JSONL file of examples lazily; a bad line raises ``GraphNIAHError`` naming file and line."""
    for _, example in enumerate_examples(path):
        yield example


def read_examples(path: str | os.PathLike[str]) -> list[Example]:
    return list(iter_examples(path))


@dataclass(frozen=True)
class ExampleRef:
    """What the runner keeps of an example: its identity and truth, and where its messages are.

    Prompts are long (up to ~4 MB of text each), so a suite read from a file is indexed by byte
    offset and each prompt is read back only when its request is built; examples given in memory
    keep their messages inline.
    """

    id: str
    task: Task
    answer: str
    snapshot_hash: str
    token_counts: Mapping[str, int] | None = None
    path: Path | None = None
    offset: int = 0
    length: int = 0
    inline: tuple[tuple[str, str], ...] | None = None
    sha256: str = ""  # of the example's JSON line ("" when unknown: such an example is never matched for reuse)

    @classmethod
    def of(cls, ex: Example) -> ExampleRef:
        return cls(ex.id, ex.task, ex.answer, ex.recipe.snapshot_hash, ex.token_counts,
                   inline=tuple((m.role, m.content) for m in ex.messages), sha256=sha256_bytes(example_to_json(ex).encode()))

    def messages(self) -> list[dict[str, str]]:
        if self.inline is not None:
            return [{"role": r, "content": c} for r, c in self.inline]
        assert self.path is not None
        with open(self.path, "rb") as f:
            f.seek(self.offset)
            line = f.read(self.length)
        ex = parse_example(line, f"{self.path}:offset {self.offset}")  # the one reader of example lines
        return [{"role": m.role, "content": m.content} for m in ex.messages]


def index_examples(path: str | os.PathLike[str]) -> list[ExampleRef]:
    """Validate every example of a JSONL file and index it by byte offset (duplicate ids are an error)."""
    p = Path(path)
    refs: list[ExampleRef] = []
    seen: dict[str, int] = {}
    with open_examples(p) as f:
        offset = 0
        for lineno, line in enumerate(f, 1):
            n = len(line)
            if line.strip():
                ex = parse_example(line, f"{p}:{lineno}")
                if ex.id in seen:
                    raise GraphNIAHError(f"{p}:{lineno}: example id {ex.id} already appears on line {seen[ex.id]}")
                seen[ex.id] = lineno
                refs.append(ExampleRef(ex.id, ex.task, ex.answer, ex.recipe.snapshot_hash, ex.token_counts, p, offset, n,
                                       sha256=sha256_bytes(line.rstrip(b"\r\n"))))
            offset += n
    if not refs:
        raise GraphNIAHError(f"examples file {p} holds no examples")
    return refs
