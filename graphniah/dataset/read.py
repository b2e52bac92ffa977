"""Reading an exported dataset folder back: examples, lazy prompt references, the rebuilt examples file.

Rows are read file by file in row-group batches (a row group is closed once it holds 8 MB of
prompt text, so it holds at most that plus one prompt), and the per-task files are merged on ``suite_index`` so examples come back in the order of the
suite's examples file. Merging is a k-way merge of streams that are each sorted by
``suite_index`` (the exporter appends rows in file order), so it holds one batch per file.
"""

from __future__ import annotations

import hashlib
import heapq
import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq

from graphniah.atomic import atomic_path
from graphniah.errors import GraphNIAHError
from graphniah.formats.dataset import SCHEMA, SCHEMA_WITHOUT_POSITIONS, DatasetManifest, read_manifest, require_intact, row_to_example
from graphniah.formats.examples import Example, ExampleRef, example_to_json, parse_recipe

_BATCH_ROWS = 16


@dataclass(frozen=True)
class Dataset:
    """An exported dataset folder and its manifest."""

    path: Path
    manifest: DatasetManifest

    @property
    def suite(self) -> str:
        return self.manifest.suite

    def data_paths(self) -> list[Path]:
        return [self.path / f.path for f in self.manifest.data_files()]


def open_dataset(folder: str | os.PathLike[str], *, check: bool = True) -> Dataset:
    """Open a dataset folder; with ``check`` every file is first checked against the manifest's hashes."""
    path = Path(folder)
    manifest = require_intact(path) if check else read_manifest(path)
    for p in (path / f.path for f in manifest.data_files()):
        got = pq.read_schema(p)
        if not any(got.remove_metadata().equals(s) for s in (SCHEMA, SCHEMA_WITHOUT_POSITIONS)):
            raise GraphNIAHError(f"{p}: columns differ from the dataset schema of this graphniah")
    return Dataset(path, manifest)


def _file_rows(path: Path, columns: Sequence[str] | None) -> Iterator[tuple[int, int, int, dict[str, Any], Path]]:
    """``(suite_index, row_group, row_in_group, row, path)`` of one file, in file order, one row group at a time."""
    pf = pq.ParquetFile(path)
    cols = None if columns is None else list(dict.fromkeys(["suite_index", *columns]))
    for rg in range(pf.num_row_groups):
        offset = 0
        for batch in pf.iter_batches(batch_size=_BATCH_ROWS, row_groups=[rg], columns=cols):
            for j, row in enumerate(batch.to_pylist()):
                yield row["suite_index"], rg, offset + j, row, path
            offset += batch.num_rows


def iter_rows(ds: Dataset, columns: Sequence[str] | None = None) -> Iterator[tuple[Path, int, int, dict[str, Any]]]:
    """``(file, row_group, row_in_group, row)`` of every row, in suite order (``columns``: a projection)."""
    streams = [_file_rows(p, columns) for p in ds.data_paths()]
    last = -1
    for idx, rg, i, row, p in heapq.merge(*streams, key=lambda t: t[0]):
        if idx <= last:
            raise GraphNIAHError(f"{p}: suite_index {idx} repeats or goes backwards; the file is not an export")
        last = idx
        yield p, rg, i, row


def iter_dataset_examples(ds: Dataset) -> Iterator[Example]:
    """The dataset's examples, rebuilt as :class:`Example` records, in the order of the suite file."""
    for p, rg, i, row in iter_rows(ds):
        yield row_to_example(row, f"{p} (row group {rg}, row {i})")


def checked_examples(ds: Dataset) -> Iterator[Example]:
    """:func:`iter_dataset_examples`, and once the last is read, a check that they rebuild the exported file.

    The examples are hashed as they stream by; a hash that differs from the manifest's
    ``canonical_sha256`` (rows edited, then the manifest re-hashed by hand) raises.
    """
    for ex, _line in _canonical_lines(ds):
        yield ex


def _canonical_lines(ds: Dataset) -> Iterator[tuple[Example, str]]:
    """Each example with its line of the rebuilt examples file; raises after the last if their sha256
    is not the manifest's ``canonical_sha256`` (the one check behind :func:`checked_examples` and
    :func:`write_examples_file`)."""
    h = hashlib.sha256()
    for ex in iter_dataset_examples(ds):
        line = example_to_json(ex) + "\n"
        h.update(line.encode("utf-8"))
        yield ex, line
    if h.hexdigest() != ds.manifest.examples.canonical_sha256:
        raise GraphNIAHError(f"dataset {ds.path}: the rows do not rebuild the exported examples (sha256 differs from the manifest)")


def examples_in(path: str | os.PathLike[str]) -> Iterator[Example]:
    """The examples of a JSON-lines file, or of a dataset folder (checked: manifest hashes, then the rebuild)."""
    from graphniah.formats.examples import iter_examples

    p = Path(path)
    return checked_examples(open_dataset(p)) if p.is_dir() else iter_examples(p)


def write_examples_file(ds: Dataset, path: str | os.PathLike[str]) -> Path:
    """Rebuild the suite's examples file from the rows (atomically), checked against the manifest's hash."""
    out = Path(path)
    with atomic_path(out) as tmp, open(tmp, "w", encoding="utf-8", newline="\n") as f:
        for _ex, line in _canonical_lines(ds):  # a hash mismatch raises inside: the temp file is dropped
            f.write(line)
    return out


@dataclass(frozen=True)
class DatasetExampleRef(ExampleRef):
    """An example of a dataset for the runner: its truth in memory, its prompt read back on demand.

    ``row_group``/``row`` locate the example in ``path`` (a Parquet file); the prompt of one example
    is read by decoding the ``messages`` column of its row group only.
    """

    row_group: int = 0
    row: int = 0

    def messages(self) -> list[dict[str, str]]:
        assert self.path is not None
        table = pq.ParquetFile(self.path).read_row_group(self.row_group, columns=["messages", "id"])
        if table.column("id")[self.row].as_py() != self.id:
            raise GraphNIAHError(f"{self.path}: row {self.row} of row group {self.row_group} is not example {self.id}; the file changed")
        return [{"role": m["role"], "content": m["content"]} for m in table.column("messages")[self.row].as_py()]


def example_refs(ds: Dataset) -> list[DatasetExampleRef]:
    """References to every example for :mod:`graphniah.run` (duplicate ids are an error).

    Each carries the sha256 of its line in the rebuilt examples file (the rows are read whole for it,
    one at a time), the bytes a run from the suite file records, so a run from the dataset journals
    the same records and reuses answers as one from the suite does."""
    refs: list[DatasetExampleRef] = []
    seen: set[str] = set()
    for p, rg, i, row in iter_rows(ds):
        if row["id"] in seen:
            raise GraphNIAHError(f"{p}: example id {row['id']} appears twice in dataset {ds.path}")
        seen.add(row["id"])
        where = f"{p} (row group {rg}, row {i}, example {row['id']})"
        recipe = parse_recipe(row["recipe"], where)
        digest = hashlib.sha256(example_to_json(row_to_example(row, where)).encode()).hexdigest()
        refs.append(DatasetExampleRef(row["id"], row["task"], row["answer"], recipe.snapshot_hash, row["token_counts"],
                                      path=p, row_group=rg, row=i, sha256=digest))
    if not refs:
        raise GraphNIAHError(f"dataset {ds.path} holds no examples")
    return refs
