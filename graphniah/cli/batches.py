"""CLI for the provider batches of ``graphniah run --batch``: ``graphniah batches`` lists those in flight."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from graphniah.cli.app import app
from graphniah.layout import RUNS_ROOT


def _age(seconds: float) -> str:
    minutes = int(seconds // 60)
    return f"{minutes // 60}h{minutes % 60:02d}m" if minutes >= 60 else f"{minutes}m{int(seconds % 60):02d}s"


@app.command("batches")
def batches_cmd(
    runs: Annotated[Path, typer.Option(help="Root of the run journals.")] = RUNS_ROOT,
    suite: Annotated[str | None, typer.Option(help="Only this suite's journals.")] = None,
    model: Annotated[str | None, typer.Option(help="Only this model's journals.")] = None,
) -> None:
    """The provider batches in flight (submitted by `graphniah run --batch`, not yet collected): counts, age, estimated cost."""
    from rich.table import Table

    from graphniah.cli.console import rich_console
    from graphniah.errors import GraphNIAHError
    from graphniah.run.batch.status import in_flight

    if runs.exists() and not runs.is_dir():
        raise GraphNIAHError(f"--runs {runs} is not a folder of run journals")
    left = in_flight(runs, suite=suite, model=model)
    console = rich_console()
    if not left:
        console.print(f"no batch in flight under {runs}", highlight=False)
        return
    t = Table(title=f"{len(left)} batch(es) in flight under {runs}")
    for col in ("suite", "model", "batch", "status", "requests", "completed", "failed", "age", "estimated cost"):
        t.add_column(col)
    for b in left:
        c = b.counts
        t.add_row(b.suite, b.model, b.batch_id or f"(key {b.key}, not created)", b.status, str(b.requests),
                  "-" if c is None else str(c.completed), "-" if c is None else str(c.failed), _age(b.age_s),
                  "unknown" if b.estimate_usd is None else f"${b.estimate_usd:,.4f}")
    console.print(t)
    total = sum(b.estimate_usd or 0.0 for b in left)
    console.print(f"estimated cost of these batches: ${total:,.4f} (at the batch price); collect them with the `graphniah run "
                  "--batch ...` command that submitted them", highlight=False)
