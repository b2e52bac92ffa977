"""The prompt template set: files, validation, hash, override, read-back, and own wording."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphniah.errors import GraphNIAHError
from graphniah.formats import TASKS
from graphniah.text.prompts import PROMPTS_ENV, default_prompts_dir, load_prompts, prompts_hash

REPO = Path(__file__).resolve().parents[2]
PROMPTS = REPO / "prompts"
PAPER = REPO.parent / "shared" / "seeds" / "graphniah-paper.txt"
FIELD = re.compile(r"\S(?:[^\n]*\S)?")


def test_default_folder_is_the_repository_prompts_folder(monkeypatch) -> None:
    monkeypatch.delenv(PROMPTS_ENV, raising=False)
    assert default_prompts_dir() == PROMPTS
    for rel in ["user.txt", "block.yaml", "README.md"] + [
        f"{d}/{t}.txt" for d in ("system", "question", "reminder") for t in TASKS
    ]:
        assert (PROMPTS / rel).is_file(), rel


def test_content_of_the_templates() -> None:
    pr = load_prompts()
    for task in TASKS:
        system = pr.system[task]
        assert "'cites'" in system and "'cited_by'" in system and "CONTEXT" in system and "\\answer{" in system
        assert "\\answer{" in pr.reminders[task]
    assert "\\answer{YES}" in pr.system["yesno"] and "\\answer{NO}" in pr.reminders["yesno"]
    # the identity rule of counting: same title + same author set; case, punctuation, order, repeats ignored
    count = pr.system["count"]
    for phrase in (
        "identical title",
        "set of authors",
        "letter case",
        "punctuation",
        "order",
        "more than once",
        "not part of the count",
    ):
        assert phrase in count, phrase
    assert "once" in pr.questions["count"].text and "starting paper" in pr.questions["count"].text
    assert pr.block.title.fill({"title": "X"}) == "Title: X."
    assert pr.block.arxiv_date.fill({"date": "May 1, 2026"}) == "Uploaded to arXiv on May 1, 2026."


def _ngrams(text: str, n: int) -> set[tuple[str, ...]]:
    words = re.findall(r"[a-z0-9_]+", text.lower())
    return {tuple(words[i : i + n]) for i in range(len(words) - n + 1)}


def _prompt_files() -> list[Path]:
    """Every file of the template folder but compiled bytecode (importing graphniah.prompts writes it)."""
    return [f for f in sorted(PROMPTS.rglob("*")) if f.is_file() and "__pycache__" not in f.parts]


def test_templates_do_not_reuse_the_papers_sentences() -> None:
    if not PAPER.is_file():
        pytest.skip("paper text not available")
    paper = PAPER.read_text(encoding="utf-8")
    # The relationship names are the task's vocabulary, not prose: the only 6-word run allowed in common.
    allowed = {("one", "or", "more", "cites", "or", "cited_by")}
    ngrams = _ngrams(paper, 6)
    for f in _prompt_files():
        if f.name != "README.md":
            shared = (_ngrams(f.read_text(encoding="utf-8"), 6) & ngrams) - allowed
            assert not shared, (f, sorted(shared)[:3])
    spot = [
        "You are a careful research assistant",
        "Treat entities and relationships not stated",
        "Do not write more than one answer block",
        "None of these targets is reachable from the source",
        "Using only the relationships described in the context",
        "You may give brief reasoning first",
        "Paper mentions with the same title",
    ]
    every = "\n".join(f.read_text(encoding="utf-8") for f in _prompt_files())
    for phrase in spot:
        assert phrase in paper  # the spot checks are real sentences of the paper...
        assert phrase.lower() not in every.lower()  # ...and none of them is in a template


def _copy(tmp_path: Path) -> Path:
    d = tmp_path / "prompts"
    shutil.copytree(PROMPTS, d)
    return d


def test_hash_is_stable_and_sees_every_change(tmp_path: Path, monkeypatch) -> None:
    d = _copy(tmp_path)
    assert prompts_hash(d) == prompts_hash(PROMPTS)
    f = d / "reminder" / "mc.txt"
    f.write_text(f.read_text(encoding="utf-8").replace("pick", "choose"), encoding="utf-8")
    d2 = _copy(tmp_path / "second")
    assert prompts_hash(d2) == prompts_hash(PROMPTS)
    changed = load_prompts(d)
    assert changed.hash != prompts_hash(PROMPTS) and "choose" in changed.reminders["mc"]
    monkeypatch.setenv(PROMPTS_ENV, str(d))
    assert load_prompts().hash == changed.hash
    assert (tmp_path / "prompts" / "README.md").exists()  # README is not part of the set: editing it changes nothing
    (d2 / "README.md").write_text("other", encoding="utf-8")
    assert prompts_hash(d2) == prompts_hash(PROMPTS)


@pytest.mark.parametrize(
    ("rel", "old", "new", "match"),
    [
        ("question/yesno.txt", '"{target}"', '"the target"', "placeholders"),
        ("question/count.txt", "{source}", "{source}{source}", "placeholders"),
        ("question/count.txt", "{source}", "{sauce}", "placeholders"),
        ("user.txt", "{question}", "{question}{context}", "placeholders"),
        ("block.yaml", '({year}). {title}. {source}."', '({year}){title}{source}."', "touch"),
        ("block.yaml", 'no_year: "n.d."', "", "non-empty string keys"),
        ("block.yaml", 'title: "Title: {title}."', 'title: "Title: {title}.\\n"', "single line"),
        ("question/mc.txt", "\n{options}", "\n\n{options}", "blank line"),
        ("user.txt", "=== QUESTION ===", "=== {QUESTION} ===", "placeholders"),
    ],
)
def test_broken_templates_are_refused(tmp_path: Path, rel: str, old: str, new: str, match: str) -> None:
    d = _copy(tmp_path)
    f = d / rel
    text = f.read_text(encoding="utf-8")
    assert old in text
    f.write_text(text.replace(old, new, 1), encoding="utf-8")
    with pytest.raises(GraphNIAHError, match=match):
        load_prompts(d)


def test_missing_template_file_is_named(tmp_path: Path) -> None:
    d = _copy(tmp_path)
    (d / "system" / "count.txt").unlink()
    with pytest.raises(GraphNIAHError, match=r"system/count\.txt is missing"):
        load_prompts(d)


def test_readings_enumerate_every_split() -> None:
    b = load_prompts().block
    pats = {k: FIELD for k in ("authors", "year", "title", "source")}
    got = b.reference_authors_source.readings("- A (2025). X. Y. Z.", pats)
    assert [(r["title"], r["source"]) for r in got] == [("X", "Y. Z"), ("X. Y", "Z")]
    assert b.reference_authors.readings("- A (2025). X. Y. Z.", pats) == [
        {"authors": "A", "year": "2025", "title": "X. Y. Z"}
    ]
    assert b.reference_authors.readings("- A (2025). X. Y. Z", pats) == []
    assert b.title.readings("Title: Foo.", {"title": FIELD}) == [{"title": "Foo"}]
    assert b.title.readings("Title: Foo", {"title": FIELD}) == []


_text = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\n"), min_size=1, max_size=30).filter(
    lambda s: FIELD.fullmatch(s) is not None
)


@settings(max_examples=200, deadline=None)
@given(authors=_text, year=st.from_regex(r"\d{4}", fullmatch=True), title=_text, source=_text)
def test_fill_then_read_contains_the_filled_values(authors: str, year: str, title: str, source: str) -> None:
    """Reading back is exhaustive: the values a line was filled with are always among its readings."""
    b = load_prompts().block
    values = {"authors": authors, "year": year, "title": title, "source": source}
    line = b.reference_authors_source.fill(values)
    assert values in b.reference_authors_source.readings(line, dict.fromkeys(values, FIELD))


# ------------------------------------------------------------------------------ named template sets


def test_the_default_set_is_the_top_level_folder_unchanged() -> None:
    from graphniah.atomic import canonical_json, sha256_bytes
    from graphniah.text.prompts import DEFAULT_FORMAT, load_template

    pr = load_template("default")
    assert pr is load_prompts() and pr.name == "default" and pr.answer == DEFAULT_FORMAT
    # The hash is computed from the top-level files exactly as before named sets existed: one sha256
    # per file (final newline dropped) under its relative path; sets/ is not part of it.
    files = sorted(p for p in PROMPTS.rglob("*") if p.is_file() and p.suffix in (".txt", ".yaml")
                   and "sets" not in p.relative_to(PROMPTS).parts)
    texts = {p.relative_to(PROMPTS).as_posix(): p.read_text(encoding="utf-8").removesuffix("\n") for p in files}
    digest = sha256_bytes(canonical_json({k: sha256_bytes(v.encode()) for k, v in texts.items()}).encode())
    assert pr.hash == digest


def test_each_task_has_six_wordings_that_vary_what_the_issue_lists() -> None:
    from graphniah.text.prompts import ANSWER_STYLES, OPTION_LABELS, load_all_templates, template_names

    names = template_names()
    assert len(names) >= 6 and names[0] == "default"
    sets = load_all_templates()  # also checks that no two sets share a system message
    for task in TASKS:
        for part in ("system", "question", "reminder"):
            texts = {n: (pr.system[task] if part == "system" else pr.reminders[task] if part == "reminder"
                         else pr.questions[task].text) for n, pr in sets.items()}
            assert len(set(texts.values())) == len(sets), (task, part)
    assert {pr.answer.style for pr in sets.values()} == set(ANSWER_STYLES)
    assert {pr.answer.labels for pr in sets.values()} == set(OPTION_LABELS)
    order = {pr.user.fields.index("question") < pr.user.fields.index("context") for pr in sets.values()}
    assert order == {True, False}  # the question before the papers in some sets, after them in others
    lengths = [len(pr.system["yesno"]) for pr in sets.values()]
    assert max(lengths) > 2.5 * min(lengths)  # terse and detailed instructions
    # Every set asks about the same papers: the blocks and the edge-list rendering are the default's.
    default = sets["default"]
    assert all(pr.block == default.block and pr.edges.edge == default.edges.edge
               and dict(pr.edges.system) == dict(default.edges.system) for pr in sets.values())


def test_a_set_says_its_answer_format_in_its_own_words() -> None:
    from graphniah.text.normalize import write_answer
    from graphniah.text.prompts import load_all_templates

    for name, pr in load_all_templates().items():
        example = write_answer("yesno", "YES", pr.answer).split("\n")[-1]
        # The reply a set asks for is spelled out in its system message or its reminder.
        marker = {"latex": "\\answer{", "tags": "<answer>", "line": "Answer:", "bare": "YES"}[pr.answer.style]
        assert marker in pr.system["yesno"] and marker in example, name


def test_sets_are_loaded_from_the_prompts_folder_and_hash_their_files(tmp_path: Path) -> None:
    from graphniah.text.prompts import load_template, template_names

    d = _copy(tmp_path)
    assert template_names(d) == template_names(PROMPTS)
    assert load_template("tagged", d).hash == load_template("tagged").hash != load_prompts().hash
    f = d / "sets" / "tagged" / "reminder" / "mc.txt"
    f.write_text(f.read_text(encoding="utf-8").replace("chosen", "picked"), encoding="utf-8")
    changed = load_template("tagged", d)
    assert changed.hash != load_template("tagged").hash and "picked" in changed.reminders["mc"]
    assert load_prompts(d).hash == load_prompts().hash  # a set's file is no part of the default set
    block = d / "block.yaml"  # the default's files a set does not word itself are part of its hash
    block.write_text(block.read_text(encoding="utf-8").replace('"References:"', '"Cited works:"'), encoding="utf-8")
    assert load_template("brief", d).hash != load_template("brief").hash


@pytest.mark.parametrize(
    ("edit", "match"),
    [
        (lambda d: (d / "sets" / "plain" / "set.yaml").write_text("answer: morse\n", encoding="utf-8"), "answer must be one of"),
        (lambda d: (d / "sets" / "plain" / "set.yaml").write_text("answer: line\nlabels: roman\n", encoding="utf-8"), "labels must be"),
        (lambda d: (d / "sets" / "plain" / "set.yaml").write_text("[", encoding="utf-8"), "not valid YAML"),
        (lambda d: (d / "sets" / "plain" / "question" / "count.txt").unlink(), "is missing"),
        (lambda d: (d / "sets" / "plain" / "reminder" / "count.txt").write_text(
            (d / "sets" / "plain" / "reminder" / "mc.txt").read_text(encoding="utf-8"), encoding="utf-8"), "its own reminder"),
        (lambda d: (d / "sets" / "plain" / "question" / "yesno.txt").write_text("Is {target} reachable?", encoding="utf-8"),
         "placeholders"),
    ],
)
def test_a_broken_set_is_refused_with_its_file(tmp_path: Path, edit, match: str) -> None:
    from graphniah.text.prompts import load_template

    d = _copy(tmp_path)
    edit(d)
    with pytest.raises(GraphNIAHError, match=match):
        load_template("plain", d)


def test_an_unknown_set_names_the_known_ones(tmp_path: Path) -> None:
    from graphniah.text.prompts import load_all_templates, load_template

    with pytest.raises(GraphNIAHError, match=r"no template set 'nope'.*known: default, brief"):
        load_template("nope")
    d = _copy(tmp_path)
    shutil.copy(d / "sets" / "plain" / "system" / "mc.txt", d / "sets" / "formal" / "system" / "mc.txt")
    with pytest.raises(GraphNIAHError, match="share a system message"):
        load_all_templates(None, d)
