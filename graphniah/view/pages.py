"""Writing the viewer: a static folder that opens from disk (``index.html``), with no server and no network.

Layout of the folder (replaced atomically as a whole)::

    index.html, example.html     the two pages (templates from graphniah/view/static/)
    static/view.css, view.js     the project's own style sheet and script
    data.js                      the index: one row per example (assigns a global: file:// forbids fetch())
    examples/<id>.js             one example's page data, loaded by example.html#id=<id> with a <script> tag
                                 (the prompt and the forest's and needle map's data gzip-compressed,
                                 see ``packed_text``; the page draws the two SVGs from that data)
                                 (hard links to the page cache beside the site, see ``graphniah.layout.viewer_page_cache``)
    viewer.json                  what the site was built from

The index holds only short facts per example (task, depth, size, length, distractor, label and
each run's outcome), so 10,000 examples stay a few megabytes; everything heavy (the prompt, compressed,
responses, the forest's drawing data) lives in the example's own file and is loaded only when its page opens.
"""

from __future__ import annotations

import ast
import base64
import datetime as dt
import functools
import hashlib
import json
import os
import shutil
import unicodedata
from collections import deque
from collections.abc import Iterator, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import asdict, dataclass
from importlib import resources
from pathlib import Path

from isal import igzip

from graphniah import __version__
from graphniah.atomic import atomic_dir, canonical_json, sha256_bytes, sha256_file, write_in_staging
from graphniah.errors import GraphNIAHError
from graphniah.formats.examples import Example, example_lines, example_to_json, option_letters
from graphniah.layout import SNAPSHOTS_ROOT, viewer_page_cache
from graphniah.progress import NO_PROGRESS, Progress
from graphniah.scoring import list_papers, recall_by_distance, target_distances, title_index
from graphniah.text import PromptSet, Tokenizer, load_prompts, parse_context, title_key
from graphniah.view.data import Answer, PaperLookup, RunView, ShownPaper, check_id, example_facts, load_answers, outcome_of
from graphniah.view.forest import PALETTE, ForestLayout, forest_caption, forest_data, forest_layout, highlighted_path
from graphniah.view.needles import ROW_WIDTH, NeedleMap, needle_map, row_layout

__all__ = ["ViewerFiles", "build_viewer", "example_page_data", "list_overlays", "needle_map_data", "packed_text"]

_STATIC = ("view.css", "view.js")
_PAGES = ("index.html", "example.html")
_KIND_CODE = {"context": 0, "question": 1, "needle": 2, "paper": 3}
_OUTCOME_CODE = {"correct": "c", "wrong": "w", "failed": "f", "none": "-"}
# First line of a cached page: "// row <sha256 of the rest, 32 hex digits>: <the example's row of the index>".
_ROW_PREFIX = "// row "
_PAGE_END = b");\n"  # last bytes of a complete page (see _js)
_PACKED = ("forest", "needle_map", "prompt")  # the page fields that are packed_text (base64: JSON strings as they are)


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


def _page_js(data: Mapping[str, object]) -> str:
    """``_js("example", data)``, with the packed fields spliced in as they are: base64 needs no JSON
    escaping, and the encoder would otherwise copy half a megabyte of it character by character."""
    small = json.dumps({k: v for k, v in data.items() if k not in _PACKED}, ensure_ascii=False, separators=(",", ":"))
    packed = "".join(f',"{k}":"{data[k]}"' for k in _PACKED)
    return f"GraphNIAHView.example({small[:-1]}{packed}}});\n"


def needle_map_data(nm: NeedleMap) -> dict[str, object]:
    """What the page draws the needle map from (``needleSvg`` in view.js): the user message's length in
    o200k tokens, and for each span of ``nm.spans`` (in the order of the page's ``spans``) its first
    token, its length in tokens and the title of its paper block (None for the question, the context,
    and blocks without one). The strip shows the context (distractor text) grey and the blocks and
    the question marked, each with a tooltip and a link to its rows."""
    return {"total": nm.total_tokens, "tokens": [t for s in nm.spans for t in (s.token, s.tokens)],
            "titles": [s.title for s in nm.spans], "blocks": len(nm.blocks())}


@dataclass(frozen=True)
class _ListContext:
    """What a list example's answers are classified against: the titles of the context's papers outside
    the truth that are known without parsing (``titles``: the forest's other papers, from the metadata,
    then the title lines of the other blocks), the forest index of each (``nodes``; -1: not drawn, a
    paper of a distractor component), the other blocks (``blocks``, character ranges of the user
    message, where papers named only in a reference list are found), and the hops of each truth line."""

    text: str
    prompts: PromptSet
    titles: tuple[str, ...]
    nodes: tuple[int, ...]
    blocks: tuple[tuple[int, int], ...]
    hops: tuple[int, ...]


def _list_context(example: Example, layout: ForestLayout, meta: Mapping[int, ShownPaper] | None, nm: NeedleMap,
                  prompts: PromptSet) -> _ListContext:
    truth = set(example.targets)
    nodes = [i for i, p in enumerate(layout.papers) if p not in truth and meta is not None and p in meta]
    titles = [meta[layout.papers[i]].title for i in nodes] if meta is not None else []
    # Blocks that are not the task's (all of them without metadata): distractor components, not drawn.
    blocks = [sp for sp in nm.spans if sp.kind == "paper"]
    named = [sp.title for sp in blocks if sp.title]
    return _ListContext(example.messages[-1].content, prompts, (*titles, *named), (*nodes, *([-1] * len(named))),
                        tuple((sp.start, sp.end) for sp in blocks), target_distances(example.edges, example.source, example.targets))


_FULL_PARSE = 16  # more unplaced lines than this: every other block is parsed, without looking for their words first


def _apart(c: str) -> bool:
    """Whether ``c`` separates words as title keys do (white space, or punctuation, which they make a space)."""
    return c.isspace() or unicodedata.category(c).startswith("P")


def _has_word(text: str, word: str) -> bool:
    """Whether ``word`` occurs in ``text`` as a whole word of its title key (between separators or the ends);
    a loop of ``str.find``, several times faster here than a regular expression with look-arounds."""
    i = text.find(word)
    while i >= 0:
        j = i + len(word)
        if (i == 0 or _apart(text[i - 1])) and (j == len(text) or _apart(text[j])):
            return True
        i = text.find(word, i + 1)
    return False


def _named_in_blocks(keys: set[str], ctx: _ListContext) -> list[str]:
    """Titles of the papers that the other blocks name (title line or reference), read by the text-only
    parser (:func:`graphniah.text.textcheck.parse_context`) from the blocks that may name
    one of ``keys``: a block naming a title holds each of its words, so only the blocks holding the
    longest word of some key are parsed (a context of component distractors has a thousand blocks,
    and parsing them all is most of such a page's build)."""
    texts = [ctx.text[a:b] for a, b in ctx.blocks]
    if len(keys) <= _FULL_PARSE:
        # the words as the key has them: NFKC and case-folded (punctuation splits words, so a word is whole in the text)
        folded = [(t if unicodedata.is_normalized("NFKC", t) else unicodedata.normalize("NFKC", t)).casefold() for t in texts]
        words = {max(k.split(" "), key=len) for k in keys}
        texts = [t for t, f in zip(texts, folded, strict=True) if any(_has_word(f, w) for w in words)]
    return [n.title for n in parse_context("\n\n".join(texts), ctx.prompts).nodes] if texts else []


def list_overlays(example: Example, answers: Sequence[Answer | None], ctx: _ListContext) -> list[dict[str, object] | None]:
    """Each run's list answer per paper, for the forest overlay (None for a run without a scored answer).

    ``hits``: one character per truth line, ``1`` if named (:func:`graphniah.scoring.list_papers`,
    the matcher F1 and recall count with); ``extra``: forest indices of the other papers named;
    ``extra_undrawn``: how many named papers of the context are not in the forest (distractor
    components); ``unknown``: lines naming no paper of the context; ``repeated``: lines naming a paper
    again; ``by_hop``: ``[named, all]`` truth papers at 1, 2, … hops
    (:func:`graphniah.scoring.recall_by_distance`). Indices, not titles: the page has the titles already.

    Lines outside the truth are first looked up among the titles known without parsing; only the
    lines left over send the other blocks that may name them through the parser."""
    scored = [a if a is not None and a.status == "ok" else None for a in answers]
    index = title_index(ctx.titles) if any(scored) else {}  # keyed once for all runs
    got = [None if a is None else list_papers(example.answer, a.raw, index, listing=a.listing) for a in scored]
    left = {title_key(line) for g in got if g is not None for line in g.unknown}
    nodes = ctx.nodes
    if left and ctx.blocks:
        more = _named_in_blocks(left, ctx)
        if more:
            nodes = (*nodes, *([-1] * len(more)))
            for i, t in enumerate(more, start=len(ctx.titles)):
                index.setdefault(title_key(t), i)
            got = [list_papers(example.answer, a.raw, index, listing=a.listing) if a is not None and g is not None and g.unknown else g
                   for a, g in zip(scored, got, strict=True)]
    out: list[dict[str, object] | None] = []
    for g in got:
        if g is None:
            out.append(None)
            continue
        found = set(g.found)
        hits = [i in found for i in range(len(example.targets))]
        placed = [nodes[i] for i in g.extra]
        out.append({
            "hits": "".join("1" if h else "0" for h in hits),
            "extra": [i for i in placed if i >= 0],
            "extra_undrawn": sum(i < 0 for i in placed),
            "unknown": list(g.unknown),
            "repeated": g.repeated,
            "by_hop": [list(c) for c in recall_by_distance(hits, ctx.hops)],
        })
    return out


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
    meta: Mapping[int, ShownPaper] | None,
    runs: Sequence[RunView],
    answers: Mapping[tuple[str, int], Answer],
    tokenizer: Tokenizer | None,
    prompts: PromptSet,
    *,
    pack_prompt: bool = True,
) -> dict[str, object]:
    """Everything the example page shows, as plain JSON-able data (the forest's and the needle map's
    packed, for the page to draw). ``pack_prompt=False`` leaves the prompt as its UTF-8 bytes, for the
    caller to pack (``build_viewer`` does it in a worker thread, beside the next example's work)."""
    layout = forest_layout(example)
    path = highlighted_path(example)
    nm = needle_map(example, tokenizer, prompts, meta)
    listing = _list_context(example, layout, meta, nm, prompts) if example.task == "list" else None
    mine = [answers.get((example.id, i)) for i in range(len(runs))]
    overlays = None if listing is None else list_overlays(example, mine, listing)
    text = example.messages[-1].content
    raw = text.encode("utf-8", "surrogatepass")
    rows = row_layout(text, nm.spans, encoded=raw)
    colour_of = dict(zip(layout.papers, layout.component, strict=True))
    node_of = {p: i for i, p in enumerate(layout.papers)}
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
        "forest": _packed_json(forest_data(example, layout, meta or {}, path)),
        "forest_caption": forest_caption(example, path, meta is not None),
        # a list example: each truth line's forest node and hops, in the answer's order (its titles are "answer")
        "list": None if listing is None else {"nodes": [node_of[t] for t in example.targets], "hops": list(listing.hops)},
        "needle_map": _packed_json(needle_map_data(nm)),
        "total_tokens": nm.total_tokens,
        "blocks": {"needle": sum(s.kind == "needle" for s in nm.spans), "paper": sum(s.kind == "paper" for s in nm.spans)},
        "prompt": _packed(raw) if pack_prompt else raw,  # the page cuts it into the rows of prompt_rows (view.js promptRows)
        "row_width": ROW_WIDTH,
        "row_count": rows.count,
        "spans": [[r0, r1, _KIND_CODE[s.kind], colour_of.get(s.paper, -1) if s.paper is not None else -1]
                  for s, (r0, r1) in zip(nm.spans, rows.span_rows, strict=True)],
        "palette": list(PALETTE),
        "runs": [_answer_json(a, r) | ({} if overlays is None else {"overlay": overlays[i]}) for i, (a, r) in enumerate(zip(mine, runs, strict=True))],
    }


def packed_text(text: str) -> str:
    """``text`` as the page receives it: UTF-8, gzip-compressed, base64-encoded. The prompt is most of a
    page, and sent as plain JSON it would make the site as large as the examples file again; the page
    unpacks it (and the two SVGs) with the browser's own ``DecompressionStream``.

    Compressed by ISA-L (``isal.igzip``, already a dependency for reading S2AG's gzip files) at its level
    2: standard gzip, a little smaller than zlib's level 1 on prompts, in a fraction of its time.
    ``mtime=0`` keeps a page's bytes a function of its inputs."""
    return _packed(text.encode("utf-8", "surrogatepass"))


def _packed(raw: bytes) -> str:
    return base64.b64encode(igzip.compress(raw, 2, mtime=0)).decode("ascii")


def _packed_json(obj: object) -> str:
    """``obj`` as JSON, packed (the page unpacks it, then parses it)."""
    return _packed(json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode("utf-8", "surrogatepass"))


def _static(name: str) -> str:
    return resources.files("graphniah.view").joinpath("static", name).read_text(encoding="utf-8")


def _examples_of(examples: Path | None, dataset: Path | None) -> tuple[Iterator[tuple[Example, bytes]], dict[str, object], str]:
    """The examples to show, each with the bytes its page's cache key is taken over (its line of the
    examples file as it is; for a dataset's rows, the line they rebuild), what they are (for
    ``viewer.json``) and a short name for the page title."""
    if (examples is None) == (dataset is None):
        raise GraphNIAHError("give exactly one of an examples file or a dataset folder")
    if examples is not None:
        lines = ((ex, line) for _, ex, line in example_lines(examples))  # the line as read: hashing it is cheaper than serialising again
        return lines, {"path": str(examples), "sha256": sha256_file(examples)}, examples.name
    from graphniah.formats.dataset import iter_dataset_examples, open_dataset  # the dataset folder's reader, only when asked for

    assert dataset is not None

    ds = open_dataset(dataset)  # checks every file against the manifest's hashes
    rows = ((ex, example_to_json(ex).encode()) for ex in iter_dataset_examples(ds))
    return rows, {"dataset": str(dataset), "suite": ds.suite}, f"dataset {ds.suite}"


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
    with atomic_dir(out, replace=True) as tmp, _PageWriter() as writer:
        (tmp / "examples").mkdir()
        progress.start(None, "viewer pages")
        for ex, line in source_iter:
            check_id(ex.id, where)
            if ex.id in seen:
                raise GraphNIAHError(f"{where}: example id {ex.id} appears twice")
            seen.add(ex.id)
            has_meta = lookup.available(ex.recipe.snapshot_hash)
            without += not has_meta
            mine = [answers.get((ex.id, i)) for i in range(len(run_views))]
            # The example's line is hashed as it is, not wrapped in another JSON string (escaping 1 MB again).
            key = sha256_bytes(canonical_json([code, prompt_set.hash, has_meta, [r.label for r in run_views],
                                               [None if a is None else asdict(a) for a in mine]]).encode() + b"\0" + line)[:20]
            page = pages / f"{ex.id}.{key}.js"
            row = _cached_row(page, ex.id)  # built by an earlier (perhaps interrupted) run from the same inputs
            if row is None:
                data = example_page_data(ex, lookup.cards(ex), run_views, answers, tokenizer, prompt_set, pack_prompt=False)
                row = [ex.id, data["task"], data["depth"], data["component_size"], data["context_length"], data["distractor"], data["label"],
                       data["total_tokens"], "".join(_OUTCOME_CODE[outcome_of(a)] for a in mine),
                       [a.shown if a is not None else None for a in mine]]
                writer.put(page, row, data, tmp / "examples" / f"{ex.id}.js")
            else:
                _link(page, tmp / "examples" / f"{ex.id}.js")
            used.add(page.name)
            rows.append(row)
            progress.advance()
        writer.finish()
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
PAGE_MODULE = "graphniah.view.pages"


def _module_file(root: Path, module: str) -> Path | None:
    """The source file of ``graphniah.<...>`` under the package folder ``root`` (a module or a package)."""
    parts = module.split(".")[1:]
    for candidate in (root.joinpath(*parts).with_suffix(".py"), root.joinpath(*parts, "__init__.py")):
        if parts and candidate.is_file():
            return candidate
    return None


def _imported(path: Path) -> frozenset[str]:
    """The ``graphniah`` modules a source file imports anywhere in it (``from a import b`` may name a submodule b)."""
    return _imports_in(path.read_bytes(), str(path))


@functools.cache  # by content: a file parsed once per process, whatever changed beside it
def _imports_in(source: bytes, filename: str) -> frozenset[str]:
    out: set[str] = set()
    for node in ast.walk(ast.parse(source, filename)):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names if a.name.startswith("graphniah."))
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and (node.module or "").startswith("graphniah"):
            module = str(node.module)
            out.add(module)
            out.update(f"{module}.{a.name}" for a in node.names)
    return frozenset(out)


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


class _PageWriter:
    """Packs each new page's prompt, writes the page to the cache and links it into the site, in one
    worker thread: ISA-L compression, hashing and file writes release the GIL, so on two cores this
    runs beside the next example's layout and needle map. At most a few pages wait (each holds its
    prompt); an error in the worker is raised by the next ``put`` or by ``finish``."""

    _PENDING = 4

    def __init__(self) -> None:
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="viewer-pages")
        self._pending: deque[Future[None]] = deque()

    def __enter__(self) -> _PageWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self._pool.shutdown(wait=True, cancel_futures=True)

    def put(self, page: Path, row: list[object], data: dict[str, object], link: Path) -> None:
        while len(self._pending) >= self._PENDING:
            self._pending.popleft().result()
        self._pending.append(self._pool.submit(_finish_page, page, row, data, link))

    def finish(self) -> None:
        while self._pending:
            self._pending.popleft().result()


def _finish_page(page: Path, row: list[object], data: dict[str, object], link: Path) -> None:
    raw = data["prompt"]
    assert isinstance(raw, bytes)  # example_page_data(..., pack_prompt=False)
    data["prompt"] = _packed(raw)
    body = _page_js(data).encode("utf-8")
    _write_page(page, f"{_ROW_PREFIX}{sha256_bytes(body)[:32]}: {json.dumps(row, ensure_ascii=False)}\n".encode() + body)
    _link(page, link)


def _cached_row(page: Path, example_id: str) -> list[object] | None:
    """The index row a cached page of ``example_id`` starts with, or None when there is no such page or
    it is not whole and intact: its ending, the hash of its body and the example id its row names must
    agree, so a page cut short, changed, or another example's is built again, never linked into a site."""
    try:
        data = page.read_bytes()
    except OSError:
        return None
    first, _, body = data.partition(b"\n")
    prefix = _ROW_PREFIX.encode()
    digest, sep, row_text = first[len(prefix):].partition(b": ")
    if not (data.endswith(_PAGE_END) and first.startswith(prefix) and sep and digest == sha256_bytes(body)[:32].encode()):
        return None
    try:
        row = json.loads(row_text)
    except ValueError:
        return None
    return row if isinstance(row, list) and row[:1] == [example_id] else None


def _write_page(page: Path, data: bytes) -> None:
    """A page into the cache: written beside it, then renamed into place, so no reader sees half a page.

    Not fsynced here: the page is hard-linked into the site, and ``atomic_dir`` fsyncs every file of the
    site before putting it in place, so each page reaches the disk once (an fsync per page here as well
    made the cold build wait on the disk twice per page). A page torn by a power cut before that, or
    changed since, fails its hash (``_cached_row`` refuses it) and is built again; leftovers of a
    killed run are removed with the other pages the site does not use."""
    tmp = page.with_name(f".{page.name}.{os.getpid()}.tmp")
    tmp.write_bytes(data)
    os.replace(tmp, page)


def _link(src: Path, dst: Path) -> None:
    try:
        os.link(src, dst)
    except OSError:  # another file system, or no hard links: copy
        shutil.copyfile(src, dst)
