"""Answer reuse: never pay twice for the same call.

An example whose answer another suite's journal holds for the same example bytes, model and
settings is not sent; the answer is appended to this suite's journal as a reused record naming the
journal it came from (``RunOptions.reuse=False``, ``--no-reuse``, sends it anyway).
"""

from __future__ import annotations

import datetime as dt
import os
from collections.abc import Sequence
from pathlib import Path

from graphniah import layout
from graphniah.formats.examples import ExampleRef
from graphniah.formats.journal import RunRecord, read_journal
from graphniah.run.models import ModelEntry


def other_journals(entry: ModelEntry, journal_file: Path, runs_root: str | os.PathLike[str]) -> list[Path]:
    """Every ``<runs_root>/<suite>/<model>.jsonl`` of ``entry`` but ``journal_file``, in name order."""
    name = layout.journal_file(runs_root, "_", entry.name).name
    mine = journal_file.resolve()
    return [p for p in sorted(Path(runs_root).glob(f"*/{name}")) if p.resolve() != mine]


def settings_history(entry: ModelEntry, journals: Sequence[Path]) -> list[RunRecord]:
    """The answered calls of ``entry``'s settings in these journals, as they were sent (not reused copies)."""
    h = entry.settings_hash
    return [r for p in journals for r in read_journal(p) if r.settings_hash == h and r.status == "ok" and r.reused_from is None]


def reusable_answers(entry: ModelEntry, refs: Sequence[ExampleRef], journal_file: Path,
                     runs_root: str | os.PathLike[str]) -> dict[str, RunRecord]:
    """Answers already journaled in other suites' journals for the same example bytes, model and settings.

    Every ``<runs_root>/<other suite>/<model>.jsonl`` but ``journal_file`` is read; an ``ok`` record
    of ``entry``'s settings hash whose ``example_sha256`` is that of one of ``refs`` (so the prompt
    sent was byte for byte the same) is returned under the example's id as the record to append
    here: ``reused_from`` names the journal it came from, its costs are 0 (this run pays nothing),
    and the rest is the answer as it was recorded. The first journal in name order wins.
    """
    wanted = {r.sha256: r.id for r in refs if r.sha256}
    if not wanted:
        return {}
    found: dict[str, RunRecord] = {}
    now = dt.datetime.now(dt.UTC).isoformat(timespec="milliseconds")
    for other in other_journals(entry, journal_file, runs_root):
        for rec in read_journal(other):
            eid = wanted.get(rec.example_sha256 or "")
            if (eid is not None and eid == rec.example_id and eid not in found and rec.status == "ok"
                    and rec.settings_hash == entry.settings_hash):
                found[eid] = rec.model_copy(update={"reused_from": str(other), "cost_usd": 0.0, "cost_usd_registry": 0.0,
                                                    "finished_at": now})
    return found
