"""Writing the viewer: a static folder that opens from disk (``index.html``), with no server and no network.

Layout of the folder (replaced atomically as a whole)::

    index.html, example.html     the two pages (templates from graphniah/view/static/)
    static/view.css, view.js     the project's own style sheet and script
    data.js                      the index: one row per example (assigns a global: file:// forbids fetch())
    examples/<id>.js             one example's page data, loaded by example.html#id=<id> with a <script> tag
                                 (the prompt and the SVGs gzip-compressed, see ``packed_text``)
                                 (hard links to the page cache beside the site, see ``graphniah.layout.viewer_page_cache``)
    viewer.json                  what the site was built from

The index holds only short facts per example (task, depth, size, length, distractor, label and
each run's outcome), so 10,000 examples stay a few megabytes; everything heavy (the prompt, compressed,
responses, the forest's SVG) lives in the example's own file and is loaded only when its page opens.
"""

from __future__ import annotations

import ast
import base64
import datetime as dt
import functools
import gzip
import hashlib
import html
import json
import os
import shutil
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass
from importlib import resources
from pathlib import Path

from graphniah import __version__
from graphniah.atomic import atomic_dir, atomic_write_text, canonical_json, sha256_bytes, sha256_file, write_in_staging
from graphniah.errors import GraphNIAHError
from graphniah.formats.examples import Example, PaperMeta, example_to_json, iter_examples, option_letters
from graphniah.layout import SNAPSHOTS_ROOT, viewer_page_cache
from graphniah.progress import NO_PROGRESS, Progress
from graphniah.sampling.examples.prompts import PromptSet, load_prompts
from graphniah.sampling.tokenizers import Tokenizer
from graphniah.view.data import Answer, PaperLookup, RunView, check_id, example_facts, load_answers, outcome_of
from graphniah.view.forest import PALETTE, forest_layout, forest_svg, highlighted_path
from graphniah.view.needles import ROW_WIDTH, NeedleMap, RowLayout, needle_map, row_layout

__all__ = ["ViewerFiles", "build_viewer", "example_page_data", "needle_map_svg", "packed_text"]

_STATIC = ("view.css", "view.js")
_PAGES = ("index.html", "example.html")
_KIND_CODE = {"context": 0, "question": 1, "needle": 2, "paper": 3}
_OUTCOME_CODE = {"correct": "c", "wrong": "w", "failed": "f", "none": "-"}
_ROW_PREFIX = "// row: "  # first line of a cached page: the example's row of the index


@dataclass(frozen=True)
class ViewerFiles:
    """What ``build_viewer`` wrote."""

    out: Path
    index: Path
    examples: int
    runs: tuple[RunView, ...]
    without_metadata: int  # examples whose snapshot was not found (pages show corpus ids, needles unidentified)


def _js(name: str, obj: object) -> str:
    """A script that hands ``obj`` to the page: ``GraphNIAHView.<name>(...)`` (a global, since file:// has no fetch)."""
    return f"GraphNIAHView.{name}({json.dumps(obj, ensure_ascii=False, separators=(',', ':'))});\n"


def needle_map_svg(nm: NeedleMap, rows: RowLayout, colour_of: Mapping[int, int]) -> str:
    """The strip: the user message's length in tokens; the context (distractor text) grey, blocks and question marked."""
    e = html.escape
    total = max(nm.total_tokens, 1)
    w, h = 1000.0, 30.0

    def x(tok: int) -> float:
        return tok / total * w

    out = [f'<svg class="needles" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {w:.0f} {h:.0f}" preserveAspectRatio="none" '
           f'data-total="{nm.total_tokens}" data-blocks="{len(nm.blocks())}">',
           f'<rect class="whole" x="0" y="8" width="{w:.0f}" height="14"><title>user message: {nm.total_tokens:,} o200k tokens</title></rect>']
    for s, (r0, _) in zip(nm.spans, rows.span_rows, strict=True):
        if s.kind == "context":
            out.append(f'<rect class="context" x="{x(s.token):.2f}" y="8" width="{max(x(s.tokens), 0.5):.2f}" height="14" data-row="{r0}">'
                       f"<title>context (distractor text between the blocks): tokens {s.token:,}–{s.token + s.tokens:,}</title></rect>")
    for s, (r0, _) in zip(nm.spans, rows.span_rows, strict=True):
        if s.kind == "context":
            continue
        width = max(x(s.tokens), 1.2)  # a 300-token block in 900k tokens is still visible
        what = {"question": "question", "needle": "needle", "paper": "paper block (distractor component)"}[s.kind]
        label = f"{what}: {s.title}" if s.title else what
        tip = f"{label} — tokens {s.token:,}–{s.token + s.tokens:,} of {nm.total_tokens:,}"
        if s.kind == "needle":
            fill = f' fill="{PALETTE[colour_of.get(s.paper or -1, 0) % len(PALETTE)]}"'
            y, hh = 2.0, 26.0
        elif s.kind == "question":
            fill, y, hh = "", 0.0, 30.0
        else:
            fill, y, hh = "", 8.0, 14.0
        out.append(f'<rect class="{s.kind}" x="{x(s.token):.2f}" y="{y}" width="{width:.2f}" height="{hh}"{fill} data-row="{r0}">'
                   f"<title>{e(tip)}</title></rect>")
    out.append("</svg>")
    return "".join(out)


def _answer_json(a: Answer | None, run: RunView) -> dict[str, object]:
    return {
        "run": run.label,
        "outcome": outcome_of(a),
        "extracted": a.shown if a else None,
        "response": a.response if a else None,
        "reasoning": a.reasoning if a else None,
        "prompt_tokens": a.prompt_tokens if a else None,
        "completion_tokens": a.completion_tokens if a else None,
        "reasoning_tokens": a.reasoning_tokens if a else None,
        "cost_usd": a.cost_usd if a else None,
        "time_s": a.response_time_s if a else None,
        "attempts": a.attempts if a else None,
        "error": a.error if a else None,
    }


def example_page_data(
    example: Example,
    meta: Mapping[int, PaperMeta] | None,
    runs: Sequence[RunView],
    answers: Mapping[tuple[str, int], Answer],
    tokenizer: Tokenizer | None,
    prompts: PromptSet,
) -> dict[str, object]:
    """Everything the example page shows, as plain JSON-able data (the forest and the strip as SVG)."""
    layout = forest_layout(example)
    path = highlighted_path(example)
    nm = needle_map(example, tokenizer, prompts, meta)
    text = example.messages[-1].content
    rows = row_layout(text, nm.spans)
    colour_of = dict(zip(layout.papers, layout.component, strict=True))
    q = next((s for s in nm.spans if s.kind == "question"), None)
    letters = option_letters(len(example.options), example.none_option) if example.task == "mc" else ""
    opts = list(example.options) + (["none of these"] if example.none_option else [])
    return {
        "id": example.id,
        **example_facts(example),
        "question": text[q.start : q.end] if q is not None else None,
        "options": [[letters[i], o] for i, o in enumerate(opts)],
        "answer": example.answer,
        "system": example.messages[0].content if len(example.messages) > 1 else "",
        "papers": len(example.papers),
        "edges": len(example.edges),
        "path": len(path),
        "metadata": meta is not None,
        "missing_blocks": len(nm.missing),
        "token_counts": example.token_counts,
        "forest": packed_text(forest_svg(example, layout, meta or {}, path)),
        "needle_map": packed_text(needle_map_svg(nm, rows, colour_of)),
        "total_tokens": nm.total_tokens,
        "blocks": {"needle": sum(s.kind == "needle" for s in nm.spans), "paper": sum(s.kind == "paper" for s in nm.spans)},
        "prompt": packed_text(text),  # the page cuts it into the rows of prompt_rows (view.js promptRows)
        "row_width": ROW_WIDTH,
        "row_count": rows.count,
        "spans": [[r0, r1, _KIND_CODE[s.kind], colour_of.get(s.paper, -1) if s.paper is not None else -1]
                  for s, (r0, r1) in zip(nm.spans, rows.span_rows, strict=True)],
        "palette": list(PALETTE),
        "runs": [_answer_json(answers.get((example.id, i)), r) for i, r in enumerate(runs)],
    }


def packed_text(text: str) -> str:
    """``text`` as the page receives it: UTF-8, gzip-compressed (level 1: fast, and still a third to a
    half of the size of prose, code and SVG), base64-encoded. The prompt is most of a page, and sent as
    plain JSON it would make the site as large as the examples file again; the page unpacks it (and the
    two SVGs) with the browser's own ``DecompressionStream``. ``mtime=0`` keeps a page's bytes a function
    of its inputs."""
    return base64.b64encode(gzip.compress(text.encode("utf-8", "surrogatepass"), compresslevel=1, mtime=0)).decode("ascii")


def _static(name: str) -> str:
    return resources.files("graphniah.view").joinpath("static", name).read_text(encoding="utf-8")


def _examples_of(examples: Path | None, dataset: Path | None) -> tuple[Iterator[Example], dict[str, object], str]:
    """The examples to show, what they are (for ``viewer.json``) and a short name for the page title."""
    if (examples is None) == (dataset is None):
        raise GraphNIAHError("give exactly one of an examples file or a dataset folder")
    if examples is not None:
        return iter_examples(examples), {"path": str(examples), "sha256": sha256_file(examples)}, examples.name
    from graphniah.dataset.read import iter_dataset_examples, open_dataset  # the dataset stage, only when asked for

    assert dataset is not None

    ds = open_dataset(dataset)  # checks every file against the manifest's hashes
    return iter_dataset_examples(ds), {"dataset": str(dataset), "suite": ds.suite}, f"dataset {ds.suite}"


def build_viewer(
    examples: str | os.PathLike[str] | None,
    out: str | os.PathLike[str],
    *,
    dataset: str | os.PathLike[str] | None = None,
    runs: str | os.PathLike[str] | None = None,
    snapshots: str | os.PathLike[str] | None = SNAPSHOTS_ROOT,
    tokenizer: Tokenizer | None = None,
    title: str | None = None,
    prompts: str | os.PathLike[str] | None = None,
    progress: Progress = NO_PROGRESS,
) -> ViewerFiles:
    """Write the viewer for an examples file or an exported dataset folder (and the run journals in ``runs``)
    to ``out``, atomically (the old folder stays until the new one is complete).

    ``snapshots`` is where the examples' snapshots live (paper metadata); ``prompts`` the template
    folder the examples were rendered with (default: the package's), needed to find their blocks.
    """
    source_iter, source_info, source_name = _examples_of(
        None if examples is None else Path(examples), None if dataset is None else Path(dataset))
    where = str(examples if examples is not None else dataset)
    out = Path(out)
    run_views, answers = load_answers(runs)
    prompt_set = load_prompts(None if prompts is None else Path(prompts))
    lookup = PaperLookup(snapshots)
    rows: list[list[object]] = []
    without = 0
    seen: set[str] = set()
    pages = viewer_page_cache(out)
    pages.mkdir(parents=True, exist_ok=True)
    code = _code_hash()
    used: set[str] = set()
    with atomic_dir(out, replace=True) as tmp:
        (tmp / "examples").mkdir()
        progress.start(None, "viewer pages")
        for ex in source_iter:
            check_id(ex.id, where)
            if ex.id in seen:
                raise GraphNIAHError(f"{where}: example id {ex.id} appears twice")
            seen.add(ex.id)
            has_meta = lookup.available(ex.recipe.snapshot_hash)
            without += not has_meta
            mine = [answers.get((ex.id, i)) for i in range(len(run_views))]
            # The example's JSON is hashed as it is, not wrapped in another JSON string (escaping 1 MB again).
            key = sha256_bytes(canonical_json([code, prompt_set.hash, has_meta, [r.label for r in run_views],
                                               [None if a is None else asdict(a) for a in mine]]).encode()
                               + b"\0" + example_to_json(ex).encode())[:20]
            page = pages / f"{ex.id}.{key}.js"
            try:
                with open(page, encoding="utf-8") as f:  # built by an earlier (perhaps interrupted) run from the same inputs
                    row = json.loads(f.readline()[len(_ROW_PREFIX):])
            except FileNotFoundError:
                data = example_page_data(ex, lookup.meta(ex), run_views, answers, tokenizer, prompt_set)
                row = [ex.id, data["task"], data["depth"], data["component_size"], data["context_length"], data["distractor"], data["label"],
                       data["total_tokens"], "".join(_OUTCOME_CODE[outcome_of(a)] for a in mine),
                       [a.shown if a is not None else None for a in mine]]
                atomic_write_text(page, _ROW_PREFIX + json.dumps(row, ensure_ascii=False) + "\n" + _js("example", data))
            used.add(page.name)
            _link(page, tmp / "examples" / f"{ex.id}.js")
            rows.append(row)
            progress.advance()
        progress.done()
        if not rows:
            raise GraphNIAHError(f"{where} holds no examples")
        index = {
            "title": title or f"GraphNIAH examples: {source_name}",
            "source": where,
            "runs": [{"label": r.label, "model": r.model, "settings_hash": r.settings_hash} for r in run_views],
            "columns": ["id", "task", "depth", "component_size", "context_length", "distractor", "label", "tokens", "outcomes", "answers"],
            "rows": rows,
        }
        write_in_staging(tmp / "data.js", _js("index", index))
        for name in _PAGES:
            write_in_staging(tmp / name, _static(name))
        for name in _STATIC:
            write_in_staging(tmp / "static" / name, _static(name))
        write_in_staging(tmp / "viewer.json", json.dumps({
            "examples": {**source_info, "count": len(rows)},
            "runs": [{"label": r.label, "model": r.model, "settings_hash": r.settings_hash, "journal": str(r.journal),
                      "sha256": sha256_file(r.journal)} for r in run_views],
            "snapshots_without_metadata": sorted(lookup.missing),
            "version": __version__,
            "created_at": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        }, indent=2) + "\n")
    for p in pages.iterdir():  # the cache keeps exactly the pages of the site now in place
        if p.name not in used:
            p.unlink(missing_ok=True)
    return ViewerFiles(out, out / "index.html", len(rows), run_views, without)




#: The module a page is built by; every module of the package it imports, directly or not, shapes pages.
PAGE_MODULE = "graphniah.view.site"


def _module_file(root: Path, module: str) -> Path | None:
    """The source file of ``graphniah.<...>`` under the package folder ``root`` (a module or a package)."""
    parts = module.split(".")[1:]
    for candidate in (root.joinpath(*parts).with_suffix(".py"), root.joinpath(*parts, "__init__.py")):
        if parts and candidate.is_file():
            return candidate
    return None


def _imported(path: Path) -> set[str]:
    """The ``graphniah`` modules a source file imports anywhere in it (``from a import b`` may name a submodule b)."""
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_bytes(), str(path))):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names if a.name.startswith("graphniah."))
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and (node.module or "").startswith("graphniah"):
            module = str(node.module)
            out.add(module)
            out.update(f"{module}.{a.name}" for a in node.names)
    return out


def page_code_files(root: Path | None = None, start: str = PAGE_MODULE) -> list[Path]:
    """Every source file of the package (folder ``root``, default the installed one) that ``start`` imports,
    directly or through other modules of the package, ``start``'s own included; in path order."""
    root = Path(str(resources.files("graphniah"))) if root is None else root
    first = _module_file(root, start)
    if first is None:
        raise GraphNIAHError(f"module {start} has no source file under {root}")
    seen = {first}
    todo = [first]
    while todo:
        for module in _imported(todo.pop()):
            found = _module_file(root, module)
            if found is not None and found not in seen:
                seen.add(found)
                todo.append(found)
    return sorted(seen)


@functools.cache
def _code_hash(root: Path | None = None) -> str:
    """Hash of the source of every module that shapes a page (:func:`page_code_files`), so that a code
    change in any of them — the viewer, the renderers it finds the needle blocks with, the formats it
    reads — never reuses an old page. The list is derived from the imports, not written by hand."""
    h = hashlib.sha256()
    base = Path(str(resources.files("graphniah"))) if root is None else root
    for path in page_code_files(root):
        h.update(path.relative_to(base).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()


def _link(src: Path, dst: Path) -> None:
    try:
        os.link(src, dst)
    except OSError:  # another file system, or no hard links: copy
        shutil.copyfile(src, dst)
