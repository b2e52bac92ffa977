"""CLI for experiment suites: ``graphniah build``."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Annotated

import typer

from graphniah.cli.app import app
from graphniah.cli.console import rich_console
from graphniah.cli.options import DEFAULT_SEED, PromptsOpt, SuitesOpt
from graphniah.errors import GraphNIAHError
from graphniah.layout import EXAMPLES_ROOT, SNAPSHOTS_ROOT, suite_examples


@app.command("build")
def build_cmd(
    suite: Annotated[str, typer.Option(help="Suite name (a shipped suite, see pipelines/suites/) or a suite file.")],
    n: Annotated[int | None, typer.Option("-n", help="Examples per value, the same for every value (default: the suite's per_value or counts).")] = None,
    seed: Annotated[int, typer.Option(help="Seed of the suite.")] = DEFAULT_SEED,
    snapshot: Annotated[Path | None, typer.Option(help="Snapshot folder (default: newest under --root).")] = None,
    root: Annotated[Path, typer.Option(help="Where snapshots live.")] = SNAPSHOTS_ROOT,
    out: Annotated[Path, typer.Option(help="Where suites' example files go.")] = EXAMPLES_ROOT,
    workers: Annotated[int, typer.Option(help="At most this many worker processes (each loads the snapshot "
                                                      "once); a small build starts fewer, or none and builds in this process.")] = 2,
    prompts: PromptsOpt = None,
    suites: SuitesOpt = None,
) -> None:
    """Build a suite's examples (resumable; the manifest lists every example's recipe)."""

    from graphniah.atomic import check_output, output_lock
    from graphniah.cli.progress import RichProgress
    from graphniah.formats.snapshot import Snapshot, newest_snapshot
    from graphniah.sampling.suites import build_suite, load_suite_spec

    check_output(out, "folder")

    if n is not None and n < 1:
        raise GraphNIAHError(f"-n must be at least 1, got {n}")
    console = rich_console(stderr=True)
    spec = load_suite_spec(suite, suites)
    snap = Snapshot.open(snapshot) if snapshot else newest_snapshot(root)
    t0 = time.perf_counter()
    # One builder per suite file: a second one fails naming the first's pid.
    with output_lock(suite_examples(out, spec.name)), RichProgress(console) as bar:
        built = build_suite(spec, snap, seed, out_root=out, per_value=n, workers=workers, prompts=prompts, progress=bar)
    console.print(
        f"{built.n_examples} examples of suite {spec.name} (varies {spec.vary}) in {built.examples_path} "
        f"({built.reused} kept from an interrupted build) in {time.perf_counter() - t0:.0f}s; manifest {built.manifest_path}",
        highlight=False,
    )
