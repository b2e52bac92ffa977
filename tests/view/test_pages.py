"""The viewer's page cache key covers the source of every module a page depends on, found from the imports."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

import graphniah
from graphniah.text import title_key
from graphniah.view.pages import _code_hash, _has_word, page_code_files

PACKAGE = Path(graphniah.__file__).parent


def _copy(tmp_path: Path) -> Path:
    root = tmp_path / "graphniah"
    shutil.copytree(PACKAGE, root, ignore=shutil.ignore_patterns("__pycache__"))
    return root


def test_the_pages_depend_on_the_viewer_the_renderers_and_the_formats():
    names = {p.relative_to(PACKAGE).as_posix() for p in page_code_files()}
    # the needle map finds blocks by the templates and positions (APA blocks by their title line, edge lists rendered again)
    assert {"view/pages.py", "view/data.py", "view/forest.py", "view/needles.py", "text/prompts.py",
            "text/positions.py", "text/edgelist.py", "text/textcheck.py",
            "formats/examples.py", "formats/journal.py", "scoring.py"} <= names
    # the graph stage and the ingest stage make no page
    assert not any(n.startswith(("graph/", "ingest/", "cli/")) for n in names)


def test_a_change_to_any_module_a_page_imports_changes_the_key(tmp_path):
    root = _copy(tmp_path)
    before = _code_hash(root)
    assert _code_hash(root) == before  # the same code, the same key
    files = page_code_files(root)
    for path in files:
        original = path.read_bytes()
        path.write_bytes(original + b"\n# changed\n")
        _code_hash.cache_clear()
        assert _code_hash(root) != before, path
        path.write_bytes(original)
    _code_hash.cache_clear()
    assert _code_hash(root) == before


def test_a_module_no_page_imports_leaves_the_key_alone(tmp_path):
    root = _copy(tmp_path)
    before = _code_hash(root)
    (root / "ingest" / "build.py").write_bytes((root / "ingest" / "build.py").read_bytes() + b"\n# changed\n")
    _code_hash.cache_clear()
    assert _code_hash(root) == before


def test_distractor_paper_blocks_are_not_drawn_in_a_component_colour():
    """The needle map draws needles in their component's colour (the source's is the palette's first, a blue)
    and paper blocks of distractor components in the stylesheet's colour: that colour must be told apart
    from every component colour, by hue, not only by its hex string."""
    import colorsys
    import re
    from importlib import resources

    from graphniah.view.forest import PALETTE

    css = resources.files("graphniah.view").joinpath("static", "view.css").read_text(encoding="utf-8")
    paper = re.search(r"svg\.needles rect\.paper \{ fill: (#[0-9a-fA-F]{6}); \}", css)
    bar = re.search(r"\.prompt \.r\.pb \{[^}]*border-left-color: (#[0-9a-fA-F]{6});", css)
    assert paper and bar and paper.group(1).lower() == bar.group(1).lower()  # the map and the prompt agree

    def hue(colour: str) -> float:
        r, g, b = (int(colour[i:i + 2], 16) / 255 for i in (1, 3, 5))
        return 360 * colorsys.rgb_to_hls(r, g, b)[0]

    def saturated(colour: str) -> bool:
        r, g, b = (int(colour[i:i + 2], 16) / 255 for i in (1, 3, 5))
        return colorsys.rgb_to_hls(r, g, b)[2] > 0.15

    for colour in (c for c in PALETTE if saturated(c)):  # the palette's grey has no hue to compare
        gap = abs(hue(paper.group(1)) - hue(colour))
        assert min(gap, 360 - gap) >= 25, (paper.group(1), colour)


@pytest.mark.parametrize(("text", "word"), [
    ("graph theory", "graph"), ("graph theory", "theory"), ("graphs of graph", "graph"), ("subgraph theory", "graph"),
    ("graph", "graph"), ("a graphy graph!", "graph"), ("graphgraph", "graph"), ("(graph)x", "graph"), ("x-graph", "graph"),
])
def test_a_word_is_found_whole_wherever_it_stands(text: str, word: str) -> None:
    """Whole words of a title key, at the start, the end or inside a text: the words the title key of the
    text itself holds (it splits on white space and punctuation, as the search does)."""
    assert _has_word(text, word) == (word in title_key(text).split(" "))


# ---- the contracts, one by one (after the third audit) ---------------------------------------------


def test_a_start_module_without_a_source_file_is_refused_and_the_list_is_in_path_order(tmp_path):
    from graphniah.errors import GraphNIAHError

    with pytest.raises(GraphNIAHError) as err:
        page_code_files(PACKAGE, "graphniah.view.nowhere")
    assert str(err.value) == f"module graphniah.view.nowhere has no source file under {PACKAGE}"
    files = page_code_files()
    assert files == sorted(files) and len(set(files)) == len(files) and PACKAGE / "view" / "pages.py" in files
    # a package's own __init__ is its source file: a start at a package is followed through its imports
    assert PACKAGE / "view" / "__init__.py" in page_code_files(PACKAGE, "graphniah.view")


def test_the_needle_map_data_is_each_span_s_first_token_length_and_title():
    from graphniah.view.needles import NeedleMap, Span
    from graphniah.view.pages import needle_map_data

    spans = (Span("context", 0, 10, 0, 4), Span("needle", 10, 30, 4, 9, 7, "A title"), Span("paper", 30, 40, 13, 2),
             Span("paper", 40, 45, 15, 1, None, "Other"), Span("question", 45, 50, 16, 5))
    nm = NeedleMap(21, spans, True, ())
    assert needle_map_data(nm) == {"total": 21, "tokens": [0, 4, 4, 9, 13, 2, 15, 1, 16, 5], "titles": [None, "A title", None, "Other", None],
                                   "blocks": 3}
