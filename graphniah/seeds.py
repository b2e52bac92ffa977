"""The one place that names the random streams.

Every random draw in GraphNIAH comes from a ``numpy.random.Generator`` built here, from the user's
seed and the stream's name, through ``numpy.random.SeedSequence``. A stream's entropy is a short
list of integers; streams that share a seed are kept apart by their layout (a different length or
a fixed tag), so e.g. the batch draws of ``graphniah sample --seed 0`` never repeat the draws of
example 0 of the same seed.

==================  ===============================================  =================================================
stream              SeedSequence entropy                             draws
==================  ===============================================  =================================================
``demo-release``    ``[seed]``                                       the synthetic S2AG releases (``demo-release``);
                                                                     ``make demo``/``refresh`` use ``DEMO_RELEASE_SEED``
``pool``            ``[seed, depth]``                                one depth's path pool (``graphniah paths``)
``example``         ``[seed, index]``                                example ``index`` of a batch or suite: paths,
                                                                     growth, options, packing (spawned children)
``batch``           ``[seed, 0x5EC]``                                a ``graphniah sample`` batch's specs (sizes, labels)
``suite``           ``[seed, sha256(name)[:8] as int, value index]`` one value group of a suite's plan
``alpha-task``      ``[seed, task index]`` → first 32-bit word       the batch seed of a task in ``select-alpha``
``alpha-spec``      ``[seed, task index, index, 0x5EC]``             a ``select-alpha`` example's depth and size
``alpha-bootstrap`` ``[seed, 0xB007]``                               the ``select-alpha`` bootstrap
``f1-bootstrap``    ``[seed, 0xF1, 0xB007]``                         the bootstrap interval of a run's mean F1 (list task)
``wording-bootstrap`` ``[seed, 0x3D, 0xB007]``                       the bootstrap interval of the spread of a model's
                                                                     accuracy across template sets (report's wording table)
``backoff``         ``[seed]``                                       retry jitter of a model run
``policy``          ``[seed, prompt, occurrence]``                   the ``random`` policy server's answer to one prompt
``shortcut``        ``[seed, key, 0, 0x5C07]``                       the retrieval shortcut's guess on an example its
                                                                     blocks leave open (key: ``suite_key`` of the
                                                                     example id, so the order of examples is irrelevant)
``match-scorer``    ``[seed, depth, 0, 0x1EA2]``                     the training pairs of a snapshot's matching scorer
                                                                     of one depth (``match_learned``; seed: ``DEFAULT_SEED``)
``source-order``    ``[seed, depth, 0, 0x50CE]``                     the order a batch's matched examples take their
                                                                     distinct sources in (``source_slot``)
==================  ===============================================  =================================================

These layouts are the ones every existing artifact was made with; they are fixed numbers, not
choices to revisit, because changing one changes every example, pool or release drawn from it.
The tags ``0x5EC`` ("spec") and ``0xB007`` ("boot") only separate streams that would otherwise
share an entropy list, and only from small keys: example ``0x5EC`` (1516) of a ``graphniah sample``
batch has the same entropy as the batch stream, so a batch of more than 1516 examples draws that
example from the same stream as the batch's specs (a correlation between one example and the specs,
kept because the layout is fixed). ``[seed]`` equals the plain integer seed (``default_rng(seed)``): numpy
turns both into the same 32-bit word array.
"""

from __future__ import annotations

from collections.abc import Callable
from enum import StrEnum

import numpy as np

from graphniah.atomic import sha256_bytes

__all__ = ["DEFAULT_SEED", "DEMO_RELEASE_SEED", "Stream", "derived_seed", "entropy", "generator", "seed_sequence", "suite_key"]

DEFAULT_SEED = 0
"""The seed every command uses unless ``--seed`` says otherwise."""

DEMO_RELEASE_SEED = 20260401
"""The seed of the demo release ``refresh`` and ``make demo`` generate (its date, so it is
recognisable in manifests); fixed so every clone builds the same synthetic snapshot."""

_SPEC_TAG = 0x5EC
_BOOTSTRAP_TAG = 0xB007
_SHORTCUT_TAG = 0x5C07
_SCORER_TAG = 0x1EA2  # "lear(ned)"
_SOURCES_TAG = 0x50CE  # "sou(r)ce"


class Stream(StrEnum):
    DEMO_RELEASE = "demo-release"
    POOL = "pool"
    EXAMPLE = "example"
    BATCH = "batch"
    SUITE = "suite"
    ALPHA_TASK = "alpha-task"
    ALPHA_SPEC = "alpha-spec"
    ALPHA_BOOTSTRAP = "alpha-bootstrap"
    F1_BOOTSTRAP = "f1-bootstrap"
    WORDING_BOOTSTRAP = "wording-bootstrap"
    BACKOFF = "backoff"
    POLICY = "policy"
    SHORTCUT = "shortcut"
    MATCH_SCORER = "match-scorer"
    SOURCE_ORDER = "source-order"


# stream -> the entropy list built from (seed, *keys); the number of keys is part of the layout.
_LAYOUT: dict[Stream, Callable[..., list[int]]] = {
    Stream.DEMO_RELEASE: lambda seed: [seed],
    Stream.POOL: lambda seed, depth: [seed, depth],
    Stream.EXAMPLE: lambda seed, index: [seed, index],
    Stream.BATCH: lambda seed: [seed, _SPEC_TAG],
    Stream.SUITE: lambda seed, suite, value_index: [seed, suite, value_index],
    Stream.ALPHA_TASK: lambda seed, task_index: [seed, task_index],
    Stream.ALPHA_SPEC: lambda seed, task_index, index: [seed, task_index, index, _SPEC_TAG],
    Stream.ALPHA_BOOTSTRAP: lambda seed: [seed, _BOOTSTRAP_TAG],
    Stream.F1_BOOTSTRAP: lambda seed: [seed, 0xF1, _BOOTSTRAP_TAG],
    Stream.WORDING_BOOTSTRAP: lambda seed: [seed, 0x3D, _BOOTSTRAP_TAG],  # the spread across template sets
    Stream.BACKOFF: lambda seed: [seed],
    Stream.POLICY: lambda seed, prompt, occurrence: [seed, prompt, occurrence],
    # Four words ending in a tag no other four-word layout ends in (alpha-spec ends in 0x5EC).
    Stream.SHORTCUT: lambda seed, key: [seed, key, 0, _SHORTCUT_TAG],
    Stream.MATCH_SCORER: lambda seed, depth: [seed, depth, 0, _SCORER_TAG],
    Stream.SOURCE_ORDER: lambda seed, depth: [seed, depth, 0, _SOURCES_TAG],
}


def suite_key(name: str) -> int:
    """The integer a suite's name contributes to its stream: the first 8 hex digits of sha256(name)."""
    return int(sha256_bytes(name.encode())[:8], 16)


def entropy(stream: Stream | str, seed: int, *keys: int) -> list[int]:
    """The ``SeedSequence`` entropy of ``stream`` for ``seed`` and the stream's keys (see the table)."""
    layout = _LAYOUT[Stream(stream)]
    try:
        return [int(x) for x in layout(int(seed), *keys)]
    except TypeError:
        raise TypeError(f"stream {Stream(stream).value!r} takes other keys than {keys!r}") from None


def seed_sequence(stream: Stream | str, seed: int, *keys: int) -> np.random.SeedSequence:
    return np.random.SeedSequence(entropy(stream, seed, *keys))


def generator(stream: Stream | str, seed: int, *keys: int) -> np.random.Generator:
    """The generator of ``stream``: ``default_rng(SeedSequence(entropy(stream, seed, *keys)))``."""
    return np.random.default_rng(seed_sequence(stream, seed, *keys))


def derived_seed(stream: Stream | str, seed: int, *keys: int) -> int:
    """A plain integer seed drawn from ``stream`` (its first 32-bit state word), for APIs that take one."""
    return int(seed_sequence(stream, seed, *keys).generate_state(1)[0])
