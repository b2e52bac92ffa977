"""The batches in flight under a runs folder, read from the journals (``graphniah batches``).

Nothing is asked of the provider: counts and states are those the last poll journaled, the age
runs from the batch's creation (or its intent, before the provider answered), the estimated cost
is the one journaled with the intent (at the batch price).
"""

from __future__ import annotations

import datetime as dt
import os
from dataclasses import dataclass
from pathlib import Path

from graphniah import layout
from graphniah.formats.journal import BatchCounts, read_batches
from graphniah.run.batch.send import open_batches


@dataclass(frozen=True)
class InFlight:
    """One batch not yet collected."""

    suite: str
    model: str
    journal: Path
    key: str
    batch_id: str | None
    status: str
    requests: int
    counts: BatchCounts | None
    age_s: float
    estimate_usd: float | None


def in_flight(runs_root: str | os.PathLike[str], suite: str | None = None, model: str | None = None,
              now: dt.datetime | None = None) -> list[InFlight]:
    """Every batch journaled under ``runs_root`` (of one suite or model, if given) and not yet collected."""
    now = now or dt.datetime.now(dt.UTC)
    root = Path(runs_root)
    folders = [layout.journals_dir(root, suite)] if suite else sorted(p for p in root.glob("*") if p.is_dir())
    out: list[InFlight] = []
    for folder in folders:
        for journal in layout.journals_in(folder):
            for t in open_batches(read_batches(journal)):
                name = journal.stem
                if model is not None and name != model:
                    continue
                since = dt.datetime.fromisoformat(t.created_at or t.intent_at)
                out.append(InFlight(folder.name, name, journal, t.key, t.batch_id,
                                    t.status or ("not created" if t.batch_id is None else "created"), len(t.ids),
                                    t.counts, (now - since).total_seconds(), t.estimate_usd))
    return out
