"""Selecting the concentration parameter α by in-degree KL divergence (the paper's appendix B).

For each candidate α and each task, examples are generated without distractors (they add no
papers to the task's subgraph, except the disjoint-component kind, and slow the search down), the
in-degrees *inside* each example's subgraph are counted, and their pooled distribution over
degrees ≥ 1 is compared with the snapshot's in-degree distribution over degrees ≥ 1 by the
Kullback-Leibler divergence D(P_{α,τ} ‖ Q), both smoothed with ε over a common support. The mean
over tasks, S(α), is minimised. A bootstrap that resamples examples within each (α, task)
gives percentile intervals for S(α) and how often each α is selected.

Only the grown forests matter here, so examples are not rendered, packed or text-verified:
:func:`forest_in_degrees` counts them on :func:`graphniah.sampling.grow_forest`, which replays the
attempts of the sampler's ``build_example`` (same generator, same backbone draw, same growth) and
stops after the first growth that succeeds. Its in-degrees are therefore those of the example
``graphniah sample`` builds for the same spec, seed and index, except when that example's first
grown forest was rejected later (needles exceeding L, or text verification) — a rare event that the tests measure.

Every example gets its own generator, derived from (seed, task, index), and the same one for every
α: the candidates are compared on the same backbones and specs (common random numbers), which
lowers the variance of the differences S(α) − S(α'). Results do not depend on how work is split
among processes.
"""

from __future__ import annotations

import concurrent.futures as cf
import io
import multiprocessing as mp
import os
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from graphniah import __version__
from graphniah.atomic import atomic_dir, write_in_staging
from graphniah.errors import GraphNIAHError
from graphniah.formats import PAPER_TASKS, TASKS, Task
from graphniah.formats.report import AlphaRun, read_alpha_run, write_alpha_run
from graphniah.formats.snapshot import Snapshot, read_edges
from graphniah.progress import NO_PROGRESS, Progress, step
from graphniah.sampling import ExampleSpec, SamplingContext, grow_forest
from graphniah.seeds import Stream, derived_seed, generator

if TYPE_CHECKING:  # matplotlib is imported only when the figure is drawn
    from matplotlib.figure import Figure

__all__ = [
    "DEFAULT_ALPHAS",
    "AlphaConfig",
    "AlphaSelection",
    "GeneratedDegrees",
    "alpha_figure",
    "forest_in_degrees",
    "generate_in_degrees",
    "in_degree_histogram",
    "kl_divergence",
    "load_alpha_run",
    "select_alpha",
    "snapshot_in_degree_histogram",
    "task_seed",
    "write_alpha_report",
]

DEFAULT_ALPHAS = tuple(round(0.1 * i, 1) for i in range(1, 11))
_LABEL = {"yesno": "YES", "mc": "A", "count": None}  # growth does not depend on the label


@dataclass(frozen=True)
class AlphaConfig:
    """The search: candidates, examples per task and α, how specs are drawn, bootstrap, smoothing."""

    alphas: tuple[float, ...] = DEFAULT_ALPHAS
    tasks: tuple[Task, ...] = PAPER_TASKS  # appendix B selects α on the paper's three tasks
    examples_per_task: int = 2000
    depths: tuple[int, ...] = (4, 8, 16, 32)
    min_size: int = 100
    max_size: int = 250
    bootstrap: int = 500
    epsilon: float = 1e-8
    confidence: float = 0.95
    seed: int = 0
    workers: int = 2
    chunk: int = 20

    def __post_init__(self) -> None:
        if not self.alphas or any(a <= 0 for a in self.alphas) or len(set(self.alphas)) != len(self.alphas):
            raise GraphNIAHError(f"alphas must be distinct positive numbers, got {self.alphas}")
        if not self.tasks or any(t not in PAPER_TASKS for t in self.tasks):
            raise GraphNIAHError(f"tasks must be among {', '.join(PAPER_TASKS)}, got {self.tasks}")
        if self.examples_per_task < 1 or self.bootstrap < 0 or self.workers < 1 or self.chunk < 1:
            raise GraphNIAHError("examples per task, workers and chunk must be at least 1, bootstrap at least 0")
        if not self.depths or any(d < 2 for d in self.depths):
            raise GraphNIAHError(f"depths must be at least 2, got {self.depths}")
        if not 1 <= self.min_size <= self.max_size:
            raise GraphNIAHError(f"component sizes need 1 <= min <= max, got {self.min_size}..{self.max_size}")
        if self.max_size < 3 * max(self.depths) - 2:
            raise GraphNIAHError(f"max size {self.max_size} cannot hold the backbone of depth {max(self.depths)}")
        if not 0 <= self.epsilon < 1 or not 0 < self.confidence < 1:
            raise GraphNIAHError("epsilon must lie in [0, 1) and confidence in (0, 1)")


# ------------------------------------------------------------------------------------------------
# In-degrees
# ------------------------------------------------------------------------------------------------


def in_degree_histogram(cited: np.ndarray) -> np.ndarray:
    """``H[a]`` = number of papers cited exactly ``a`` times by the citing ends listed in ``cited``.

    ``cited`` holds the cited end of every edge; a paper that is never cited does not appear in
    it, so ``H[0] == 0``: degrees ≥ 1 are all the comparison uses (appendix B.2).
    """
    cited = np.asarray(cited, dtype=np.int64)
    if cited.size == 0:
        return np.zeros(1, dtype=np.int64)
    _, per_paper = np.unique(cited, return_counts=True)
    return np.bincount(per_paper).astype(np.int64)


def snapshot_in_degree_histogram(snapshot: Snapshot) -> np.ndarray:
    """In-degree histogram of the snapshot's citation graph (edges between eligible papers only)."""
    cited = read_edges(snapshot, ["cited"]).column("cited").to_numpy()
    if cited.size == 0:
        raise GraphNIAHError(f"snapshot {snapshot.path} has no citation edges")
    return in_degree_histogram(cited)


def task_seed(seed: int, task: str) -> int:
    """The batch seed of a task: ``build_example(ctx, spec, task_seed(seed, task), i)`` grows the same forest."""
    return derived_seed(Stream.ALPHA_TASK, seed, TASKS.index(task))


def example_spec(config: AlphaConfig, task: Task, index: int, alpha: float) -> ExampleSpec:
    """Example ``index`` of a task: depth uniform over ``config.depths``, size uniform over the allowed range."""
    rng = generator(Stream.ALPHA_SPEC, config.seed, TASKS.index(task), index)
    depth = int(config.depths[int(rng.integers(len(config.depths)))])
    size = int(rng.integers(max(config.min_size, 3 * depth - 2), config.max_size + 1))
    return ExampleSpec(task, depth, size, _LABEL[task], alpha=alpha)


def forest_in_degrees(ctx: SamplingContext, spec: ExampleSpec, seed: int, index: int) -> np.ndarray:
    """In-degree histogram of the task components ``build_example(ctx, spec, seed, index)`` grows first
    (:func:`graphniah.sampling.grow_forest`)."""
    return in_degree_histogram(grow_forest(ctx, spec, seed, index)[:, 1])


# Work units run in worker processes, each with its own SamplingContext loaded once.
_WORKER: dict[str, Any] = {}


def _init_worker(snapshot_path: str) -> None:
    _WORKER["ctx"] = SamplingContext(Snapshot.open(snapshot_path))


def _run_unit(config: AlphaConfig, task: Task, alpha: float, start: int, stop: int, ctx: SamplingContext | None = None) -> list[np.ndarray]:
    ctx = ctx if ctx is not None else _WORKER["ctx"]
    seed = task_seed(config.seed, task)
    return [forest_in_degrees(ctx, example_spec(config, task, i, alpha), seed, i) for i in range(start, stop)]


@dataclass(frozen=True)
class GeneratedDegrees:
    """Per-example in-degree histograms: ``counts[a, t]`` is an (examples × degrees) matrix for α_a, task t."""

    alphas: tuple[float, ...]
    tasks: tuple[str, ...]
    counts: tuple[tuple[np.ndarray, ...], ...]
    seconds: float

    def pooled(self) -> np.ndarray:
        """(α, task, degree) pooled histograms H_{α,τ}(a), padded to a common length."""
        width = max(m.shape[1] for row in self.counts for m in row)
        out = np.zeros((len(self.alphas), len(self.tasks), width), dtype=np.int64)
        for a, row in enumerate(self.counts):
            for t, m in enumerate(row):
                out[a, t, : m.shape[1]] = m.sum(axis=0)
        return out


def _stack(hists: Sequence[np.ndarray]) -> np.ndarray:
    width = max(h.size for h in hists)
    out = np.zeros((len(hists), width), dtype=np.int64)
    for i, h in enumerate(hists):
        out[i, : h.size] = h
    return out


def _grow_units(snapshot: Snapshot, config: AlphaConfig, units: list[tuple[Task, float, int, int]],
                results: dict[tuple[str, float, int], list[np.ndarray]], ctx: SamplingContext | None, progress: Progress) -> None:
    """Run every unit (task, α, first and end example) here or in ``config.workers`` processes."""
    if config.workers == 1:
        ctx = ctx if ctx is not None else SamplingContext(snapshot)
        for task, alpha, s, e in units:
            results[(task, alpha, s)] = _run_unit(config, task, alpha, s, e, ctx)
            progress.advance(e - s)
    else:
        pool = cf.ProcessPoolExecutor(max_workers=config.workers, mp_context=mp.get_context("spawn"),
                                      initializer=_init_worker, initargs=(str(snapshot.path),))
        with pool:
            futures = {pool.submit(_run_unit, config, task, alpha, s, e): (task, alpha, s, e) for task, alpha, s, e in units}
            try:
                for fut in cf.as_completed(futures):
                    task, alpha, s, e = futures[fut]
                    results[(task, alpha, s)] = fut.result()
                    progress.advance(e - s)
            except BaseException:
                for f in futures:
                    f.cancel()
                raise


def generate_in_degrees(
    snapshot: Snapshot,
    config: AlphaConfig,
    *,
    ctx: SamplingContext | None = None,
    progress: Progress = NO_PROGRESS,
) -> GeneratedDegrees:
    """Grow ``examples_per_task`` forests per task and α and count their in-degrees.

    With ``workers > 1`` the work is split into chunks run by that many processes (each loads
    the snapshot once); with 1 it runs here, reusing ``ctx`` when given. ``progress`` counts the
    examples grown.
    """
    units = [(task, alpha, s, min(s + config.chunk, config.examples_per_task))
             for alpha in config.alphas for task in config.tasks for s in range(0, config.examples_per_task, config.chunk)]
    total = len(config.alphas) * len(config.tasks) * config.examples_per_task
    results: dict[tuple[str, float, int], list[np.ndarray]] = {}
    t0 = time.perf_counter()
    with step(progress, total, "growing"):
        _grow_units(snapshot, config, units, results, ctx, progress)
    counts = tuple(
        tuple(_stack([h for s in range(0, config.examples_per_task, config.chunk) for h in results[(task, alpha, s)]])
              for task in config.tasks)
        for alpha in config.alphas
    )
    return GeneratedDegrees(config.alphas, config.tasks, counts, time.perf_counter() - t0)


# ------------------------------------------------------------------------------------------------
# Selection
# ------------------------------------------------------------------------------------------------


def _conditional(h: np.ndarray, support: np.ndarray) -> npt.NDArray[np.float64]:
    """Counts over degrees ≥ 1 normalised (rows of a 2-D array each), restricted to the support."""
    h = np.asarray(h, dtype=float)
    total = h[..., 1:].sum(axis=-1, keepdims=True)
    if np.any(total == 0):
        raise GraphNIAHError("an in-degree distribution has no paper with in-degree >= 1")
    conditional: npt.NDArray[np.float64] = h[..., support] / total
    return conditional


def kl_divergence(
    p_counts: np.ndarray, q_counts: np.ndarray, support: np.ndarray, epsilon: float = 1e-8
) -> np.float64 | npt.NDArray[np.float64]:
    """D(P̃ ‖ Q̃) over ``support`` (degrees ≥ 1), with P̃ = (1 − ε)P + ε/M and the same for Q (eq. 4–5).

    ``p_counts`` may be 2-D (one distribution per row); ``q_counts`` is one histogram. Both are
    indexed by degree and must be at least ``support.max() + 1`` long. Natural logarithm.
    """
    m = support.size
    p = (1 - epsilon) * _conditional(p_counts, support) + epsilon / m
    q = (1 - epsilon) * _conditional(q_counts, support) + epsilon / m
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(p > 0, p * np.log(p / q), 0.0)
    kl: np.float64 | npt.NDArray[np.float64] = terms.sum(axis=-1)  # one value per row of p_counts
    return kl


@dataclass(frozen=True)
class AlphaSelection:
    """The result of the search (appendix B.4 / Figure 10)."""

    config: AlphaConfig
    reference: np.ndarray  # H*(a) of the snapshot (or the planted reference)
    pooled: np.ndarray  # (α, task, degree) H_{α,τ}(a)
    support: np.ndarray  # degrees in the common support
    kl: np.ndarray  # (α, task) D_{α,τ}
    mean_kl: np.ndarray  # S(α)
    selected: float
    ci_low: np.ndarray
    ci_high: np.ndarray
    frequency: np.ndarray  # share of bootstrap replicates selecting each α
    examples: np.ndarray  # (α, task) examples generated
    seconds: float = 0.0
    source: dict[str, Any] = field(default_factory=dict)
    generated: GeneratedDegrees | None = None  # the per-example histograms (kept for re-analysis)

    def rows(self) -> list[dict[str, Any]]:
        out = []
        for a, alpha in enumerate(self.config.alphas):
            row: dict[str, Any] = {"alpha": alpha}
            row |= {f"kl_{t}": float(self.kl[a, i]) for i, t in enumerate(self.config.tasks)}
            row |= {"mean_kl": float(self.mean_kl[a]), "ci_low": float(self.ci_low[a]), "ci_high": float(self.ci_high[a]),
                    "selected_share": float(self.frequency[a]), "selected": alpha == self.selected}
            out.append(row)
        return out

    def markdown(self) -> str:
        tasks = self.config.tasks
        head = ["α", *[f"D ({t})" for t in tasks], "S(α)", f"{100 * self.config.confidence:g}% bootstrap interval", "Selected in"]
        lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        for r in self.rows():
            cells = [f"{r['alpha']:g}", *[f"{r[f'kl_{t}']:.4f}" for t in tasks], f"{r['mean_kl']:.4f}",
                     f"[{r['ci_low']:.4f}, {r['ci_high']:.4f}]", f"{100 * r['selected_share']:.1f}%"]
            if r["selected"]:
                cells = [f"**{c}**" for c in cells]
            lines.append("| " + " | ".join(cells) + " |")
        n = int(self.examples.min()) if self.examples.size else 0
        lines += ["", f"Selected α* = {self.selected:g} (smallest mean KL divergence). {n} examples per task and α, "
                  f"{self.config.bootstrap} bootstrap replicates (examples resampled within each task and α), "
                  f"ε = {self.config.epsilon:g}, support of {self.support.size} degree values."]
        return "\n".join(lines) + "\n"

    def csv(self) -> str:
        rows = self.rows()
        keys = list(rows[0])
        return "\n".join([",".join(keys)] + [",".join(str(r[k]) for k in keys) for r in rows]) + "\n"


def select_alpha(generated: GeneratedDegrees, reference: np.ndarray, config: AlphaConfig,
                 rng: np.random.Generator | None = None) -> AlphaSelection:
    """Mean KL divergence per α, the argmin, and bootstrap intervals and selection frequencies.

    The common support is fixed from the full data (the snapshot's and every generated degree
    ≥ 1 that occurs); a bootstrap replicate only ever draws degrees inside it, so the support and
    M are the same in every replicate. ``rng`` drives the bootstrap (default: from ``config.seed``).
    """
    rng = rng if rng is not None else generator(Stream.ALPHA_BOOTSTRAP, config.seed)
    pooled = generated.pooled()
    width = max(pooled.shape[2], reference.size)
    pooled = np.pad(pooled, ((0, 0), (0, 0), (0, width - pooled.shape[2])))
    ref = np.pad(np.asarray(reference, dtype=np.int64), (0, width - reference.size))
    seen = (ref > 0) | (pooled > 0).any(axis=(0, 1))
    seen[0] = False
    support = np.flatnonzero(seen)
    if support.size == 0:
        raise GraphNIAHError("no in-degree >= 1 in the snapshot or the generated examples")
    A, T = len(config.alphas), len(config.tasks)
    kl = np.array([[kl_divergence(pooled[a, t], ref, support, config.epsilon) for t in range(T)] for a in range(A)])
    mean = kl.mean(axis=1)
    selected = config.alphas[int(np.argmin(mean))]
    B = config.bootstrap
    boot = np.zeros((B, A))
    if B:
        for a in range(A):
            for t in range(T):
                h = generated.counts[a][t]
                h = np.pad(h, ((0, 0), (0, width - h.shape[1])))
                n = h.shape[0]
                weights = rng.multinomial(n, np.full(n, 1.0 / n), size=B)
                boot[:, a] += kl_divergence(weights @ h, ref, support, config.epsilon) / T
        q = (1 - config.confidence) / 2
        low, high = np.quantile(boot, [q, 1 - q], axis=0)
        freq = np.bincount(np.argmin(boot, axis=1), minlength=A) / B
    else:
        low = high = np.full(A, np.nan)
        freq = np.zeros(A)
    examples = np.array([[m.shape[0] for m in row] for row in generated.counts])
    return AlphaSelection(config, ref, pooled, support, kl, mean, selected, low, high, freq, examples, generated.seconds,
                          generated=generated)


# ------------------------------------------------------------------------------------------------
# Output
# ------------------------------------------------------------------------------------------------


def alpha_figure(sel: AlphaSelection) -> Figure:
    """Figure 10 of the paper: in-degree distributions (linear and log axes), S(α) with intervals, selection shares."""
    from matplotlib.figure import Figure

    a_star = sel.config.alphas.index(sel.selected)
    deg = np.arange(sel.reference.size)
    q = sel.reference / sel.reference[1:].sum()
    gen = sel.pooled[a_star].sum(axis=0)
    p = gen / gen[1:].sum()
    fig = Figure(figsize=(9, 6.5))
    axes = fig.subplots(2, 2)
    for ax, log in ((axes[0, 0], False), (axes[0, 1], True)):
        m_q, m_p = (deg >= 1) & (q > 0), (deg >= 1) & (p > 0)
        ax.plot(deg[m_q], q[m_q], "o-", ms=3, lw=1, label="snapshot")
        ax.plot(deg[m_p], p[m_p], "s-", ms=3, lw=1, label=f"generated, α = {sel.selected:g}")
        ax.set_xlabel("in-degree")
        ax.set_ylabel("share of papers (in-degree ≥ 1)")
        if log:
            ax.set_xscale("log")
            ax.set_yscale("log")
        else:
            ax.set_xlim(0.5, min(deg.size, 20) + 0.5)
        ax.legend(fontsize=7, frameon=False)
        ax.set_title("log axes" if log else "linear axes", fontsize=9)
    alphas = np.asarray(sel.config.alphas)
    ax = axes[1, 0]
    if np.isfinite(sel.ci_low).all():
        # Percentile bootstrap intervals of a KL divergence need not contain the point estimate (the
        # plug-in KL is biased upwards), so they are drawn as bars of their own rather than as yerr.
        ax.plot(alphas, sel.mean_kl, "o-", ms=3)
        ax.vlines(alphas, sel.ci_low, sel.ci_high, colors="C0", alpha=0.5, lw=2)
    else:
        ax.plot(alphas, sel.mean_kl, "o-", ms=3)
    ax.set_xlabel("α")
    ax.set_ylabel("mean KL divergence S(α)")
    ax.set_xticks(alphas)
    ax = axes[1, 1]
    ax.bar(alphas, 100 * sel.frequency, width=0.06 if alphas.size > 1 and np.min(np.diff(np.sort(alphas))) >= 0.09 else 0.02)
    ax.set_xlabel("α")
    ax.set_ylabel("selected in % of bootstrap replicates")
    ax.set_xticks(alphas)
    fig.suptitle(f"Concentration parameter selection: α* = {sel.selected:g}", fontsize=10)
    fig.tight_layout()
    return fig


def write_alpha_report(sel: AlphaSelection, out: str | os.PathLike[str], *, figure: bool = True) -> Path:
    """``alpha.json`` (all numbers), ``alpha.csv``, ``alpha.md``, ``alpha.{png,svg}`` and ``histograms.npz``
    (every example's in-degree histogram, for :func:`load_alpha_run`) in ``out``, written atomically."""
    out = Path(out)
    with atomic_dir(out, replace=True) as tmp:
        write_alpha_run(tmp / "alpha.json", AlphaRun(
            selected=sel.selected,
            rows=tuple(sel.rows()),
            tasks=sel.config.tasks,
            examples=sel.examples.tolist(),
            support=sel.support.tolist(),
            reference_histogram=sel.reference.tolist(),
            generated_histograms=sel.pooled.tolist(),
            config={k: getattr(sel.config, k) for k in sel.config.__dataclass_fields__},
            seconds=sel.seconds,
            source=sel.source,
            version=__version__,
        ))
        if sel.generated is not None:
            arrays = {f"counts_{a}_{t}": m for a, row in enumerate(sel.generated.counts) for t, m in enumerate(row)}
            buf = io.BytesIO()
            np.savez_compressed(buf, reference=sel.reference, **arrays)  # type: ignore[arg-type]  # mypy matches **arrays to allow_pickle too
            write_in_staging(tmp / "histograms.npz", buf.getvalue())
        write_in_staging(tmp / "alpha.csv", sel.csv())
        write_in_staging(tmp / "alpha.md", sel.markdown())
        if figure:
            from graphniah.report.figures import figure_bytes

            fig = alpha_figure(sel)
            for fmt in ("png", "svg"):
                write_in_staging(tmp / f"alpha.{fmt}", figure_bytes(fig, fmt))
    return out


def load_alpha_run(folder: str | os.PathLike[str]) -> tuple[GeneratedDegrees, np.ndarray, AlphaConfig]:
    """The generated histograms, the reference and the config of a written run, to re-select (other ε, bootstrap, ...)."""
    folder = Path(folder)
    if not (folder / "alpha.json").is_file():
        raise GraphNIAHError(f"{folder} does not hold a select-alpha run (alpha.json and histograms.npz): no alpha.json")
    meta = read_alpha_run(folder / "alpha.json")
    try:
        arrays = np.load(folder / "histograms.npz")
    except (OSError, ValueError) as err:
        raise GraphNIAHError(f"{folder} does not hold a select-alpha run (alpha.json and histograms.npz): {err}") from None
    fields: dict[str, Any] = {k: tuple(v) if isinstance(v, list) else v for k, v in meta.config.items()}  # JSON values, checked by AlphaConfig
    config = AlphaConfig(**fields)
    counts = tuple(tuple(arrays[f"counts_{a}_{t}"] for t in range(len(config.tasks))) for a in range(len(config.alphas)))
    return GeneratedDegrees(config.alphas, config.tasks, counts, meta.seconds), arrays["reference"], config
