"""The compiled path search: the generator's draws, and where its machine code is cached."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np

from graphniah.graph import path_search


def _next32(rng: np.random.Generator) -> int:
    bits = rng.bit_generator.ctypes
    return int(bits.next_uint32(bits.state_address))


def test_compiled_shuffle_is_generator_shuffle() -> None:
    """The compiled candidate shuffle puts lists of every length in ``Generator.shuffle``'s order and
    consumes the same draws, also when the generator holds half of a 64-bit draw."""
    for seed in range(6):
        ours, ref = np.random.default_rng(seed), np.random.default_rng(seed)
        for n in [*range(40), 255, 256, 257, 1000]:
            if n % 7 == 3:  # one 32-bit draw, outside the shuffles: PCG64 keeps the other half of its 64 bits
                assert _next32(ours) == _next32(ref)
            want = list(range(100, 100 + n))
            ref.shuffle(want)
            ptr = np.array([0, n], dtype=np.int64)
            idx = np.arange(100, 100 + n, dtype=np.int64)
            limit, touch = np.ones(100 + n, dtype=np.int64), np.zeros(100 + n, dtype=np.int64)
            cand = np.zeros(n + 3, dtype=np.int64)
            got = path_search._admissible(0, 1, ptr, idx, limit, touch, cand, 3, *path_search.next32_address(ours))
            assert got == n and cand[3 : 3 + n].tolist() == want
        assert ours.integers(2**62) == ref.integers(2**62)


def test_without_a_writable_cache_the_search_is_compiled_in_memory(tmp_path: Path) -> None:
    """numba refuses to cache a function when no cache folder can be written (beside the module,
    or in the user's cache): the module then compiles in memory instead of failing to import."""
    shutil.copy(path_search.__file__, tmp_path / "path_search.py")
    (tmp_path / "__pycache__").write_text("")  # a file where numba would make its cache folder
    probe = (
        "import numpy as np, path_search as k\n"
        "rng = np.random.default_rng(0)\n"
        "ptr = np.array([0, 2, 4, 6]); idx = np.array([1, 2, 0, 2, 0, 1]); limit = np.full(3, 3); st = np.zeros((3, 3), np.int64)\n"
        "out = k.search(0, 3, 100, ptr, idx, limit, np.zeros(3, np.int64), np.zeros(3, np.int64), np.zeros(8, np.int64), *st,"
        " *k.next32_address(rng))\n"
        "print(type(k.search._cache).__name__, out)\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"} | {"HOME": "/dev/null", "XDG_CACHE_HOME": "/dev/null/cache"}
    r = subprocess.run([sys.executable, "-c", probe], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    # A triangle holds no induced path of 3 papers: from paper 0, forward to each of its neighbours
    # (where the third paper closes a triangle) and back, then the step that finds none left.
    assert r.stdout.split() == ["NullCache", f"({path_search.EXHAUSTED},", "5)"]
