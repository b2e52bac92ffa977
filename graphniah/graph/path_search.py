"""One randomized DFS of a path pool, compiled (numba): the inner loop of :mod:`graphniah.graph.paths`.

:func:`search` is the search that module's docstring specifies, step for step, on flat arrays:
the path; per paper, ``touch`` (how many papers of the path it is adjacent to, plus
:data:`ON_PATH` while it is on the path) and ``limit`` (its ``end_bound`` while it is in fewer than
``cap`` pooled paths, else 0); and a stack of candidate lists laid end to end in one buffer
(``cand``; level ``k`` holds ``clen[k]`` candidates from ``cstart[k]``, and ``pos[k]`` of them
were tried). A neighbour ``w`` of the path's end can complete a path still missing ``r >= 1``
papers iff ``touch[w] == 1`` (off the path, and adjacent to the end only: the path stays induced)
and ``limit[w] >= r``: the four tests of :mod:`graphniah.graph.paths` in two reads.

It draws its random numbers from the caller's ``numpy.random.Generator`` itself, through the bit
generator's C interface (``next_uint32`` on its state), so a pool sampled with it consumes the
generator exactly as the same search written in Python with ``Generator.shuffle`` does, and the
Python code around it (start draws with ``Generator.integers``) continues the same stream.

Notes
-----
*Same draws as ``Generator.shuffle``.* ``shuffle`` of a list of ``n`` items swaps item ``i`` with
item ``random_interval(i)`` for ``i = n-1 .. 1``. numpy's ``random_interval(max)`` for
``max < 2**32`` draws ``next_uint32() & mask``, ``mask`` the smallest all-ones number ``>= max``,
until the value is ``<= max``. :func:`_interval` is that loop, on the same bit generator state, so
the same values are drawn and the state is left the same (a buffered half of a 64-bit draw
included: it lives in that state). A candidate list holds at most a paper's degree, far below
``2**32``.

*The candidate buffer is large enough.* At any time the stack holds at most one list per paper of
the path, each no longer than that paper's degree, and the path's papers are distinct; so the sum
of the ``length`` largest degrees bounds what the stack holds (:func:`candidate_capacity`).
"""

from __future__ import annotations

import ctypes
from typing import Any

import numba
import numpy as np
import numpy.typing as npt
from llvmlite import ir
from numba.core import types
from numba.core.extending import intrinsic

FOUND, OVER_BUDGET, EXHAUSTED = 0, 1, 2
#: Added to ``touch`` of a paper on the path: its count can then never be 1 (a count is at most a degree).
ON_PATH = 1 << 30


def _jit(fn: Any) -> Any:
    """``fn`` compiled on first use, the machine code cached on disk (``__pycache__`` beside this file,
    else numba's folder in the user's cache) so a later process only loads it. Where neither can be
    written (a read-only install and no writable home) it is compiled in memory by every process."""
    try:
        return numba.njit(cache=True, nogil=True)(fn)
    except RuntimeError:  # numba: "cannot cache function ...: no locator available"
        return numba.njit(nogil=True)(fn)


def _call_next32(typingctx: Any, fn: Any, state: Any) -> Any:
    """``_next32(fn, state)``: a call of the bit generator's ``next_uint32`` (C function at address ``fn``)
    on its state (address ``state``), both plain integers. A direct call: passing the ctypes
    function object instead costs numba a wrapper on every draw (about a tenth of a deep pool's time)."""
    sig = types.uint32(types.uintp, types.uintp)

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        void_p = ir.IntType(8).as_pointer()
        target = builder.inttoptr(args[0], ir.FunctionType(ir.IntType(32), [void_p]).as_pointer())
        return builder.call(target, [builder.inttoptr(args[1], void_p)])

    return sig, codegen


_next32: Any = intrinsic(_call_next32)


def next32_address(rng: np.random.Generator) -> tuple[int, int]:
    """The addresses :func:`search` draws ``rng``'s numbers with: its bit generator's ``next_uint32``
    and its state (valid while ``rng`` lives)."""
    bits = rng.bit_generator.ctypes
    fn = ctypes.cast(bits.next_uint32, ctypes.c_void_p).value
    if not fn:  # numpy's bit generators all have one; a call through address 0 would crash the process
        raise ValueError(f"{type(rng.bit_generator).__name__} has no next_uint32 to draw from")
    return int(fn), int(bits.state_address)


def candidate_capacity(ptr: npt.NDArray[np.int64], length: int) -> int:
    """Room for the candidate stack of a search of ``length`` papers in the CSR graph ``ptr``."""
    deg = np.diff(ptr)
    if deg.size > length:
        deg = np.partition(deg, deg.size - length)[deg.size - length :]
    return int(deg.sum()) + 1


@_jit
def _interval(mx: int, next32: int, state: int) -> np.int64:
    """numpy's ``random_interval(mx)`` for ``mx < 2**32``: uniform on ``0 .. mx``."""
    if mx == 0:
        return np.int64(0)
    top = np.uint64(mx)
    mask = top
    mask |= mask >> np.uint64(1)
    mask |= mask >> np.uint64(2)
    mask |= mask >> np.uint64(4)
    mask |= mask >> np.uint64(8)
    mask |= mask >> np.uint64(16)
    while True:
        v = np.uint64(_next32(next32, state)) & mask
        if v <= top:
            return np.int64(v)


@_jit
def _admissible(u: int, missing: int, ptr: Any, idx: Any, limit: Any, touch: Any, cand: Any, base: int, next32: int,
                state: int) -> int:
    """Put ``u`` on the path; when ``missing`` > 0 papers are still to come, write its neighbours
    that can complete the path (CSR order) at ``cand[base:]``, shuffle them as
    ``Generator.shuffle`` would, and return how many there are.

    One pass over the neighbours both counts ``u`` in their ``touch`` and tests them: the graph is
    simple, so a neighbour's count is final once ``u``'s edge to it is counted.
    """
    touch[u] += ON_PATH
    n = 0
    for e in range(ptr[u], ptr[u + 1]):
        w = idx[e]
        t = touch[w] + 1
        touch[w] = t
        if t == 1 and limit[w] >= missing > 0:
            cand[base + n] = w
            n += 1
    for i in range(n - 1, 0, -1):
        j = _interval(i, next32, state)
        t = cand[base + i]
        cand[base + i] = cand[base + j]
        cand[base + j] = t
    return n


@_jit
def _leave(v: int, ptr: Any, idx: Any, touch: Any) -> None:
    """Take ``v`` off the path."""
    touch[v] -= ON_PATH
    for e in range(ptr[v], ptr[v + 1]):
        touch[idx[e]] -= 1


@_jit
def search(s: int, length: int, budget: int, ptr: Any, idx: Any, limit: Any, touch: Any, path: Any, cand: Any, cstart: Any,
           clen: Any, pos: Any, next32: int, state: int) -> tuple[int, int]:
    """A DFS from ``s`` for a path of ``length`` papers within ``budget`` steps.

    Returns ``(status, steps)``: :data:`FOUND` (the path is ``path[:length]``), :data:`OVER_BUDGET`
    or :data:`EXHAUSTED` (every continuation from ``s`` tried), and the moves made. ``touch`` is all
    zero before and after.
    """
    path[0] = s
    depth = 1
    cstart[0] = 0
    clen[0] = _admissible(s, length - 1, ptr, idx, limit, touch, cand, 0, next32, state)
    pos[0] = 0
    top = 1 if length > 1 else 0  # levels on the candidate stack: depth, until the path is complete
    left = budget
    status = FOUND
    while True:
        if depth == length:
            status = FOUND
            break
        if left == 0:
            status = OVER_BUDGET
            break
        lv = top - 1
        i = pos[lv]
        left -= 1
        if i < clen[lv]:  # forward to the next untried candidate
            pos[lv] = i + 1
            w = cand[cstart[lv] + i]
            path[depth] = w
            depth += 1
            b = cstart[lv] + clen[lv]
            cstart[top] = b
            clen[top] = _admissible(w, length - depth, ptr, idx, limit, touch, cand, b, next32, state)
            pos[top] = 0
            if depth < length:
                top += 1
        else:  # back
            if depth == 1:
                status = EXHAUSTED
                break
            depth -= 1
            _leave(path[depth], ptr, idx, touch)
            top -= 1
    for k in range(depth):
        _leave(path[k], ptr, idx, touch)
    return status, budget - left
