"""Needle positions recorded when an example is built, against counting every prefix of the prompt whole."""

from __future__ import annotations

import pytest

import graphniah.text.positions as positions_mod
from graphniah.formats.examples import Example, parse_example
from graphniah.sampling.examples.render import render_component
from graphniah.sampling.examples.sample import build_example
from graphniah.sampling.examples.spec import ExampleSpec, SamplingContext
from graphniah.text import BLOCK_SEPARATOR, load_tokenizer
from graphniah.text.positions import block_runs, count_positions, user_fields

# Every text kind, both renderings, an unpacked prompt and a none-option twin (packed for the longer question).
SPECS = (
    ExampleSpec("yesno", 4, 20, "YES", distractor="code", context_length=6000),
    ExampleSpec("mc", 4, 16, "B", distractor="essays", context_length=6000),
    ExampleSpec("count", 4, 18, None, distractor="books", context_length=6000),
    ExampleSpec("yesno", 4, 16, "NO", distractor="wikipedia", context_length=6000),
    ExampleSpec("mc", 4, 14, "D", distractor="disjoint-component", context_length=7000),
    ExampleSpec("count", 4, 20, None),
    ExampleSpec("yesno", 4, 18, "YES", distractor="code", context_length=6000, render="edges"),
    ExampleSpec("mc", 4, 14, "A", distractor="disjoint-component", context_length=6000, render="edges"),
    ExampleSpec("mc", 4, 16, "C", distractor="essays", context_length=6000, reserve_none_option=True),
)


@pytest.fixture(scope="module")
def o200k():
    return load_tokenizer("o200k_base")


@pytest.fixture(scope="module")
def examples(demo_snapshot, demo_graph) -> list[Example]:
    ctx = SamplingContext(demo_snapshot, demo_graph)
    mp = pytest.MonkeyPatch()

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("the sampler counted the positions instead of adding up the packer's counts")

    mp.setattr(positions_mod, "count_positions", refuse)  # the packer's counts must suffice: nothing re-tokenised
    try:
        return [build_example(ctx, spec, seed=3, index=i) for i, spec in enumerate(SPECS)]
    finally:
        mp.undo()


def test_recorded_positions_equal_counting_every_prefix_whole(examples, o200k) -> None:
    for ex in examples:
        pos = ex.needle_positions
        assert pos is not None, ex.id
        text = ex.messages[-1].content
        fields = user_fields(ex.messages, _prompts())
        assert fields is not None
        assert pos.tokens == o200k.count(text)
        q0, q1 = fields["question"]
        assert pos.question == (o200k.count(text[:q0]), o200k.count(text[q0:q1]))
        c0, c1 = fields["context"]
        assert pos.context == (o200k.count(text[:c0]), pos.tokens - o200k.count(text[:c0]) - o200k.count(text[c1:]))
        blocks = block_runs(text, fields["context"], _prompts(), ex.recipe.params.render == "edges")
        assert [b[0] for b in pos.blocks] == [s for s, _ in blocks]
        for (s, token, n), (_, e) in zip(pos.blocks, blocks, strict=True):
            assert token == o200k.count(text[:s]), (ex.id, s)
            assert n == o200k.count(text[s:e]), (ex.id, s)
        # The viewer's way (pieces between consecutive starts) gives the very same record.
        assert count_positions(text, fields, blocks, o200k) == pos


def test_every_needle_block_and_every_distractor_component_block_has_a_position(examples, demo_snapshot, demo_graph) -> None:
    ctx = SamplingContext(demo_snapshot, demo_graph)
    for ex in examples:
        pos = ex.needle_positions
        assert pos is not None
        text = ex.messages[-1].content
        starts = {s for s, _, _ in pos.blocks}
        if ex.recipe.params.render == "apa":
            meta = ctx.meta(ctx.graph.vertex_of(list(ex.papers)))
            for block in render_component(meta, ex.edges, ex.papers, ctx.prompts):
                assert text.index(f"{BLOCK_SEPARATOR}{block}{BLOCK_SEPARATOR}") + len(BLOCK_SEPARATOR) in starts
        citing = len({a for a, _ in ex.edges})
        if ex.recipe.params.distractor == "disjoint-component":
            assert len(pos.blocks) > citing  # the distractor components' blocks as well
        else:
            assert len(pos.blocks) == citing


def test_positions_are_part_of_the_example_line_and_regenerate_identically(examples, demo_snapshot, demo_graph) -> None:
    from graphniah.formats.examples import example_to_json
    from graphniah.sampling.examples.sample import regenerate

    ctx = SamplingContext(demo_snapshot, demo_graph)
    for ex in examples[:3]:
        line = example_to_json(ex)
        assert line.startswith('{"format_version":4,') and '"needle_positions":{"tokens":' in line
        assert parse_example(line, "x") == ex
        assert example_to_json(regenerate(ctx, ex)) == line


def _prompts():
    from graphniah.text import load_prompts

    return load_prompts()


def test_bookkeeping_that_disagrees_with_the_packers_total_falls_back_to_counting(examples, o200k) -> None:
    from graphniah.text.positions import attached_positions

    for ex in examples[:3]:
        text = ex.messages[-1].content
        fields = user_fields(ex.messages, _prompts())
        assert fields is not None
        c0, c1 = fields["context"]
        context = text[c0:c1].split(BLOCK_SEPARATOR)
        attached = [o200k.count(b + BLOCK_SEPARATOR) for b in context]
        attached = [a + 1 for a in attached]  # every count one too many (a glued run is recounted, the rest is summed)
        total = sum(o200k.count(m.content) for m in ex.messages) + o200k.chat_overhead([m.role for m in ex.messages])
        edges = ex.recipe.params.render == "edges"
        unchecked = attached_positions(ex.messages, context, attached, o200k, _prompts(), edges)
        assert unchecked != ex.needle_positions  # the wrong count does reach the bookkeeping...
        got = attached_positions(ex.messages, context, attached, o200k, _prompts(), edges, chat_tokens=total)
        assert got == ex.needle_positions  # ...and the check against the total catches it


def _runs_by_regex(text: str, context: tuple[int, int], title_prefix: str, header: str) -> list[tuple[int, int]]:
    """The definition block_runs implements: every maximal run of non-blank lines in the context that
    starts with the title prefix and contains the references header (visiting every run)."""
    return [m.span() for m in positions_mod._RUN.finditer(text, *context) if m.group().startswith(title_prefix) and header in m.group()]


def test_block_runs_found_by_their_title_prefix_are_every_block_shaped_run(examples) -> None:
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from graphniah.text import load_prompts

    prompts = load_prompts()
    title_prefix = prompts.block.title.literals[0]
    header = f"\n{prompts.block.references.fill({})}\n"
    for ex in examples:  # real prompts
        if ex.recipe.params.render == "edges":
            continue
        text = ex.messages[-1].content
        ctx = user_fields(ex.messages, prompts)["context"]
        assert block_runs(text, ctx, prompts, False) == _runs_by_regex(text, ctx, title_prefix, header)

    # Texts made of the pieces that matter (blank lines, a prefix mid-line, a header, a context edge inside a run)
    pieces = st.sampled_from(["\n", "\n\n", title_prefix, title_prefix + "A title.", header, header.strip("\n"), "- ref", "text", " "])

    @settings(max_examples=3000, deadline=None)
    @given(st.lists(pieces, max_size=14), st.integers(0, 400), st.integers(0, 400))
    def same(parts: list[str], a: int, b: int) -> None:
        text = "".join(parts)
        c0, c1 = sorted((min(a, len(text)), min(b, len(text))))
        if c0 < c1:
            assert block_runs(text, (c0, c1), prompts, False) == _runs_by_regex(text, (c0, c1), title_prefix, header)

    same()
