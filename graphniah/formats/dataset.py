"""An exported dataset folder's two contracts: its manifest, and the Parquet schema of its rows.

**The manifest.** ``graphniah-manifest.json``: what a dataset folder holds and the hashes that prove it unchanged.
Format: ``format_version`` 2, read through :data:`DATASET_MANIFEST_FORMAT` (``graphniah.formats``), so
a manifest of another version is refused by name, never misread. Version 2 is the first whose data
files hold examples of format version 3 (the ``list`` task; ``stats`` with ``evidence_tokens`` and
``hops_needed``); a version-1 folder's Parquet schema is not this one and cannot be upgraded in
place, so it is refused with the hint to export the suite again. The manifest lists every other file
of the folder (the card and the Parquet files) with its size and sha256, and the sha256 of the examples file the dataset was exported from. It is written last,
inside the staging folder that is renamed into place, so a folder with a manifest is complete.
:func:`check_files` is the tamper check: a file whose bytes changed, a missing file, or a file the
manifest does not list (an extra ``data/*.parquet`` would silently join the ``all`` config) is
reported by name. The manifest holds no timestamps and no local paths, so exporting the same
examples twice writes the same bytes.

**The rows** (:data:`SCHEMA`): one Parquet row per :class:`Example`, and back. A row holds every field of the example, so :func:`row_to_example` rebuilds the very record that
was exported; the flat design columns (``context_length``, ``distractor``) are copies of recipe
parameters, there for filtering and for the dataset viewer. ``suite_index`` is the example's
position in the suite's examples file: rows are split into one file per task, and merging them
back by ``suite_index`` restores the file's order (which a byte-identical rebuild needs).

Round trip, and why it is exact: every example field maps to a column of the same value type
(strings, int64, bool, float64 are stored as themselves; tuples as lists; ``edges`` pairs as
``{citing, cited}`` structs; ``stats`` as a struct in field order), and the recipe is stored as the
recipe model's own JSON, so ``Example.model_validate(row)`` sees the values the exporter read.
``token_counts`` is a struct over :data:`TOKEN_COUNT_NAMES` in that order; an example whose counts
have other names or another order is refused at export (:func:`example_to_row`), because the
struct could not give its dict back key for key.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import heapq
import json
import os
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import pyarrow as pa
import pyarrow.parquet as pq
from pydantic import Field, ValidationError

from graphniah.atomic import artifact_problem, atomic_path, sha256_file
from graphniah.errors import GraphNIAHError, validation_detail
from graphniah.formats.base import Format, Frozen
from graphniah.formats.examples import Example, ExampleRef, ExampleStats, NeedlePositions, example_to_json, parse_recipe
from graphniah.formats.names import TOKENIZERS
from graphniah.layout import DATASET_CARD, DATASET_DATA_DIR, DATASET_MANIFEST

DATA_DIR = DATASET_DATA_DIR
CARD_FILE = DATASET_CARD
MANIFEST_FILE = DATASET_MANIFEST
#: The tokenizers the packer counts with, in the order it stores them.
TOKEN_COUNT_NAMES: tuple[str, ...] = TOKENIZERS
NO_DISTRACTOR = "none"

_STATS_FIELDS = tuple(ExampleStats.model_fields)
_STATS_TYPES = {name: (pa.float64() if ExampleStats.model_fields[name].annotation is float else pa.int64()) for name in _STATS_FIELDS}

_SPAN = pa.struct([("token", pa.int64()), ("tokens", pa.int64())])  # a token offset and a token count

SCHEMA = pa.schema([
    pa.field("id", pa.string(), nullable=False),
    pa.field("suite_index", pa.int64(), nullable=False),
    pa.field("task", pa.string(), nullable=False),
    pa.field("depth", pa.int64(), nullable=False),
    pa.field("component_size", pa.int64(), nullable=False),
    pa.field("context_length", pa.int64()),  # null: packed without a limit (no distractor)
    pa.field("distractor", pa.string(), nullable=False),
    pa.field("none_option", pa.bool_(), nullable=False),
    pa.field("template", pa.string(), nullable=False),
    pa.field("messages", pa.list_(pa.struct([("role", pa.string()), ("content", pa.string())])), nullable=False),
    pa.field("answer", pa.string(), nullable=False),
    pa.field("options", pa.list_(pa.string()), nullable=False),
    pa.field("token_counts", pa.struct([(name, pa.int64()) for name in TOKEN_COUNT_NAMES])),
    pa.field("source", pa.int64(), nullable=False),
    pa.field("target", pa.list_(pa.int64()), nullable=False),
    pa.field("papers", pa.list_(pa.int64()), nullable=False),
    pa.field("edges", pa.list_(pa.struct([("citing", pa.int64()), ("cited", pa.int64())])), nullable=False),
    pa.field("stats", pa.struct([(name, _STATS_TYPES[name]) for name in _STATS_FIELDS]), nullable=False),
    pa.field("recipe", pa.string(), nullable=False),
    pa.field("needle_positions", pa.struct([  # null: an example made before they were recorded
        ("tokens", pa.int64()), ("question", _SPAN), ("context", _SPAN),
        ("blocks", pa.list_(pa.struct([("char", pa.int64()), ("token", pa.int64()), ("tokens", pa.int64())]))),
    ])),
])
#: The columns of datasets exported before examples recorded their needle positions (read as None).
SCHEMA_WITHOUT_POSITIONS = SCHEMA.remove(SCHEMA.get_field_index("needle_positions"))
#: The schemas of earlier exports a folder may hold: without needle positions, without the template
#: column (exported before named template sets: every row is in the default set), without either.
EARLIER_SCHEMAS = (SCHEMA_WITHOUT_POSITIONS, SCHEMA.remove(SCHEMA.get_field_index("template")),
                   SCHEMA_WITHOUT_POSITIONS.remove(SCHEMA_WITHOUT_POSITIONS.get_field_index("template")))

#: The Parquet leaf column of the prompt texts: nearly all of a data file's bytes.
PROMPT_COLUMN = "messages.list.element.content"
#: zstd level of the prompt texts, and of every other column. Level 1 for the prompt texts was
#: measured (``bench/export.py``, 100 examples at L = 922,000, 350 MB of JSON lines): it spares 0.5
#: to 1 s of an export's 4 to 5 s of CPU but makes 131 MB of files instead of 81 MB (+62%). An export
#: is written once and downloaded many times, so the prompt texts stay at level 3; the constant and
#: the recorded levels let that choice change without an old folder passing for a new export.
PROMPT_ZSTD_LEVEL = 3
ZSTD_LEVEL = 3
#: The key of each data file's Parquet key-value metadata that records the compression: Parquet
#: records the codec of every column chunk but not its level.
COMPRESSION_KEY = "graphniah.compression"


def compression_record(prompt_level: int = PROMPT_ZSTD_LEVEL, level: int = ZSTD_LEVEL) -> dict[str, object]:
    """What :data:`COMPRESSION_KEY` holds (as JSON): the codec, the level of every column, and the
    prompt column's own level."""
    return {"codec": "zstd", "level": level, "levels": {PROMPT_COLUMN: prompt_level}}


def compression_note() -> str:
    """The data files' compression in one line of prose (the dataset card says it)."""
    return (f"Parquet, zstd: level {PROMPT_ZSTD_LEVEL} for the prompt texts (`messages.content`), level {ZSTD_LEVEL} "
            f"for the other columns (each file's key-value metadata `{COMPRESSION_KEY}` records it)")

#: What each column holds, for the dataset card.
COLUMN_DOCS: Mapping[str, str] = {
    "id": "example id (stable: derived from the recipe)",
    "suite_index": "position of the example in the suite's examples file",
    "task": "`yesno` (is the target reachable?), `mc` (which option is reachable?), `count` (how many papers are reachable?) or `list` (which papers are reachable?)",
    "depth": "question depth k (the question is built on a citation path of 3k-2 papers)",
    "component_size": "papers in each of the task's citation components (matched counting and listing, recipe "
                      "`match_similarity`: in the source's; the others have other sizes)",
    "context_length": "target prompt length L in tokens (null: no distractor, no limit)",
    "distractor": "distractor kind packed around the paper blocks (`none` if none)",
    "none_option": "multiple choice: a 'none of these' option is listed (never correct)",
    "template": "the template set the prompt is worded in (`default`, or a set of `prompts/sets/`: its own phrasing, order, "
                "option labels and answer format; the recipe holds its hash)",
    "messages": "the prompt, as chat messages `{role, content}` (system, then user), exactly as sent to models",
    "answer": "the correct answer: `YES`/`NO`, an option letter, an integer in digits, or (list) the reachable papers' titles, one a line",
    "options": "multiple choice: the candidate titles in option order (their ids in the edge-list rendering; empty otherwise)",
    "token_counts": "prompt length in tokens under " + ", ".join(f"`{n}`" for n in TOKEN_COUNT_NAMES) + " (null if not packed)",
    "source": "corpus id of the source paper",
    "target": "corpus ids of the target paper (YES/NO), of the candidates in option order (multiple choice) or of the reachable papers in the order of the answer's lines (list); empty for counting",
    "papers": "corpus ids of the papers of the task's components",
    "edges": "citations among them, `{citing, cited}`",
    "stats": "words, needles, reference lines, nodes and edges of the prompt; `evidence_tokens` (o200k tokens of the paper blocks a breadth-first search from the source reads to settle the answer) and `hops_needed` (that search's depth)",
    "recipe": "JSON: snapshot, pool and prompt hashes, seed, generator version and parameters; `graphniah show` regenerates the example from it",
    "needle_positions": "where the question and every paper block lie in the user message, in `o200k_base` tokens: the message's "
                        "`tokens`, the `question`'s and the `context`'s token offset and count, and per block its character offset, "
                        "token offset and token count (null for examples made before they were recorded)",
}


def design(example: Example) -> tuple[int | None, str]:
    """``(context_length, distractor)`` of an example, read from its recipe parameters."""
    params = example.recipe.params
    length = params.get("context_length")
    return (None if length is None else int(length)), str(params.get("distractor") or NO_DISTRACTOR)


def design_fields(example: Example) -> dict[str, Any]:
    """The design variables of an example by name: task, depth, component size, context length,
    distractor, none option and template set (a dataset row's columns and an inspect sample's metadata)."""
    length, distractor = design(example)
    return {
        "task": example.task,
        "depth": example.depth,
        "component_size": example.component_size,
        "context_length": length,
        "distractor": distractor,
        "none_option": example.none_option,
        "template": example.recipe.params.template,
    }


def example_to_row(example: Example, suite_index: int) -> dict[str, Any]:
    """The Parquet row of an example (see the module docstring for why it round-trips)."""
    counts = example.token_counts
    if counts is not None and tuple(counts) != TOKEN_COUNT_NAMES:
        raise GraphNIAHError(
            f"example {example.id}: token counts for {', '.join(counts)}; a dataset stores exactly "
            f"{', '.join(TOKEN_COUNT_NAMES)} in that order"
        )
    return {
        "id": example.id,
        "suite_index": suite_index,
        **design_fields(example),
        "messages": [{"role": m.role, "content": m.content} for m in example.messages],
        "answer": example.answer,
        "options": list(example.options),
        "token_counts": None if counts is None else dict(counts),
        "source": example.source,
        "target": list(example.targets),
        "papers": list(example.papers),
        "edges": [{"citing": a, "cited": b} for a, b in example.edges],
        "stats": example.stats.model_dump(),
        "recipe": example.recipe.model_dump_json(),
        "needle_positions": _positions_row(example.needle_positions),
    }


def _positions_row(pos: NeedlePositions | None) -> dict[str, Any] | None:
    if pos is None:
        return None
    def span(pair: tuple[int, int] | None) -> dict[str, int] | None:
        return None if pair is None else {"token": pair[0], "tokens": pair[1]}
    return {"tokens": pos.tokens, "question": span(pos.question), "context": span(pos.context),
            "blocks": [{"char": c, "token": t, "tokens": n} for c, t, n in pos.blocks]}


def _positions_of(row: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """The :class:`NeedlePositions` fields of a ``needle_positions`` cell (None stays None)."""
    if row is None:
        return None
    def pair(span: Mapping[str, int] | None) -> tuple[int, int] | None:
        return None if span is None else (span["token"], span["tokens"])
    return {"tokens": row["tokens"], "question": pair(row["question"]), "context": pair(row["context"]),
            "blocks": [(b["char"], b["token"], b["tokens"]) for b in row["blocks"]]}


def row_to_example(row: Mapping[str, Any], where: str) -> Example:
    """Rebuild the :class:`Example` of a row; a row that is not one raises naming ``where``."""
    try:
        return Example.model_validate({
            "id": row["id"],
            "task": row["task"],
            "depth": row["depth"],
            "component_size": row["component_size"],
            "answer": row["answer"],
            "options": row["options"],
            "none_option": row["none_option"],
            "messages": row["messages"],
            "papers": row["papers"],
            "edges": [(e["citing"], e["cited"]) for e in row["edges"]],
            "source": row["source"],
            "targets": row["target"],
            "stats": row["stats"],
            "recipe": json.loads(row["recipe"]),
            "token_counts": row["token_counts"],
            "needle_positions": _positions_of(row.get("needle_positions")),
        })
    except (KeyError, TypeError, json.JSONDecodeError) as err:
        raise GraphNIAHError(f"{where}: not an example row ({type(err).__name__}: {err})") from None
    except ValidationError as err:
        raise GraphNIAHError(f"{where}: not a valid example ({validation_detail(err)})") from None


def hf_features_yaml(schema: pa.Schema = SCHEMA) -> list[dict[str, Any]]:
    """The ``dataset_info.features`` list of a dataset card, in the ``datasets`` library's YAML form.

    Written here rather than by ``datasets`` so that exporting needs only pyarrow; the tests check
    it against ``datasets.Features.from_arrow_schema(SCHEMA)._to_yaml_list()``.
    """

    def entry(t: pa.DataType) -> dict[str, Any]:
        if pa.types.is_struct(t):
            return {"struct": [{"name": t.field(i).name, **entry(t.field(i).type)} for i in range(t.num_fields)]}
        if pa.types.is_list(t):  # a list of a plain type names the type; a list of structs lists the fields
            inner = entry(t.value_type)
            return {"list": inner.get("dtype", inner.get("struct"))}
        return {"dtype": {pa.string(): "string", pa.int64(): "int64", pa.float64(): "float64", pa.bool_(): "bool"}[t]}

    return [{"name": f.name, **entry(f.type)} for f in schema]


class FileEntry(Frozen):
    """One file of the folder, by its path relative to the folder (POSIX separators)."""

    path: str
    bytes: int = Field(ge=0)
    sha256: str
    rows: int | None = None  # Parquet files: their number of examples
    task: str | None = None  # Parquet files: the task of their rows


class SourceExamples(Frozen):
    """The examples file the dataset was exported from (a rebuild from the rows has this hash)."""

    file: str  # its name only: a path would differ between machines
    bytes: int = Field(ge=0)
    sha256: str
    count: int = Field(ge=1)
    #: sha256 of the examples serialised by the ``Example`` model, one line each: what rebuilding the
    #: file from the rows gives. Equal to ``sha256`` for a file graphniah wrote with the same model.
    canonical_sha256: str


class SnapshotInfo(Frozen):
    """A snapshot the examples were sampled from: the facts the cutoff guard and the card need."""

    snapshot_hash: str
    release_id: str
    cutoff: dt.date
    synthetic: bool
    source: str = "s2ag"  # the snapshot's data source (``graphniah.formats.snapshot.source_name``): s2ag or openalex


class DatasetManifest(Frozen):
    """``graphniah-manifest.json``. Format: ``format_version`` 2 (version 1 is refused: see the module docstring)."""

    format_version: Literal[2] = 2
    suite: str
    examples: SourceExamples
    snapshots: tuple[SnapshotInfo, ...]
    synthetic: bool
    generator_versions: tuple[str, ...]
    seeds: tuple[int, ...]
    tasks: dict[str, int]
    files: tuple[FileEntry, ...]
    suite_manifest: dict[str, Any] | None = None  # the suite manifest (``graphniah build``), snapshot path cut to release/cutoff

    @property
    def cutoffs(self) -> dict[str, dt.date]:
        """``{snapshot_hash: cutoff}``: what ``graphniah.run.check_cutoff`` takes."""
        return {s.snapshot_hash: s.cutoff for s in self.snapshots}

    def data_files(self) -> list[FileEntry]:
        return [f for f in self.files if f.path.startswith(f"{DATA_DIR}/")]


def file_entry(root: Path, path: Path, sha256: str | None = None, **extra: Any) -> FileEntry:
    """The entry of ``path`` (under ``root``); ``sha256`` when the file's writer already hashed it."""
    return FileEntry(path=path.relative_to(root).as_posix(), bytes=path.stat().st_size, sha256=sha256 or sha256_file(path), **extra)


def manifest_json(manifest: DatasetManifest) -> str:
    """Indented, key-sorted JSON with a final newline (stable bytes for identical content)."""
    return json.dumps(manifest.model_dump(mode="json"), indent=2, sort_keys=True, ensure_ascii=False) + "\n"


DATASET_MANIFEST_FORMAT = Format("dataset manifest", 2, hint="export the suite again with graphniah export")


def read_manifest(folder: str | os.PathLike[str]) -> DatasetManifest:
    """The manifest of a dataset folder; a folder without a valid one is not a GraphNIAH dataset."""
    path = Path(folder) / MANIFEST_FILE
    if not path.is_file():
        raise GraphNIAHError(f"{folder} is not a GraphNIAH dataset folder: it has no {MANIFEST_FILE} (graphniah export writes one)")
    return DATASET_MANIFEST_FORMAT.read_file(DatasetManifest, path)


def check_files(folder: str | os.PathLike[str], manifest: DatasetManifest | None = None) -> list[str]:
    """Problems with the folder's files against its manifest (empty when every byte is as exported).

    Every listed file is hashed in full (a changed byte anywhere is found, whatever its size), and
    the folder is walked for files the manifest does not list. Hidden files and folders (``.git``,
    ``.cache`` of a hub checkout) are not part of the dataset and are skipped, and so is Python's
    bytecode cache (``__pycache__``: lm-eval imports the ``lm_eval/utils.py`` of the folder).
    """
    root = Path(folder)
    manifest = manifest or read_manifest(root)
    problems = []
    listed = {f.path for f in manifest.files} | {MANIFEST_FILE}
    for f in manifest.files:
        p = root / f.path
        if not p.is_file():
            problems.append(f"{f.path}: missing")
        elif (problem := artifact_problem(p, f.sha256, f.bytes)) is not None:
            problems.append(f"{f.path}: changed or damaged after it was written ({problem})")
    for p in sorted(root.rglob("*")):
        rel = p.relative_to(root)
        if p.is_file() and not any(part.startswith(".") or part == "__pycache__" for part in rel.parts) and rel.as_posix() not in listed:
            problems.append(f"{rel.as_posix()}: not listed in the manifest")
    return problems


def require_intact(folder: str | os.PathLike[str], manifest: DatasetManifest | None = None) -> DatasetManifest:
    """The manifest, after :func:`check_files` found nothing; otherwise an error listing every problem."""
    manifest = manifest or read_manifest(folder)
    problems = check_files(folder, manifest)
    if problems:
        raise GraphNIAHError(f"dataset {folder} does not match its manifest: " + "; ".join(problems)
                             + f"; export it again with `graphniah export --suite {manifest.suite} --out {folder}`")
    return manifest


# ------------------------------------------------------------------------------------------------
# Reading a dataset folder back
# ------------------------------------------------------------------------------------------------
# Reading an exported dataset folder back: examples, lazy prompt references, the rebuilt examples file.
#
# Rows are read file by file in row-group batches (a row group is closed once it holds 8 MB of
# prompt text, so it holds at most that plus one prompt), and the per-task files are merged on ``suite_index`` so examples come back in the order of the
# suite's examples file. Merging is a k-way merge of streams that are each sorted by
# ``suite_index`` (the exporter appends rows in file order), so it holds one batch per file.
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
        if not any(got.remove_metadata().equals(s) for s in (SCHEMA, *EARLIER_SCHEMAS)):
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


__all__ = [
    "CARD_FILE",
    "COLUMN_DOCS",
    "COMPRESSION_KEY",
    "DATASET_MANIFEST_FORMAT",
    "DATA_DIR",
    "EARLIER_SCHEMAS",
    "MANIFEST_FILE",
    "NO_DISTRACTOR",
    "PROMPT_COLUMN",
    "PROMPT_ZSTD_LEVEL",
    "SCHEMA",
    "SCHEMA_WITHOUT_POSITIONS",
    "TOKEN_COUNT_NAMES",
    "ZSTD_LEVEL",
    "Dataset",
    "DatasetExampleRef",
    "DatasetManifest",
    "FileEntry",
    "SnapshotInfo",
    "SourceExamples",
    "check_files",
    "checked_examples",
    "compression_note",
    "compression_record",
    "design",
    "design_fields",
    "example_refs",
    "example_to_row",
    "examples_in",
    "file_entry",
    "hf_features_yaml",
    "iter_dataset_examples",
    "iter_rows",
    "manifest_json",
    "open_dataset",
    "read_manifest",
    "require_intact",
    "row_to_example",
    "write_examples_file",
]
