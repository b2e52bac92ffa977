"""The report's list-task and evidence tables, recomputed from the journals with networkx and plain counting."""

from __future__ import annotations

import json

import networkx as nx
import numpy as np
import pytest

from graphniah.atomic import canonical_json, sha256_bytes
from graphniah.formats.examples import Example, ExampleStats, Message, Recipe
from graphniah.formats.journal import read_journal
from graphniah.report import build_report, cells_csv, load_suite
from graphniah.report.listing import TRIVIAL
from tests.report.synthetic import make_example, write_suite


def _title(p: int) -> str:
    return f"Paper {p}: a study of citation graphs, part {p % 5}"


def list_example(rng: np.random.Generator, index: int, size: int, depth: int) -> Example:
    """A list example on two random trees of ``size`` papers; the truth is networkx's reachable set."""
    base = 1000 * (index + 1)
    edges = []
    for start in (base, base + size):
        for v in range(start + 1, start + size):
            u = start + int(rng.integers(v - start))
            edges.append((u, v) if rng.random() < 0.5 else (v, u))
    source = base + int(rng.integers(size))
    g = nx.Graph(edges)
    targets = sorted(nx.node_connected_component(g, source) - {source}, key=lambda p: (_title(p).casefold(), _title(p)))
    ecc = max(nx.single_source_shortest_path_length(g, source).values())
    params = {"task": "list", "depth": depth, "component_size": size, "label": None, "none_option": False, "alpha": 0.1,
              "distractor": "none", "context_length": None, "index": index}
    recipe = Recipe(snapshot_hash="s" * 64, pool_hash="p" * 64, prompts_hash="q" * 64, seed=0, version="0", params=params)
    stats = ExampleStats(question_words=5, context_words=10, needles=2, needle_words=10, needle_word_pct=100.0,
                         reference_lines=1, nodes=3 * size, edges=len(edges), evidence_tokens=40 * size, hops_needed=ecc)
    return Example(id=f"list-{sha256_bytes(canonical_json(recipe.model_dump()).encode())[:16]}", task="list", depth=depth,
                   component_size=size, answer="\n".join(map(_title, targets)),
                   messages=(Message(role="system", content="sys"), Message(role="user", content=f"question {index}")),
                   papers=tuple(range(base, base + 2 * size)), edges=tuple(edges), source=source, targets=tuple(targets),
                   stats=stats, recipe=recipe)


def _named(response: str | None) -> list[str]:
    """The titles a response lists (its last answer block, one a line)."""
    if not response or "\\answer{" not in response:
        return []
    body = response.rsplit("\\answer{", 1)[1].rsplit("}", 1)[0]
    return [line.strip() for line in body.split("\n") if line.strip()]


@pytest.fixture(scope="module")
def suite(tmp_path_factory):
    rng = np.random.default_rng(5)
    root = tmp_path_factory.mktemp("listing")
    examples = [list_example(rng, i, int(rng.integers(8, 30)), depth) for i, depth in enumerate([4, 4, 4, 8, 8, 8, 8, 4])]
    examples += [make_example("yesno", 4, 12, "YES", seed=0, index=50), make_example("count", 8, 14, "13", seed=0, index=51)]
    examples = [e.model_copy(update={"stats": e.stats.model_copy(update={"evidence_tokens": 300, "hops_needed": 3})})
                if e.task != "list" else e for e in examples]

    def near(ex: Example) -> str | None:  # stops after two hops, and names one paper twice
        if ex.task != "list":
            return ex.answer
        dist = nx.single_source_shortest_path_length(nx.Graph(list(ex.edges)), ex.source)
        lines = [_title(t) for t in ex.targets if dist[t] <= 2]
        return "\n".join([*lines, lines[0]])

    def exact(ex: Example) -> str | None:
        return ex.answer

    models = {"near-model": {"answer": near}, "exact-model": {"answer": exact}}
    write_suite(root, "listing", examples, models, rng)
    data = load_suite("listing", runs_root=root / "runs", examples_root=root / "examples", by="depth")
    return root, examples, build_report(data)


def _ranges(headings) -> dict[str, tuple[int, int]]:  # type: ignore[no-untyped-def]
    """The distances each heading of the recall table covers: 1, 2, 3, 4, then 5–8, 9–16, ... (the last one cut at
    the largest distance present)."""
    out = {}
    for h in headings:
        lo, _, hi = h.partition("–")
        out[h] = (int(lo), int(hi or lo))
    spans = list(out.values())
    assert spans[: min(4, len(spans))] == [(d, d) for d in range(1, min(4, len(spans)) + 1)]
    for j, (lo, hi) in enumerate(spans[4:]):
        assert lo == 2 ** (j + 2) + 1 and (hi == 2 ** (j + 3) or j == len(spans) - 5), (lo, hi)
    return out


def test_recall_by_distance_is_recomputed_from_the_journal(suite) -> None:
    root, examples, report = suite
    by_id = {e.id: e for e in examples}
    table = report.table("recall_by_distance")
    for model in ("near-model", "exact-model"):
        k: dict[int, int] = {}
        n: dict[int, int] = {}
        for r in read_journal(root / "runs" / "listing" / f"{model}.jsonl"):
            ex = by_id[r.example_id]
            if ex.task != "list" or r.status != "ok":
                continue
            named = {s.casefold() for s in _named(r.response)}
            dist = nx.single_source_shortest_path_length(nx.Graph(list(ex.edges)), ex.source)
            for t in ex.targets:
                k[dist[t]] = k.get(dist[t], 0) + (_title(t).casefold() in named)
                n[dist[t]] = n.get(dist[t], 0) + 1
        # distances 1 to 4 have a column each; beyond, ranges that double (5–8, 9–16, ...) pool them
        ranges = _ranges(table.header[1:-1])
        assert any(lo < hi for lo, hi in ranges.values()) and max(hi for _, hi in ranges.values()) == max(n)
        for label, (lo, hi) in ranges.items():
            got = table.value(model, label, "recall")
            want = (sum(k.get(d, 0) for d in range(lo, hi + 1)), sum(n.get(d, 0) for d in range(lo, hi + 1)))
            assert (got.k, got.n) == want, (model, label)
        overall = table.value(model, "Overall", "recall")
        assert (overall.k, overall.n) == (sum(k.values()), sum(n.values()))
        if model == "near-model":
            assert table.value(model, "1", "recall").value == 1.0 and k.get(3, 0) == 0  # the search stops at two hops
    assert all(table.value(TRIVIAL, str(d), "recall").value == 1.0 for d in range(1, 4))
    # the figure's grid keeps every distance
    from graphniah.report.listing import recall_grid

    every = recall_grid(report.context)
    assert every is not None and every.col_labels == (*(str(d) for d in range(1, len(every.col_labels))), "Overall")


def test_f1_per_model_and_the_trivial_baseline(suite) -> None:
    _, examples, report = suite
    lists = [e for e in examples if e.task == "list"]
    f1 = report.table("f1")
    assert f1.value("exact-model", "Overall", "f1").value == 1.0
    expected = []
    for ex in lists:  # the near model: precision and recall by hand
        dist = nx.single_source_shortest_path_length(nx.Graph(list(ex.edges)), ex.source)
        hits = sum(dist[t] <= 2 for t in ex.targets)
        p, r = hits / (hits + 1), hits / len(ex.targets)
        expected.append(2 * p * r / (p + r))
    v = f1.value("near-model", "Overall", "f1")
    assert v.n == len(lists) and v.value == pytest.approx(np.mean(expected)) and v.low <= v.value <= v.high
    trivial = [2 * (ex.component_size - 1) / (3 * ex.component_size - 1) / (1 + (ex.component_size - 1) / (3 * ex.component_size - 1))
               for ex in lists]
    assert f1.value(TRIVIAL, "Overall", "f1").value == pytest.approx(np.mean(trivial))
    csv = cells_csv(report.tables)
    assert "\nf1,exact-model,Overall,f1,,8,1.0,1.0,1.0,," in csv and ",recall," in csv
    assert "recall_by_distance" in report.figures()
    assert report.table("accuracy_list").value("exact-model", "Overall").k == len(lists)  # exact sets


def test_accuracy_by_hops_and_evidence_tokens_per_task(suite) -> None:
    _, examples, report = suite
    hops = report.table("accuracy_by_hops")
    lists = [e for e in examples if e.task == "list"]
    for h in sorted({e.stats.hops_needed for e in lists}):
        want = [e for e in lists if e.stats.hops_needed == h]
        v = hops.value("exact-model | List", str(h))
        assert (v.k, v.n) == (len(want), len(want))
        assert hops.value("near-model | List", str(h)).k == 0  # its duplicate line is never the exact set
    assert hops.value("exact-model | YES/NO", "3").n == 1
    tokens = report.table("accuracy_by_evidence_tokens")
    assert tokens.value("exact-model | Counting", "256–511").n == 1
    assert json.dumps(tokens.header)  # printable
