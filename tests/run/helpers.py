"""A small real suite for the runner and server tests: demo release -> snapshot -> pools -> examples.

Built once per test session (about 2 s) and shared by ``tests/run`` and ``tests/run/serve``.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from graphniah.formats.examples import Example, write_examples
from graphniah.run import RetryPolicy, RunOptions
from graphniah.run.models import ModelEntry, load_registry

CUTOFF = dt.date(2026, 4, 1)
FAST_RETRY = RetryPolicy(max_attempts=8, base_s=0.01, cap_s=0.04)


@dataclass(frozen=True)
class DemoSuite:
    snapshots: Path  # root folder with <release>/cutoff=<date>/
    snapshot_hash: str
    examples: tuple[Example, ...]  # 8 yesno, 4 mc, 4 count (depth 4, 20 papers per component)
    path: Path  # the examples as JSONL
    small: tuple[Example, ...]  # 2 yesno of depth 2 with 4-paper components (short prompts)


_CACHE: dict[str, DemoSuite] = {}


def demo_suite(tmp_path_factory: Any) -> DemoSuite:
    if "suite" not in _CACHE:
        from graphniah.formats.snapshot import Snapshot
        from graphniah.graph.store import build_path_pools
        from graphniah.ingest.build import ingest_release
        from graphniah.ingest.demo_release import write_demo_releases
        from graphniah.sampling.examples.sample import batch_specs, sample_examples
        from graphniah.sampling.examples.spec import SamplingContext

        root = tmp_path_factory.mktemp("demo-suite")
        rs = write_demo_releases(root / "release", papers=2000, seed=1, releases=1)
        rid = rs.release_ids[-1]
        snapdir = root / "snapshots" / rid / f"cutoff={CUTOFF.isoformat()}"
        ingest_release(rs.release_dir(rid), CUTOFF, snapdir)
        snap = Snapshot.open(snapdir)
        build_path_pools(snap, [2, 4], 30, 0)
        ctx = SamplingContext(snap)
        rng = np.random.default_rng(0)
        exs = list(sample_examples(ctx, batch_specs("yesno", 4, 8, rng, component_size=20), seed=0))
        exs += list(sample_examples(ctx, batch_specs("mc", 4, 4, rng, component_size=20), seed=1))
        exs += list(sample_examples(ctx, batch_specs("count", 4, 4, rng, component_size=20), seed=2))
        small = list(sample_examples(ctx, batch_specs("yesno", 2, 2, rng, component_size=4), seed=3))
        path = root / "examples" / "demo.jsonl"
        write_examples(path, exs)
        _CACHE["suite"] = DemoSuite(root / "snapshots", snap.content_hash, tuple(exs), path, tuple(small))
    return _CACHE["suite"]


def local_entry(base: str = "local-oracle", **changes: Any) -> ModelEntry:
    """A registry entry derived from a local one, with fields replaced (validated like the registry)."""
    data = load_registry()[base].model_dump()
    data.update(changes)
    return ModelEntry.model_validate(data)


def fast_options(**kw: Any) -> RunOptions:
    kw.setdefault("retry", FAST_RETRY)
    kw.setdefault("concurrency", 4)
    return RunOptions(**kw)
