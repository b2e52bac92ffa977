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
