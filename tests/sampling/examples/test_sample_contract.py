"""The sampler's public contract, option by option (issue 40): every option of ``batch_specs`` reaches every spec,
``sample_examples`` passes its index, statistics and progress on, an example's recipe and fields are what it was
built from, ``draw_paths`` honours the sizes it is asked for at both ends of a connected part, and ``regenerate``
refuses an example whose corpus or tokenizers changed, naming the example."""

from __future__ import annotations

import re

import numpy as np
import pytest

from graphniah import __version__
from graphniah.errors import GraphNIAHError
from graphniah.sampling.examples.sample import SampleStats, batch_specs, build_example, draw_paths, regenerate, sample_examples
from graphniah.sampling.examples.spec import ExampleSpec, SamplingContext


@pytest.fixture(scope="module")
def ctx(demo_snapshot, demo_graph) -> SamplingContext:
    return SamplingContext(demo_snapshot, demo_graph)


def test_every_option_of_a_batch_reaches_every_spec() -> None:
    specs = batch_specs("mc", 8, 6, np.random.default_rng(2), component_size=140, none_option=True, alpha=0.7,
                        distractor="essays", context_length=9000, template="formal")
    assert len(specs) == 6
    for s in specs:
        assert (s.task, s.depth, s.component_size, s.none_option, s.alpha, s.distractor, s.context_length, s.render,
                s.template) == ("mc", 8, 140, True, 0.7, "essays", 9000, "apa", "formal")
        assert not (s.match_similarity or s.match_venue or s.match_components or s.match_learned or s.match_weighted)
    assert sorted(s.label for s in specs[:4]) == list("ABCD") and len({s.label for s in specs[4:]}) == 2
    edges = batch_specs("yesno", 4, 2, np.random.default_rng(2), component_size=100, render="edges", distractor="disjoint-component",
                        context_length=20_000)
    assert [(s.render, s.distractor, s.context_length) for s in edges] == [("edges", "disjoint-component", 20_000)] * 2
    defaults = batch_specs("yesno", 4, 2, np.random.default_rng(2), component_size=100)
    assert all((s.none_option, s.alpha, s.distractor, s.context_length, s.render, s.template)
               == (False, 0.1, "none", None, "apa", "default") for s in defaults)
    assert batch_specs("count", 4, 0, np.random.default_rng(2)) == []


@pytest.mark.parametrize(("task", "venue", "learned", "weighted"), [
    ("yesno", True, True, False), ("mc", True, True, True), ("count", False, False, False), ("list", False, False, False)])
def test_matched_batches_turn_on_the_rules_of_their_task(task: str, venue: bool, learned: bool, weighted: bool) -> None:
    """Matched sampling: components for every task; the venue rule and the learned score for the tasks with targets,
    the weighted draw for multiple choice only (the docstrings of sample.py, components.py and spec.py)."""
    specs = batch_specs(task, 8, 3, np.random.default_rng(0), component_size=120, match_similarity=True)  # type: ignore[arg-type]
    for s in specs:
        assert (s.match_similarity, s.match_components, s.match_venue, s.match_learned, s.match_weighted) == (
            True, True, venue, learned, weighted)
        assert s.component_size == 120
    # a source slot per matched question, in batch order (distinct sources); none for counting and listing
    assert [s.source_slot for s in specs] == ([0, 1, 2] if venue else [None] * 3)
    assert [s.source_slot for s in batch_specs(task, 8, 2, np.random.default_rng(0))] == [None, None]  # type: ignore[arg-type]


@pytest.mark.parametrize("task", ["count", "list"])
def test_a_label_for_a_task_without_labels_is_refused_by_its_option(task: str) -> None:
    with pytest.raises(GraphNIAHError, match=r"^--label applies to yesno \(YES/NO\) and mc \(A-D\) only$"):
        batch_specs(task, 4, 2, np.random.default_rng(0), label="YES")  # type: ignore[arg-type]
    assert [s.label for s in batch_specs(task, 4, 2, np.random.default_rng(0))] == [None, None]  # type: ignore[arg-type]


class _Recorder:
    def __init__(self) -> None:
        self.calls: list[tuple[str, object]] = []

    def start(self, total: int | None, label: str) -> None:
        self.calls.append(("start", total))

    def advance(self, n: int = 1) -> None:
        self.calls.append(("advance", n))

    def done(self) -> None:
        self.calls.append(("done", None))

    def note(self, message: str) -> None:
        self.calls.append(("note", message))


def test_a_batch_records_its_indices_statistics_and_progress(ctx) -> None:
    specs = batch_specs("yesno", 4, 3, np.random.default_rng(5), component_size=20)
    stats, progress = SampleStats(), _Recorder()
    exs = list(sample_examples(ctx, specs, seed=17, first_index=4, stats=stats, progress=progress))
    assert [ex.recipe.params.index for ex in exs] == [4, 5, 6]
    assert [ex.recipe.seed for ex in exs] == [17, 17, 17]
    assert [ex.answer for ex in exs] == [s.label for s in specs]
    assert stats.attempts >= 3 and stats.growth_steps > 0  # the caller's statistics, not a throwaway
    assert progress.calls[0] == ("start", 3) and progress.calls.count(("advance", 1)) == 3 and progress.calls[-1] == ("done", None)


def test_an_example_records_what_it_was_built_from(ctx) -> None:
    spec = ExampleSpec("mc", 4, 20, "D", none_option=True, alpha=0.4)
    ex = build_example(ctx, spec, seed=23, index=8)
    r = ex.recipe
    assert (r.snapshot_hash, r.pool_hash, r.prompts_hash, r.seed, r.version) == (
        ctx.snapshot_hash, ctx.pool(4)[1], ctx.prompts.hash, 23, __version__)
    p = r.params
    assert (p.task, p.depth, p.component_size, p.label, p.none_option, p.alpha, p.distractor, p.context_length, p.index) == (
        "mc", 4, 20, "D", True, 0.4, "none", None, 8)
    assert (ex.task, ex.depth, ex.component_size, ex.answer, ex.none_option) == ("mc", 4, 20, "D", True)
    assert re.fullmatch(r"mc-[0-9a-f]{16}", ex.id)
    assert len(ex.options) == 4 and len(ex.targets) == 4 and ex.token_counts is None
    other = build_example(ctx, spec, seed=23, index=9)
    assert other.id != ex.id and other.recipe.params.index == 9


def test_an_example_in_another_template_set_is_worded_and_replayed_in_it(ctx) -> None:
    spec = ExampleSpec("yesno", 4, 20, "NO", template="formal")
    ex = build_example(ctx, spec, seed=3, index=0)
    plain = build_example(ctx, ExampleSpec("yesno", 4, 20, "NO"), seed=3, index=0)
    formal = ctx.worded("formal").prompts
    assert ex.recipe.prompts_hash == formal.hash != ctx.prompts.hash
    assert ex.messages != plain.messages and ex.papers == plain.papers and ex.edges == plain.edges  # the draw does not depend on it
    assert ex.recipe.params.template == "formal"
    assert regenerate(ctx, ex) == ex


def test_components_fit_their_part_exactly_and_each_size_asked_for_counts(ctx, monkeypatch) -> None:
    """Parts made up for the test (even vertex ids: one part, odd ones: another). A part exactly as large as the one
    component in it holds it (the largest part may equal the size asked for); with sizes asked per component, the
    part is checked against each one's own size."""
    n = ctx.graph.corpusids.size
    monkeypatch.setitem(ctx.__dict__, "connected_parts", (np.arange(n) % 2, np.array([20, 20])))
    spec = ExampleSpec("yesno", 4, 20, "YES")
    for seed in range(4):
        paths = draw_paths(ctx, spec, np.random.default_rng(seed), SampleStats())
        assert sorted(int(p[0]) % 2 for p in paths) == [0, 1]  # one component in each part of 20
    # odd part of 25: the component of 20 may start there, the one of 30 never
    monkeypatch.setitem(ctx.__dict__, "connected_parts", (np.arange(n) % 2, np.array([n, 25])))
    first_odd = 0
    for seed in range(12):
        paths = draw_paths(ctx, spec, np.random.default_rng(seed), SampleStats(), want=[20, 30])
        assert int(paths[1][0]) % 2 == 0
        first_odd += int(paths[0][0]) % 2
    assert first_odd > 0


class _Stop(Exception):
    pass


def test_a_matched_draw_passes_each_rule_of_its_spec_to_the_match_index(ctx, monkeypatch) -> None:
    """The match index is asked with the spec's rules: the venue rule, the source's partners, the learned scorer of
    the spec's draw and the weighted draw (multiple choice), or none of them when the spec has them off."""
    from types import SimpleNamespace

    calls: list[tuple[int, dict[str, object]]] = []

    class Index:
        def draw(self, conflict, k, rng, **kw):  # type: ignore[no-untyped-def]
            calls.append((k, kw))
            raise _Stop

    components = SimpleNamespace(partners=object())
    monkeypatch.setattr(ctx, "match_index", lambda depth: Index())
    monkeypatch.setattr(ctx, "component_index", lambda depth: components)
    monkeypatch.setattr(ctx, "learned_match", lambda depth, weighted=False: ("scorer", depth, weighted))
    specs = [batch_specs(t, 4, 1, np.random.default_rng(0), component_size=20, match_similarity=True)[0] for t in ("mc", "yesno")]
    specs.append(ExampleSpec("yesno", 4, 20, "YES", match_similarity=True))  # the rules written before venue, partners, scorer
    for spec in specs:
        with pytest.raises(_Stop):
            draw_paths(ctx, spec, np.random.default_rng(1), SampleStats())
    want = [(4, True, components.partners, ("scorer", 4, True), True), (2, True, components.partners, ("scorer", 4, False), False),
            (2, False, None, None, False)]
    got = [(k, kw["match_venue"], kw["partners"], kw["learned"], kw["weighted"]) for k, kw in calls]
    assert got == want


def test_regenerate_refuses_an_example_packed_with_another_corpus_or_tokenizers(ctx) -> None:
    stats = SampleStats()
    ex = build_example(ctx, ExampleSpec("count", 4, 20, distractor="essays", context_length=6000), seed=4, index=0, stats=stats)
    assert stats.token_counts == [ex.token_counts] and sum(stats.stops.values()) == 1  # one packed example, recorded
    params = ex.recipe.params
    assert params.corpus is not None and params.tokenizers is not None and ex.token_counts is not None
    assert max(ex.token_counts.values()) <= 6000

    def changed(**fields: object):  # type: ignore[no-untyped-def]
        return ex.model_copy(update={"recipe": ex.recipe.model_copy(update={"params": params.model_copy(update=fields)})})

    with pytest.raises(GraphNIAHError, match=rf"^example {ex.id} was packed with another essays corpus \(000000000000\); "
                                             rf"the corpus at .+ now hashes to {params.corpus[:12]}$"):
        regenerate(ctx, changed(corpus="0" * 64))
    other = {name: "f" * 64 for name in params.tokenizers}
    with pytest.raises(GraphNIAHError, match=rf"^example {ex.id} was packed with other tokenizer files"):
        regenerate(ctx, changed(tokenizers=other))


@pytest.mark.parametrize("task", ["mc", "count"])
def test_an_edge_list_example_is_its_apa_twin_named_by_ids(ctx, task: str) -> None:
    """The edge-list rendering draws the APA example's forest (same papers, edges, source, targets, answer); its
    question and multiple-choice options name papers by the ids of :class:`PaperIds` (seed, index), never by title."""
    from graphniah.text import split_messages, verify
    from graphniah.text.edgelist import PaperIds

    label = "B" if task == "mc" else None
    apa = build_example(ctx, ExampleSpec(task, 4, 20, label), seed=6, index=2)  # type: ignore[arg-type]
    ex = build_example(ctx, ExampleSpec(task, 4, 20, label, render="edges"), seed=6, index=2)  # type: ignore[arg-type]
    assert (ex.papers, ex.edges, ex.source, ex.targets, ex.answer) == (apa.papers, apa.edges, apa.source, apa.targets, apa.answer)
    assert ex.recipe.params.render == "edges" and ex.id != apa.id and verify(ex).ok
    ids = PaperIds(6, 2)
    ids.assign(apa.papers)  # the ids are fixed in the papers' order
    _, question, _ = split_messages(ex.messages)
    assert ids(ex.source) in question and all(not re.search(re.escape(t), question) for t in apa.options)
    if task == "mc":
        assert ex.options == tuple(ids(t) for t in ex.targets)
        assert all(o in question for o in ex.options)
    else:
        assert ex.options == () and not any(ids(t) in question for t in ex.papers if t != ex.source)
    assert regenerate(ctx, ex) == ex


def test_a_yes_no_example_has_no_options(ctx) -> None:
    ex = build_example(ctx, ExampleSpec("yesno", 4, 20, "YES"), seed=9, index=1)
    assert ex.options == () and len(ex.targets) == 1 and not ex.none_option and ex.answer == "YES"


def test_the_errors_name_the_task_depth_size_and_attempts(ctx, monkeypatch) -> None:
    """Growth that never succeeds: build_example and grow_forest give up after 50 attempts and say what was asked;
    paths that are never compatible: draw_paths gives up after its 100 tries and names the depth and the count."""
    import graphniah.sampling.examples.sample as sample_module
    from graphniah.sampling import grow_forest

    monkeypatch.setattr(sample_module, "grow_components", lambda *a, **kw: None)
    stats = SampleStats()
    with pytest.raises(GraphNIAHError, match=r"^could not build a yesno example \(depth 4, size 20\) in 50 attempts \(rejects: "
                                             r".*\); the snapshot is too small or sparse for this request$"):
        build_example(ctx, ExampleSpec("yesno", 4, 20, "YES"), seed=1, index=0, stats=stats)
    assert stats.attempts == 50
    with pytest.raises(GraphNIAHError, match=r"^could not grow a mc example \(depth 4, size 21, alpha 0.3\) in 50 attempts"):
        grow_forest(ctx, ExampleSpec("mc", 4, 21, "A", alpha=0.3), 1, 0)
    monkeypatch.setattr(sample_module, "paths_compatible", lambda *a, **kw: "mutual")
    stats = SampleStats()
    with pytest.raises(GraphNIAHError, match=r"^could not draw 4 compatible paths from the depth-4 pool in 100 tries "
                                             r"\(rejects: \{'paths_mutual': 100\}\)"):
        draw_paths(ctx, ExampleSpec("mc", 4, 20, "A"), np.random.default_rng(0), stats)


def test_a_slot_s_source_is_asked_for_in_the_first_half_of_the_tries_only(ctx, monkeypatch) -> None:
    """``draw_paths(source=r)`` asks the match index for source row r in the first half of its tries, then for
    none (a slot's source that never fits must not fail the example); build_example and grow_forest ask for the
    row ``ctx.source_of(spec, seed)`` gives."""
    from types import SimpleNamespace

    import graphniah.sampling.examples.sample as sample_module
    from graphniah.sampling import grow_forest

    asked: list[object] = []

    class Index:
        def draw(self, conflict, k, rng, **kw):  # type: ignore[no-untyped-def]
            asked.append(kw["source"])
            return None

    monkeypatch.setattr(ctx, "match_index", lambda depth: Index())
    monkeypatch.setattr(ctx, "component_index", lambda depth: SimpleNamespace(partners=None))
    monkeypatch.setattr(ctx, "learned_match", lambda depth, weighted=False: SimpleNamespace(sha256="0" * 64))
    spec = batch_specs("yesno", 4, 1, np.random.default_rng(0), component_size=20, match_similarity=True)[0]
    stats = SampleStats()
    with pytest.raises(GraphNIAHError, match=r"in 2000 tries \(rejects: \{'paths_no_match': 2000\}\)"):
        draw_paths(ctx, spec, np.random.default_rng(0), stats, source=17)
    assert asked == [17] * 1000 + [None] * 1000
    calls: list[tuple[object, int]] = []
    monkeypatch.setattr(ctx, "source_of", lambda spec, seed: calls.append((spec.source_slot, seed)) or 23)
    monkeypatch.setattr(sample_module, "MAX_ATTEMPTS", 1)
    for build in (lambda: build_example(ctx, spec, 31, 0), lambda: grow_forest(ctx, spec, 31, 0)):
        asked.clear()
        with pytest.raises(GraphNIAHError):
            build()
        assert asked[0] == 23 and asked[-1] is None
    assert calls == [(0, 31), (0, 31)]


def test_papers_to_avoid_keep_the_source_component_s_source_and_target_out(ctx) -> None:
    """``avoid`` redraws a tuple whose first path has an avoided paper as its source (position depth − 1) or true
    target (position 2·depth − 2), and only then: the same papers elsewhere, or in another component, change nothing."""
    depth, spec = 4, ExampleSpec("yesno", 4, 20, "YES")
    cid = ctx.graph.corpusids
    plain = draw_paths(ctx, spec, np.random.default_rng(3), SampleStats())
    first, other = plain[0], plain[1]
    for papers, redrawn in (({first[depth - 1]}, True), ({first[2 * depth - 2]}, True), ({first[depth]}, False),
                            ({first[depth - 2]}, False), ({other[depth - 1], other[2 * depth - 2]}, False)):
        avoid = frozenset(int(cid[v]) for v in papers)
        stats = SampleStats()
        got = draw_paths(ctx, spec, np.random.default_rng(3), stats, avoid=avoid)
        assert (stats.rejects["paths_avoided_source"] > 0) == redrawn
        assert all(np.array_equal(a, b) for a, b in zip(got, plain, strict=True)) != redrawn
        assert not avoid & {int(cid[got[0][depth - 1]]), int(cid[got[0][2 * depth - 2]])}
    ex = build_example(ctx, spec, seed=2, index=0)
    kept_out = build_example(ctx, spec, seed=2, index=0, avoid=frozenset({ex.source}))
    assert kept_out.source != ex.source and kept_out.recipe == ex.recipe  # not recorded


def test_an_example_s_generator_is_the_example_stream_of_its_seed_then_index() -> None:
    from graphniah.sampling.examples.sample import example_rng
    from graphniah.seeds import Stream, generator

    assert example_rng(5, 3).bit_generator.state == generator(Stream.EXAMPLE, 5, 3).bit_generator.state
    assert example_rng(5, 3).random() != example_rng(3, 5).random()


def test_a_context_packed_for_two_sets_or_for_the_none_twin_fits_each_prompt(ctx) -> None:
    """Packed for the sets of ``templates``: one context text under both wordings, each prompt at most L tokens as
    counted here; packed with ``reserve_none_option``: the same context as the twin that shows "none of these"."""
    from graphniah.text import split_messages

    def counts(ex):  # type: ignore[no-untyped-def]
        pairs = [(m.role, m.content) for m in ex.messages]
        return {name: tok.chat_count(pairs) for name, tok in ctx.tokenizers.items()}

    limit, names = 4000, ("default", "brief")
    exs = [build_example(ctx, ExampleSpec("mc", 4, 10, "C", distractor="essays", context_length=limit, template=n, templates=names),
                         seed=4, index=2) for n in names]
    assert len({split_messages(ex.messages, ctx.worded(n).prompts)[2] for ex, n in zip(exs, names, strict=True)}) == 1
    for ex in exs:
        assert ex.token_counts == counts(ex) and max(ex.token_counts.values()) <= limit
    reserved = build_example(ctx, ExampleSpec("mc", 4, 10, "C", distractor="essays", context_length=limit, reserve_none_option=True),
                             seed=4, index=3)
    twin = build_example(ctx, ExampleSpec("mc", 4, 10, "C", none_option=True, distractor="essays", context_length=limit),
                         seed=4, index=3)
    assert split_messages(reserved.messages)[2] == split_messages(twin.messages)[2]
    assert reserved.token_counts == counts(reserved) and max(reserved.token_counts.values()) <= limit
    assert not reserved.none_option and twin.none_option


def test_disjoint_component_distractors_count_in_the_example_s_papers_and_citations(ctx) -> None:
    """With disjoint-component distractors the stats count every paper and citation the context prints, the
    distractors' included: read back by the text checker (its own parser, not the sampler's counts)."""
    import networkx as nx

    from graphniah.text import parse_context, split_messages

    ex = build_example(ctx, ExampleSpec("count", 4, 10, distractor="disjoint-component", context_length=3000), seed=8, index=1)
    graph = parse_context(split_messages(ex.messages)[2])
    assert (ex.stats.nodes, ex.stats.edges) == (len(graph.nodes), len(graph.edges))
    assert ex.stats.nodes > len(ex.papers) and ex.stats.edges > len(ex.edges)  # distractor components were packed
    parts = nx.Graph(list(graph.edges))
    parts.add_nodes_from(range(len(graph.nodes)))
    sizes = sorted(len(c) for c in nx.connected_components(parts))
    assert sizes.count(10) >= 2 and len(sizes) > 2  # the two task components, and distractor trees beside them
