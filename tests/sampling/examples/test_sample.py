"""Example sampling on the demo snapshot: invariants, verification, balance, determinism, alpha."""

from __future__ import annotations

import itertools
from collections import Counter, defaultdict
from dataclasses import replace

import networkx as nx
import numpy as np
import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from graphniah.cli import app
from graphniah.errors import GraphNIAHError
from graphniah.formats.examples import Example, clean_text, read_examples, write_examples
from graphniah.sampling.examples.sample import SampleStats, batch_specs, build_example, draw_paths, regenerate, sample_examples
from graphniah.sampling.examples.spec import MAX_SIZE, MIN_SIZE, ExampleSpec, SamplingContext
from graphniah.text import verify
from graphniah.text.textcheck import normalize

DEPTHS = (4, 8, 16, 32)
TASKS = ("yesno", "mc", "count")


@pytest.fixture(scope="module")
def ctx(demo_snapshot, demo_graph) -> SamplingContext:
    return SamplingContext(demo_snapshot, demo_graph)


@pytest.fixture(scope="module")
def snapshot_edges(demo_snapshot) -> dict[int, set[int]]:
    """The snapshot's citations, indexed by the citing paper (an example's induced edges are then a
    lookup per paper, not a scan of every edge for each example)."""
    t = pq.read_table(demo_snapshot.edges_path)
    cites: dict[int, set[int]] = defaultdict(set)
    for citing, cited in zip(t.column("citing").to_pylist(), t.column("cited").to_pylist(), strict=True):
        cites[citing].add(cited)
    return dict(cites)


@pytest.fixture(scope="module")
def titles(demo_snapshot) -> dict[int, str]:
    t = pq.read_table(demo_snapshot.papers_path, columns=["corpusid", "title"])
    return dict(zip(t.column("corpusid").to_pylist(), t.column("title").to_pylist(), strict=True))


def _check(ex: Example, snapshot_edges: dict[int, set[int]], titles: dict[int, str]) -> None:
    """Independent checks from the snapshot itself (not from the sampler's own state)."""
    n_comp = 4 if ex.task == "mc" else 2
    papers = set(ex.papers)
    assert len(papers) == len(ex.papers) == n_comp * ex.component_size
    # the snapshot's citations among the example's papers are exactly the stored forest
    induced = {(a, b) for a in papers for b in snapshot_edges.get(a, ()) if b in papers}
    assert induced == set(ex.edges)
    g = nx.Graph(list(ex.edges))
    comps = list(nx.connected_components(g))
    assert len(comps) == n_comp and all(len(c) == ex.component_size for c in comps)
    assert nx.is_forest(g)
    assert len({normalize(titles[p]) for p in ex.papers}) == len(ex.papers)
    src = next(c for c in comps if ex.source in c)
    # the stored answer follows from the stored graph
    if ex.task == "yesno":
        assert ex.answer == ("YES" if ex.targets[0] in src else "NO")
        if ex.answer == "YES":
            assert nx.shortest_path_length(g, ex.source, ex.targets[0]) == ex.depth - 1
    elif ex.task == "mc":
        hits = [i for i, t in enumerate(ex.targets) if t in src]
        assert len(hits) == 1 and ex.answer == "ABCD"[hits[0]]
        assert nx.shortest_path_length(g, ex.source, ex.targets[hits[0]]) == ex.depth - 1
        assert ex.options == tuple(clean_text(titles[t]) for t in ex.targets)
    elif ex.task == "list":  # every other paper of the source's component, by networkx, and its title a line
        assert set(ex.targets) == src - {ex.source} and len(ex.targets) == ex.component_size - 1
        assert ex.answer.split("\n") == [clean_text(titles[t]) for t in ex.targets]
    else:
        assert ex.answer == str(ex.component_size - 1) == str(len(src) - 1)
    # the evidence: the search depth that settles the answer, by networkx on the example's own edges
    ecc = max(nx.single_source_shortest_path_length(g, ex.source).values())
    yes = ex.task == "yesno" and ex.answer == "YES"
    assert ex.stats.hops_needed == (nx.shortest_path_length(g, ex.source, ex.targets[0]) if yes else ecc)
    assert ex.stats.evidence_tokens is not None and ex.stats.evidence_tokens > 0
    # and from the text alone
    assert verify(ex).ok


def test_every_task_depth_and_size_end_verifies(ctx, snapshot_edges, titles) -> None:
    """Two examples per task and depth, one at each end of the size range (a YES/NO pair, two
    multiple-choice letters): every combination the sampler treats differently, checked against the
    snapshot with networkx (the spread of sizes in between is test_answer_balance_in_pairs_and_groups_of_four's)."""
    rng = np.random.default_rng(2026)
    seen = set()
    for task, depth in itertools.product(TASKS, DEPTHS):
        low, high = batch_specs(task, depth, 2, rng, component_size=MIN_SIZE)  # a balanced pair, then one at each end
        for ex in sample_examples(ctx, [low, replace(high, component_size=MAX_SIZE)], seed=depth * 10 + TASKS.index(task)):
            _check(ex, snapshot_edges, titles)
            seen.add((ex.task, ex.depth, ex.component_size))
    assert seen == set(itertools.product(TASKS, DEPTHS, (MIN_SIZE, MAX_SIZE)))


def test_seed_reproduces_examples_exactly(ctx) -> None:
    spec = ExampleSpec("mc", 8, 120, "C", none_option=True)
    a = build_example(ctx, spec, seed=5, index=3)
    b = build_example(ctx, spec, seed=5, index=3)
    c = build_example(ctx, spec, seed=5, index=4)
    assert a.model_dump_json() == b.model_dump_json()
    assert a.messages != c.messages
    assert regenerate(ctx, a) == a
    assert a.answer == "C" and a.none_option and "E." in a.messages[1].content


def test_answer_balance_in_pairs_and_groups_of_four() -> None:
    rng = np.random.default_rng(0)
    yn = [s.label for s in batch_specs("yesno", 4, 11, rng, component_size=100)]
    assert all(sorted(yn[i : i + 2]) == ["NO", "YES"] for i in range(0, 10, 2)) and yn[10] in ("YES", "NO")
    mc = [s.label for s in batch_specs("mc", 4, 10, rng, component_size=100)]
    assert sorted(mc[:4]) == sorted(mc[4:8]) == list("ABCD")
    assert len(set(mc[8:])) == 2
    sizes = [s.component_size for s in batch_specs("count", 4, 400, rng)]
    assert min(sizes) >= 100 and max(sizes) <= 250 and len(set(sizes)) > 100


@pytest.mark.parametrize("spec", [ExampleSpec("mc", 4, 110, "B"), ExampleSpec("count", 4, 120, match_similarity=True)],
                         ids=["mc", "matched-count"])
def test_grow_forest_is_the_forest_the_example_grows(ctx, spec) -> None:
    """The public growth trial (the α selection's) replays build_example's attempts up to the first
    grown forest: same generator, sizes (the matched count draws the other's size first) and paths."""
    from graphniah.sampling import grow_forest

    compared = 0
    for index in range(3):
        stats = SampleStats()
        ex = build_example(ctx, spec, 7, index, stats)
        forest = grow_forest(ctx, spec, 7, index)
        if stats.rejects["verify"]:  # the example rejected a grown forest after growth: not the first one
            continue
        assert [(int(a), int(b)) for a, b in ctx.graph.corpusids[forest]] == [tuple(e) for e in ex.edges]
        compared += 1
    assert compared >= 2


def test_alpha_shapes_the_in_degree_distribution(ctx) -> None:
    """Small alpha concentrates new children on few papers (heavier tail) than large alpha."""

    def top_share(alpha: float) -> float:
        shares = []
        for i in range(6):
            ex = build_example(ctx, ExampleSpec("count", 4, 150, None, alpha=alpha), seed=11, index=i)
            deg = Counter(p for e in ex.edges for p in e)
            shares.append(sum(sorted(deg.values())[-5:]) / (2 * len(ex.edges)))
        return float(np.mean(shares))

    assert top_share(0.05) > top_share(5.0) + 0.05


def test_too_small_requests_give_a_clear_error(ctx) -> None:
    with pytest.raises(GraphNIAHError, match="smaller than the backbone"):
        ExampleSpec("count", 32, 50)
    with pytest.raises(GraphNIAHError, match="no usable path pool for depth 5"):
        build_example(ctx, ExampleSpec("count", 5, 100), seed=0, index=0)
    with pytest.raises(GraphNIAHError, match="cannot grow in it"):
        build_example(ctx, ExampleSpec("mc", 32, 10**7, "A"), seed=0, index=0, stats=SampleStats())


def test_cli_sample_verify_show_and_mutation(demo_snapshot, tmp_path) -> None:
    out = tmp_path / "ex.jsonl"
    runner = CliRunner()
    root = demo_snapshot.path.parent.parent
    res = runner.invoke(app, ["sample", "--snapshot", str(demo_snapshot.path), "--task", "count", "--depth", "16", "-n", "2", "--seed", "3", "--component-size", "120", "--out", str(out)])
    assert res.exit_code == 0, res.output
    exs = read_examples(out)
    assert len(exs) == 2 and all(e.answer == "119" for e in exs)
    assert runner.invoke(app, ["verify", str(out)]).exit_code == 0
    res = runner.invoke(app, ["show", exs[0].id, "--examples", str(out), "--root", str(root)])
    assert res.exit_code == 0, res.output
    assert exs[0].messages[1].content in res.stdout
    # Drop one reference line: a line of the asked component's tree is one of its edges (a bridge), so the
    # text no longer determines the stored count; a line of the other component leaves the count as it
    # is. Both kinds occur, so the library check must tell them apart, and the CLI must name the id.
    lines = exs[1].messages[1].content.split("\n")

    def without(i: int) -> Example:
        content = "\n".join(lines[:i] + lines[i + 1 :])
        return exs[1].model_copy(update={"messages": (exs[1].messages[0], exs[1].messages[1].model_copy(update={"content": content}))})

    refs = [i for i, line in enumerate(lines) if line.strip().startswith("- ") and lines[i - 1].strip().startswith("- ")]
    outcomes = {i: verify(without(i)).ok for i in refs}
    assert not all(outcomes.values()), "dropping a line of the asked tree must break the count"
    broken = without(next(i for i, ok in outcomes.items() if not ok))
    write_examples(out, [exs[0], broken])
    res = runner.invoke(app, ["verify", str(out)])
    assert res.exit_code == 1 and broken.id in res.output


def test_list_examples_name_the_reachable_set_and_measure_their_evidence(ctx, snapshot_edges, titles) -> None:
    from graphniah.scoring import score_response
    from graphniah.text import load_tokenizer, solve

    o200k = load_tokenizer("o200k_base")
    exs = list(sample_examples(ctx, batch_specs("list", 8, 3, np.random.default_rng(3), component_size=105), seed=11))
    exs.append(build_example(ctx, ExampleSpec("list", 4, 100, distractor="essays", context_length=30_000), seed=11, index=9))
    for ex in exs:
        _check(ex, snapshot_edges, titles)
        assert regenerate(ctx, ex) == ex
        # evidence tokens: the whole source component's blocks, found in the prompt by their title lines
        comp = nx.node_connected_component(nx.Graph(list(ex.edges)), ex.source)
        citing = {a for a, _ in ex.edges if a in comp}
        runs = ex.messages[1].content.split("\n\n")
        lines = {f"Title: {clean_text(titles[p])}." for p in citing}  # prompts/block.yaml's title line
        blocks = [r for r in runs if r.split("\n")[0] in lines]
        assert len(blocks) == len(citing)
        assert ex.stats.evidence_tokens == sum(o200k.count(b) for b in blocks)
        # the oracle's text-only answer scores F1 = 1
        s = score_response("list", ex.answer, "\\answer{\n" + solve(ex.messages) + "\n}")
        assert s.correct and s.listing is not None and s.listing.f1 == 1.0
    # the answer lists the titles by title, case-blind (the module's rule); in at least one of these lists
    # the case-sensitive order is another, so the check can fail
    lines = [ex.answer.split("\n") for ex in exs]
    assert all(ln == sorted(ln, key=lambda t: (t.casefold(), t)) for ln in lines)
    assert any(ln != sorted(ln) for ln in lines)
    half = exs[0].answer.split("\n")[: len(exs[0].targets) // 2]
    assert score_response("list", exs[0].answer, "\\answer{" + "\n".join(half) + "}").listing.recall == len(half) / len(exs[0].targets)


def test_regenerate_refuses_to_replay_from_other_inputs(ctx) -> None:
    ex = build_example(ctx, ExampleSpec("count", 4, 20), seed=1, index=0)
    assert regenerate(ctx, ex) == ex

    def changed(**fields: str) -> Example:
        return ex.model_copy(update={"recipe": ex.recipe.model_copy(update=fields)})

    for other in ("0" * 64, "f" * 64):  # a hash sorting before the snapshot's, and one after it
        with pytest.raises(GraphNIAHError, match=f"was made from snapshot {other[:12]}, not {ctx.snapshot_hash[:12]}"):
            regenerate(ctx, changed(snapshot_hash=other))
        with pytest.raises(GraphNIAHError, match=f"was rendered with prompt set {other[:12]}"):
            regenerate(ctx, changed(prompts_hash=other))
        with pytest.raises(GraphNIAHError, match=rf"was made from another depth-4 path pool \({other[:12]}\)$"):
            regenerate(ctx, changed(pool_hash=other))


def test_batch_sizes_reach_both_ends_of_the_range() -> None:
    """Component sizes uniform in [100, 250], both ends included (the paper's range)."""
    sizes = [s.component_size for s in batch_specs("count", 4, 4000, np.random.default_rng(9))]
    assert min(sizes) == 100 and max(sizes) == 250 and len(set(sizes)) == 151


def test_needles_longer_than_the_context_length_are_named_in_the_error(ctx) -> None:
    stats = SampleStats()
    with pytest.raises(GraphNIAHError, match=r"in 50 attempts .* or the context length too short for the needles$"):
        build_example(ctx, ExampleSpec("count", 4, 20, distractor="essays", context_length=300), seed=2, index=0, stats=stats)
    assert stats.rejects["needles_exceed_length"] == stats.attempts == 50


def test_a_growth_that_fails_is_retried_with_new_paths(ctx, monkeypatch) -> None:
    """An attempt whose components cannot grow is one attempt of MAX_ATTEMPTS, not the end: the next
    attempt draws new paths and the example is built (and verifies)."""
    import graphniah.sampling.examples.sample as sample_module

    real, calls = sample_module.grow_components, []

    def first_fails(*args, **kwargs):
        calls.append(args[1])  # the backbone paths of the attempt
        return None if len(calls) == 1 else real(*args, **kwargs)

    monkeypatch.setattr(sample_module, "grow_components", first_fails)
    stats = SampleStats()
    ex = build_example(ctx, ExampleSpec("yesno", 4, 20, "YES"), seed=3, index=0, stats=stats)
    assert stats.attempts == 2 and len(calls) == 2 and verify(ex).ok
    assert not all(np.array_equal(a, b) for a, b in zip(calls[0], calls[1], strict=True))  # new paths, not the same again


def test_regenerate_refuses_an_example_matched_on_another_scorer(ctx, demo_snapshot) -> None:
    """The refusal names the recipe's scorer and the stored one by their first 12 hex digits, and the stored file."""
    from graphniah.atomic import sha256_file
    from graphniah.sampling.examples.learned import scorer_file

    spec = batch_specs("yesno", 8, 1, np.random.default_rng(4), match_similarity=True)[0]
    ex = build_example(ctx, spec, seed=5, index=0)
    stored = scorer_file(demo_snapshot.path, 8)
    other = ex.model_copy(update={"recipe": ex.recipe.model_copy(update={
        "params": ex.recipe.params.model_copy(update={"match_learned": "0" * 64})})})
    with pytest.raises(GraphNIAHError) as err:
        regenerate(ctx, other)
    assert str(err.value) == (f"example {ex.id} was matched with another scorer (000000000000); the one stored at {stored} "
                              f"hashes to {sha256_file(stored)[:12]}")


@pytest.mark.parametrize("spec", [ExampleSpec("yesno", 8, 30, "YES"), ExampleSpec("mc", 8, 30, "B")], ids=["yesno", "mc"])
def test_unmatched_examples_hold_the_answer_at_the_spec_s_depth(ctx, snapshot_edges, titles, spec) -> None:
    """Without matching every backbone is drawn whole in a uniform direction: the true target lies depth − 1
    citations from the source, by networkx on the snapshot's own edges (four examples: some paths reversed)."""
    for index in range(4):
        _check(build_example(ctx, spec, seed=11, index=index), snapshot_edges, titles)


def test_matched_yes_no_draws_rank_on_the_learned_score(ctx) -> None:
    """A matched YES/NO draw (the learned score on by default) is the match index's draw with the depth's
    frozen scorer, the source's partners and the venue rule, from the same generator."""
    depth, compared = 8, 0
    pool = ctx.pool_index(depth)
    for seed in range(40):
        spec = batch_specs("yesno", depth, 1, np.random.default_rng(seed), component_size=100, match_similarity=True)[0]
        assert spec.match_learned and spec.match_components and spec.match_venue
        stats = SampleStats()
        got = draw_paths(ctx, spec, np.random.default_rng(seed), stats)
        if stats.rejects:  # a redrawn tuple: the generator moved on
            continue
        drawn = ctx.match_index(depth).draw(pool.conflict, 2, np.random.default_rng(seed), match_venue=True,
                                            partners=ctx.component_index(depth).partners, learned=ctx.learned_match(depth))
        assert drawn is not None
        want = [pool.paths[i][::-1] if rev else pool.paths[i] for i, rev in drawn]
        assert all(np.array_equal(a, b) for a, b in zip(got, want, strict=True))
        compared += 1
    assert compared >= 3


def test_paths_whose_connected_part_cannot_hold_their_components_are_drawn_again(ctx, monkeypatch) -> None:
    """Components grow inside the connected part of their backbone's first paper, so a draw whose part is
    too small is drawn again (not the end of the attempt). Parts made up for the test: papers with an odd
    vertex id form a part of one paper, the others one part that holds everything."""
    n = ctx.graph.corpusids.size
    parts = (np.arange(n) % 2, np.array([n, 1]))
    monkeypatch.setitem(ctx.__dict__, "connected_parts", parts)
    rejected = 0
    for seed in range(4):
        stats = SampleStats()
        paths = draw_paths(ctx, ExampleSpec("yesno", 4, 20, "YES"), np.random.default_rng(seed), stats)
        assert all(int(p[0]) % 2 == 0 for p in paths)
        rejected += stats.rejects["paths_part_too_small"]
    assert rejected > 0
    # a part of 30 papers holds one component of 20, never two: a draw putting both backbones there is drawn again
    monkeypatch.setitem(ctx.__dict__, "connected_parts", (np.arange(n) % 2, np.array([n, 30])))
    both_odd = 0
    for seed in range(8):
        stats = SampleStats()
        paths = draw_paths(ctx, ExampleSpec("yesno", 4, 20, "YES"), np.random.default_rng(seed), stats)
        assert not all(int(p[0]) % 2 == 1 for p in paths)
        both_odd += stats.rejects["paths_part_too_small"]
    assert both_odd > 0


def test_a_batch_resumed_at_an_index_is_the_rest_of_the_whole_batch(ctx) -> None:
    """sample_examples(..., first_index=k) on the specs from k on gives the examples the whole batch gives from k on."""
    specs = batch_specs("yesno", 4, 4, np.random.default_rng(6), component_size=20)
    whole = [ex.model_dump_json() for ex in sample_examples(ctx, specs, seed=13)]
    rest = [ex.model_dump_json() for ex in sample_examples(ctx, specs[2:], seed=13, first_index=2)]
    assert rest == whole[2:] and len(set(whole)) == 4


def test_unmatched_draws_are_whole_pool_paths_in_either_direction(ctx) -> None:
    """Without matching each backbone is a whole pool path, forward or reversed with probability 1/2 each
    (binomial test over 80 paths; a path never cut or thinned out)."""
    from scipy.stats import binomtest

    pool = {tuple(p) for p in ctx.pool_index(4).paths.tolist()}
    rng, forward, backward = np.random.default_rng(21), 0, 0
    for _ in range(40):
        for p in draw_paths(ctx, ExampleSpec("yesno", 4, 20, "YES"), rng, SampleStats()):
            path = tuple(p.tolist())
            assert len(path) == 3 * 4 - 2 and (path in pool or path[::-1] in pool)
            forward += path in pool
            backward += path[::-1] in pool and path not in pool
    assert forward + backward == 80 and binomtest(backward, 80).pvalue > 0.001


def test_a_fixed_label_is_every_spec_s_label() -> None:
    """``label`` fixes every spec's answer (YES/NO or a letter) instead of the balanced pairs and groups."""
    assert [s.label for s in batch_specs("yesno", 4, 5, np.random.default_rng(1), component_size=100, label="NO")] == ["NO"] * 5
    assert [s.label for s in batch_specs("mc", 4, 6, np.random.default_rng(1), component_size=100, label="C")] == ["C"] * 6
