"""The HTML report: one self-contained file with every table, the figures inline, and per-cell example lists.

Every linked table cell points to an anchor section listing the ids of the examples behind it
(split, e.g., into correct and wrong answers) and the ``graphniah show`` command that regenerates
any of them from its recipe. Figures are inlined as SVG, so the file needs nothing beside it.
No JavaScript: the lists are plain ``<details>`` elements.

With an example viewer (``graphniah view``; :class:`ViewerLinks`), every linked cell also links to
the viewer's index filtered to that cell (``index.html#model=...&depth=16``: the row's run and the
column's value of the varied variable, task or label, as far as the table's layout says them),
and every example id links to its page (``example.html#id=...``).
"""

from __future__ import annotations

import html
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from urllib.parse import quote

from graphniah.formats import TASK_LABELS
from graphniah.report.load import SuiteData, level_label
from graphniah.report.table import ExampleList, ReportTable

__all__ = ["ViewerLinks", "render_html", "viewer_links"]

_TASKS = {label: task for task, label in TASK_LABELS.items()}  # a row or column label -> its task
_LABELS = {"YES-label": "YES", "NO-label": "NO"}
#: Tables about one task only: their cells filter on it too.
_TABLE_TASK = {"labels": {"task": "yesno"}, "no_rate": {"task": "yesno"}, "counting": {"task": "count"},
               "counting_by_size": {"task": "count"}, "f1": {"task": "list"}, "recall_by_distance": {"task": "list"}}
_RANGE = re.compile(r"^(\d+)\s*[–-]\s*(\d+)$")
#: The viewer index's filter key of each varied variable it can filter on.
_VIEWER_KEY = {"depth": "depth", "component_size": "size", "context_length": "length", "distractor": "distractor", "task": "task"}


@dataclass(frozen=True)
class ViewerLinks:
    """Where the example viewer is (``url``, relative to the report page) and how to read table cells.

    ``runs`` are the run labels the viewer knows (the report's row labels); ``levels`` maps a
    column heading of the varied variable to the viewer's filter (``{"depth": "16"}``).
    """

    url: str
    runs: frozenset[str] = frozenset()
    levels: Mapping[str, Mapping[str, str]] = field(default_factory=dict)

    def index(self, query: dict[str, str]) -> str:
        q = "&".join(f"{quote(k, safe='')}={quote(v, safe='')}" for k, v in query.items())
        return f"{self.url}/index.html" + (f"#{q}" if q else "")

    def example(self, example_id: str) -> str:
        return f"{self.url}/example.html#id={quote(example_id, safe='')}"

    def cell_filter(self, table: str, labels: list[str], heading: str) -> dict[str, str]:
        """The viewer filter of the cell of table ``table`` in the row labelled ``labels`` and the column ``heading``."""
        query: dict[str, str] = dict(_TABLE_TASK.get(table, {}))
        for text in [*labels, heading]:
            if text in self.runs:
                query["model"] = text
            elif text in _TASKS:
                query["task"] = _TASKS[text]
            elif text in _LABELS:
                query["label"] = _LABELS[text]
            elif text in self.levels:
                query.update(self.levels[text])
            elif (m := _RANGE.match(text)) is not None and table not in ("accuracy_by_evidence_tokens", "recall_by_distance"):  # a size range
                query["size"] = f"{m.group(1)}-{m.group(2)}"
            elif table == "no_rate" and text.isdigit():  # NO rate by question depth when task is the variable
                query["depth"] = text
        return query


def viewer_links(data: SuiteData, url: str) -> ViewerLinks:
    """Links into a viewer at ``url`` (relative to the report page) for a loaded suite."""
    levels: dict[str, dict[str, str]] = {}
    key = _VIEWER_KEY.get(data.variable)
    if key is not None:
        for info in data.examples.values():
            raw = getattr(info, data.variable)
            levels.setdefault(level_label(data.variable, raw), {key: "none" if raw is None else str(raw)})
    return ViewerLinks(url.rstrip("/"), frozenset(r.label for r in data.runs), levels)

_CSS = """
body{font-family:system-ui,sans-serif;margin:2em auto;max-width:1200px;padding:0 1em;color:#222}
table{border-collapse:collapse;margin:.5em 0;font-size:12px}
td,th{border:1px solid #ccc;padding:3px 6px;text-align:right}
td.l{white-space:nowrap}
td:first-child,th:first-child{text-align:left}
table.meta td{text-align:left;white-space:normal}
th{background:#f3f3f3}
td.b{font-weight:bold}
td a{color:inherit;text-decoration:none;border-bottom:1px dotted #888}
td a.view{border:0;color:#0b5fb3;font-size:10px}
code.ids a{color:inherit}
p.caption{font-size:12px;color:#555;max-width:1100px}
ul.verdicts{font-size:13px;max-width:1100px;margin:.3em 0;padding-left:1.2em}
section.cell{border-top:1px solid #eee;padding:.3em 0}
section.cell h4{margin:.2em 0;font-size:13px}
code.ids{display:block;font-size:11px;word-break:break-all;white-space:normal}
.note{color:#a33}
figure{margin:1em 0}
"""
_XML_PROLOGUE = re.compile(r"^\s*(<\?xml[^>]*>\s*)?(<!DOCTYPE[^>]*>\s*)?", re.S)


def _wrappable(text: str) -> str:
    """A value cell's text that a narrow column may wrap only between its parts, never inside an interval
    ``[lo, hi]``, a parenthesis or ``p = x`` (their spaces become non-breaking): "12.50 [2.24, 47.09]" breaks
    before its interval. Row labels never wrap; the tables then fit the page (tests/report/test_page.py)."""
    out, depth = [], 0
    for ch in text.replace("p = ", "p\u00a0=\u00a0"):
        depth += (ch in "[(") - (ch in "])")
        out.append("\u00a0" if ch == " " and depth > 0 else ch)
    return "".join(out)


def _table_html(t: ReportTable, viewer: ViewerLinks | None = None) -> str:
    e = html.escape
    parts = [f'<h3 id="table-{e(t.key)}">{e(t.title)}</h3>', "<table>", "<tr>"]
    parts += [f"<th>{e(h)}</th>" for h in t.header]
    parts.append("</tr>")
    for row in t.rows:
        parts.append("<tr>")
        labels = [c.text for c in row[: t.label_columns]]
        for j, c in enumerate(row):
            label = j < t.label_columns
            text = e(c.text if label else _wrappable(c.text))
            if c.link:
                text = f'<a href="#{e(c.link)}">{text}</a>'
                if viewer is not None:
                    href = viewer.index(viewer.cell_filter(t.key, labels, t.header[j] if j < len(t.header) else ""))
                    text += f'\u00a0<a class="view" href="{e(href)}" title="these examples in the viewer">▸</a>'
            classes = " ".join(name for name, on in (("b", c.bold), ("l", label)) if on)
            parts.append(f'<td class="{classes}">{text}</td>' if classes else f"<td>{text}</td>")
        parts.append("</tr>")
    parts.append("</table>")
    if t.verdicts:  # sentences under the table, never in a value column: they would widen it past the page
        parts.append('<ul class="verdicts">' + "".join(f"<li>{e(v)}</li>" for v in t.verdicts) + "</ul>")
    parts += [f'<p class="caption">{e(t.caption)} <a href="tables/{e(t.key)}.csv">CSV</a> · '
              f'<a href="tables/{e(t.key)}.md">Markdown</a></p>']
    return "".join(parts)


def _list_html(lst: ExampleList, show: str, viewer: ViewerLinks | None = None) -> str:
    e = html.escape
    parts = [f'<section class="cell" id="{e(lst.anchor)}"><h4>{e(lst.title)}</h4>']
    for name, ids in lst.groups:
        if viewer is not None:
            listed = " ".join(f'<a href="{e(viewer.example(i))}">{e(i)}</a>' for i in ids)
        else:
            listed = e(" ".join(ids))
        parts.append(f"<details{' open' if len(ids) <= 20 else ''}><summary>{e(name)}: {len(ids)}</summary>"
                     f'<code class="ids">{listed or "(none)"}</code></details>')
    parts.append(f"<p><code>{e(show)}</code></p></section>")
    return "".join(parts)


def render_html(
    title: str,
    facts: Sequence[tuple[str, str]],
    notes: Sequence[str],
    tables: Sequence[ReportTable],
    figures: Mapping[str, str],
    show_command: str,
    viewer: ViewerLinks | None = None,
) -> str:
    """The report page: facts (label, value), notes, tables, figures (name -> SVG text), example lists.

    With ``viewer``, cells and example ids also link into the example viewer (see the module docstring).
    """
    e = html.escape
    out = [f'<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{e(title)}</title>',
           f"<style>{_CSS}</style></head><body><h1>{e(title)}</h1><table class='meta'>"]
    out += [f"<tr><th>{e(k)}</th><td>{e(v)}</td></tr>" for k, v in facts]
    out.append("</table>")
    if notes:
        out.append("<ul>" + "".join(f'<li class="note">{e(n)}</li>' for n in notes) + "</ul>")
    out.append("<p>Contents: " + " · ".join(f'<a href="#table-{e(t.key)}">{e(t.title)}</a>' for t in tables)
               + (' · <a href="#figures">Figures</a>' if figures else "") + ' · <a href="#examples">Examples by cell</a></p>')
    if viewer is not None:
        out.append(f'<p>Example viewer: <a href="{e(viewer.index({}))}">{e(viewer.url)}/index.html</a> '
                   "(▸ next to a cell opens its examples there; example ids open their pages).</p>")
    out.append("<h2>Tables</h2>")
    out += [_table_html(t, viewer) for t in tables]
    if figures:
        out.append('<h2 id="figures">Figures</h2>')
        for name, svg in figures.items():
            out.append(f'<figure id="figure-{e(name)}">{_XML_PROLOGUE.sub("", svg, count=1)}'
                       f'<figcaption><a href="figures/{e(name)}.png">PNG</a> · <a href="figures/{e(name)}.svg">SVG</a>'
                       "</figcaption></figure>")
    out.append('<h2 id="examples">Examples by cell</h2>'
               f"<p>Each section lists the example ids behind one table cell. Regenerate an example's prompt with "
               f"<code>{e(show_command)}</code>.</p>")
    for t in tables:
        out += [_list_html(lst, show_command, viewer) for lst in t.lists]
    out.append("</body></html>\n")
    return "".join(out)
