"""CLI for the dataset stage: ``graphniah export`` (a suite as a Hugging Face datasets folder)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Annotated

import typer

from graphniah.cli.app import app
from graphniah.cli.console import rich_console
from graphniah.cli.options import PromptsOpt
from graphniah.layout import EXAMPLES_ROOT, SNAPSHOTS_ROOT, resolve_examples


@app.command("export")
def export_cmd(
    suite: Annotated[str, typer.Option(help="Suite name: reads <examples-root>/<suite>.jsonl; names the dataset.")],
    out: Annotated[Path, typer.Option(help="Dataset folder to write (an existing dataset folder is replaced atomically).")],
    examples: Annotated[Path | None, typer.Option(help="The suite's examples file, if not <examples-root>/<suite>.jsonl.")] = None,
    examples_root: Annotated[Path, typer.Option(help="Where suites live.")] = EXAMPLES_ROOT,
    snapshots: Annotated[Path, typer.Option(help="Where snapshots live (the card records the snapshot's release and cutoff).")] = SNAPSHOTS_ROOT,
    prompts: PromptsOpt = None,
) -> None:
    """Write the suite as a datasets folder: data/<task>-00000.parquet, lm_eval/ (lm-evaluation-harness tasks), README.md (card), graphniah-manifest.json."""

    from graphniah.atomic import check_output, output_lock
    from graphniah.cli.progress import RichProgress
    from graphniah.dataset import export_suite
    from graphniah.dataset.lm_eval import run_hint

    check_output(out, "folder")

    src = resolve_examples(suite=suite, examples=examples, examples_root=examples_root, accepts=("suite",), names_suite=True).examples
    assert src is not None  # a suite's examples file
    console = rich_console(stderr=True)
    t0 = time.perf_counter()
    with output_lock(out), RichProgress(console) as bar:  # one writer per dataset folder
        result = export_suite(src, out, suite=suite, snapshots_root=snapshots, prompts=prompts, progress=bar)
    m = result.manifest
    tasks = ", ".join(f"{t} {n}" for t, n in m.tasks.items())
    cutoffs = ", ".join(f"{s.release_id} (cutoff {s.cutoff})" for s in m.snapshots)
    console.print(f"exported {result.examples} examples ({tasks}) of suite {suite} from {cutoffs}"
                  f"{' [SYNTHETIC]' if m.synthetic else ''} to {out}/ in {time.perf_counter() - t0:.1f}s", highlight=False)
    console.print(f"load it with datasets.load_dataset({str(out)!r}); check it with `graphniah verify {out}`", highlight=False)
    console.print(run_hint(out), highlight=False, markup=False, soft_wrap=True)  # markup off: "[lm-eval]" is no style
