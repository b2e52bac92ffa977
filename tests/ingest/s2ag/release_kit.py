"""Hand-built S2AG releases and diffs for tests, in the on-disk layout of the layout contract.

Records look like real S2AG records: ``legacy=True`` gives the 2022 conventions (ids as JSON
strings, no ``citationid``, flat ``intents``, ``updated``), otherwise the current format
(integer ids, ``citationid``, nested ``intents``).
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

Record = Mapping[str, Any] | str  # a str is written verbatim (for malformed lines)


def write_shard(path: Path, records: Iterable[Record], *, members: int = 1, level: int = 9) -> Path:
    """Write gzip JSON lines; ``members`` > 1 splits the stream into concatenated gzip members."""
    lines = [r if isinstance(r, str) else json.dumps(r, ensure_ascii=False) for r in records]
    text = "".join(line + "\n" for line in lines).encode("utf-8")
    path.parent.mkdir(parents=True, exist_ok=True)
    if members <= 1 or not lines:
        path.write_bytes(gzip.compress(text, compresslevel=level, mtime=0))
        return path
    step = max(1, len(lines) // members)
    blobs = [gzip.compress("".join(line + "\n" for line in lines[i : i + step]).encode("utf-8"), mtime=0) for i in range(0, len(lines), step)]
    path.write_bytes(b"".join(blobs))
    return path


def paper(
    corpusid: int,
    title: str | None = None,
    date: str | None = "2026-05-01",
    *,
    year: int | None = None,
    venue: str = "",
    journal: str | None = "",
    venue_id: str | None = None,
    arxiv: str | None = None,
    doi: str | None = None,
    authors: Sequence[tuple[str | None, str]] = (("1001", "Ada Lovelace"),),
    legacy: bool = False,
) -> dict[str, Any]:
    """A papers record; ``journal=None`` gives a null journal, otherwise a struct with that name."""
    ident: Any = str(corpusid) if legacy else corpusid
    rec: dict[str, Any] = {
        "corpusid": ident,
        "externalids": {"ACL": None, "DBLP": None, "ArXiv": arxiv, "MAG": None, "CorpusId": str(corpusid), "PubMed": None, "DOI": doi, "PubMedCentral": None},
        "url": f"https://www.semanticscholar.org/paper/{corpusid:040x}",
        "title": f"Paper number {corpusid}" if title is None else title,
        "authors": [{"authorId": a, "name": n} for a, n in authors],
        "venue": venue,
        "publicationvenueid": venue_id,
        "year": year if year is not None else (int(date[:4]) if date else 2026),
        "referencecount": 0,
        "citationcount": 0,
        "influentialcitationcount": 0,
        "isopenaccess": False,
        "s2fieldsofstudy": [{"category": "Computer Science", "source": "s2-fos-model"}],
        "publicationtypes": None,
        "publicationdate": date,
        "journal": None if journal is None else {"name": journal, "pages": "1-10", "volume": "3"},
    }
    if legacy:
        rec["updated"] = "2022-01-27T02:09:51.713Z"
    return rec


def citation(citing: int | None, cited: int | None, *, citationid: int | None = None, legacy: bool = False) -> dict[str, Any]:
    if legacy:
        return {
            "citingcorpusid": None if citing is None else str(citing),
            "citedcorpusid": None if cited is None else str(cited),
            "isinfluential": False,
            "contexts": ["as shown by [3]"],
            "intents": ["background", "methodology"],
            "updated": "2020-09-13T15:59:00.392Z",
        }
    return {
        "citationid": citationid if citationid is not None else (citing or 0) * 1_000_003 + (cited or 0),
        "citingcorpusid": citing,
        "citedcorpusid": cited,
        "isinfluential": False,
        "contexts": None,
        "intents": [["background"]],
    }


def venue(vid: str, name: str) -> dict[str, Any]:
    return {"id": vid, "alternate_issns": [], "alternate_names": [], "alternate_urls": [], "issn": None, "name": name, "type": "journal", "url": None}


def write_release(
    root: Path,
    release_id: str,
    papers: Sequence[Record],
    citations: Sequence[Record],
    venues: Sequence[Record] = (),
    *,
    shards: int = 2,
    synthetic: bool = True,
    level: int = 9,
) -> Path:
    """``<root>/releases/<release_id>/`` with each dataset split round-robin into ``shards`` files
    (gzip ``level``)."""
    rdir = root / "releases" / release_id
    rdir.mkdir(parents=True, exist_ok=True)
    (rdir / "release.json").write_text(json.dumps({"release_id": release_id, "synthetic": synthetic}))
    for ds, recs in (("papers", papers), ("citations", citations), ("publication-venues", venues)):
        if ds == "publication-venues" and not recs:
            continue
        for i in range(shards):
            write_shard(rdir / ds / f"part-{i:03d}.jsonl.gz", recs[i::shards], level=level)
    return rdir


def write_diff(
    root: Path,
    from_release: str,
    to_release: str,
    updates: Mapping[str, Sequence[Record]],
    deletes: Mapping[str, Sequence[Record]],
    *,
    synthetic: bool = True,
) -> Path:
    """``<root>/diffs/<from>_to_<to>/`` with one update and one delete shard per dataset given."""
    ddir = root / "diffs" / f"{from_release}_to_{to_release}"
    ddir.mkdir(parents=True, exist_ok=True)
    (ddir / "diff.json").write_text(json.dumps({"from_release": from_release, "to_release": to_release, "synthetic": synthetic}))
    for ds in ("papers", "citations"):
        (ddir / ds).mkdir(exist_ok=True)
    for ds, recs in updates.items():
        write_shard(ddir / ds / "update_files" / "updates-000.gz", recs)
    for ds, recs in deletes.items():
        write_shard(ddir / ds / "delete_files" / "deletes-000.gz", recs)
    return ddir
