"""Distractors inside real examples: all five kinds (and none) packed, verified and regenerated on a
small demo snapshot; extra components disjoint and cut from the end; reconstruction; clear errors."""

from __future__ import annotations

import datetime as dt
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from graphniah.assets import fetch_assets
from graphniah.cli import app
from graphniah.errors import GraphNIAHError
from graphniah.formats.examples import read_examples
from graphniah.formats.snapshot import Snapshot
from graphniah.sampling.corpora import fetch, open_corpus
from graphniah.sampling.examples.distract import DISTRACTOR_KINDS, ComponentSource, RenderedComponent, WikipediaSource, wikipedia_source
from graphniah.sampling.examples.grow import Occupied
from graphniah.sampling.examples.render import build_messages
from graphniah.sampling.examples.sample import SampleStats, build_example, regenerate
from graphniah.sampling.examples.spec import ExampleSpec, SamplingContext
from graphniah.sampling.packing import Frame, pack
from graphniah.text import verify

DEPTH, SIZE = 3, 12
CUTOFF = dt.date(2026, 4, 1)
TEXT_KINDS = ("code", "essays", "books", "wikipedia")


@pytest.fixture(scope="module")
def snapshots(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A 3,000-paper demo release -> snapshot -> depth-3 pool of 200 paths (a few seconds)."""
    from graphniah.graph.store import build_path_pools
    from graphniah.ingest.build import ingest_release
    from graphniah.ingest.demo_release import write_demo_releases

    root = tmp_path_factory.mktemp("distract")
    rs = write_demo_releases(root / "release", papers=3000, seed=1, releases=1)
    rid = rs.release_ids[-1]
    snapdir = root / "snapshots" / rid / f"cutoff={CUTOFF.isoformat()}"
    ingest_release(rs.release_dir(rid), CUTOFF, snapdir)
    build_path_pools(Snapshot.open(snapdir), [DEPTH], 200, 0)
    fetch_assets()  # idempotent: both only check hashes when the setup step already ran
    fetch(TEXT_KINDS)
    return root / "snapshots"


@pytest.fixture(scope="module")
def ctx(snapshots: Path) -> SamplingContext:
    return SamplingContext(Snapshot.open(next(snapshots.glob("*/cutoff=*"))))


def recount(ctx: SamplingContext, messages) -> dict[str, int]:
    msgs = [(m.role, m.content) for m in messages]
    return {name: tok.chat_count(msgs) for name, tok in ctx.tokenizers.items()}


CASES = [(kind, task) for kind, task in zip(DISTRACTOR_KINDS, ["count", "yesno", "mc", "count", "yesno", "mc"], strict=True)]


@pytest.mark.parametrize(("kind", "task"), CASES)
def test_every_kind_packs_verifies_and_regenerates(kind: str, task: str, ctx: SamplingContext) -> None:
    i = DISTRACTOR_KINDS.index(kind)
    limit = int(np.random.default_rng(i).integers(5_000, 12_000))
    label = {"yesno": "NO", "mc": "C", "count": None}[task]
    stats = SampleStats()
    ex = build_example(ctx, ExampleSpec(task, DEPTH, SIZE, label, distractor=kind, context_length=limit), 11, i, stats)
    counts = recount(ctx, ex.messages)
    assert counts == ex.token_counts and max(counts.values()) <= limit
    assert set(counts) == {"o200k_base", "qwen3.5", "gemma"}
    assert verify(ex, ctx.prompts).ok
    params = ex.recipe.params
    assert params["distractor"] == kind and params["context_length"] == limit
    assert set(params["tokenizers"]) == set(counts)
    assert ("corpus" in params) == (kind in TEXT_KINDS)
    # byte for byte from the recipe
    again = regenerate(ctx, ex)
    assert again == ex
    if kind == "none":
        assert stats.stops == Counter({"exhausted": 1})
        assert ex.stats.context_words == ex.stats.needle_words
    else:
        (stop,) = stats.stops
        assert stop in ("near_limit", "next_block_too_long", "exhausted")
        assert ex.stats.context_words > ex.stats.needle_words
        if stop == "near_limit":
            assert max(counts.values()) >= limit - 100
    if kind == "disjoint-component":
        assert ex.stats.nodes > len(ex.papers)  # the extra components' rendered papers are counted


def test_needles_beyond_the_length_rebuild_the_example(ctx: SamplingContext) -> None:
    spec = ExampleSpec("count", DEPTH, SIZE)
    plain = build_example(ctx, spec, 5, 0)
    natural = max(recount(ctx, plain.messages).values())  # the needles-only prompt of that example
    stats = SampleStats()
    ex = build_example(ctx, ExampleSpec("count", DEPTH, SIZE, context_length=natural - 1), 5, 0, stats)
    assert stats.rejects["needles_exceed_length"] >= 1
    assert ex.papers != plain.papers and max(recount(ctx, ex.messages).values()) <= natural - 1
    with pytest.raises(GraphNIAHError, match="context length too short"):
        build_example(ctx, ExampleSpec("count", DEPTH, SIZE, context_length=300), 5, 0)


def test_extra_components_are_disjoint_and_cut_from_the_end(ctx: SamplingContext) -> None:
    spec = ExampleSpec("yesno", DEPTH, SIZE, "YES", distractor="disjoint-component", context_length=9_000)
    base = build_example(ctx, ExampleSpec("yesno", DEPTH, SIZE, "YES"), 3, 0)
    task_vertices = ctx.graph.vertex_of(np.asarray(base.papers))
    occupied = Occupied()
    occupied.add(task_vertices, ctx.title_key)
    source = ComponentSource(ctx.papers, ctx.pool_index(DEPTH), ctx.prompts, occupied, depth=DEPTH, alpha=spec.alpha,
                             sizes=spec.other_sizes)
    msgs = build_messages("yesno", "Is there a path?", ["\x00slot\x00"], ctx.prompts)
    frame = Frame.around([(m.role, m.content) for m in msgs], "\x00slot\x00")
    needles = list(base.messages[1].content.split("=== CONTEXT ===\n\n", 1)[1].split("\n\n=== ANSWER FORMAT", 1)[0].split("\n\n"))
    rng = np.random.default_rng(0)
    p = pack(frame, needles, rng.random(len(needles)), source, spec.context_length, ctx.tokenizers, rng)
    assert max(p.token_counts.values()) <= spec.context_length
    # every drawn component: full size, disjoint from the task's papers and each other, no edge across
    groups = [set(task_vertices.tolist())] + [set(c.order) for c in source.components]
    assert len(groups) > 2 and all(len(g) == SIZE for g in groups[1:])
    owner = {v: gi for gi, g in enumerate(groups) for v in g}
    assert len(owner) == sum(map(len, groups))
    for v, gi in owner.items():
        assert all(owner.get(int(u), gi) == gi for u in ctx.graph.neighbors(v))
    titles = [ctx.title_key(v) for v in owner]
    assert len(set(titles)) == len(titles)
    # blocks follow the order in which papers joined the component; the last component drawn is cut,
    # keeping its first blocks, so the papers added last are the ones dropped
    cid = ctx.graph.corpusids
    for u in p.used:
        rc = u.distractor.payload
        assert isinstance(rc, RenderedComponent)
        citing = {int(cid[a]) for a, _ in rc.component.edges}
        assert list(rc.owners) == [int(cid[v]) for v in rc.component.order if int(cid[v]) in citing]
        assert Counter(b for b, nd in zip(p.context, p.needle, strict=True) if not nd and b in u.distractor.blocks) == Counter(u.distractor.blocks[: u.kept])
    last = p.used[-1]
    assert last.kept < len(last.distractor.blocks)
    papers, cites = last.distractor.payload.rendered(last.kept)
    assert cites == sum(len(r) for r in last.distractor.payload.cited[: last.kept]) and len(papers) < SIZE


def test_wikipedia_draws_the_best_passages_first(ctx: SamplingContext) -> None:
    corpus = ctx.corpus("wikipedia")
    titles = ["Graph neural networks for molecule property prediction", "Solar cell efficiency in deserts"]
    src = wikipedia_source(corpus, titles)
    rng = np.random.default_rng(0)
    drawn = [src.draw(rng).label for _ in range(4)]
    best = [f"wikipedia:{d.doc_id}" for d in corpus.retrieve(titles, 4)]
    assert drawn == best
    # the ranking is fetched in doubling batches; the drawn sequence does not depend on the first batch
    n_ranked = len(corpus.retrieve(titles, len(corpus)))
    small, large = WikipediaSource(corpus, titles, 1), WikipediaSource(corpus, titles, len(corpus))
    a = [small.draw(np.random.default_rng(1)).label for _ in range(n_ranked + 5)]
    b = [large.draw(np.random.default_rng(1)).label for _ in range(n_ranked + 5)]
    assert a[:n_ranked] == b[:n_ranked] == [f"wikipedia:{d.doc_id}" for d in corpus.retrieve(titles, len(corpus))]
    assert not set(a[n_ranked:]) & set(a[:n_ranked])  # then passages no title matched


def test_missing_corpus_is_a_clear_error(ctx: SamplingContext, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    spec = ExampleSpec("count", DEPTH, SIZE, distractor="essays", context_length=5_000)
    empty = tmp_path / "empty"
    empty.mkdir()
    monkeypatch.setenv("GRAPHNIAH_CORPUS_ESSAYS", str(empty))
    fresh = SamplingContext(ctx.snapshot, ctx.graph, tokenizers=ctx.tokenizers)
    with pytest.raises(GraphNIAHError, match=r"essays corpus folder .*empty holds no non-empty text files"):
        build_example(fresh, spec, 0, 0)
    monkeypatch.setenv("GRAPHNIAH_CORPUS_ESSAYS", str(tmp_path / "nowhere"))
    with pytest.raises(GraphNIAHError, match="nowhere does not exist"):
        build_example(SamplingContext(ctx.snapshot, ctx.graph, tokenizers=ctx.tokenizers), spec, 0, 0)
    monkeypatch.delenv("GRAPHNIAH_CORPUS_ESSAYS")
    no_data = SamplingContext(ctx.snapshot, ctx.graph, tokenizers=ctx.tokenizers, data_root=tmp_path / "data")
    with pytest.raises(GraphNIAHError, match=r"no corpus manifest at .*run 'graphniah corpora fetch'"):
        build_example(no_data, ExampleSpec("count", DEPTH, SIZE, distractor="code", context_length=5_000), 0, 0)


def test_regenerate_notices_a_changed_corpus(ctx: SamplingContext, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for i in range(3):
        (tmp_path / f"book{i}.txt").write_text("\n\n".join(f"Chapter {i}, paragraph {j}: the long road." for j in range(80)))
    monkeypatch.setenv("GRAPHNIAH_CORPUS_BOOKS", str(tmp_path))
    spec = ExampleSpec("count", DEPTH, SIZE, distractor="books", context_length=6_000)
    first = SamplingContext(ctx.snapshot, ctx.graph, tokenizers=ctx.tokenizers)
    ex = build_example(first, spec, 2, 0)
    assert regenerate(SamplingContext(ctx.snapshot, ctx.graph, tokenizers=ctx.tokenizers), ex) == ex
    (tmp_path / "book1.txt").write_text("A different book.\n\nWith other paragraphs.")
    with pytest.raises(GraphNIAHError, match="another books corpus"):
        regenerate(SamplingContext(ctx.snapshot, ctx.graph, tokenizers=ctx.tokenizers), ex)
    assert open_corpus("books").is_user_folder


def test_cli_sample_with_distractors_and_show(snapshots: Path, tmp_path: Path) -> None:
    runner = CliRunner()
    out = tmp_path / "ex.jsonl"
    args = ["sample", "--task", "yesno", "--depth", str(DEPTH), "--component-size", str(SIZE), "-n", "2",
            "--distractor", "code", "--context-length", "6000", "--root", str(snapshots), "--out", str(out)]
    r = runner.invoke(app, args)
    assert r.exit_code == 0, r.output
    assert "prompt tokens (limit 6,000)" in r.output
    exs = read_examples(out)
    assert len(exs) == 2 and all(max(e.token_counts.values()) <= 6000 for e in exs)
    r = runner.invoke(app, ["show", exs[1].id, "--examples", str(out), "--root", str(snapshots)])
    assert r.exit_code == 0, r.output
    assert "identical, byte for byte" in r.output
    # user errors surface as GraphNIAHError (printed as one line with exit status 2 by ``main``)
    for extra, message in [
        (["--distractor", "code"], "needs a context length"),
        (["--distractor", "poems", "--context-length", "9000"], "unknown distractor kind 'poems'"),
        (["--context-length", "1050001"], "between 1 and 1,050,000"),
    ]:
        r = runner.invoke(app, ["sample", "--task", "count", "--depth", str(DEPTH), "--root", str(snapshots), *extra])
        assert isinstance(r.exception, GraphNIAHError) and message in str(r.exception)
