"""CLI commands for the ingest stage: ``graphniah ingest`` and ``graphniah store load|apply-diff|snapshot|status``."""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from graphniah.cli.app import Group, app
from graphniah.cli.console import rich_console
from graphniah.errors import GraphNIAHError

if TYPE_CHECKING:  # the ingest stage and rich are imported by the commands, when they run
    from rich.console import Console
    from rich.table import Table

    from graphniah.formats.snapshot import SnapshotManifest

store_app = typer.Typer(cls=Group, help="The incremental release store (a DuckDB file moved forward by S2AG diffs).", no_args_is_help=True)
app.add_typer(store_app, name="store")

_CUTOFF = typer.Option(help="Keep papers published on or after this date (YYYY-MM-DD).")
_REPLACE = typer.Option("--replace", help="Rebuild an existing snapshot (swapped in atomically).")
_MEMORY = typer.Option("--memory-limit", help="Memory budget of the whole process, e.g. 4GB or 512MB (DuckDB spills beyond it). Default: half of the RAM.")
_THREADS = typer.Option("--threads", help="DuckDB threads. Default: the CPUs this process may use, at most one per 100 MB of DuckDB's share of --memory-limit.")
_RELEASE_ID = typer.Option("--release-id", help="Release id of a folder without release.json (e.g. one fetched with S2's own scripts). Default: the folder name, when it is a release id such as 2026-11-25.")


def _console() -> Console:

    # soft_wrap: long paths stay on one line (rich would otherwise break them at the terminal width).
    return rich_console(soft_wrap=True)


def _rows_table(title: str, rows: dict[str, Any], order: tuple[str, ...]) -> Table:
    from rich.table import Table

    table = Table(title=title, title_justify="left", show_header=True)
    table.add_column("rows")
    table.add_column("count", justify="right")
    table.add_row("read", f"{rows['read']:,}")
    table.add_row("[bold]kept[/]", f"[bold]{rows['kept']:,}[/]")
    dropped = rows["dropped"]
    for reason in sorted(dropped, key=lambda r: (order.index(r) if r in order else len(order), r)):  # in rule order
        if dropped[reason]:
            table.add_row(f"dropped: {reason}", f"{dropped[reason]:,}")
    return table


def preprint_line(manifest: SnapshotManifest) -> str:
    """What the preprint guard dropped, per source, as one line (graphniah.ingest.s2ag.preprints)."""
    papers = manifest.rows.get("papers", {})
    by_source = papers.get("preprint_before_cutoff_by_source")
    if manifest.earliest_public_date is None or by_source is None:
        return "built without the preprint guard (manifest format 1 or 2): rebuild it with graphniah refresh"
    parts = ", ".join(f"{source} {n:,}" for source, n in by_source.items())
    first = manifest.earliest_public_date.min
    return (f"preprint guard: {papers['dropped'].get('preprint_before_cutoff', 0):,} papers dropped as public before the cutoff "
            f"({parts}); earliest public date of a kept paper {first.isoformat() if first else '-'}")


def print_summary(path: Path, seconds: float, console: Console | None = None) -> None:
    """Rows read / kept / dropped per reason for a finished snapshot, and the time it took."""
    from graphniah.formats.snapshot import Snapshot, source_label, source_name
    from graphniah.ingest.build import EDGE_DROP_REASONS, PAPER_DROP_REASONS

    console = console or _console()
    m = Snapshot.open(path).manifest
    label = f"SYNTHETIC demo release{' in OpenAlex form' if source_name(m) == 'openalex' else ''}" if m["synthetic"] else f"{source_label(m)} release"
    console.print(f"[bold]snapshot[/] {path}  ({label} {m['release_id']}, cutoff {m['cutoff']})")
    console.print(_rows_table("papers → eligible papers", m["rows"]["papers"], PAPER_DROP_REASONS))
    if m["rows"]["papers"].get("titles_cleaned"):
        console.print(f"{m['rows']['papers']['titles_cleaned']:,} kept titles rendered without inline markup (<i>, <sub>, entities …)")
    console.print(preprint_line(m), highlight=False)
    if source_name(m) == "openalex":
        src = m["source"]
        console.print(f"OpenAlex records: {src['records_read']:,} read, {src['superseded']:,} replaced by a newer record of the same work, "
                      f"{src['merged']:,} merged away; works of type preprint: {src['type_preprint']['works']:,} ({src['type_preprint']['kept']:,} kept)")
    console.print(_rows_table("citation rows → edges", m["rows"]["edges"], EDGE_DROP_REASONS))
    size = sum(f["size"] for f in m["inputs"])
    console.print(f"{len(m['inputs'])} input files, {size / 1e6:,.1f} MB; snapshot_hash {m['snapshot_hash'][:16]}…; {seconds:,.1f} s")


@app.command("ingest")
def ingest_cmd(
    release: Annotated[Path, typer.Option(help="Release folder: papers/, citations/ (+ publication-venues/) with .gz shards, and release.json if this project downloaded it; with --source openalex, an OpenAlex snapshot folder (data/works/… or data/jsonl/…).")],
    cutoff: Annotated[str, _CUTOFF],
    out: Annotated[Path, typer.Option(help="Snapshot folder to create, e.g. snapshots/2026-10-06/cutoff=2026-04-01.")],
    source: Annotated[str, typer.Option("--source", help="What the release folder holds: s2ag or openalex.")] = "s2ag",
    replace: Annotated[bool, _REPLACE] = False,
    release_id: Annotated[str | None, _RELEASE_ID] = None,
    memory_limit: Annotated[str | None, _MEMORY] = None,
    threads: Annotated[int | None, _THREADS] = None,
) -> None:
    """Read an S2AG release folder (or OpenAlex works) with DuckDB and write the snapshot (papers, edges, manifest)."""
    from graphniah.atomic import check_output
    from graphniah.formats.snapshot import parse_cutoff
    from graphniah.ingest.build import ingest_openalex, ingest_release
    from graphniah.ingest.s2ag.limits import Limits

    if source not in ("s2ag", "openalex"):
        raise GraphNIAHError(f"--source {source!r}: choose s2ag or openalex")
    check_output(out, "folder")

    t0 = time.perf_counter()
    limits = Limits.resolve(memory_limit, threads)
    ingest = ingest_openalex if source == "openalex" else ingest_release
    path = ingest(release, parse_cutoff(cutoff), out, replace=replace, release_id=release_id, limits=limits)
    print_summary(path, time.perf_counter() - t0)


_STORE = typer.Option(help="Release store file (DuckDB); created if missing.")


@store_app.command("load")
def store_load(
    store: Annotated[Path, _STORE],
    release: Annotated[Path, typer.Option(help="Full release folder to load (replaces the store's contents).")],
    release_id: Annotated[str | None, _RELEASE_ID] = None,
    memory_limit: Annotated[str | None, _MEMORY] = None,
    threads: Annotated[int | None, _THREADS] = None,
) -> None:
    """Replace the store's contents with a full release."""
    from graphniah.atomic import check_output
    from graphniah.ingest.s2ag.limits import Limits
    from graphniah.ingest.s2ag.store import ReleaseStore

    check_output(store, "file", "--store")

    t0 = time.perf_counter()
    with ReleaseStore.open(store, Limits.resolve(memory_limit, threads)) as s:
        s.load_release(release, release_id)
        counts = s.counts()
        console = _console()
        console.print(f"store {store} now holds release {s.release_id}: " + ", ".join(f"{k} {v:,}" for k, v in counts.items()) + f" ({time.perf_counter() - t0:,.1f} s)")


@store_app.command("apply-diff")
def store_apply_diff(
    store: Annotated[Path, _STORE],
    diff: Annotated[list[Path], typer.Option(help="Diff folder(s) <from>_to_<to>, applied in the order given.")],
    from_release: Annotated[str | None, typer.Option("--from-release", help="Release a diff folder without diff.json starts from (one --diff only; with --to-release).")] = None,
    to_release: Annotated[str | None, typer.Option("--to-release", help="Release a diff folder without diff.json leads to (one --diff only; with --from-release).")] = None,
    memory_limit: Annotated[str | None, _MEMORY] = None,
    threads: Annotated[int | None, _THREADS] = None,
) -> None:
    """Apply diffs in order; each one is atomic and must start at the store's current release."""
    from graphniah.atomic import check_output
    from graphniah.ingest.s2ag.limits import Limits
    from graphniah.ingest.s2ag.store import ReleaseStore

    check_output(store, "file", "--store")

    if (from_release is not None or to_release is not None) and len(diff) != 1:
        raise GraphNIAHError(f"--from-release/--to-release name the releases of one diff folder; got {len(diff)} --diff folders (apply them one at a time)")
    console = _console()
    with ReleaseStore.open(store, Limits.resolve(memory_limit, threads)) as s:
        for d in diff:
            t0 = time.perf_counter()
            before = s.release_id
            s.apply_diff(d, from_release, to_release)
            if s.release_id == before:  # the diff the store applied last (a rerun): nothing to do
                console.print(f"{d.name} is already applied: the store holds release {before}")
            else:
                console.print(f"applied {d.name}: {before} → {s.release_id} ({time.perf_counter() - t0:,.1f} s)")


@store_app.command("snapshot")
def store_snapshot(
    store: Annotated[Path, _STORE],
    cutoff: Annotated[str, _CUTOFF],
    out: Annotated[Path, typer.Option(help="Snapshot folder to create.")],
    replace: Annotated[bool, _REPLACE] = False,
    memory_limit: Annotated[str | None, _MEMORY] = None,
    threads: Annotated[int | None, _THREADS] = None,
) -> None:
    """Write the snapshot of the release the store holds."""
    from graphniah.atomic import check_output
    from graphniah.formats.snapshot import parse_cutoff
    from graphniah.ingest.build import snapshot_from_store
    from graphniah.ingest.s2ag.limits import Limits
    from graphniah.ingest.s2ag.store import ReleaseStore

    check_output(out, "folder")

    t0 = time.perf_counter()
    c = parse_cutoff(cutoff)
    with ReleaseStore.open(store, Limits.resolve(memory_limit, threads)) as s:
        path = snapshot_from_store(s, c, out, replace=replace)
    print_summary(path, time.perf_counter() - t0)


@store_app.command("status")
def store_status(store: Annotated[Path, _STORE]) -> None:
    """Which release the store holds, how it got there, and its row counts."""
    from graphniah.ingest.s2ag.store import ReleaseStore

    console = _console()
    with ReleaseStore.open(store) as s:
        st = s.state
        if st is None:
            console.print(f"store {store} is empty")
            return
        console.print(f"store {store}: release {st.release_id} ({'synthetic' if st.synthetic else 'S2AG'})")
        console.print(f"  base release {st.base.release_id} (id from {st.base.release_id_from}) loaded {st.base.loaded_at} from {st.base.path}")
        for d in st.diffs:
            console.print(f"  diff {d.from_release} → {d.to_release} (ids from {d.release_ids_from}) applied {d.applied_at}")
        console.print("  rows: " + ", ".join(f"{k} {v:,}" for k, v in s.counts().items()))
