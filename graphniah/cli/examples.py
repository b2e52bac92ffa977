"""CLI for the examples stage: ``graphniah sample``, ``graphniah verify``, ``graphniah show``."""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Annotated

import typer

from graphniah.cli.app import app
from graphniah.cli.console import rich_console
from graphniah.cli.options import DEFAULT_ALPHA, DEFAULT_SEED, DISTRACTOR_KINDS, MAX_CONTEXT_LENGTH, NONE, PromptsOpt
from graphniah.errors import GraphNIAHError
from graphniah.formats.names import TASKS
from graphniah.layout import SNAPSHOTS_ROOT, sample_file


def default_out(task: str, depth: int, distractor: str, context_length: int | None, seed: int, render: str = "apa",
                matched: bool = False) -> Path:
    """``examples/<task>-depth<k>-<distractor>-<L>-seed<s>.jsonl`` (the folder is ignored by git);
    ``<task>-edges-...`` for the edge-list rendering and ``<task>-matched-...`` for matched sampling,
    so neither overwrites its twins."""
    length = "nolimit" if context_length is None else str(context_length)
    kind = task if render == "apa" else f"{task}-{render}"
    return sample_file(f"{kind}-matched" if matched else kind, depth, distractor, length, seed)


@app.command("sample")
def sample_cmd(
    task: Annotated[str, typer.Option(help=" | ".join(TASKS))],
    depth: Annotated[int, typer.Option(help="Question depth k (paths of 3k-2 papers).")],
    out: Annotated[Path | None, typer.Option(help="JSON-lines file to write (default: examples/<task>-depth<k>-<distractor>-<L>-seed<s>.jsonl).")] = None,
    n: Annotated[int, typer.Option("-n", help="Number of examples.")] = 1,
    seed: Annotated[int, typer.Option(help="Seed of the batch.")] = DEFAULT_SEED,
    snapshot: Annotated[Path | None, typer.Option(help="Snapshot folder (default: newest under --root).")] = None,
    root: Annotated[Path, typer.Option(help="Where snapshots live.")] = SNAPSHOTS_ROOT,
    component_size: Annotated[int | None, typer.Option(help="Papers per component (default: uniform in [100, 250]).")] = None,
    label: Annotated[str | None, typer.Option(help="Fix the answer: YES/NO (yesno) or A-D (mc); default balanced.")] = None,
    none_option: Annotated[bool, typer.Option("--none-option", help="Multiple choice: add 'none of these' (never correct).")] = False,
    alpha: Annotated[float, typer.Option(help="Concentration parameter of preferential attachment.")] = DEFAULT_ALPHA,
    distractor: Annotated[str, typer.Option(help=" | ".join(DISTRACTOR_KINDS) + " (text kinds need 'graphniah corpora fetch').")] = NONE,
    context_length: Annotated[
        int | None,
        typer.Option(help=f"L: the whole prompt has at most L tokens under o200k_base, Qwen3.5 and Gemma (at most {MAX_CONTEXT_LENGTH:,}); required with a distractor."),
    ] = None,
    render: Annotated[
        str,
        typer.Option(help="apa: papers as APA blocks with reference lists | edges: papers as 8-hex-digit ids, citations as '<id> -> <id>' lines (same forest, distractors and L)."),
    ] = "apa",
    match_similarity: Annotated[
        bool,
        typer.Option(
            "--match-similarity",
            help="Matched sampling: NO targets and wrong candidates as similar to the source (title TF-IDF, fields of study, "
            "venue) as the true target; in counting the other component's size redrawn, never the source's.",
        ),
    ] = False,
    template: Annotated[
        str,
        typer.Option(help="The template set the prompts are worded in: default, or a set of prompts/sets/ (graphniah.text.prompts)."),
    ] = "default",
    prompts: PromptsOpt = None,
) -> None:
    """Sample, check, pack and render examples (each verified from its text alone before it is written)."""

    from graphniah.atomic import check_output
    from graphniah.cli.progress import RichProgress
    from graphniah.formats import TASKS, Render
    from graphniah.formats.examples import write_examples
    from graphniah.formats.snapshot import Snapshot, newest_snapshot
    from graphniah.sampling.examples.sample import SampleStats, batch_specs, sample_examples
    from graphniah.sampling.examples.spec import SamplingContext, check_packing
    from graphniah.seeds import Stream, generator
    from graphniah.text import load_prompts

    # the default output too: a name in examples/ that cannot be written is refused before any sampling
    out = out if out is not None else default_out(task if template == "default" else f"{task}-{template}", depth, distractor,
                                                  context_length, seed, render, match_similarity)
    check_output(out, "file")

    if task not in TASKS:
        raise GraphNIAHError(f"--task must be one of {', '.join(TASKS)}, got {task!r}")
    check_packing(distractor, context_length)
    if render not in ("apa", "edges"):
        raise GraphNIAHError(f"--render must be apa or edges, got {render!r}")
    rendering: Render = "edges" if render == "edges" else "apa"
    if n < 1:
        raise GraphNIAHError("-n must be at least 1")
    console = rich_console(stderr=True)
    snap = Snapshot.open(snapshot) if snapshot else newest_snapshot(root)
    t0 = time.perf_counter()
    ctx = SamplingContext(snap, prompts=load_prompts(prompts))
    ctx.worded(template)  # an unknown set fails here, before any sampling
    console.print(f"loaded {snap.path} ({ctx.graph.n:,} papers) in {time.perf_counter() - t0:.1f}s", highlight=False)
    specs = batch_specs(
        task, depth, n, generator(Stream.BATCH, seed),
        component_size=component_size, label=label.upper() if label else None, none_option=none_option, alpha=alpha,
        distractor=distractor, context_length=context_length, render=rendering, match_similarity=match_similarity,
        template=template,
    )

    stats = SampleStats()
    t0 = time.perf_counter()
    with RichProgress(console) as bar:
        written = write_examples(out, sample_examples(ctx, specs, seed, stats=stats, progress=bar))
    secs = time.perf_counter() - t0
    rejects = ", ".join(f"{k} {v}" for k, v in sorted(stats.rejects.items())) or "none"
    console.print(f"wrote {written} {task} examples to {out} in {secs:.1f}s ({secs / written:.2f}s each); redraw reasons: {rejects}", highlight=False)
    if counts := stats.token_counts:
        spans = ", ".join(f"{name} {min(c[name] for c in counts):,}–{max(c[name] for c in counts):,}" for name in counts[0])
        stops = ", ".join(f"{k} {v}" for k, v in sorted(stats.stops.items()))
        console.print(f"prompt tokens (limit {context_length:,}): {spans}; packing stopped: {stops}", highlight=False)


@app.command("verify")
def verify_cmd(files: Annotated[list[Path], typer.Argument(help="JSON-lines example files or dataset folders (graphniah export).")], prompts: PromptsOpt = None) -> None:
    """Recompute every answer from the rendered text alone; exit 1 if any disagrees."""

    from graphniah.dataset import examples_in  # a dataset folder: its manifest's hashes are checked first
    from graphniah.text import load_prompts, verify

    console = rich_console()
    prompt_set = load_prompts(prompts)
    bad = total = 0
    for f in files:
        for ex in examples_in(f):
            total += 1
            r = verify(ex, prompt_set)
            if not r.ok:
                bad += 1
                console.print(f"{f}: {ex.id}: {r.reason}", markup=False, highlight=False)
    console.print(f"{total - bad} of {total} examples verified from their text", highlight=False)
    if bad:
        raise typer.Exit(1)


@app.command("show")
def show_cmd(
    example_id: Annotated[str, typer.Argument(help="Example id.")],
    examples: Annotated[list[Path], typer.Option(help="Example files or dataset folders to look the id up in.")],
    root: Annotated[Path, typer.Option(help="Where snapshots live.")] = SNAPSHOTS_ROOT,
    prompts: PromptsOpt = None,
) -> None:
    """Regenerate an example from its recipe, check it byte for byte, and print its prompt."""

    from graphniah.dataset import examples_in
    from graphniah.formats.snapshot import find_snapshot_by_hash
    from graphniah.sampling.examples.sample import regenerate
    from graphniah.sampling.examples.spec import SamplingContext
    from graphniah.text import load_prompts

    found = next((ex for f in examples for ex in examples_in(f) if ex.id == example_id), None)
    if found is None:
        raise GraphNIAHError(f"no example {example_id} in {', '.join(map(str, examples))}")
    ctx = SamplingContext(find_snapshot_by_hash(root, found.recipe.snapshot_hash), prompts=load_prompts(prompts))
    again = regenerate(ctx, found)
    if again.messages != found.messages or again.answer != found.answer:
        raise GraphNIAHError(f"example {example_id}: regenerating from the recipe gives a different prompt")
    for m in again.messages:
        sys.stdout.write(f"=== {m.role} ===\n{m.content}\n")
    sys.stdout.write(f"=== answer ===\n{again.answer}\n")
    rich_console(stderr=True).print(f"regenerated {example_id} from its recipe: identical, byte for byte", highlight=False)
