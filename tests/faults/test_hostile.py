"""Hostile text through the whole pipeline: titles, author names and venues holding ``<script>``,
event-handler attributes, ``</textarea>``, ``javascript:`` links, control characters, right-to-left
overrides and 10,000-character strings go through ingest, sampling, export, the report, the dataset
card and the viewer. The HTML holds them only as text (checked with an HTML parser), and in real
headless Chromium no script of theirs runs and no element of theirs appears, on the report and the
viewer pages."""

from __future__ import annotations

import contextlib
import gzip
import json
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path

import pytest
from typer.testing import CliRunner

from graphniah.cli import app
from graphniah.run.serve.policies import PolicyServer
from tests.faults.harness import CUTOFF, SUITE, SUITE_YAML, setup, stages

pytestmark = pytest.mark.slow

PAPERS = 1500
HOSTILE = (
    '<script>window.__pwned="script"</script>',
    '<img src=x onerror="window.__pwned=\'img\'">',
    '</textarea><svg onload="window.__pwned=\'svg\'"></svg>',
    'javascript:window.__pwned="link"',
    '"><a href="javascript:window.__pwned=\'href\'">click</a><b onmouseover="window.__pwned=1">',
    "bell\x07escape\x1b[31mtab\tend",
    "\u202eevil\u202c right-to-left",
)
LONG = "Lorem ipsum " * 834  # 10,008 characters


def _poison_release(release: Path) -> None:
    """Every paper's title, first author and venue get a hostile string; a few get a 10,000-character one."""
    shard = next((release / "papers").glob("*.gz"))
    out = []
    for i, line in enumerate(gzip.decompress(shard.read_bytes()).splitlines()):
        rec = json.loads(line)
        rec["title"] = f"{rec['title']} {HOSTILE[i % len(HOSTILE)]}"
        if rec.get("authors"):
            rec["authors"][0]["name"] = LONG if i % 97 == 0 else HOSTILE[(i + 1) % len(HOSTILE)]
        rec["venue"] = HOSTILE[(i + 2) % len(HOSTILE)]
        out.append(json.dumps(rec).encode())
    shard.write_bytes(gzip.compress(b"\n".join(out) + b"\n", mtime=0))


def _graphniah(work: Path, *argv: str) -> None:
    """One command, run to the end in this process with ``work`` as its folder (as the fault harness runs
    it in a process of its own: what is checked here is what the outputs hold, not how a process ends)."""
    with contextlib.chdir(work):
        done = CliRunner().invoke(app, list(argv))
    assert done.exit_code == 0, f"graphniah {' '.join(argv)}: {done.output[-2000:]}"


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    work = tmp_path_factory.mktemp("hostile") / "work"
    work.mkdir(parents=True, exist_ok=True)
    _graphniah(work, "demo-release", "--out", "rel", "--papers", str(PAPERS), "--releases", "2")
    for release in (work / "rel" / "releases").iterdir():
        _poison_release(release)
    newest = sorted(p.name for p in (work / "rel" / "releases").iterdir())[-1]
    _graphniah(work, "ingest", "--release", f"rel/releases/{newest}", "--cutoff", CUTOFF, "--out",
               f"snap/{newest}/cutoff={CUTOFF}", "--replace", "--memory-limit", "1GB")
    ids = setup(work, PAPERS, 0)  # the snapshot is there: it writes the suite file
    # Longer contexts than the fault bench's: the hostile strings make every paper block longer.
    suite = work / "suites" / f"{SUITE}.yaml"
    suite.write_text(SUITE_YAML.replace("context_length: [6000]", "context_length: [16000]"), encoding="utf-8")
    with PolicyServer("oracle", seed=0) as server:
        for s in stages(ids, PAPERS, server.url):
            if s.name in ("prune", "paths", "build", "run", "export", "view"):
                _graphniah(work, *s.argv)
    _graphniah(work, "report", "--suite", SUITE, "--out", "report", "--runs", "runs", "--examples-root", "examples",
               "--viewer", "viewer", "--no-figures")
    yield work


class _Injected(HTMLParser):
    """Elements and attributes that came from the hostile strings instead of staying text."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.found: list[str] = []
        self._script = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if name.startswith("on") and "__pwned" in (value or ""):
                self.found.append(f"<{tag} {name}>")
            if name in ("href", "src") and (value or "").strip().lower().startswith("javascript:"):
                self.found.append(f"<{tag} {name}={value}>")
        self._script = tag == "script"

    def handle_data(self, data: str) -> None:
        if self._script and data.strip().startswith("window.__pwned"):
            self.found.append("<script>window.__pwned…")

    def handle_endtag(self, tag: str) -> None:
        self._script = False


def _injected(path: Path) -> list[str]:
    parser = _Injected()
    parser.feed(path.read_text(encoding="utf-8"))
    return parser.found


def test_the_examples_carry_the_hostile_text(site):
    text = (site / "examples" / f"{SUITE}.jsonl").read_text(encoding="utf-8")
    assert "__pwned" in text and "\u202e" in text


def test_html_outputs_hold_the_hostile_text_only_as_text(site):
    pages = [*sorted((site / "report").rglob("*.html")), *sorted((site / "viewer").rglob("*.html"))]
    assert pages
    for page in pages:
        assert _injected(page) == [], page
    card = (site / "dataset" / "README.md").read_text(encoding="utf-8")
    assert "<script>window.__pwned" not in card and "onerror=" not in card


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    from tests.view.cdp import Browser, chromium_binary

    if chromium_binary() is None:
        pytest.skip("Debian's chromium is not installed and could not be (`make test` runs `apt-get install -y chromium` as root)")
    with Browser(tmp_path_factory.mktemp("chromium-profile")) as b:
        yield b


_NOTHING_RAN = """[window.__pwned === undefined,
  document.querySelectorAll('[onerror],[onload],[onmouseover],a[href^="javascript:"]').length,
  Array.from(document.scripts).filter(s => s.textContent.includes('window.__pwned=')).length]"""


def test_no_hostile_script_runs_in_chromium(site, browser):
    browser.open((site / "report" / "report.html").as_uri())
    assert browser.eval(_NOTHING_RAN) == [True, 0, 0]
    browser.open((site / "viewer" / "index.html").as_uri())
    assert browser.eval(_NOTHING_RAN) == [True, 0, 0]
    shown = False
    for line in (site / "examples" / f"{SUITE}.jsonl").read_text(encoding="utf-8").splitlines():
        ex_id = json.loads(line)["id"]
        browser.open((site / "viewer" / "example.html").as_uri() + f"#id={ex_id}", settle=0.3)
        browser.wait_for("document.querySelector('#forest svg') !== null")
        assert browser.eval(_NOTHING_RAN) == [True, 0, 0], ex_id
        shown = shown or browser.eval("document.body.innerText.includes('<script>window.__pwned')")
    assert shown, "the hostile titles show as text on the example pages"
