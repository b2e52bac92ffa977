"""The release store: one S2AG release held in a DuckDB file and moved forward by diffs.

S2AG publishes a full release every week or so and diffs between consecutive releases. Loading
a full release once and then applying the (much smaller) diffs keeps a monthly refresh cheap.
The store holds the *normalised* rows of ``papers``, ``citations`` and ``publication-venues``
(the columns the snapshot needs, produced by the same SQL as the direct ingest), one row per
primary key, plus its provenance: the base release and every diff applied since.

Crash safety: ``load_release`` and each ``apply_diff`` run in one DuckDB transaction that also
advances the stored release id, so after a crash (even ``kill -9``) the store holds either the
old release or the new one, never a half-applied diff.

Equivalence with the full ingest (proof sketch). For a dataset with primary key K, let S be the
store's rows for release N (one row per K). A diff N→N+1 holds, per the layout contract, complete
records for every key inserted or changed and the keys removed. Applying it removes from S every
row whose key appears in the updates, inserts the updates (one per key, chosen by the same rule
the full ingest uses for duplicates), then removes deleted keys. Hence each key ends with the
record release N+1 has for it, or none — exactly the rows the full ingest of N+1 keeps after
dropping duplicates, so the shared snapshot query sees the same input and gives the same output.
(One assumption, true of S2AG: within a release a citationid always denotes the same pair. The
direct ingest removes duplicate citations by pair, the store by key; they agree exactly then.)
"""

from __future__ import annotations

import datetime as dt
import json
import re
import shutil
from collections.abc import Sequence
from pathlib import Path
from types import TracebackType

import duckdb

from graphniah.atomic import damaged
from graphniah.errors import GraphNIAHError
from graphniah.formats.release_store import STORE_STATE_FORMAT, AppliedDiff, LoadedRelease, StoredInput, StoreState
from graphniah.ingest.s2ag.layout import CITATIONS, PAPERS, READ_DATASETS, VENUES, InputFile, diff_sources, read_diff_info, read_release_info
from graphniah.ingest.s2ag.limits import Limits, out_of_memory
from graphniah.ingest.s2ag.read import VerifiedRead, load_release_tables
from graphniah.ingest.s2ag.sql import NORMALISE_SQL, TABLES, delete_keys_sql, drop_duplicates, fetch_one, fetch_row

# What DuckDB says of a database file that is not what it wrote (cut short, or a block whose checksum fails).
_DAMAGE = re.compile(r"Corrupt database file|Could not read enough bytes|checksum|not a valid DuckDB database")


def _now() -> str:
    return dt.datetime.now(dt.UTC).isoformat(timespec="seconds")


def _stored(inputs: Sequence[InputFile]) -> tuple[StoredInput, ...]:
    return tuple(StoredInput.model_validate(i.to_json()) for i in inputs)


class ReleaseStore:
    """A DuckDB file holding one S2AG release; see the module docstring.

    ``ReleaseStore.open(path, limits)`` creates the file if it is missing. The store keeps its
    connection open (DuckDB allows one writing process per file); close it with ``close()`` or use
    it as a context manager. DuckDB works within ``limits`` (memory, threads) and spills to
    ``<store>.tmp/`` beside the file, so loading a release larger than memory works.
    """

    def __init__(self, path: Path, con: duckdb.DuckDBPyConnection, limits: Limits) -> None:
        self.path = Path(path)
        self._con = con
        self.limits = limits

    @classmethod
    def open(cls, path: Path, limits: Limits | None = None) -> ReleaseStore:
        path = Path(path)
        limits = limits or Limits.resolve()
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            con = duckdb.connect(str(path))
        except duckdb.IOException as e:
            raise GraphNIAHError(f"cannot open release store {path}: {str(e).splitlines()[0]} (is another graphniah process using it?)") from None
        except duckdb.Error as e:
            raise GraphNIAHError(f"{path} is not a usable release store (DuckDB file): {str(e).splitlines()[0]}") from None
        limits.configure(con, path.with_name(path.name + ".tmp"))
        con.execute("CREATE TABLE IF NOT EXISTS store_meta (key VARCHAR PRIMARY KEY, value VARCHAR NOT NULL)")
        return cls(path, con, limits)

    # -- lifecycle -------------------------------------------------------------------------

    def close(self) -> None:
        self._con.close()
        # DuckDB's spill files are worth nothing once the connection is closed; the folder goes with them.
        shutil.rmtree(self.path.with_name(self.path.name + ".tmp"), ignore_errors=True)

    def __enter__(self) -> ReleaseStore:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.close()
        if isinstance(exc, duckdb.Error) and _DAMAGE.search(str(exc)):
            # DuckDB checksums every block it reads: a store cut short or changed on disk is one line, not a traceback
            raise damaged(self.path, f"graphniah store load --store {self.path} --release RELEASE_DIR (or graphniah refresh)",
                          str(exc).splitlines()[0]) from None

    @property
    def connection(self) -> duckdb.DuckDBPyConnection:
        """The store's DuckDB connection (the snapshot query reads its tables)."""
        return self._con

    # -- state -----------------------------------------------------------------------------

    @property
    def state(self) -> StoreState | None:
        row = fetch_one(self._con, "SELECT value FROM store_meta WHERE key = 'state'")
        if row is None:
            return None
        return STORE_STATE_FORMAT.read_text(StoreState, row[0], f"release store {self.path}")

    @property
    def release_id(self) -> str | None:
        """The release the store currently holds (None while empty)."""
        st = self.state
        return None if st is None else st.release_id

    def _write_state(self, state: StoreState) -> None:
        self._con.execute("DELETE FROM store_meta WHERE key = 'state'")
        self._con.execute("INSERT INTO store_meta VALUES ('state', ?)", [json.dumps(state.to_json(), sort_keys=True)])

    def counts(self) -> dict[str, int]:
        """Rows per table (0 for a table that does not exist yet)."""
        out = {}
        for ds, table in TABLES.items():
            try:
                out[ds] = fetch_row(self._con, f"SELECT count(*) FROM {table}")[0]
            except duckdb.CatalogException:
                out[ds] = 0
        return out

    # -- updates ---------------------------------------------------------------------------

    def _transaction(self) -> _Transaction:
        return _Transaction(self._con, self.limits)

    def load_release(self, release_dir: Path, release_id: str | None = None) -> None:
        """Replace the store's contents with the full release in ``release_dir`` (one transaction).

        The release id comes from ``release.json``, else ``release_id``, else the folder name
        (``read.read_release_info``); the store records which.
        """
        release_dir = Path(release_dir)
        read_release_info(release_dir, release_id)  # fail early on an unknown release id
        with self._transaction():
            info, inputs = load_release_tables(self._con, release_dir, release_id)
            loaded = LoadedRelease(release_id=info.release_id, synthetic=info.synthetic, path=str(release_dir.resolve()),
                                   inputs=_stored(inputs), loaded_at=_now(), release_id_from=info.release_id_from)
            self._write_state(StoreState(base=loaded, diffs=()))

    def apply_diff(self, diff_dir: Path, from_release: str | None = None, to_release: str | None = None) -> None:
        """Apply one diff (upserts, then deletes, per dataset) and advance the release id, atomically.

        The diff's from/to ids come from ``diff.json``, else ``from_release``/``to_release``, else
        a folder named ``<from>_to_<to>`` (``read.read_diff_info``). Its ``from_release`` must
        equal the store's current release, so diffs can only be applied once and in order; the
        diff the store applied last (same releases, same folder) is a no-op, so a rerun of an
        ``apply-diff`` killed after its commit finishes.
        """
        diff_dir = Path(diff_dir)
        info = read_diff_info(diff_dir, from_release, to_release)
        state = self.state
        if state is None:
            raise GraphNIAHError(f"release store {self.path} is empty: load release {info.from_release} before applying diff {diff_dir.name}")
        last = state.diffs[-1] if state.diffs else None
        if last is not None and (last.from_release, last.to_release, last.path) == (
                info.from_release, info.to_release, str(diff_dir.resolve())):
            # The same command run again after a crash between the commit and its exit: already done.
            return
        if info.from_release != state.release_id:
            raise GraphNIAHError(
                f"diff {diff_dir} goes from release {info.from_release} to {info.to_release}, but the store "
                f"{self.path} holds release {state.release_id}; apply the diffs in order starting from {state.release_id}"
            )
        sources = diff_sources(diff_dir)
        with self._transaction():
            with VerifiedRead(self._con, [s for ss in sources.values() for s in ss]) as vr:
                for ds in READ_DATASETS:
                    updates, deletes = sources[(ds, "update")], sources[(ds, "delete")]
                    if updates:
                        self._con.execute(f"CREATE OR REPLACE TEMP TABLE _keys AS {NORMALISE_SQL[ds](vr.scan(updates))}")
                        drop_duplicates(self._con, ds, "_keys")
                        self._delete_keys(ds)
                        self._con.execute(f"INSERT INTO {TABLES[ds]} SELECT * FROM _keys")
                    if deletes:
                        self._con.execute(f"CREATE OR REPLACE TEMP TABLE _keys AS {delete_keys_sql(ds, vr.scan(deletes))}")
                        self._check_delete_keys(ds, diff_dir)
                        self._delete_keys(ds)
                self._con.execute("DROP TABLE IF EXISTS _keys")
            # Same transaction: the data change and the new release id commit together.
            applied = AppliedDiff(from_release=info.from_release, to_release=info.to_release, synthetic=info.synthetic,
                                  path=str(diff_dir.resolve()), inputs=_stored(vr.inputs), applied_at=_now(),
                                  release_ids_from=info.release_ids_from)
            self._write_state(StoreState(base=state.base, diffs=(*state.diffs, applied)))

    def _check_delete_keys(self, ds: str, diff_dir: Path) -> None:
        if ds == PAPERS:
            missing = "corpusid IS NULL"
        elif ds == CITATIONS:
            missing = "citationid IS NULL AND citing IS NULL"
        else:
            missing = "id IS NULL"
        n = fetch_row(self._con, f"SELECT count(*) FROM _keys WHERE {missing}")[0]
        if n:
            raise GraphNIAHError(f"diff {diff_dir}: {n} record(s) in {ds}/delete_files lack the primary key ({missing.replace(' IS NULL', '')})")

    def _delete_keys(self, ds: str) -> None:
        """Remove the rows whose primary key appears in temp table ``_keys``."""
        table = TABLES[ds]
        if ds == PAPERS:
            self._con.execute(f"DELETE FROM {table} WHERE corpusid IN (SELECT corpusid FROM _keys)")
        elif ds == VENUES:
            self._con.execute(f"DELETE FROM {table} WHERE id IN (SELECT id FROM _keys)")
        elif ds == CITATIONS:
            self._con.execute(f"DELETE FROM {table} WHERE citationid IN (SELECT citationid FROM _keys WHERE citationid IS NOT NULL)")
            # Legacy records without citationid are keyed by the (citing, cited) pair.
            self._con.execute(f"""
                DELETE FROM {table} USING (SELECT DISTINCT citing, cited FROM _keys WHERE citationid IS NULL) k
                WHERE {table}.citing = k.citing AND {table}.cited IS NOT DISTINCT FROM k.cited
            """)
        else:  # pragma: no cover
            raise ValueError(ds)


class _Transaction:
    """BEGIN … COMMIT, or ROLLBACK on any exception (including KeyboardInterrupt); DuckDB running
    out of memory becomes a ``GraphNIAHError`` naming the limit (after the rollback)."""

    def __init__(self, con: duckdb.DuckDBPyConnection, limits: Limits) -> None:
        self._con = con
        self._limits = limits

    def __enter__(self) -> None:
        self._con.execute("BEGIN TRANSACTION")

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        if exc is None:
            self._con.execute("COMMIT")
            return
        self._con.execute("ROLLBACK")
        if isinstance(exc, duckdb.OutOfMemoryException):
            raise out_of_memory(exc, self._limits) from None
