"""The knowledge-cutoff guard: a model runs only on examples whose papers postdate its training data.

Every snapshot the examples come from must have a cutoff strictly later than the model's knowledge
cutoff (the examples' papers, and their earliest public versions — arXiv, bioRxiv/medRxiv and
Preprints.org preprints included —, are all on or after their snapshot's cutoff, so they then all
postdate the model's training data); otherwise the run is refused, naming both. A snapshot built
without the preprint guard is refused too.
"""

from __future__ import annotations

import datetime as dt
import os
from collections.abc import Iterable, Mapping
from pathlib import Path

from graphniah.errors import GraphNIAHError
from graphniah.run.models import ModelEntry


def snapshot_cutoffs(hashes: Iterable[str], snapshots_root: str | os.PathLike[str]) -> dict[str, dt.date]:
    """The date from which the papers of each snapshot the examples were made from were public
    (found by content hash under the root): its cutoff, or the earliest public date of one of its
    papers if that were earlier (``graphniah.ingest.s2ag.preprints``; the ingest drops such papers,
    so it is the cutoff). A snapshot built before the preprint guard (no ``earliest_public_date``
    in its manifest) is refused: its papers may have had preprints before its cutoff."""
    from graphniah.formats.snapshot import snapshot_at_or_under

    root = Path(snapshots_root)
    out = {}
    for h in sorted(set(hashes)):
        try:
            snap = snapshot_at_or_under(root, h)
        except GraphNIAHError as err:
            raise GraphNIAHError(f"cannot check the examples against the model's knowledge cutoff: {err} "
                                 "(pass --snapshots with the folder holding it)") from None
        m = snap.manifest
        if m.earliest_public_date is None:
            raise GraphNIAHError(f"snapshot {snap.path} was built before the preprint guard (manifest format 1 or 2), so its papers "
                                 "may have been public as preprints before its cutoff; rebuild it with graphniah refresh "
                                 "(or graphniah ingest --replace) and build the examples again")
        first = m.earliest_public_date.min
        out[h] = min(m.cutoff, first) if first is not None else m.cutoff
    return out


def check_cutoff(entry: ModelEntry, cutoffs: Mapping[str, dt.date]) -> None:
    """Refuse a model whose knowledge cutoff is not strictly before every snapshot's cutoff."""
    kc = entry.knowledge_cutoff
    if kc is None:
        return  # a baseline that reads nothing but the prompt
    for h, cutoff in sorted(cutoffs.items(), key=lambda kv: kv[1]):
        if not kc < cutoff:
            note = f" ({entry.cutoff_note})" if entry.cutoff_note else ""
            raise GraphNIAHError(
                f"refusing to run {entry.name}: its knowledge cutoff is {kc.isoformat()}{note}, but snapshot "
                f"{h[:12]} has cutoff {cutoff.isoformat()}, so its papers may be in the model's training data; "
                f"use a snapshot whose cutoff is after {kc.isoformat()}"
            )
