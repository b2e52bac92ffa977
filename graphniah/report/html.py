"""The HTML report: one self-contained file with every table, the figures inline, and per-cell example lists.

Every linked table cell points to an anchor section listing the ids of the examples behind it
(split, e.g., into correct and wrong answers) and the ``graphniah show`` command that regenerates
any of them from its recipe. Figures are inlined as SVG, so the file needs nothing beside it.
No JavaScript: the lists are plain ``<details>`` elements.
"""

from __future__ import annotations

import html
import re
from collections.abc import Mapping, Sequence

from graphniah.report.model import ExampleList, ReportTable

__all__ = ["render_html"]

_CSS = """
body{font-family:system-ui,sans-serif;margin:2em auto;max-width:1200px;padding:0 1em;color:#222}
table{border-collapse:collapse;margin:.5em 0;font-size:12px}
td,th{border:1px solid #ccc;padding:3px 6px;text-align:right;white-space:nowrap}
td:first-child,th:first-child{text-align:left}
th{background:#f3f3f3}
td.b{font-weight:bold}
td a{color:inherit;text-decoration:none;border-bottom:1px dotted #888}
p.caption{font-size:12px;color:#555;max-width:1100px}
section.cell{border-top:1px solid #eee;padding:.3em 0}
section.cell h4{margin:.2em 0;font-size:13px}
code.ids{display:block;font-size:11px;word-break:break-all;white-space:normal}
.note{color:#a33}
figure{margin:1em 0}
"""
_XML_PROLOGUE = re.compile(r"^\s*(<\?xml[^>]*>\s*)?(<!DOCTYPE[^>]*>\s*)?", re.S)


def _table_html(t: ReportTable) -> str:
    e = html.escape
    parts = [f'<h3 id="table-{e(t.key)}">{e(t.title)}</h3>', "<table>", "<tr>"]
    parts += [f"<th>{e(h)}</th>" for h in t.header]
    parts.append("</tr>")
    for row in t.rows:
        parts.append("<tr>")
        for c in row:
            text = e(c.text)
            if c.link:
                text = f'<a href="#{e(c.link)}">{text}</a>'
            parts.append(f'<td class="b">{text}</td>' if c.bold else f"<td>{text}</td>")
        parts.append("</tr>")
    parts += ["</table>", f'<p class="caption">{e(t.caption)} <a href="tables/{e(t.key)}.csv">CSV</a> · '
              f'<a href="tables/{e(t.key)}.md">Markdown</a></p>']
    return "".join(parts)


def _list_html(lst: ExampleList, show: str) -> str:
    e = html.escape
    parts = [f'<section class="cell" id="{e(lst.anchor)}"><h4>{e(lst.title)}</h4>']
    for name, ids in lst.groups:
        parts.append(f"<details{' open' if len(ids) <= 20 else ''}><summary>{e(name)}: {len(ids)}</summary>"
                     f'<code class="ids">{e(" ".join(ids)) or "(none)"}</code></details>')
    parts.append(f"<p><code>{e(show)}</code></p></section>")
    return "".join(parts)


def render_html(
    title: str,
    facts: Sequence[tuple[str, str]],
    notes: Sequence[str],
    tables: Sequence[ReportTable],
    figures: Mapping[str, str],
    show_command: str,
) -> str:
    """The report page: facts (label, value), notes, tables, figures (name -> SVG text), example lists."""
    e = html.escape
    out = [f'<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{e(title)}</title>',
           f"<style>{_CSS}</style></head><body><h1>{e(title)}</h1><table>"]
    out += [f"<tr><th>{e(k)}</th><td>{e(v)}</td></tr>" for k, v in facts]
    out.append("</table>")
    if notes:
        out.append("<ul>" + "".join(f'<li class="note">{e(n)}</li>' for n in notes) + "</ul>")
    out.append("<p>Contents: " + " · ".join(f'<a href="#table-{e(t.key)}">{e(t.title)}</a>' for t in tables)
               + (' · <a href="#figures">Figures</a>' if figures else "") + ' · <a href="#examples">Examples by cell</a></p>')
    out.append("<h2>Tables</h2>")
    out += [_table_html(t) for t in tables]
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
        out += [_list_html(lst, show_command) for lst in t.lists]
    out.append("</body></html>\n")
    return "".join(out)
