"""The viewer in a real browser: Debian's headless Chromium opens the site from disk (file://) and runs its scripts.

``make test`` installs Chromium when it is missing (``make browser``); where it cannot be
installed the test skips and says so. Screenshots are left in the test's tmp folder.
"""

from __future__ import annotations

import json

import pytest

from graphniah.formats.examples import option_letters
from graphniah.stats import wilson_interval
from graphniah.view import build_viewer
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
