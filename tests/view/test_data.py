"""The data the viewer's pages are built from, checked against independent recomputations."""

from __future__ import annotations

import base64
import gzip
import json
import math
import os
import shutil

import networkx as nx
import numpy as np
import pytest
from typer.testing import CliRunner

from graphniah.cli import app
from graphniah.dataset.export import export_suite
from graphniah.errors import GraphNIAHError
from graphniah.formats.examples import option_letters, write_examples
from graphniah.layout import viewer_page_cache
from graphniah.report import build_report, load_suite, write_report
from graphniah.report.page import ViewerLinks
from graphniah.sampling.examples.render import render_component
from graphniah.text import load_tokenizer
from graphniah.view import build_viewer
from graphniah.view.data import PaperLookup, example_facts, load_answers
from graphniah.view.forest import forest_data, forest_layout, highlighted_path
from graphniah.view.needles import needle_map, prompt_rows, row_layout
from tests.view.conftest import SPECS


@pytest.fixture(scope="module")
def o200k():
    return load_tokenizer("o200k_base")


def _unpack(packed: str) -> str:
    """A string the site packed (``graphniah.view.pages.packed_text``), as the page unpacks it."""
    return gzip.decompress(base64.b64decode(packed)).decode()


def _js_payload(path) -> dict:
    """The object a data script hands to ``GraphNIAHView.<name>(...)``."""
    text = path.read_text(encoding="utf-8")
    start, end = text.index("(") + 1, text.rindex(")")
    return json.loads(text[start:end])


def test_layout_gives_every_paper_a_point_and_colours_components_apart(viewer_suite) -> None:
    for ex in viewer_suite.examples:
        lay = forest_layout(ex)
        assert lay.papers == ex.papers
        assert len(lay.x) == len(lay.y) == len(lay.component) == len(ex.papers)
        assert all(math.isfinite(v) for v in (*lay.x, *lay.y))
        assert all(0 <= x <= lay.width + 1e-6 for x in lay.x) and all(0 <= y <= lay.height + 1e-6 for y in lay.y)
        assert len({(round(x, 3), round(y, 3)) for x, y in zip(lay.x, lay.y, strict=True)}) == len(ex.papers)  # no two papers on one spot
        g = nx.Graph()
        g.add_nodes_from(ex.papers)
        g.add_edges_from(ex.edges)
        comps = list(nx.connected_components(g))
        colour = dict(zip(lay.papers, lay.component, strict=True))
        assert {frozenset(c) for c in comps} == {frozenset(p for p in ex.papers if colour[p] == k) for k in set(lay.component)}
        assert colour[ex.source] == 0  # the source's component comes first
        meta = viewer_suite.ctx.meta(viewer_suite.ctx.graph.vertex_of(list(ex.papers)))
        path = highlighted_path(ex)
        data = forest_data(ex, lay, meta, path)
        assert data["ids"] == list(ex.papers) and len(data["x"]) == len(data["y"]) == len(data["hover"]) == len(ex.papers)
        assert [(data["ids"][a], data["ids"][b]) for a, b in zip(data["edges"][::2], data["edges"][1::2], strict=True)] == list(ex.edges)
        assert [data["ids"][i] for i in data["path"]] == list(path)
        assert all(meta[p].title in h for p, h in zip(ex.papers, data["hover"], strict=True))
        # everything, marks included, inside the drawing
        assert all(data["mark_r"] <= x <= data["width"] - data["mark_r"] for x in data["x"])
        assert all(data["mark_r"] <= y <= data["height"] - data["mark_r"] for y in data["y"])


def test_layout_is_deterministic_and_keeps_leaf_clusters_apart(viewer_suite) -> None:
    """The layout is a function of the example: the same coordinates every time, whatever the order of
    other work; and no two papers closer than a node's diameter (the clusters and subtrees keep apart)."""
    for ex in viewer_suite.examples:
        lay = forest_layout(ex)
        assert forest_layout(ex.model_copy()) == lay
        xy = np.column_stack([lay.x, lay.y])
        gaps = np.hypot(*(xy[:, None, :] - xy[None, :, :]).transpose(2, 0, 1))
        np.fill_diagonal(gaps, np.inf)
        assert gaps.min() > 2 * 3.2, ex.id  # two node radii (forest._NODE_R) at the page's scale


def test_highlighted_path_is_the_true_source_target_path(viewer_suite) -> None:
    for ex in viewer_suite.examples:
        path = highlighted_path(ex)
        g = nx.Graph(list(ex.edges))
        if ex.task == "yesno" and ex.answer == "YES":
            truth = nx.shortest_path(g, ex.source, ex.targets[0])
        elif ex.task == "mc":
            truth = nx.shortest_path(g, ex.source, ex.targets[option_letters(4, False).index(ex.answer)])
        else:  # NO and counting: no target is reachable, nothing is highlighted
            truth = []
            if ex.task == "yesno":
                assert not nx.has_path(g, ex.source, ex.targets[0])
        assert list(path) == truth
        assert all(g.has_edge(a, b) for a, b in zip(path, path[1:], strict=False))
        if path:
            assert len(path) == ex.depth  # depth k: the source and the target are k papers apart on the path


def test_needle_offsets_equal_the_recounted_token_offsets_of_the_blocks(viewer_suite, o200k) -> None:
    lookup = PaperLookup(viewer_suite.snapshots)
    ctx = viewer_suite.ctx
    for ex in viewer_suite.examples:
        meta = lookup.meta(ex)
        assert meta is not None and set(meta) == set(ex.papers)
        nm = needle_map(ex, o200k, ctx.prompts, meta)
        text = ex.messages[-1].content
        assert nm.total_tokens == o200k.count(text) and nm.identified and nm.missing == ()
        citing = [p for p in ex.papers if any(a == p for a, _ in ex.edges)]
        blocks = dict(zip(citing, render_component(meta, ex.edges, ex.papers, ctx.prompts), strict=True))
        needles = [s for s in nm.spans if s.kind == "needle"]
        assert sorted(s.paper for s in needles) == sorted(citing)  # every needle block found, once
        for s in needles:
            assert text[s.start : s.end] == blocks[s.paper]
            assert s.token == o200k.count(text[: s.start])  # recounted from the start of the message
            assert s.tokens == o200k.count(blocks[s.paper])
        starts = [s.token for s in nm.spans if s.kind != "context"]
        assert starts == sorted(starts)
        (q,) = [s for s in nm.spans if s.kind == "question"]
        assert q.token == o200k.count(text[: q.start]) and "Paper" in text[q.start : q.end]
        others = [s for s in nm.spans if s.kind == "paper"]
        if ex.recipe.params["distractor"] == "disjoint-component":
            assert others and all(s.token == o200k.count(text[: s.start]) for s in others)
            assert all(text[s.start : s.end].startswith(f"Title: {s.title}") for s in others)
        else:
            assert not others
        # Without metadata every block-shaped run is still found, but needles are not told apart.
        blind = needle_map(ex, o200k, ctx.prompts, None)
        assert not blind.identified
        assert sorted(s.start for s in blind.blocks()) == sorted(s.start for s in nm.blocks())


def test_prompt_rows_rebuild_the_text_and_cover_the_spans(viewer_suite, o200k) -> None:
    ex = viewer_suite.examples[0]
    text = ex.messages[-1].content
    nm = needle_map(ex, o200k, viewer_suite.ctx.prompts, None)
    rows = prompt_rows(text, nm.spans, width=70)
    assert max(map(len, rows.rows)) <= 70
    lines: dict[int, str] = {}
    for start, row in zip(rows.row_start, rows.rows, strict=True):
        line_start = text.rfind("\n", 0, start) + 1
        lines[line_start] = lines.get(line_start, "") + row
    assert "\n".join(lines[k] for k in sorted(lines)) == text
    for ex_ in viewer_suite.examples:  # the site's arithmetic gives prompt_rows's count and span rows, at any width
        spans = needle_map(ex_, o200k, viewer_suite.ctx.prompts, None).spans
        for width in (1, 7, 70, 150):
            full, quick = prompt_rows(ex_.messages[-1].content, spans, width), row_layout(ex_.messages[-1].content, spans, width)
            assert (quick.count, quick.span_rows) == (len(full.rows), full.span_rows)
    for s, (r0, r1) in zip(nm.spans, rows.span_rows, strict=True):
        assert rows.row_start[r0] <= s.start < (rows.row_start[r0 + 1] if r0 + 1 < len(rows.rows) else len(text) + 1)
        assert rows.row_start[r1] < s.end <= (rows.row_start[r1 + 1] if r1 + 1 < len(rows.rows) else len(text))


def test_answers_follow_the_scoring_rule(viewer_suite) -> None:
    runs, answers = load_answers(viewer_suite.runs_dir)
    assert [r.label for r in runs] == ["model-a", "model-b"]
    for i, run in enumerate(runs):
        for eid, (outcome, extracted) in viewer_suite.expected[run.label].items():
            a = answers[(eid, i)]
            got = "failed" if a.status != "ok" else ("correct" if a.correct else "wrong")
            assert (got, a.extracted) == (outcome, extracted)
    failed = answers[(viewer_suite.examples[3].id, 1)]
    assert failed.error == "prompt too long for this model"


def test_view_cli_writes_a_site_that_matches_its_inputs(viewer_suite, tmp_path) -> None:
    out = tmp_path / "site"
    r = CliRunner().invoke(app, ["view", "--examples", str(viewer_suite.examples_path), "--runs", str(viewer_suite.runs_dir),
                                 "--root", str(viewer_suite.snapshots), "--out", str(out)])
    assert r.exit_code == 0, r.output
    assert str((out / "index.html").resolve()) in r.output
    index = _js_payload(out / "data.js")
    assert [row[0] for row in index["rows"]] == [ex.id for ex in viewer_suite.examples]
    labels = [run["label"] for run in index["runs"]]
    code = {"correct": "c", "wrong": "w", "failed": "f"}
    # each row's design columns, by the index's own column names, are the example's
    by_id = {ex.id: ex for ex in viewer_suite.examples}
    for row in index["rows"]:
        r, ex = dict(zip(index["columns"], row, strict=True)), by_id[row[0]]
        assert (r["task"], r["depth"], r["component_size"], r["context_length"], r["distractor"]) == (
            ex.task, ex.depth, ex.component_size, ex.recipe.params.context_length, ex.recipe.params.distractor)
    for row in index["rows"]:
        assert row[8] == "".join(code[viewer_suite.expected[label][row[0]][0]] for label in labels)
        assert row[9] == [viewer_suite.expected[label][row[0]][1] for label in labels]
    for ex in viewer_suite.examples:
        page = _js_payload(out / "examples" / f"{ex.id}.js")
        assert page["papers"] == len(ex.papers) and json.loads(_unpack(page["forest"]))["ids"] == list(ex.papers)
        assert page["answer"] == ex.answer and page["metadata"] and page["missing_blocks"] == 0
        # the prompt travels compressed, whole: the user message itself, and the row count its spans refer to
        text = _unpack(page["prompt"])
        assert text == ex.messages[-1].content and page["row_count"] == len(prompt_rows(text, []).rows)
        assert [a["run"] for a in page["runs"]] == labels
    # No network, no CDN: every script and style sheet is the site's own file.
    for name in ("index.html", "example.html"):
        html = (out / name).read_text()
        assert "http://" not in html and "https://" not in html and "//cdn" not in html
    assert "http" not in (out / "static" / "view.js").read_text().replace("http://www.w3.org", "")


def test_bad_inputs_give_clear_errors(viewer_suite, tmp_path) -> None:
    dup = tmp_path / "dup.jsonl"
    write_examples(dup, [viewer_suite.examples[1], viewer_suite.examples[1]])
    with pytest.raises(GraphNIAHError, match="appears twice"):
        build_viewer(dup, tmp_path / "site", snapshots=viewer_suite.snapshots)
    assert not (tmp_path / "site").exists()  # nothing half-written
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "x"}\n')
    with pytest.raises(GraphNIAHError, match=r"bad.jsonl:1"):
        build_viewer(bad, tmp_path / "site")
    with pytest.raises(GraphNIAHError, match="not a folder of run journals"):
        build_viewer(dup, tmp_path / "site", runs=tmp_path / "nope")
    r = CliRunner().invoke(app, ["view", "--out", str(tmp_path / "x")])
    assert r.exit_code != 0 and "exactly one of --examples" in str(r.exception or r.output)


def test_an_input_error_names_the_examples_file_and_a_site_may_go_under_new_folders(viewer_suite, tmp_path) -> None:
    """The error of a repeated id names the examples file given (not the unset dataset argument), word
    for word; a site whose folder's parents do not exist yet is written with its page cache beside it."""
    ex = viewer_suite.examples[1]
    dup = tmp_path / "dup.jsonl"
    write_examples(dup, [ex, ex])
    with pytest.raises(GraphNIAHError) as err:
        build_viewer(dup, tmp_path / "site", snapshots=viewer_suite.snapshots)
    assert str(err.value) == f"{dup}: example id {ex.id} appears twice"
    one = tmp_path / "one.jsonl"
    write_examples(one, [ex])
    out = tmp_path / "not" / "yet" / "site"
    files = build_viewer(one, out, snapshots=viewer_suite.snapshots)
    assert files.examples == 1 and (out / "examples" / f"{ex.id}.js").is_file()
    (cached,) = viewer_page_cache(out).iterdir()
    assert cached.name.startswith(f"{ex.id}.") and os.path.samefile(cached, out / "examples" / f"{ex.id}.js")


def test_the_site_takes_its_title_and_an_input_without_examples_is_refused(viewer_suite, tmp_path) -> None:
    one = tmp_path / "one.jsonl"
    write_examples(one, [viewer_suite.examples[0]])
    build_viewer(one, tmp_path / "site", snapshots=viewer_suite.snapshots, title="Depth four, by hand")
    assert _js_payload(tmp_path / "site" / "data.js")["title"] == "Depth four, by hand"
    empty = tmp_path / "empty.jsonl"
    write_examples(empty, [])
    with pytest.raises(GraphNIAHError, match=f"{empty} holds no examples"):
        build_viewer(empty, tmp_path / "empty-site", snapshots=viewer_suite.snapshots)
    assert not (tmp_path / "empty-site").exists()


def test_without_the_snapshot_pages_show_corpus_ids(viewer_suite, tmp_path) -> None:
    ex = viewer_suite.examples[1]
    path = tmp_path / "one.jsonl"
    write_examples(path, [ex])
    files = build_viewer(path, tmp_path / "site", snapshots=tmp_path / "no-snapshots")
    assert files.without_metadata == 1
    page = _js_payload(tmp_path / "site" / "examples" / f"{ex.id}.js")
    assert not page["metadata"] and f"paper {ex.source} (no metadata" in _unpack(page["forest"])


def test_report_links_cells_to_the_filtered_index_and_ids_to_pages(viewer_suite, tmp_path) -> None:
    site = tmp_path / "site"
    build_viewer(viewer_suite.examples_path, site, runs=viewer_suite.runs_dir, snapshots=viewer_suite.snapshots)
    data = load_suite("view", runs_root=viewer_suite.runs_dir.parent, examples_root=viewer_suite.examples_path.parent, by="task")
    files = write_report(build_report(data), tmp_path / "report", figures=False, viewer=site)
    html = files.html.read_text()
    assert 'href="../site/index.html#model=model-b&amp;task=yesno"' in html
    for ex in viewer_suite.examples:
        assert f'href="../site/example.html#id={ex.id}"' in html
    links = ViewerLinks("v", frozenset({"m"}), {"16": {"depth": "16"}})
    assert links.cell_filter("accuracy", ["m"], "16") == {"model": "m", "depth": "16"}
    assert links.cell_filter("counting_by_size", ["m"], "100–149") == {"task": "count", "model": "m", "size": "100-149"}
    assert links.cell_filter("labels", ["m"], "NO-label") == {"task": "yesno", "model": "m", "label": "NO"}


def test_dataset_folder_gives_the_same_site_data(viewer_suite, tmp_path) -> None:
    export_suite(viewer_suite.examples_path, tmp_path / "dataset", suite="view", snapshots_root=viewer_suite.snapshots)
    from_file = build_viewer(viewer_suite.examples_path, tmp_path / "a", runs=viewer_suite.runs_dir, snapshots=viewer_suite.snapshots)
    from_dataset = build_viewer(None, tmp_path / "b", dataset=tmp_path / "dataset", runs=viewer_suite.runs_dir,
                                snapshots=viewer_suite.snapshots)
    assert from_dataset.examples == from_file.examples == len(viewer_suite.examples)
    rows = [_js_payload(tmp_path / d / "data.js")["rows"] for d in ("a", "b")]
    assert rows[0] == rows[1]
    for ex in viewer_suite.examples:
        assert (tmp_path / "a" / "examples" / f"{ex.id}.js").read_bytes() == (tmp_path / "b" / "examples" / f"{ex.id}.js").read_bytes()


def test_a_rebuild_reuses_the_pages_whose_inputs_did_not_change(viewer_suite, tmp_path, monkeypatch) -> None:
    import graphniah.view.pages as site_mod
    from graphniah.formats.journal import Journal

    runs = tmp_path / "runs"
    for p in viewer_suite.runs_dir.glob("*.jsonl"):
        (runs / p.name).parent.mkdir(exist_ok=True)
        (runs / p.name).write_bytes(p.read_bytes())
    out = tmp_path / "site"
    build_viewer(viewer_suite.examples_path, out, runs=runs, snapshots=viewer_suite.snapshots)
    first = {p.name: p.read_bytes() for p in (out / "examples").iterdir()}
    built: list[str] = []
    real = site_mod.example_page_data
    monkeypatch.setattr(site_mod, "example_page_data", lambda ex, *a, **k: built.append(ex.id) or real(ex, *a, **k))

    # Same inputs (e.g. after an interrupted run): every page comes from the cache, byte for byte.
    build_viewer(viewer_suite.examples_path, out, runs=runs, snapshots=viewer_suite.snapshots)
    assert built == [] and {p.name: p.read_bytes() for p in (out / "examples").iterdir()} == first

    # A journal grows: only the example whose answer changed is built again.
    no = viewer_suite.examples[1]
    with Journal(runs / "model-b.jsonl") as j:
        old = [r for r in j.records if r.example_id == no.id][-1]
        j.append([old.model_copy(update={"response": f"\\answer{{{no.answer}}}"})])
    build_viewer(viewer_suite.examples_path, out, runs=runs, snapshots=viewer_suite.snapshots)
    assert built == [no.id]
    assert _js_payload(out / "data.js")["rows"][1][8] == "cc"
    assert len(list(viewer_page_cache(out).iterdir())) == len(viewer_suite.examples)  # stale pages are dropped


def test_example_facts_are_the_design_the_examples_were_sampled_with(viewer_suite) -> None:
    assert len(viewer_suite.examples) == len(SPECS)
    for ex, spec in zip(viewer_suite.examples, SPECS, strict=True):
        assert example_facts(ex) == {"task": spec.task, "depth": spec.depth, "component_size": spec.component_size,
                                     "context_length": spec.context_length, "distractor": spec.distractor,
                                     "template": spec.template, "label": ex.answer}


def test_list_examples_show_their_size_f1_and_only_the_source_mark() -> None:
    from graphniah.scoring import score_response
    from graphniah.view.data import Answer
    from tests.report.test_listing import list_example

    ex = list_example(np.random.default_rng(1), 0, 12, 4)
    assert example_facts(ex)["label"] == f"{len(ex.targets)} papers"  # not the whole list of titles
    half = "\n".join(ex.answer.split("\n")[: len(ex.targets) // 2])
    s = score_response("list", ex.answer, f"\\answer{{{half}}}")
    a = Answer("ok", s.extracted, s.correct, None, None, None, None, None, None, None, 1, None, s.listing)
    assert a.shown == f"F1 {s.listing.f1:.2f} (precision 1.00, recall {s.listing.recall:.2f})"
    data = forest_data(ex, forest_layout(ex), {}, highlighted_path(ex))
    assert data["marks"] == [[ex.papers.index(ex.source), "S"]]  # every reachable paper is an answer: none is marked


def test_pages_read_the_recorded_positions_and_older_examples_still_view_alike(viewer_suite, tmp_path, monkeypatch) -> None:
    import graphniah.view.needles as needles_mod

    # Examples of format version 4 carry their needle positions: the viewer never loads a tokenizer for them.
    def no_tokenizer() -> None:
        raise AssertionError("the viewer tokenised an example that records its needle positions")

    monkeypatch.setattr(needles_mod, "_o200k", no_tokenizer)
    new = build_viewer(viewer_suite.examples_path, tmp_path / "new", runs=viewer_suite.runs_dir, snapshots=viewer_suite.snapshots)
    monkeypatch.undo()
    # The same examples as format version 3 wrote them (no positions): counted again, the pages are the same.
    old_path = tmp_path / "v3.jsonl"
    lines = []
    for ex in viewer_suite.examples:
        obj = json.loads(ex.model_dump_json())
        assert obj.pop("needle_positions") is not None
        lines.append(json.dumps(obj | {"format_version": 3}) + "\n")
    old_path.write_text("".join(lines))
    old = build_viewer(old_path, tmp_path / "old", runs=viewer_suite.runs_dir, snapshots=viewer_suite.snapshots)
    assert _js_payload(old.out / "data.js")["rows"] == _js_payload(new.out / "data.js")["rows"]
    for ex in viewer_suite.examples:
        assert (old.out / "examples" / f"{ex.id}.js").read_bytes() == (new.out / "examples" / f"{ex.id}.js").read_bytes()


def test_paper_cards_are_the_metadata_the_pages_show(viewer_suite) -> None:
    """The cards read column by column hold exactly PaperMeta's cleaned title, authors and dates."""
    lookup = PaperLookup(viewer_suite.snapshots)
    for ex in viewer_suite.examples:
        meta, cards = lookup.meta(ex), lookup.cards(ex)
        assert meta is not None and cards is not None and set(cards) == set(meta) == set(ex.papers)
        for p, m in meta.items():
            assert tuple(cards[p]) == (m.title, m.authors, m.publication_date, m.year)
    assert PaperLookup(None).cards(viewer_suite.examples[0]) is None


def test_pages_cached_under_another_template_set_are_built_again(viewer_suite, tmp_path) -> None:
    """The page cache key holds the template set's hash: a site built again with another set (here the
    shipped one with an edge-list system message changed, which these APA pages do not use) reuses no
    cached page, and its pages have the same bytes."""
    from graphniah.text import load_prompts
    from graphniah.text.prompts import default_prompts_dir

    other = tmp_path / "prompts"
    shutil.copytree(default_prompts_dir(), other)
    with open(other / "edges" / "system" / "yesno.txt", "a", encoding="utf-8") as f:
        f.write("\nRead every line of the list.\n")
    assert load_prompts(other).hash != load_prompts(None).hash
    out = tmp_path / "site"
    build_viewer(viewer_suite.examples_path, out, runs=viewer_suite.runs_dir, snapshots=viewer_suite.snapshots)
    first = {p.name for p in viewer_page_cache(out).iterdir()}
    pages = {p.name: p.read_bytes() for p in (out / "examples").iterdir()}
    build_viewer(viewer_suite.examples_path, out, runs=viewer_suite.runs_dir, snapshots=viewer_suite.snapshots, prompts=other)
    again = {p.name for p in viewer_page_cache(out).iterdir()}
    assert len(first) == len(again) == len(viewer_suite.examples) and not first & again
    assert {p.name: p.read_bytes() for p in (out / "examples").iterdir()} == pages


def test_a_torn_cached_page_is_built_again(viewer_suite, tmp_path) -> None:
    """Cached pages are not fsynced one by one (the site is, as a whole): one cut short, as a power
    cut could leave it, is not reused but built again, and the site's copy is whole."""
    out = tmp_path / "site"
    build_viewer(viewer_suite.examples_path, out, runs=viewer_suite.runs_dir, snapshots=viewer_suite.snapshots)
    first = {p.name: p.read_bytes() for p in (out / "examples").iterdir()}
    ex = viewer_suite.examples[2]
    (cached,) = [p for p in viewer_page_cache(out).iterdir() if p.name.startswith(ex.id + ".")]
    os.unlink(cached)  # the site's hard link keeps the old bytes; the cache gets a torn copy
    cached.write_bytes(first[f"{ex.id}.js"][:1000])
    build_viewer(viewer_suite.examples_path, out, runs=viewer_suite.runs_dir, snapshots=viewer_suite.snapshots)
    assert {p.name: p.read_bytes() for p in (out / "examples").iterdir()} == first
    assert cached.read_bytes() == first[f"{ex.id}.js"]



@pytest.mark.parametrize("how", ["bit-flipped", "swapped"])
def test_a_changed_or_swapped_cached_page_is_built_again(viewer_suite, tmp_path, how) -> None:
    """A cached page that is whole but not what was written (a changed byte, or another example's page
    under this one's name) fails its hash or names another example: it is built again, never linked."""
    out = tmp_path / "site"
    build_viewer(viewer_suite.examples_path, out, runs=viewer_suite.runs_dir, snapshots=viewer_suite.snapshots)
    first = {p.name: p.read_bytes() for p in (out / "examples").iterdir()}
    ex, other = viewer_suite.examples[1], viewer_suite.examples[2]
    (cached,) = [p for p in viewer_page_cache(out).iterdir() if p.name.startswith(ex.id + ".")]
    os.unlink(cached)  # the site's hard link keeps the old bytes
    page = bytearray(first[f"{ex.id}.js"])
    if how == "bit-flipped":
        page[len(page) // 2] ^= 0x01  # inside the packed data: the page still ends as a page ends
        cached.write_bytes(bytes(page))
    else:
        cached.write_bytes(first[f"{other.id}.js"])
    build_viewer(viewer_suite.examples_path, out, runs=viewer_suite.runs_dir, snapshots=viewer_suite.snapshots)
    assert {p.name: p.read_bytes() for p in (out / "examples").iterdir()} == first
    assert cached.read_bytes() == first[f"{ex.id}.js"]


# ---- the contracts, one by one (after the third audit) ---------------------------------------------


def test_every_field_of_the_index_the_site_record_and_the_files(viewer_suite, tmp_path, o200k) -> None:
    """``build_viewer``'s return, ``data.js`` (title, source, runs, columns, every row), ``viewer.json`` (each
    input with its sha256 from hashlib), the pages and static files as the package ships them."""
    import datetime as dt
    import hashlib
    from importlib import resources

    import graphniah
    from graphniah.view.pages import ViewerFiles

    out = tmp_path / "site"
    files = build_viewer(str(viewer_suite.examples_path), str(out), runs=viewer_suite.runs_dir, snapshots=viewer_suite.snapshots)
    runs, _ = load_answers(viewer_suite.runs_dir)
    assert [(r.label, r.model, r.settings_hash) for r in runs] == [("model-a", "model-a", "h-model-a"), ("model-b", "model-b", "h-model-b")]
    assert files == ViewerFiles(out, out / "index.html", len(viewer_suite.examples), runs, 0)
    index = _js_payload(out / "data.js")
    assert (index["title"], index["source"]) == (f"GraphNIAH examples: {viewer_suite.examples_path.name}", str(viewer_suite.examples_path))
    assert index["runs"] == [{"label": f"model-{m}", "model": f"model-{m}", "settings_hash": f"h-model-{m}"} for m in "ab"]
    assert index["columns"] == ["id", "task", "depth", "component_size", "context_length", "distractor", "label", "tokens", "outcomes", "answers"]
    for row, ex in zip(index["rows"], viewer_suite.examples, strict=True):
        assert row[:8] == [ex.id, ex.task, ex.depth, ex.component_size, ex.recipe.params.context_length, ex.recipe.params.distractor,
                           ex.answer, o200k.count(ex.messages[-1].content)]
    record = json.loads((out / "viewer.json").read_text())
    assert record["examples"] == {"path": str(viewer_suite.examples_path), "count": len(viewer_suite.examples),
                                  "sha256": hashlib.sha256(viewer_suite.examples_path.read_bytes()).hexdigest()}
    assert record["runs"] == [{"label": f"model-{m}", "model": f"model-{m}", "settings_hash": f"h-model-{m}",
                               "journal": str(viewer_suite.runs_dir / f"model-{m}.jsonl"),
                               "sha256": hashlib.sha256((viewer_suite.runs_dir / f"model-{m}.jsonl").read_bytes()).hexdigest()} for m in "ab"]
    assert record["snapshots_without_metadata"] == [] and record["version"] == graphniah.__version__
    assert abs(dt.datetime.fromisoformat(record["created_at"]) - dt.datetime.now(dt.UTC)) < dt.timedelta(minutes=5)
    shipped = resources.files("graphniah.view").joinpath("static")
    for rel in ("index.html", "example.html", "static/view.css", "static/view.js"):
        assert (out / rel).read_text(encoding="utf-8") == shipped.joinpath(rel.removeprefix("static/")).read_text(encoding="utf-8"), rel
    assert sorted(p.name for p in (out / "examples").iterdir()) == sorted(f"{ex.id}.js" for ex in viewer_suite.examples)


def test_every_field_of_an_example_page(viewer_suite, tmp_path, o200k) -> None:
    """Each page's keys, and each value against the example itself (or the module that owns it)."""
    from graphniah.view.forest import PALETTE, forest_caption
    from graphniah.view.needles import ROW_WIDTH

    out = tmp_path / "site"
    build_viewer(viewer_suite.examples_path, out, runs=viewer_suite.runs_dir, snapshots=viewer_suite.snapshots)
    keys = {"id", "task", "depth", "component_size", "context_length", "distractor", "template", "label", "question", "options", "answer",
            "system", "papers", "edges", "path", "metadata", "missing_blocks", "token_counts", "forest", "forest_caption", "list",
            "needle_map", "total_tokens", "blocks", "prompt", "row_width", "row_count", "spans", "palette", "runs"}
    for ex in viewer_suite.examples:
        page = _js_payload(out / "examples" / f"{ex.id}.js")
        assert set(page) == keys
        path = highlighted_path(ex)
        assert (page["id"], page["task"], page["depth"], page["component_size"], page["label"]) == (ex.id, ex.task, ex.depth, ex.component_size, ex.answer)
        assert (page["papers"], page["edges"], page["path"], page["list"]) == (len(ex.papers), len(ex.edges), len(path), None)
        assert page["system"] == ex.messages[0].content and page["token_counts"] == json.loads(ex.model_dump_json())["token_counts"]
        letters = option_letters(len(ex.options), ex.none_option)
        opts = [*ex.options, *(["none of these"] if ex.none_option else [])]
        assert page["options"] == ([[letters[i], o] for i, o in enumerate(opts)] if ex.task == "mc" else [])
        assert page["forest_caption"] == forest_caption(ex, path, True)
        assert (page["row_width"], page["palette"], page["total_tokens"]) == (ROW_WIDTH, list(PALETTE), o200k.count(ex.messages[-1].content))
        nm = json.loads(_unpack(page["needle_map"]))
        assert nm["total"] == page["total_tokens"] and len(nm["tokens"]) == 2 * len(nm["titles"]) == 2 * len(page["spans"])
        assert nm["blocks"] == page["blocks"]["needle"] + page["blocks"]["paper"]
    mc = next(ex for ex in viewer_suite.examples if ex.task == "mc")
    assert _js_payload(out / "examples" / f"{mc.id}.js")["options"][0] == ["A", mc.options[0]]


def test_a_run_without_an_answer_for_an_example_is_none_everywhere(viewer_suite, tmp_path) -> None:
    """A journal that never reached an example: outcome "none" ("-" in the index), every field of the answer None."""
    from graphniah.formats.journal import Journal
    from tests.view.conftest import _record

    runs = tmp_path / "runs"
    first = viewer_suite.examples[0]
    with Journal(runs / "model-c.jsonl") as j:
        j.append([_record(first, "model-c", "ok", f"\\answer{{{first.answer}}}", 0)])
    build_viewer(viewer_suite.examples_path, tmp_path / "site", runs=runs, snapshots=viewer_suite.snapshots)
    rows = _js_payload(tmp_path / "site" / "data.js")["rows"]
    assert [(r[8], r[9]) for r in rows] == [("c", [first.answer]), *([("-", [None])] * (len(rows) - 1))]
    (run,) = _js_payload(tmp_path / "site" / "examples" / f"{viewer_suite.examples[1].id}.js")["runs"]
    assert run == {"run": "model-c", "outcome": "none", "extracted": None, "response": None, "reasoning": None, "prompt_tokens": None,
                   "completion_tokens": None, "reasoning_tokens": None, "cost_usd": None, "time_s": None, "attempts": None, "error": None}
    (run,) = _js_payload(tmp_path / "site" / "examples" / f"{first.id}.js")["runs"]
    assert (run["outcome"], run["response"], run["attempts"], run["reasoning"]) == ("correct", f"\\answer{{{first.answer}}}", 1, None)


def test_the_site_of_a_dataset_names_its_suite_and_the_inputs_are_one_of_two(viewer_suite, tmp_path) -> None:
    export_suite(viewer_suite.examples_path, tmp_path / "dataset", suite="view-suite", snapshots_root=viewer_suite.snapshots)
    build_viewer(None, tmp_path / "site", dataset=str(tmp_path / "dataset"), snapshots=viewer_suite.snapshots)
    index = _js_payload(tmp_path / "site" / "data.js")
    assert (index["title"], index["source"], index["runs"]) == ("GraphNIAH examples: dataset view-suite", str(tmp_path / "dataset"), [])
    assert json.loads((tmp_path / "site" / "viewer.json").read_text())["examples"] == {
        "dataset": str(tmp_path / "dataset"), "suite": "view-suite", "count": len(viewer_suite.examples)}
    for examples, dataset in ((viewer_suite.examples_path, tmp_path / "dataset"), (None, None)):
        with pytest.raises(GraphNIAHError) as err:
            build_viewer(examples, tmp_path / "other", dataset=dataset)
        assert str(err.value) == "give exactly one of an examples file or a dataset folder"
    assert not (tmp_path / "other").exists()


def test_an_example_id_that_cannot_name_a_file_is_refused_naming_the_input(viewer_suite, tmp_path) -> None:
    bad = viewer_suite.examples[1].model_copy(update={"id": "yesno/../x"})
    path = tmp_path / "bad.jsonl"
    write_examples(path, [viewer_suite.examples[0], bad])
    with pytest.raises(GraphNIAHError) as err:
        build_viewer(path, tmp_path / "site", snapshots=viewer_suite.snapshots)
    assert str(err.value) == f"{path}: example id 'yesno/../x' cannot name a file (letters, digits, '-', '_', '.' only)"
    assert not (tmp_path / "site").exists()


def test_pages_are_built_again_when_the_runs_or_the_metadata_change(viewer_suite, tmp_path) -> None:
    """The cache key holds the run labels, each answer, and whether the snapshot was found: a change to any gives new pages."""
    one = tmp_path / "one.jsonl"
    write_examples(one, [viewer_suite.examples[0]])
    out = tmp_path / "site"
    names = []
    for runs, snaps in ((viewer_suite.runs_dir, viewer_suite.snapshots), (None, viewer_suite.snapshots), (None, tmp_path / "none"),
                        (viewer_suite.runs_dir, viewer_suite.snapshots)):
        build_viewer(one, out, runs=runs, snapshots=snaps)
        (page,) = viewer_page_cache(out).iterdir()
        names.append(page.name)
    assert len(set(names[:3])) == 3 and names[3] == names[0]
    page = _js_payload(out / "examples" / f"{viewer_suite.examples[0].id}.js")
    assert page["metadata"] and [r["run"] for r in page["runs"]] == ["model-a", "model-b"]


def test_packed_text_is_gzip_in_base64_and_the_same_bytes_each_time() -> None:
    from graphniah.view.pages import packed_text

    text = "Café – naïve\n" * 50
    packed = packed_text(text)
    assert packed == packed_text(text) and _unpack(packed) == text
    raw = base64.b64decode(packed)
    assert raw[:2] == b"\x1f\x8b" and raw[4:8] == b"\0\0\0\0"  # gzip, with no modification time


def test_a_page_packs_its_prompt_unless_told_not_to_and_the_build_reports_each_example(viewer_suite, tmp_path) -> None:
    from graphniah.text import load_prompts
    from graphniah.view.pages import example_page_data

    ex = viewer_suite.examples[2]
    args = (ex, PaperLookup(viewer_suite.snapshots).cards(ex), [], {}, None, load_prompts(None))
    text = ex.messages[-1].content
    assert _unpack(example_page_data(*args)["prompt"]) == text
    assert example_page_data(*args, pack_prompt=False)["prompt"] == text.encode("utf-8")
    calls: list[tuple] = []

    class Recorder:
        def start(self, total, label):
            calls.append(("start", total, label))

        def advance(self, n=1):
            calls.append(("advance", n))

        def done(self):
            calls.append(("done",))

    build_viewer(viewer_suite.examples_path, tmp_path / "site", snapshots=viewer_suite.snapshots, progress=Recorder())
    assert calls == [("start", None, "viewer pages"), *([("advance", 1)] * len(viewer_suite.examples)), ("done",)]


def test_page_fields_that_the_suite_s_examples_hold_one_way_only(viewer_suite, list_suite) -> None:
    """A single message (no system), "none of these" among the options, an answer of several attempts, a page
    without metadata, and a list example's label: each reaches the page as itself."""
    from graphniah.text import load_prompts
    from graphniah.view.data import Answer, RunView
    from graphniah.view.forest import forest_caption
    from graphniah.view.pages import example_page_data

    prompts = load_prompts(None)
    mc = next(ex for ex in viewer_suite.examples if ex.task == "mc")
    cards = PaperLookup(viewer_suite.snapshots).cards(mc)
    alone = mc.model_copy(update={"messages": mc.messages[-1:], "none_option": True})
    run = RunView("m", "m", "h", viewer_suite.runs_dir / "m.jsonl")
    tried = Answer("ok", "C", True, None, None, None, None, None, None, None, 3, None)
    data = example_page_data(alone, cards, [run], {(mc.id, 0): tried}, None, prompts)
    letters = option_letters(len(mc.options), True)
    assert data["system"] == "" and data["options"] == [[letters[i], o] for i, o in enumerate([*mc.options, "none of these"])]
    assert data["options"][-1] == [letters[-1], "none of these"] and data["runs"][0]["attempts"] == 3
    bare = example_page_data(mc, None, [], {}, None, prompts)
    assert bare["metadata"] is False and bare["forest_caption"] == forest_caption(mc, highlighted_path(mc), False)
    assert bare["forest_caption"] != example_page_data(mc, cards, [], {}, None, prompts)["forest_caption"]
    listing = example_page_data(list_suite.example, None, [], {}, None, prompts)
    assert listing["label"] == f"{len(list_suite.example.targets)} papers" != list_suite.example.answer


def test_the_index_row_of_a_list_example_shows_its_label_and_a_site_without_metadata_names_the_snapshot(list_suite, tmp_path) -> None:
    files = build_viewer(list_suite.examples_path, tmp_path / "site", snapshots=tmp_path / "none")
    (row,) = _js_payload(tmp_path / "site" / "data.js")["rows"]
    assert row[6] == f"{len(list_suite.example.targets)} papers"
    assert files.without_metadata == 1
    record = json.loads((tmp_path / "site" / "viewer.json").read_text())
    assert record["snapshots_without_metadata"] == [list_suite.example.recipe.snapshot_hash]


def test_a_page_is_built_again_when_only_a_run_s_name_changes(viewer_suite, tmp_path) -> None:
    """The same answers under another model name: the cache key holds the run labels, so the page shows the new name."""
    one = tmp_path / "one.jsonl"
    write_examples(one, [viewer_suite.examples[0]])
    for name in ("a", "q"):
        (tmp_path / name).mkdir()
        text = (viewer_suite.runs_dir / "model-a.jsonl").read_text(encoding="utf-8")
        (tmp_path / name / f"model-{name}.jsonl").write_text(text.replace("model-a", f"model-{name}"), encoding="utf-8")
    build_viewer(one, tmp_path / "site", runs=tmp_path / "a", snapshots=viewer_suite.snapshots)
    build_viewer(one, tmp_path / "site", runs=tmp_path / "q", snapshots=viewer_suite.snapshots)
    page = _js_payload(tmp_path / "site" / "examples" / f"{viewer_suite.examples[0].id}.js")
    assert [r["run"] for r in page["runs"]] == ["model-q"]


def test_two_runs_of_one_model_are_labelled_apart_and_keep_their_model_name(viewer_suite, tmp_path) -> None:
    """The report's rule (``graphniah.scoring.run_labels``): one model at two settings hashes is labelled by the first
    8 digits of each; the index and viewer.json still give the model's own name beside each label."""
    one = tmp_path / "one.jsonl"
    write_examples(one, [viewer_suite.examples[0]])
    text = (viewer_suite.runs_dir / "model-a.jsonl").read_text(encoding="utf-8")
    (tmp_path / "runs").mkdir()
    for h in ("aaaaaaaa1", "bbbbbbbb2"):
        (tmp_path / "runs" / f"{h}.jsonl").write_text(text.replace("h-model-a", h), encoding="utf-8")
    build_viewer(one, tmp_path / "site", runs=tmp_path / "runs", snapshots=viewer_suite.snapshots)
    want = [{"label": f"model-a [{h[:8]}]", "model": "model-a", "settings_hash": h} for h in ("aaaaaaaa1", "bbbbbbbb2")]
    assert sorted(_js_payload(tmp_path / "site" / "data.js")["runs"], key=lambda r: r["label"]) == want
    runs = json.loads((tmp_path / "site" / "viewer.json").read_text())["runs"]
    assert sorted((r["label"], r["model"]) for r in runs) == [(w["label"], "model-a") for w in want]
