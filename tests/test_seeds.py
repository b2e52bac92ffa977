"""The named random streams reproduce the derivations every existing artifact was made with."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from graphniah.atomic import sha256_bytes
from graphniah.seeds import Stream, derived_seed, entropy, generator, suite_key

seeds = st.integers(min_value=0, max_value=2**63)
small = st.integers(min_value=0, max_value=10**6)


def _same(a: np.random.Generator, b: np.random.Generator) -> bool:
    return bool(np.array_equal(a.integers(0, 2**62, size=8), b.integers(0, 2**62, size=8)))


def _rng(entropy_: object) -> np.random.Generator:
    return np.random.default_rng(np.random.SeedSequence(entropy_))


@given(seeds, small, small)
def test_streams_equal_the_historical_derivations(seed: int, a: int, b: int) -> None:
    # The literal formulas below are what pools, examples, suites, select-alpha, the demo release,
    # the runner and the policy server used before the streams were named here.
    assert _same(generator(Stream.POOL, seed, a), _rng([seed, a]))
    assert _same(generator(Stream.EXAMPLE, seed, a), _rng([seed, a]))
    assert _same(generator(Stream.BATCH, seed), _rng([seed, 0x5EC]))
    assert _same(generator(Stream.SUITE, seed, a, b), _rng([seed, a, b]))
    assert _same(generator(Stream.ALPHA_SPEC, seed, a, b), _rng([seed, a, b, 0x5EC]))
    assert _same(generator(Stream.ALPHA_BOOTSTRAP, seed), _rng([seed, 0xB007]))
    assert derived_seed(Stream.ALPHA_TASK, seed, a) == int(np.random.SeedSequence([seed, a]).generate_state(1)[0])
    for stream in (Stream.DEMO_RELEASE, Stream.BACKOFF):
        assert _same(generator(stream, seed), np.random.default_rng(seed))
    # the random policy draws per prompt and occurrence (not in arrival order) since its answers vary by order
    assert _same(generator(Stream.POLICY, seed, a, b), _rng([seed, a, b]))


def test_suite_key_is_the_name_hash_prefix() -> None:
    assert suite_key("depth") == int(sha256_bytes(b"depth")[:8], 16)
    assert suite_key("depth") != suite_key("task")


def test_batch_and_example_streams_of_one_seed_differ() -> None:
    # The batch stream's entropy differs from every other stream's at the same seed for keys 0..3
    # (0..3 keys each). Streams of the same layout do share entropy lists (pool/example/alpha-task,
    # and the three [seed] streams); they are never drawn for the same artifact.
    lists = {}
    for stream in Stream:
        for n in range(4):
            for keys in itertools.product(range(4), repeat=n):
                try:
                    lists[(stream, keys)] = tuple(entropy(stream, 7, *keys))
                except TypeError:
                    continue
    assert tuple(entropy(Stream.BATCH, 7)) not in {v for (s, _), v in lists.items() if s is not Stream.BATCH}
    # The tag separates the batch from examples 0..0x5EB only: example 0x5EC (1516) of a batch has
    # the batch stream's entropy (a fixed layout, documented in graphniah.seeds).
    assert entropy(Stream.EXAMPLE, 7, 0x5EC) == entropy(Stream.BATCH, 7)


def test_wrong_keys_are_an_error() -> None:
    with pytest.raises(TypeError, match="pool"):
        generator(Stream.POOL, 0)
    with pytest.raises(ValueError):
        generator("no-such-stream", 0)
