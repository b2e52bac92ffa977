"""The title rule through the real ingest: MathML titles dropped, inline tags and entities rendered away."""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path

import duckdb
import pyarrow.parquet as pq
import pytest

from graphniah.formats.snapshot import Snapshot
from graphniah.ingest.build import ingest_release
from graphniah.ingest.s2ag import titles
from graphniah.ingest.s2ag.titles import INLINE_TAG_PATTERN, MATHML_PATTERN
from tests.ingest.s2ag.release_kit import paper, write_release

KEPT = {  # record title -> title in the snapshot
    "<i>Drosophila</i> wing discs": "Drosophila wing discs",
    "CO<sub>2</sub> and H<sub>2</sub>O<sub>2</sub> uptake": "CO2 and H2O2 uptake",
    "Ca<sup>2+</sup> signalling": "Ca2+ signalling",
    "<scp>Mn</scp>-doped oxides": "Mn-doped oxides",
    '<span class="genus">Bacillus</span> <italic>subtilis</italic> <bold>in vivo</bold>': "Bacillus subtilis in vivo",
    "<EM>In Vivo</EM> imaging": "In Vivo imaging",  # tag names are case-insensitive …
    "<I>Upper</I> one-letter": "<I>Upper</I> one-letter",  # … except one-letter ones (type parameters)
    "Part one<br/>Part two": "Part one Part two",  # a line break separates words
    "<b>Bold</b> start and end <sc>SC</sc>": "Bold start and end SC",
    "Q&A on R&amp;D &amp; &quot;tools&quot;": 'Q&A on R&D & "tools"',
    "Double &amp;lt;escaped&amp;gt; text": "Double &lt;escaped&gt; text",  # one level of unescaping
    "&lt;i&gt;Escaped&lt;/i&gt; tags": "Escaped tags",
    # Not tags: unknown names, generics, comparisons.
    "Vec<T> and Option<U> in Rust": "Vec<T> and Option<U> in Rust",
    "A < b > c": "A < b > c",
    "The <mathematics> of <min> and <italics>": "The <mathematics> of <min> and <italics>",
    "Ranking <a-b> pairs": "Ranking <a-b> pairs",
    "Plain title": "Plain title",
}
MATHML = (
    '<mml:math xmlns:mml="http://www.w3.org/1998/Math/MathML"><mml:mi>k</mml:mi></mml:math>-Uniform graphs',
    "Energy of <math><mi>x</mi></math> states",
    "Spectra of <MROW>X</MROW>",
    "Bounds for <msub><mi>L</mi><mn>2</mn></msub>",
    "<inline-formula><tex-math>$x^2$</tex-math></inline-formula> solvers",
    'A <span xmlns="http://www.w3.org/1998/Math/MathML">x</span> namespace',
    "Escaped &lt;mml:math&gt;&lt;mml:mi&gt;x&lt;/mml:mi&gt;&lt;/mml:math&gt; formula",
)
EMPTY = ("<i> </i>", "<b></b><br>", "  <sub>\u00a0</sub> ")


def test_title_rule_in_ingest(tmp_path: Path) -> None:
    titles = [*KEPT, *MATHML, *EMPTY]
    rdir = write_release(tmp_path, "2026-10-06", [paper(i + 1, t) for i, t in enumerate(titles)], [])
    out = ingest_release(rdir, dt.date(2026, 4, 1), tmp_path / "snap")
    got = {r["corpusid"]: r["title"] for r in pq.read_table(out / "papers.parquet").to_pylist()}
    assert got == {i + 1: KEPT[t] for i, t in enumerate(KEPT)}
    rows = Snapshot.open(out).manifest["rows"]["papers"]
    assert rows["dropped"]["mathml_title"] == len(MATHML) and rows["dropped"]["empty_title"] == len(EMPTY)
    assert rows["titles_cleaned"] == sum(1 for t, clean in KEPT.items() if t != clean) == 11


@pytest.mark.parametrize("title", [*KEPT, *MATHML])
def test_patterns_mean_the_same_in_python(title: str) -> None:
    """The RE2 patterns are plain enough for Python's re too: MathML is found where the ingest finds it."""
    unescaped = title.replace("&lt;", "<").replace("&gt;", ">")
    assert bool(re.search(MATHML_PATTERN, unescaped)) == (title in MATHML)
    if title in KEPT and "&" not in title and "<br" not in title:
        assert re.sub(INLINE_TAG_PATTERN, "", title).strip() == KEPT[title]


@pytest.mark.parametrize(
    ("title", "rendered"),
    [
        ("It&#39;s &apos;x&apos; and &#x27;y&#x27;", "It's 'x' and 'y'"),
        ("&#34;a&#34; &#x22;b&#x22;", '"a" "b"'),
        ("Keep&nbsp;this &#8211; and &copy;", "Keep&nbsp;this &#8211; and &copy;"),  # other entities stay text
    ],
)
def test_entities_listed_in_the_rule(title: str, rendered: str) -> None:
    """The entities the module docstring lists are unescaped; entities outside the list are left as text."""
    con = duckdb.connect()
    expr = titles.render_sql(titles.unescape_sql("t"))
    assert con.execute(f"SELECT {expr} FROM (SELECT ? AS t)", [title]).fetchall() == [(rendered,)]
