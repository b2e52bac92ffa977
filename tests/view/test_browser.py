"""The viewer in a real browser: Debian's headless Chromium opens the site from disk (file://) and runs its scripts.

``make test`` installs Chromium when it is missing (``make browser``); where it cannot be
installed the test skips and says so. Screenshots are left in the test's tmp folder.
"""

from __future__ import annotations

import json

import networkx as nx
import pytest

from graphniah.formats.examples import option_letters
from graphniah.formats.journal import read_journal
from graphniah.scoring import counted_records, list_papers, score_record
from graphniah.stats import wilson_interval
from graphniah.view import build_viewer
from graphniah.view.data import PaperLookup
from graphniah.view.forest import highlighted_path
from graphniah.view.needles import prompt_rows
from tests.view.cdp import Browser, chromium_binary

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    if chromium_binary() is None:
        pytest.skip("Debian's chromium is not installed and could not be (`make test` runs `apt-get install -y chromium` as root)")
    with Browser(tmp_path_factory.mktemp("chromium-profile")) as b:
        yield b


def test_index_and_example_pages_in_headless_chromium(viewer_suite, browser, tmp_path) -> None:
    site = build_viewer(viewer_suite.examples_path, tmp_path / "site", runs=viewer_suite.runs_dir, snapshots=viewer_suite.snapshots).out
    shots = tmp_path / "screenshots"
    shots.mkdir()
    ids = sorted(ex.id for ex in viewer_suite.examples)  # the index opens sorted by id

    _check_index(viewer_suite, browser, site, ids)
    browser.screenshot(shots / "index.png")
    # The page cuts the prompt into Python's rows, counting characters as Python does (astral ones too).
    sample = "ab\U0001F600cd\u00e9\n\n\U0001D538\U0001D539 x\n" * 3 + "y" * 9
    assert browser.eval(f"GraphNIAHView.promptRows({json.dumps(sample)}, 4)") == list(prompt_rows(sample, [], width=4).rows)
    _check_index_filters_and_sorting(viewer_suite, browser, site, ids)
    for ex in viewer_suite.examples:
        _check_example_page(viewer_suite, browser, site, ex, shots)
    assert browser.errors == [], browser.errors
    assert len(list(shots.glob("*.png"))) == 1 + 2 * len(ids)


def _check_index(viewer_suite, browser, site, ids) -> None:
    """The index lists every example and each run's accuracy with the library's Wilson interval."""
    browser.open((site / "index.html").as_uri())
    assert browser.eval("Array.from(document.querySelectorAll('#examples tr[data-id]')).map(r => r.dataset.id)") == ids
    summary = browser.eval("""Array.from(document.querySelectorAll('#summary tr.run')).map(r => [r.dataset.run,
        r.querySelector('.ci').dataset.low, r.querySelector('.ci').dataset.high, r.cells[3].textContent])""")
    assert [s[0] for s in summary] == ["model-a", "model-b"]
    for label, low, high, kn in summary:
        outcomes = [o for o, _ in viewer_suite.expected[label].values()]
        k, n = outcomes.count("correct"), outcomes.count("correct") + outcomes.count("wrong")
        assert kn == f"{k} / {n}"
        ci = wilson_interval(k, n)
        assert float(low) == pytest.approx(ci.low, abs=1e-12) and float(high) == pytest.approx(ci.high, abs=1e-12)
    # The page's Wilson interval is the library's, for a spread of (k, n).
    cases = [(0, 1), (1, 1), (0, 5), (3, 10), (7, 24), (50, 100), (999, 1000), (1, 10_000)]
    got = browser.eval(f"{json.dumps(cases)}.map(c => GraphNIAHView.wilson(c[0], c[1]))")
    for (k, n), (low, high) in zip(cases, got, strict=True):
        ci = wilson_interval(k, n)
        assert low == pytest.approx(ci.low, abs=1e-12) and high == pytest.approx(ci.high, abs=1e-12)


def _check_index_filters_and_sorting(viewer_suite, browser, site, ids) -> None:
    """Filters from the address, as the report links them; then the per-run outcome filter; then sorting."""
    yes_no = [ex.id for ex in viewer_suite.examples if ex.task == "yesno"]
    browser.open((site / "index.html").as_uri() + "#task=yesno&model=model-b")
    assert sorted(browser.eval("Array.from(document.querySelectorAll('#examples tr[data-id]')).map(r => r.dataset.id)")) == sorted(yes_no)
    assert browser.eval("document.querySelector('#summary tr.run[data-run=\"model-b\"]').cells[3].textContent") == "0 / 2"
    browser.eval("location.hash = 'run.model-b=failed'")
    browser.wait_for("document.querySelectorAll('#examples tr[data-id]').length === 1")
    (failed,) = [eid for eid, (o, _) in viewer_suite.expected["model-b"].items() if o == "failed"]
    assert browser.eval("document.querySelector('#examples tr[data-id]').dataset.id") == failed
    # Sorting by clicking a heading (component size, then descending).
    browser.eval("location.hash = ''")
    browser.wait_for(f"document.querySelectorAll('#examples tr[data-id]').length === {len(ids)}")
    browser.eval("document.querySelector('th[data-sort=size]').click(); document.querySelector('th[data-sort=size]').click()")
    by_size = sorted(viewer_suite.examples, key=lambda e: (-e.component_size, e.id))
    assert browser.eval("Array.from(document.querySelectorAll('#examples tr[data-id]')).map(r => r.dataset.id)") == [e.id for e in by_size]
    assert "sort=size" in browser.eval("location.hash") and "desc=1" in browser.eval("location.hash")


def _check_example_page(viewer_suite, browser, site, ex, shots) -> None:
    """One example's page: its forest, needle map, gold answer, options, each run's answer, and the windowed prompt."""
    browser.open((site / "example.html").as_uri() + f"#id={ex.id}", settle=0.2)
    browser.wait_for("document.querySelector('#forest svg') !== null")
    assert browser.eval("document.title").startswith(ex.id)
    assert browser.eval("document.querySelectorAll('#forest svg circle.node').length") == len(ex.papers)
    assert browser.eval("document.querySelector('#forest svg').dataset.nodes") == str(len(ex.papers))
    assert browser.eval("document.querySelectorAll('#forest svg line.e.path').length") == max(len(highlighted_path(ex)) - 1, 0)
    citing = {a for a, _ in ex.edges}
    assert browser.eval("document.querySelectorAll('#needle-map rect.needle').length") == len(citing)
    assert browser.eval("document.querySelectorAll('#needle-map rect.question').length") == 1
    assert browser.eval("document.querySelector('#gold').textContent") == ex.answer
    if ex.task == "mc":
        assert browser.eval("document.querySelectorAll('#options li').length") == len(ex.options)
        assert browser.eval("document.querySelector('#options li.gold b').textContent").startswith(ex.answer)
        assert ex.options[option_letters(4, False).index(ex.answer)] in browser.eval("document.querySelector('#options li.gold').textContent")
    rows = browser.eval("Array.from(document.querySelectorAll('#answers tr.answer')).map(r => [r.dataset.run, r.cells[1].textContent, r.cells[2].textContent])")
    assert [r[0] for r in rows] == ["model-a", "model-b"]
    for run, result, extracted in rows:
        outcome, answer = viewer_suite.expected[run][ex.id]
        assert outcome in result
        assert extracted == (answer if answer is not None else "no answer")
    # The prompt (unpacked by the page) is drawn in a window: a few dozen rows on screen, the rest only when scrolled to.
    browser.wait_for("GraphNIAHView.current.rows !== undefined && document.querySelectorAll('#prompt .r').length > 0")
    assert browser.eval("GraphNIAHView.current.rows") == list(prompt_rows(ex.messages[-1].content, []).rows)  # the rows Python cuts
    total = browser.eval("GraphNIAHView.current.rows.length")
    drawn = browser.eval("document.querySelectorAll('#prompt .r').length")
    assert 0 < drawn < total and drawn <= 200
    browser.screenshot(shots / f"{ex.id}.png")
    browser.eval(f"GraphNIAHView.scrollToRow({total - 1})")
    assert browser.eval(f"document.querySelector('#prompt .r[data-row=\"{total - 1}\"]') !== null")
    assert browser.eval("document.querySelectorAll('#prompt .r').length") <= 200
    browser.screenshot(shots / f"{ex.id}-end.png", full_page=False)
    _check_run_marks(viewer_suite, browser, ex)


def _check_run_marks(viewer_suite, browser, ex) -> None:
    """The caption speaks of the example's task; choosing a run marks its chosen paper or states its number."""
    caption = browser.eval("document.querySelector('#forest-legend').textContent")
    assert {"yesno": f"The answer is {ex.answer}", "mc": "= the candidates", "count": f"The answer, {ex.answer}, counts"}[ex.task] in caption
    assert "no target is reachable" not in caption
    for run in ("model-a", "model-b"):
        outcome, answer = viewer_suite.expected[run][ex.id]
        browser.eval(f"location.hash = 'id={ex.id}&run={run}'")
        browser.wait_for(f"document.querySelector('#run-select').value === '{run}'")
        summary = browser.eval("document.querySelector('#overlay-summary').textContent")
        chosen = browser.eval("Array.from(document.querySelectorAll('#forest circle.node.chosen')).map(c => Number(c.dataset.paper))")
        if outcome == "failed":
            assert "failed" in summary and chosen == []
        elif ex.task == "count":
            assert summary == f"{run} answered {answer}; the true count is {ex.answer}."
        elif ex.task == "yesno":
            assert chosen == ([ex.targets[0]] if answer == "YES" else [])
        else:  # multiple choice: the candidate of the letter the run gave
            assert chosen == [ex.targets[option_letters(len(ex.targets), False).index(answer)]]


def test_index_with_ten_thousand_examples(viewer_suite, browser, tmp_path) -> None:
    """The index holds one short row per example and draws one page of them: 10,000 rows open and filter."""
    site = build_viewer(viewer_suite.examples_path, tmp_path / "site", runs=viewer_suite.runs_dir, snapshots=viewer_suite.snapshots).out
    text = (site / "data.js").read_text(encoding="utf-8")
    head, payload = text.split("(", 1)
    index = json.loads(payload.rsplit(")", 1)[0])
    base = index["rows"]
    index["rows"] = [[f"{r[0]}-{i:05d}", *r[1:]] for i in range(10_000) for r in [base[i % len(base)]]]
    (site / "data.js").write_text(f"{head}({json.dumps(index)});\n", encoding="utf-8")
    browser.open((site / "index.html").as_uri())
    assert browser.eval("document.querySelector('#count').textContent") == "10,000 of 10,000 examples"
    assert browser.eval("document.querySelectorAll('#examples tr[data-id]').length") == 100  # one page is drawn
    n_count = sum(1 for r in index["rows"] if r[1] == "count")
    browser.eval("location.hash = 'task=count'")
    browser.wait_for(f"document.querySelector('#count').textContent === '{n_count:,} of 10,000 examples'")
    k = sum(1 for r in index["rows"] if r[1] == "count" and r[8][0] == "c")
    assert browser.eval("document.querySelector('#summary tr.run').cells[3].textContent") == f"{k} / {n_count}"
    browser.screenshot(tmp_path / "index-10000.png", full_page=False)
    assert browser.errors == [], browser.errors


def test_list_example_shows_what_each_run_found(list_suite, browser, tmp_path) -> None:
    """A list example answered by the oracle, random and always-NO servers: the gold answer as a list, and the
    forest coloured by the run named in the address."""
    ex = list_suite.example
    site = build_viewer(list_suite.examples_path, tmp_path / "site", runs=list_suite.runs_dir, snapshots=list_suite.snapshots).out
    page = (site / "example.html").as_uri() + f"#id={ex.id}"
    browser.open(page, settle=0.2)
    browser.wait_for("document.querySelector('#forest svg') !== null")
    n = len(ex.targets)
    hops = nx.single_source_shortest_path_length(nx.Graph(list(ex.edges)), ex.source)
    items = browser.eval("Array.from(document.querySelectorAll('.gold-answer li')).map(li => [Number(li.dataset.hop), li.lastChild.textContent])")
    assert len(items) == n == len(ex.answer.split("\n"))
    assert sorted(t for _, t in items) == sorted(ex.answer.split("\n"))
    assert [h for h, _ in items] == sorted(hops[t] for t in ex.targets)  # nearest first
    assert {t: h for h, t in items} == {t: hops[p] for t, p in zip(ex.answer.split("\n"), ex.targets, strict=True)}
    assert f"{n} papers" in browser.eval("document.querySelector('.gold-answer summary').textContent")
    captions = browser.eval("Array.from(document.querySelectorAll('.hint, #forest-legend')).map(e => e.textContent).join(' ')")
    assert "no target is reachable" not in captions and f"lists the {n} papers reachable" in captions
    count = "['found', 'missed', 'extra'].map(c => document.querySelectorAll('#forest circle.node.' + c).length)"
    assert browser.eval(count) == [0, 0, 0]  # no run chosen

    browser.open(page + "&run=local-oracle", settle=0.2)
    browser.wait_for("document.querySelector('#forest svg.overlay') !== null")
    assert browser.eval(count) == [n, 0, 0]
    found = browser.eval("Array.from(document.querySelectorAll('#forest circle.node.found')).map(c => Number(c.dataset.paper))")
    assert sorted(found) == sorted(ex.targets)
    strip = browser.eval("Array.from(document.querySelectorAll('.hop-strip td.hop')).map(td => [Number(td.dataset.named), Number(td.dataset.all)])")
    per_hop = [sum(1 for t in ex.targets if hops[t] == h) for h in range(1, max(hops.values()) + 1)]
    assert strip == [[k, k] for k in per_hop if k]
    browser.screenshot(tmp_path / "list-oracle.png")

    browser.open(page + "&run=local-always-no", settle=0.2)  # the same page, another run: a hash change
    browser.wait_for("document.querySelector('#run-select').value === 'local-always-no'")
    assert browser.eval(count) == [0, n, 0]
    assert browser.eval("Array.from(document.querySelectorAll('.unknown-lines li')).map(li => li.textContent)") == ["NO"]

    # random, chosen with the selector: the address follows, and the counts are the journal's as graphniah.scoring reads it
    browser.eval("const s = document.querySelector('#run-select'); s.value = 'local-random'; s.dispatchEvent(new Event('change'))")
    assert browser.eval("location.hash") == f"#id={ex.id}&run=local-random"
    (rec,) = counted_records(read_journal(list_suite.runs_dir / "local-random.jsonl")).values()
    scored = score_record(rec)
    assert scored.listing is not None
    cards = PaperLookup(list_suite.snapshots).cards(ex)
    others = [cards[p].title for p in ex.papers if p not in set(ex.targets)]  # the papers the forest draws
    k = sum(scored.listing.hits)
    assert browser.eval(count) == [k, n - k, len(list_papers(ex.answer, scored.raw, others).extra)]
    assert 0 < k < n
    browser.screenshot(tmp_path / "list-random.png")
    assert browser.errors == [], browser.errors


def test_list_overlay_classes_follow_the_chosen_run(list_suite, browser, tmp_path) -> None:
    """The forest and the gold list as each run colours them, switching runs in place: a paper at forest
    node 0 marked, the "N extra" count of the summary with the papers not drawn, gold lines coloured by
    what the run found, and no class of the previous run left behind. Expected values from the overlay
    data (checked against the snapshot in test_overlay.py) and from the example itself."""
    import shutil

    from graphniah.formats.examples import write_examples
    from graphniah.formats.journal import Journal, RunRecord
    from graphniah.text import load_prompts
    from graphniah.view.data import load_answers
    from graphniah.view.pages import example_page_data

    base = list_suite.example
    first = next(p for p in base.papers if p not in set(base.targets))
    ex = base.model_copy(update={"papers": (first, *(p for p in base.papers if p != first))})  # forest node 0: outside the truth
    path = tmp_path / "examples" / "lists.jsonl"
    write_examples(path, [ex])
    runs = tmp_path / "runs" / "lists"
    runs.mkdir(parents=True)
    for name in ("local-oracle", "local-random"):
        shutil.copy(list_suite.runs_dir / f"{name}.jsonl", runs)
    cards = PaperLookup(list_suite.snapshots).cards(ex)
    assert cards is not None
    truth = ex.answer.split("\n")
    n = len(truth)
    raw = "\n".join([truth[0], truth[-1], cards[first].title])
    with Journal(runs / "crafted.jsonl") as j:
        j.append([RunRecord(example_id=ex.id, model="crafted", settings_hash="h-crafted", status="ok", task="list", answer=ex.answer,
                            response=f"\\answer{{{raw}}}", attempts=1, finished_at="2026-11-01T00:00:00+00:00")])
    labels, answers = load_answers(runs)
    overlays = {r["run"]: r["overlay"] for r in example_page_data(ex, cards, labels, answers, None, load_prompts(None))["runs"]}
    site = build_viewer(path, tmp_path / "site", runs=runs, snapshots=list_suite.snapshots).out
    page = (site / "example.html").as_uri() + f"#id={ex.id}"
    circles = "Array.from(document.querySelectorAll('#forest circle.node.{}')).map(c => Number(c.dataset.paper)).sort((a, b) => a - b)"
    lines = "Array.from(document.querySelectorAll('#gold-list li.{}')).map(li => Number(li.dataset.line)).sort((a, b) => a - b)"

    def shown(label: str) -> dict[str, list[int]]:
        browser.wait_for(f"document.querySelector('#run-select').value === {json.dumps(label)}")
        return {f"{cls} {what}": browser.eval(query.format(cls)) for cls in ("found", "missed", "extra")
                for what, query in (("circles", circles), ("lines", lines))}

    browser.open(page + "&run=local-random", settle=0.2)
    browser.wait_for("document.querySelector('#forest svg.overlay') !== null")
    rnd = overlays["local-random"]
    hits = [i for i in range(n) if rnd["hits"][i] == "1"]
    assert shown("local-random") == {
        "found circles": sorted(ex.targets[i] for i in hits), "missed circles": sorted(t for i, t in enumerate(ex.targets) if i not in hits),
        "extra circles": sorted(ex.papers[v] for v in rnd["extra"]), "found lines": hits,
        "missed lines": [i for i in range(n) if i not in hits], "extra lines": []}
    summary = browser.eval("document.querySelector('#overlay-summary').textContent")
    assert rnd["extra_undrawn"] > 0
    assert f"{len(rnd['extra']) + rnd['extra_undrawn']} extra (" in summary  # the count includes the papers not drawn
    assert f"{rnd['extra_undrawn']} of them in distractor components, not drawn" in summary

    browser.eval("location.hash = " + json.dumps(f"id={ex.id}&run=crafted"))  # another run of the same page
    assert shown("crafted") == {
        "found circles": sorted([ex.targets[0], ex.targets[-1]]), "missed circles": sorted(ex.targets[1:-1]),
        "extra circles": [first], "found lines": [0, n - 1], "missed lines": list(range(1, n - 1)), "extra lines": []}
    assert overlays["crafted"]["extra"] == [0]  # the paper at node 0
    assert f"2 found and {n - 2} missed of the {n} reachable papers; 1 extra (" in browser.eval(
        "document.querySelector('#overlay-summary').textContent")

    browser.eval("location.hash = " + json.dumps(f"id={ex.id}&run=local-oracle"))
    assert shown("local-oracle") == {"found circles": sorted(ex.targets), "missed circles": [], "extra circles": [],
                                      "found lines": list(range(n)), "missed lines": [], "extra lines": []}

    browser.eval("const s = document.querySelector('#run-select'); s.value = ''; s.dispatchEvent(new Event('change'))")
    assert shown("") == {f"{c} {w}": [] for c in ("found", "missed", "extra") for w in ("circles", "lines")}
    assert browser.eval("document.querySelector('#forest svg.overlay')") is None
    assert browser.errors == [], browser.errors
