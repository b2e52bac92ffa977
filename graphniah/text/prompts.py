"""The prompt template set: loading the files in ``prompts/``, filling them, and reading them back.

Templates live in files, not in code, so that wording can be reviewed and changed without touching
the pipeline; the hash of the whole set goes into every example's recipe, so a changed template is
visible in everything made afterwards.

**Named template sets.** The files at the top of ``prompts/`` are the set ``default``. Every other
set is a folder ``prompts/sets/<name>/`` holding a ``set.yaml`` (which answer format the set asks
for and how it labels options: :class:`AnswerFormat`) and its own system messages, questions and
reminders for every task (``user.txt`` and the option lines too, when it words them differently);
what it does not give (the paper-block templates, the edge-list rendering) is the default set's, so
the context of an example is the same text under every set. :func:`load_template` loads a set by
name; ``default`` is :func:`load_prompts` itself, byte for byte and hash for hash.

A template here is text with ``{name}`` placeholders. The same :class:`Template` object serves the
renderer (:meth:`Template.fill`) and the text-only verifier (:meth:`Template.readings`), which
enumerates *every* way a rendered line can be split into placeholder values. Rendering and reading
therefore agree by construction on the literal text; what a reader cannot know (where a title ends
and a venue begins when both contain ". ") is exposed as several readings instead of being guessed.
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Literal, get_args

import yaml

from graphniah.atomic import canonical_json, sha256_bytes
from graphniah.errors import GraphNIAHError, yaml_detail
from graphniah.formats import TASKS as TASKS  # re-exported (explicitly, for mypy): the names are defined once, in formats
from graphniah.formats import Render
from graphniah.formats import Task as Task
from graphniah.resources import resource_dir

PROMPTS_ENV = "GRAPHNIAH_PROMPTS"

_PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")

# Placeholders each template may use. Every listed placeholder must appear exactly once, so a
# template edit that drops (say) the title from the question is an error at load time.
_QUESTION_FIELDS: Mapping[Task, frozenset[str]] = {
    "yesno": frozenset({"source", "target"}),
    "mc": frozenset({"source", "options"}),
    "count": frozenset({"source"}),
    "list": frozenset({"source"}),
}
_BLOCK_FIELDS: Mapping[str, frozenset[str]] = {
    "title": frozenset({"title"}),
    "authors": frozenset({"authors"}),
    "published_venue_date": frozenset({"venue", "date"}),
    "published_venue": frozenset({"venue"}),
    "published_date": frozenset({"date"}),
    "arxiv_date": frozenset({"date"}),
    "arxiv": frozenset(),
    "references": frozenset(),
    "reference_authors_source": frozenset({"authors", "year", "title", "source"}),
    "reference_authors": frozenset({"authors", "year", "title"}),
    "reference_source": frozenset({"year", "title", "source"}),
    "reference_bare": frozenset({"year", "title"}),
    "source_arxiv_id": frozenset({"arxiv_id"}),
}
_BLOCK_STRINGS = ("author_separator", "no_year", "source_arxiv")
# The edge-list rendering (``prompts/edges/``): its own system prompts and questions, which name
# papers by id; the user template and the format reminders are shared with the APA rendering.
# Listed here rather than derived from TASKS, so a task added later is an error for this
# rendering (no question template) instead of a missing file for every prompt set.
EDGE_TASKS: tuple[Task, ...] = ("yesno", "mc", "count")
_EDGE_FIELDS = frozenset({"citing", "cited"})
# The tasks typed as ``Task`` (``formats.TASKS`` is declared ``tuple[str, ...]``): the question
# templates are listed for every task, in the same order.
_TASKS: tuple[Task, ...] = tuple(_QUESTION_FIELDS)


@dataclass(frozen=True)
class Template:
    """``text`` split into literals and placeholders: ``literals[0] f0 literals[1] f1 ... literals[n]``."""

    name: str
    text: str
    literals: tuple[str, ...]
    fields: tuple[str, ...]

    @classmethod
    def parse(cls, name: str, text: str, allowed: frozenset[str]) -> Template:
        literals: list[str] = []
        fields: list[str] = []
        pos = 0
        for m in _PLACEHOLDER.finditer(text):
            literals.append(text[pos : m.start()])
            fields.append(m.group(1))
            pos = m.end()
        literals.append(text[pos:])
        if set(fields) != allowed or len(fields) != len(set(fields)):
            raise GraphNIAHError(
                f"prompt template {name}: placeholders {sorted(fields)} must be exactly {sorted(allowed)}, each once"
            )
        if any("{" in lit or "}" in lit for lit in literals):
            raise GraphNIAHError(f"prompt template {name}: stray brace outside a {{placeholder}}")
        if any(lit == "" for lit in literals[1:-1]):
            raise GraphNIAHError(f"prompt template {name}: two placeholders touch; put literal text between them")
        return cls(name, text, tuple(literals), tuple(fields))

    def fill(self, values: Mapping[str, str]) -> str:
        """The template with every placeholder replaced (values are inserted verbatim, never re-parsed)."""
        out = [self.literals[0]]
        for field, lit in zip(self.fields, self.literals[1:], strict=True):
            out.append(values[field])
            out.append(lit)
        return "".join(out)

    def readings(self, text: str, patterns: Mapping[str, re.Pattern[str]]) -> list[dict[str, str]]:
        """Every assignment of placeholder values under which ``fill`` would give exactly ``text``.

        A value must fully match its field's pattern. The search tries each occurrence of the
        literal that follows a placeholder, so its cost is the product of those occurrence counts:
        tiny for one-line templates, and 1x1 for the user message (its literals are headings).
        """
        if not text.startswith(self.literals[0]):
            return []
        found: list[dict[str, str]] = []
        values: dict[str, str] = {}
        n = len(self.fields)

        def walk(i: int, pos: int) -> None:
            if i == n:
                if pos == len(text):
                    found.append(dict(values))
                return
            field, lit, pattern = self.fields[i], self.literals[i + 1], patterns[self.fields[i]]
            if i == n - 1:  # the last literal must end the text
                ends = [len(text) - len(lit)] if text.endswith(lit) and len(text) - len(lit) >= pos else []
            else:
                ends = []
                e = text.find(lit, pos)
                while e != -1:
                    ends.append(e)
                    e = text.find(lit, e + 1)
            for e in ends:
                if pattern.fullmatch(text, pos, e):
                    values[field] = text[pos:e]
                    walk(i + 1, e + len(lit))
                    del values[field]

        walk(0, len(self.literals[0]))
        return found


@dataclass(frozen=True)
class BlockTemplates:
    """Lines of a paper block and of a reference entry (``prompts/block.yaml``)."""

    title: Template
    authors: Template
    published_venue_date: Template
    published_venue: Template
    published_date: Template
    arxiv_date: Template
    arxiv: Template
    references: Template
    reference_authors_source: Template
    reference_authors: Template
    reference_source: Template
    reference_bare: Template
    source_arxiv_id: Template
    author_separator: str
    no_year: str
    source_arxiv: str

    @property
    def publication_lines(self) -> tuple[Template, ...]:
        """The publication-line variants, most specific first (the order a reader tries them)."""
        return (self.published_venue_date, self.published_venue, self.published_date, self.arxiv_date, self.arxiv)

    @property
    def reference_lines(self) -> tuple[Template, ...]:
        return (self.reference_authors_source, self.reference_authors, self.reference_source, self.reference_bare)


@dataclass(frozen=True)
class EdgeTemplates:
    """The edge-list rendering's templates (``prompts/edges/``): papers are ids, citations are lines.

    ``edge`` is one citation line (``{citing}``, ``{cited}``); the questions take the same
    placeholders as the APA ones with ids for titles, and an option line is ``{letter}``, ``{id}``.
    """

    system: Mapping[Task, str]
    questions: Mapping[Task, Template]
    mc_option: Template
    mc_none: Template
    edge: Template


@dataclass(frozen=True)
class QuestionTemplates:
    """The question templates of one rendering; ``option_field`` names a candidate in ``mc_option``."""

    render: Render
    questions: Mapping[Task, Template]
    mc_option: Template
    mc_none: Template
    option_field: str


AnswerStyle = Literal["latex", "tags", "line", "bare"]
OptionLabels = Literal["letters", "digits", "parens"]
ANSWER_STYLES: tuple[str, ...] = get_args(AnswerStyle)
OPTION_LABELS: tuple[str, ...] = get_args(OptionLabels)
DEFAULT_TEMPLATE = "default"
_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


@dataclass(frozen=True)
class AnswerFormat:
    r"""How a template set asks for the answer, and how its options are labelled.

    ``style``: ``latex`` (the last ``\answer{...}`` block), ``tags`` (the last ``<answer>...</answer>``),
    ``line`` (what follows the last line that starts with ``Answer:``) or ``bare`` (the reply is the
    answer). ``labels``: multiple-choice options shown as ``A``-``D`` (``letters``), ``1``-``4``
    (``digits``) or ``(a)``-``(d)`` (``parens``). An example's stored answer is always the letter;
    the label is only how the prompt (and the reply) writes it.
    """

    style: AnswerStyle = "latex"
    labels: OptionLabels = "letters"

    def label(self, letter: str) -> str:
        """How the prompt writes option ``letter`` (``A``, ``B``, ...)."""
        i = _LETTERS.index(letter)
        if self.labels == "digits":
            return str(i + 1)
        if self.labels == "parens":
            return f"({letter.lower()})"
        return letter

    def letter(self, label: str) -> str | None:
        """The option letter a written label stands for (None when it is no label of this set)."""
        if self.labels == "digits":
            n = int(label) if label.isascii() and label.isdigit() else 0
            return _LETTERS[n - 1] if 1 <= n <= len(_LETTERS) else None
        text = label.strip("()") if self.labels == "parens" else label
        return text.upper() if len(text) == 1 and text.upper() in _LETTERS else None


DEFAULT_FORMAT = AnswerFormat()


@dataclass(frozen=True)
class PromptSet:
    """All templates of one template set, validated, with the hash of their bytes.

    ``name`` is the set's name (``default`` for the files at the top of ``prompts/``), ``answer`` the
    answer format it asks for.
    """

    directory: Path
    hash: str
    system: Mapping[Task, str]
    questions: Mapping[Task, Template]
    mc_option: Template
    mc_none: Template
    reminders: Mapping[Task, str]
    user: Template
    block: BlockTemplates
    edges: EdgeTemplates
    name: str = DEFAULT_TEMPLATE
    answer: AnswerFormat = DEFAULT_FORMAT

    def asking(self, render: Render) -> QuestionTemplates:
        """The question templates of a rendering: titles for ``apa``, ids for ``edges``."""
        if render == "edges":
            e = self.edges
            return QuestionTemplates(render, e.questions, e.mc_option, e.mc_none, "id")
        return QuestionTemplates(render, self.questions, self.mc_option, self.mc_none, "title")


def default_prompts_dir() -> Path:
    """``$GRAPHNIAH_PROMPTS`` if set, else the template set shipped in the package."""
    env = os.environ.get(PROMPTS_ENV)
    return Path(env) if env else resource_dir("prompts")


def _files() -> list[str]:
    """Relative paths of every file that is part of the template set (and of its hash)."""
    names = [f"system/{t}.txt" for t in TASKS] + [f"question/{t}.txt" for t in TASKS]
    names += ["question/mc_option.txt", "question/mc_none.txt"]
    names += [f"reminder/{t}.txt" for t in TASKS] + ["user.txt", "block.yaml"]
    names += [f"edges/system/{t}.txt" for t in EDGE_TASKS] + [f"edges/question/{t}.txt" for t in EDGE_TASKS]
    names += ["edges/question/mc_option.txt", "edges/question/mc_none.txt", "edges/edge.txt"]
    return names


def _read(directory: Path, rel: str) -> str:
    path = directory / rel
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise GraphNIAHError(
            f"prompt template {path} is missing (set {PROMPTS_ENV} to a complete prompts folder)"
        ) from None
    except UnicodeDecodeError:
        raise GraphNIAHError(f"prompt template {path} is not UTF-8 text") from None
    return text[:-1] if text.endswith("\n") else text  # an editor's final newline is not content


@functools.lru_cache(maxsize=8)
def _load(directory: str, signature: tuple[tuple[int, int] | None, ...]) -> PromptSet:
    """Load and validate; ``signature`` (file sizes and mtimes) only keys the cache, so an edit is seen."""
    d = Path(directory)
    return _build(d, {rel: _read(d, rel) for rel in _files()})


def _digest(raw: Mapping[str, str]) -> str:
    return sha256_bytes(canonical_json({rel: sha256_bytes(raw[rel].encode("utf-8")) for rel in raw}).encode("utf-8"))


def _block_templates(d: Path, text: str) -> BlockTemplates:
    try:
        spec = yaml.safe_load(text)
    except yaml.YAMLError as err:
        raise GraphNIAHError(f"prompt template {d / 'block.yaml'} is not valid YAML: {yaml_detail(err)}") from None
    expected = set(_BLOCK_FIELDS) | set(_BLOCK_STRINGS)
    if not isinstance(spec, dict) or set(spec) != expected or not all(isinstance(v, str) and v for v in spec.values()):
        got = sorted(spec) if isinstance(spec, dict) else type(spec).__name__
        raise GraphNIAHError(
            f"{d / 'block.yaml'}: needs exactly the non-empty string keys {sorted(expected)}, got {got}"
        )
    if any("\n" in v for v in spec.values()):
        raise GraphNIAHError(f"{d / 'block.yaml'}: every template must be a single line")
    templates = {k: Template.parse(f"block.yaml:{k}", spec[k], f) for k, f in _BLOCK_FIELDS.items()}
    return BlockTemplates(
        title=templates["title"],
        authors=templates["authors"],
        published_venue_date=templates["published_venue_date"],
        published_venue=templates["published_venue"],
        published_date=templates["published_date"],
        arxiv_date=templates["arxiv_date"],
        arxiv=templates["arxiv"],
        references=templates["references"],
        reference_authors_source=templates["reference_authors_source"],
        reference_authors=templates["reference_authors"],
        reference_source=templates["reference_source"],
        reference_bare=templates["reference_bare"],
        source_arxiv_id=templates["source_arxiv_id"],
        author_separator=spec["author_separator"],
        no_year=spec["no_year"],
        source_arxiv=spec["source_arxiv"],
    )


def _build(d: Path, raw: Mapping[str, str], name: str = DEFAULT_TEMPLATE, answer: AnswerFormat = DEFAULT_FORMAT) -> PromptSet:
    """The validated set of the files ``raw`` (relative path -> text) read from ``d``."""
    questions = {t: Template.parse(f"question/{t}.txt", raw[f"question/{t}.txt"], _QUESTION_FIELDS[t]) for t in _TASKS}
    for t, q in questions.items():
        if "\n\n" in q.text:
            raise GraphNIAHError(f"prompt template question/{t}.txt: a question may not contain a blank line")
    reminders = {t: raw[f"reminder/{t}.txt"] for t in _TASKS}
    if len(set(reminders.values())) != len(reminders):
        raise GraphNIAHError(f"prompt templates {d / 'reminder'}: each task needs its own reminder (the reader tells the task by it)")
    return PromptSet(
        directory=d,
        hash=_digest(raw),
        system=MappingProxyType({t: raw[f"system/{t}.txt"] for t in _TASKS}),
        questions=MappingProxyType(questions),
        mc_option=Template.parse(
            "question/mc_option.txt", raw["question/mc_option.txt"], frozenset({"letter", "title"})
        ),
        mc_none=Template.parse("question/mc_none.txt", raw["question/mc_none.txt"], frozenset({"letter"})),
        reminders=MappingProxyType(reminders),
        user=Template.parse("user.txt", raw["user.txt"], frozenset({"question", "context", "format_reminder"})),
        block=_block_templates(d, raw["block.yaml"]),
        edges=_edge_templates(raw),
        name=name,
        answer=answer,
    )


def _edge_templates(raw: Mapping[str, str]) -> EdgeTemplates:
    """The ``edges/`` templates, validated like the APA ones; a system prompt must differ from the APA
    one of its task, since the reader tells the two renderings apart by it."""
    questions = {
        t: Template.parse(f"edges/question/{t}.txt", raw[f"edges/question/{t}.txt"], _QUESTION_FIELDS[t]) for t in EDGE_TASKS
    }
    for t, q in questions.items():
        if "\n\n" in q.text:
            raise GraphNIAHError(f"prompt template edges/question/{t}.txt: a question may not contain a blank line")
        if raw[f"edges/system/{t}.txt"] == raw[f"system/{t}.txt"]:
            raise GraphNIAHError(f"prompt template edges/system/{t}.txt must differ from system/{t}.txt")
    edge = Template.parse("edges/edge.txt", raw["edges/edge.txt"], _EDGE_FIELDS)
    if "\n" in edge.text:
        raise GraphNIAHError("prompt template edges/edge.txt: a citation line must be a single line")
    return EdgeTemplates(
        system=MappingProxyType({t: raw[f"edges/system/{t}.txt"] for t in EDGE_TASKS}),
        questions=MappingProxyType(questions),
        mc_option=Template.parse("edges/question/mc_option.txt", raw["edges/question/mc_option.txt"], frozenset({"letter", "id"})),
        mc_none=Template.parse("edges/question/mc_none.txt", raw["edges/question/mc_none.txt"], frozenset({"letter"})),
        edge=edge,
    )


def load_prompts(directory: str | Path | None = None) -> PromptSet:
    """The validated template set of ``directory`` (default: :func:`default_prompts_dir`).

    Cached per folder and file state: a template edited while the process runs is loaded again.
    """
    d = Path(directory if directory is not None else default_prompts_dir()).resolve()
    signature: list[tuple[int, int] | None] = []
    for rel in _files():
        try:
            st = (d / rel).stat()
            signature.append((st.st_mtime_ns, st.st_size))
        except OSError:
            signature.append(None)  # reported by _read with the file's name
    return _load(str(d), tuple(signature))


def prompts_hash(directory: str | Path | None = None) -> str:
    """Hash of the template set, as recorded in example recipes."""
    return load_prompts(directory).hash


# ---------------------------------------------------------------------------------- named sets

SETS_FOLDER = "sets"
SET_FILE = "set.yaml"
_NAME = re.compile(r"[a-z0-9][a-z0-9_-]{0,39}")


def _set_required() -> list[str]:
    """What every named set must word itself: each task's system message, question and reminder."""
    return [f"{kind}/{t}.txt" for kind in ("system", "question", "reminder") for t in _TASKS]


# What a named set may word differently as well; everything else is the default set's files.
_SET_OPTIONAL = ("question/mc_option.txt", "question/mc_none.txt", "user.txt")


def template_names(directory: str | Path | None = None) -> tuple[str, ...]:
    """The names of the template sets of a prompts folder: ``default``, then ``sets/*`` by name."""
    d = Path(directory if directory is not None else default_prompts_dir())
    folder = d / SETS_FOLDER
    named = sorted(p.name for p in folder.iterdir() if (p / SET_FILE).is_file()) if folder.is_dir() else []
    return (DEFAULT_TEMPLATE, *named)


def _answer_format(path: Path) -> AnswerFormat:
    try:
        spec = yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as err:
        raise GraphNIAHError(f"{path} is not valid YAML: {yaml_detail(err)}") from None
    if not isinstance(spec, dict) or not set(spec) <= {"answer", "labels", "description"} or "answer" not in spec:
        raise GraphNIAHError(f"{path}: needs the keys answer ({' | '.join(ANSWER_STYLES)}), optionally labels "
                             f"({' | '.join(OPTION_LABELS)}) and description")
    style, labels = spec["answer"], spec.get("labels", "letters")
    if style not in ANSWER_STYLES:
        raise GraphNIAHError(f"{path}: answer must be one of {', '.join(ANSWER_STYLES)}, got {style!r}")
    if labels not in OPTION_LABELS:
        raise GraphNIAHError(f"{path}: labels must be one of {', '.join(OPTION_LABELS)}, got {labels!r}")
    return AnswerFormat(style, labels)


def load_template(name: str = DEFAULT_TEMPLATE, directory: str | Path | None = None) -> PromptSet:
    """The template set ``name`` of a prompts folder (default: :func:`default_prompts_dir`).

    Parameters
    ----------
    name : str
        ``default`` (the files at the top of the folder: :func:`load_prompts`) or the name of a
        folder under ``sets/``.
    directory : path, optional
        The prompts folder.

    Returns
    -------
    PromptSet
        The set, its hash covering every file it renders with and its ``set.yaml``.

    Raises
    ------
    GraphNIAHError
        When the set does not exist (the error lists the sets there are) or a file is missing or invalid.
    """
    base = load_prompts(directory)
    if name == DEFAULT_TEMPLATE:
        return base
    folder = base.directory / SETS_FOLDER / name
    if not _NAME.fullmatch(name) or not (folder / SET_FILE).is_file():
        raise GraphNIAHError(f"no template set {name!r} in {base.directory} (known: {', '.join(template_names(base.directory))})")
    rels = [SET_FILE, *_set_required(), *_SET_OPTIONAL]
    signature: list[tuple[int, int] | None] = []
    for rel in rels:
        try:
            st = (folder / rel).stat()
            signature.append((st.st_mtime_ns, st.st_size))
        except OSError:
            signature.append(None)
    return _load_set(str(base.directory), name, tuple(signature), base.hash)


@functools.lru_cache(maxsize=32)
def _load_set(directory: str, name: str, signature: tuple[tuple[int, int] | None, ...], base_hash: str) -> PromptSet:
    """A named set over the default files of ``directory`` (``signature`` and ``base_hash`` key the cache)."""
    d = Path(directory)
    folder = d / SETS_FOLDER / name
    raw = {rel: _read(d, rel) for rel in _files()}
    for rel in _set_required():
        raw[rel] = _read(folder, rel)
    for rel in _SET_OPTIONAL:
        if (folder / rel).is_file():
            raw[rel] = _read(folder, rel)
    answer = _answer_format(folder / SET_FILE)
    raw[SET_FILE] = canonical_json({"answer": answer.style, "labels": answer.labels})
    return _build(d, raw, name, answer)


def load_all_templates(names: tuple[str, ...] | list[str] | None = None, directory: str | Path | None = None) -> dict[str, PromptSet]:
    """Every named set of a prompts folder (or those of ``names``), by name, checked to be told apart.

    A reply server and the reader tell an example's set by its system message, so no two sets may
    share one; that is checked here.
    """
    chosen = tuple(names) if names is not None else template_names(directory)
    sets = {n: load_template(n, directory) for n in chosen}
    seen: dict[str, str] = {}
    for n, pr in sets.items():
        for text in pr.system.values():
            if text in seen and seen[text] != n:
                raise GraphNIAHError(f"template sets {seen[text]} and {n} share a system message; each set must word its own")
            seen[text] = n
    return sets


def answer_format(template: str, directory: str | Path | None = None) -> AnswerFormat:
    """The answer format template set ``template`` asks for (:data:`DEFAULT_FORMAT` for ``default``)."""
    return DEFAULT_FORMAT if template == DEFAULT_TEMPLATE else load_template(template, directory).answer
