"""Exported datasets: round trip, ``datasets`` loading offline, byte-identical re-export, tamper
check, refusal of unverifiable suites, bounded row groups, the card, and runs/reports/verify from
a dataset folder giving what the suite gives."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pyarrow.parquet as pq
import pytest
import yaml
from typer.testing import CliRunner

from graphniah.cli import app
from graphniah.dataset import (
    check_files,
    example_refs,
    export_suite,
    iter_dataset_examples,
    open_dataset,
    read_manifest,
    run_dataset,
    verify_dataset,
    write_examples_file,
)
from graphniah.dataset import export as export_mod
from graphniah.errors import GraphNIAHError
from graphniah.formats.dataset import COMPRESSION_KEY, PROMPT_COLUMN, PROMPT_ZSTD_LEVEL, SCHEMA, compression_record, hf_features_yaml
from graphniah.formats.examples import iter_examples, write_examples
from graphniah.run import read_journal, run_suite
from graphniah.scoring import score_records
from graphniah.stats import CountingAnswers, MultipleChoiceAnswers, YesNoAnswers, random_baseline
from tests.run.helpers import fast_options, local_entry

# Fields of a journal record that depend on the clock, not on the examples.
TIMING = {"finished_at", "response_time_s"}


def files_of(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def front_matter(card: str) -> dict:
    assert card.startswith("---\n")
    return yaml.safe_load(card.split("---\n", 2)[1])


def test_every_row_equals_its_example(exported):
    source = list(iter_examples(exported.examples))
    back = list(iter_dataset_examples(open_dataset(exported.dataset)))
    assert [e.id for e in back] == [e.id for e in source]  # suite order, across the per-task files
    for a, b in zip(source, back, strict=True):
        assert [(m.role, m.content.encode()) for m in b.messages] == [(m.role, m.content.encode()) for m in a.messages]
        assert (b.answer, b.token_counts, b.recipe) == (a.answer, a.token_counts, a.recipe)
        assert b == a
    assert any(e.token_counts for e in back) and any(e.token_counts is None for e in back)


def test_the_rows_rebuild_the_examples_file_byte_for_byte(exported, tmp_path):
    ds = open_dataset(exported.dataset)
    out = write_examples_file(ds, tmp_path / "again.jsonl")
    assert out.read_bytes() == exported.examples.read_bytes()
    assert ds.manifest.examples.sha256 == ds.manifest.examples.canonical_sha256


def test_rows_sit_in_one_file_per_task_with_the_design_columns(exported):
    m = read_manifest(exported.dataset)
    source = list(iter_examples(exported.examples))
    assert sorted(f.path for f in m.data_files()) == sorted(f"data/{t}-00000.parquet" for t in ("yesno", "mc", "count"))
    for f in m.data_files():
        table = pq.read_table(exported.dataset / f.path)
        assert table.schema.remove_metadata().equals(SCHEMA)
        assert set(table.column("task").to_pylist()) == {f.task}
        assert table.num_rows == f.rows == sum(e.task == f.task for e in source)
        meta = pq.ParquetFile(exported.dataset / f.path).metadata
        assert meta.row_group(0).column(0).compression == "ZSTD"
        # the prompt texts too, and the file records the levels (Parquet records only the codec)
        prompt = next(i for i in range(meta.num_columns) if meta.schema.column(i).path == PROMPT_COLUMN)
        assert {meta.row_group(g).column(prompt).compression for g in range(meta.num_row_groups)} == {"ZSTD"}
        assert json.loads(meta.metadata[COMPRESSION_KEY.encode()]) == compression_record()
    rows = {r["id"]: r for f in m.data_files() for r in pq.read_table(exported.dataset / f.path).to_pylist()}
    packed = [e for e in source if e.token_counts]
    for e in packed:
        r = rows[e.id]
        assert (r["context_length"], r["distractor"]) == (e.recipe.params["context_length"], e.recipe.params["distractor"])
        assert r["token_counts"] == e.token_counts and json.loads(r["recipe"]) == e.recipe.model_dump()
    plain = next(e for e in source if not e.token_counts)
    assert (rows[plain.id]["context_length"], rows[plain.id]["distractor"], rows[plain.id]["token_counts"]) == (None, "none", None)


def test_datasets_loads_every_config_offline_with_the_declared_features(exported, tmp_path):
    import datasets

    card = front_matter((exported.dataset / "README.md").read_text())
    declared = datasets.Features._from_yaml_list(card["dataset_info"]["features"])
    assert declared == datasets.Features.from_arrow_schema(SCHEMA)
    assert hf_features_yaml() == datasets.Features.from_arrow_schema(SCHEMA)._to_yaml_list()
    m = read_manifest(exported.dataset)
    source = {e.id: e for e in iter_examples(exported.examples)}
    for config in ("all", "yesno", "mc", "count"):
        ds = datasets.load_dataset(str(exported.dataset), config, split="test", cache_dir=str(tmp_path / "hf"))
        assert ds.features == declared
        assert len(ds) == (len(source) if config == "all" else m.tasks[config])
        for row in ds:
            ex = source[row["id"]]
            assert config in ("all", ex.task)
            assert row["messages"] == [{"role": x.role, "content": x.content} for x in ex.messages]
            assert row["answer"] == ex.answer
    default = datasets.load_dataset(str(exported.dataset), cache_dir=str(tmp_path / "hf"))
    assert list(default) == ["test"] and len(default["test"]) == len(source)


def test_card_front_matter_and_facts(exported):
    text = (exported.dataset / "README.md").read_text()
    fm = front_matter(text)
    m = read_manifest(exported.dataset)
    assert fm["license"] == "odc-by" and fm["synthetic"] is True and "synthetic" in fm["tags"]
    assert fm["task_categories"] and fm["size_categories"] == ["n<1K"]
    configs = {c["config_name"]: c for c in fm["configs"]}
    assert set(configs) == {"all", "yesno", "mc", "count"} and configs["all"]["default"] is True
    assert sorted(configs["all"]["data_files"][0]["path"]) == sorted(f.path for f in m.data_files())
    for task in ("yesno", "mc", "count"):
        assert configs[task]["data_files"] == [{"split": "test", "path": [f"data/{task}-00000.parquet"]}]
    snap = m.snapshots[0]
    source = list(iter_examples(exported.examples))
    for fact in (snap.release_id, snap.cutoff.isoformat(), snap.snapshot_hash, "synthetic: true", source[0].recipe.version,
                 m.examples.sha256, "ODC-BY", "graphniah show", "\\answer{", "Wilson"):
        assert fact in text, fact
    tasks = {t: sum(e.task == t for e in source) for t in ("count", "mc", "yesno")}
    assert f"- tasks: count: {tasks['count']}, mc: {tasks['mc']}, yesno: {tasks['yesno']}" in text
    sizes = sorted({e.component_size for e in source})
    counting = CountingAnswers(min(100, *sizes), max(250, *sizes))
    for space in (YesNoAnswers(), MultipleChoiceAnswers(), counting):
        b = random_baseline(space)
        assert f"({b.numerator}/{b.denominator})" in text
    assert "- seeds:" not in text and "example seeds " + ", ".join(map(str, sorted({e.recipe.seed for e in source}))) in text


def test_reexport_is_byte_identical(exported, tmp_path):
    export_suite(exported.examples, tmp_path / "again", snapshots_root=exported.suite.snapshots)
    assert files_of(tmp_path / "again") == files_of(exported.dataset)
    # in place: the old folder is replaced by identical bytes
    copy = tmp_path / "copy"
    shutil.copytree(exported.dataset, copy)
    export_suite(exported.examples, copy, snapshots_root=exported.suite.snapshots)
    assert files_of(copy) == files_of(exported.dataset)


def test_a_tampered_parquet_file_is_detected(exported, tmp_path):
    copy = tmp_path / "tampered"
    shutil.copytree(exported.dataset, copy)
    assert check_files(copy) == []
    target = copy / "data" / "mc-00000.parquet"
    data = bytearray(target.read_bytes())
    data[len(data) // 2] ^= 0x01
    target.write_bytes(bytes(data))
    changed = "data/mc-00000.parquet: changed or damaged after it was written (its sha256 differs from the one recorded)"
    assert check_files(copy) == [changed]
    with pytest.raises(GraphNIAHError) as err:
        open_dataset(copy)
    assert str(err.value) == (f"dataset {copy} does not match its manifest: {changed}; export it again with "
                              f"`graphniah export --suite {read_manifest(copy).suite} --out {copy}`")
    result = CliRunner().invoke(app, ["verify", str(copy)])
    assert result.exit_code != 0 and "changed or damaged after it was written" in str(result.exception)
    (copy / "data" / "extra-00000.parquet").write_bytes(b"x")
    target.unlink()
    assert check_files(copy) == ["data/mc-00000.parquet: missing", "data/extra-00000.parquet: not listed in the manifest"]


def test_verify_command_on_a_dataset_folder(exported):
    result = CliRunner().invoke(app, ["verify", str(exported.dataset)])
    n = sum(1 for _ in iter_examples(exported.examples))
    assert result.exit_code == 0, result.output
    assert f"{n} of {n} examples verified from their text" in result.output
    check = verify_dataset(exported.dataset)
    assert (check.total, check.failures) == (n, ())


def test_an_unverifiable_suite_is_refused_with_its_ids(exported, tmp_path):
    source = list(iter_examples(exported.examples))
    flip = {"YES": "NO", "NO": "YES"}
    bad = [i for i, e in enumerate(source) if e.task == "yesno"][:2]
    broken = [e.model_copy(update={"answer": flip[e.answer]}) if i in bad else e for i, e in enumerate(source)]
    path = tmp_path / "broken.jsonl"
    write_examples(path, broken)
    out = tmp_path / "out"
    with pytest.raises(GraphNIAHError) as err:
        export_suite(path, out, snapshots_root=exported.suite.snapshots)
    message = str(err.value)
    assert "2 example(s) fail the text-only check" in message
    assert all(source[i].id in message for i in bad)
    assert not out.exists() and not list(tmp_path.glob(".out*"))
    result = CliRunner().invoke(app, ["export", "--suite", "broken", "--examples-root", str(tmp_path), "--out", str(out),
                                      "--snapshots", str(exported.suite.snapshots)])
    assert result.exit_code != 0 and source[bad[0]].id in str(result.exception)


def test_export_refuses_to_overwrite_a_folder_that_is_not_a_dataset(exported, tmp_path):
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "notes.txt").write_text("keep")
    with pytest.raises(GraphNIAHError, match="not a GraphNIAH dataset folder"):
        export_suite(exported.examples, tmp_path / "mine", snapshots_root=exported.suite.snapshots)
    assert (tmp_path / "mine" / "notes.txt").read_text() == "keep"


def test_small_row_groups_still_round_trip_and_prompts_are_read_lazily(exported, tmp_path, monkeypatch):
    monkeypatch.setattr(export_mod, "ROW_GROUP_BYTES", 30_000)  # a row group per example or two
    export_suite(exported.examples, tmp_path / "small", snapshots_root=exported.suite.snapshots)
    ds = open_dataset(tmp_path / "small")
    assert max(pq.ParquetFile(p).num_row_groups for p in ds.data_paths()) > 2
    source = {e.id: e for e in iter_examples(exported.examples)}
    assert list(iter_dataset_examples(ds)) == list(source.values())
    refs = example_refs(ds)
    assert any(r.row_group > 0 for r in refs) and any(r.row > 0 for r in refs)
    for r in refs:
        assert r.messages() == [m.model_dump() for m in source[r.id].messages]
        assert (r.task, r.answer, r.snapshot_hash) == (source[r.id].task, source[r.id].answer, source[r.id].recipe.snapshot_hash)


def _records(path: Path) -> list[dict]:
    return sorted(({k: v for k, v in r.model_dump().items() if k not in TIMING} for r in read_journal(path)),
                  key=lambda r: r["example_id"])


@pytest.mark.slow
def test_run_from_the_dataset_gives_the_journal_of_the_suite(exported, tmp_path):
    from graphniah.run.serve.policies import PolicyServer

    with PolicyServer("oracle") as srv:
        entry = local_entry(api_base=srv.url)
        run_suite(entry, exported.examples, runs_root=tmp_path / "suite-runs", snapshots_root=exported.suite.snapshots,
                  options=fast_options())
        summary = run_dataset(entry, exported.dataset, runs_root=tmp_path / "dataset-runs", options=fast_options())
    assert summary.ok == summary.sent == sum(1 for _ in iter_examples(exported.examples))
    a = _records(tmp_path / "suite-runs" / exported.name / "local-oracle.jsonl")
    b = _records(tmp_path / "dataset-runs" / exported.name / "local-oracle.jsonl")
    assert a == b
    assert score_records(read_journal(tmp_path / "dataset-runs" / exported.name / "local-oracle.jsonl")).overall.estimate == 1.0
    # the report from the dataset folder alone equals the suite's (timings aside)
    runner = CliRunner()
    r1 = runner.invoke(app, ["report", "--suite", exported.name, "--examples", str(exported.examples), "--runs",
                             str(tmp_path / "suite-runs"), "--out", str(tmp_path / "rep-suite"), "--no-figures", "--no-html"])
    r2 = runner.invoke(app, ["report", "--dataset", str(exported.dataset), "--runs", str(tmp_path / "dataset-runs"),
                             "--out", str(tmp_path / "rep-dataset"), "--no-figures", "--no-html"])
    assert r1.exit_code == 0 and r2.exit_code == 0, (r1.output, r2.output)
    tables = sorted(p.name for p in (tmp_path / "rep-suite" / "tables").glob("*.csv"))
    assert {"accuracy.csv", "accuracy_yesno.csv", "accuracy_mc.csv", "accuracy_count.csv", "cost.csv"} <= set(tables)
    assert tables == sorted(p.name for p in (tmp_path / "rep-dataset" / "tables").glob("*.csv"))
    for name in set(tables) - {"cost.csv"}:  # the cost table holds the calls' timings
        assert (tmp_path / "rep-suite" / "tables" / name).read_text() == (tmp_path / "rep-dataset" / "tables" / name).read_text(), name
    summary_json = json.loads((tmp_path / "rep-dataset" / "summary.json").read_text())
    assert summary_json["examples"]["sha256"] == read_manifest(exported.dataset).examples.sha256


def test_run_from_the_dataset_keeps_the_cutoff_guard_without_any_snapshot(exported, tmp_path):
    cutoff = read_manifest(exported.dataset).snapshots[0].cutoff
    late = local_entry(knowledge_cutoff=cutoff.isoformat())
    with pytest.raises(GraphNIAHError, match="refusing to run"):
        run_dataset(late, exported.dataset, runs_root=tmp_path / "runs", options=fast_options())
    early = local_entry(knowledge_cutoff=cutoff.replace(year=cutoff.year - 1).isoformat())
    plan = run_dataset(early, exported.dataset, runs_root=tmp_path / "runs", options=fast_options(), dry_run=True)
    assert plan.total == sum(1 for _ in iter_examples(exported.examples))


def test_export_if_changed_keeps_an_intact_export_of_the_same_examples(exported, tmp_path):
    from graphniah.dataset import export_if_changed

    out = tmp_path / "demo-dataset"
    first = export_if_changed(exported.examples, out, snapshots_root=exported.suite.snapshots)
    stamp = {p: p.stat().st_mtime_ns for p in out.rglob("*")}
    again = export_if_changed(exported.examples, out, snapshots_root=exported.suite.snapshots)
    assert again.manifest == first.manifest and {p: p.stat().st_mtime_ns for p in out.rglob("*")} == stamp
    # fewer examples: exported again, and the folder now holds exactly them
    fewer = tmp_path / "month.jsonl"
    write_examples(fewer, list(iter_examples(exported.examples))[:5])
    third = export_if_changed(fewer, out, snapshots_root=exported.suite.snapshots)
    assert third.examples == 5 and [e.id for e in iter_dataset_examples(open_dataset(out))] == [e.id for e in iter_examples(fewer)]


def test_export_if_changed_exports_again_a_folder_compressed_at_other_levels(exported, tmp_path, monkeypatch):
    from graphniah.dataset import export_if_changed

    def prompt_levels(folder: Path) -> set[int]:
        return {json.loads(pq.read_metadata(folder / f.path).metadata[COMPRESSION_KEY.encode()])["levels"][PROMPT_COLUMN]
                for f in read_manifest(folder).data_files()}

    out = tmp_path / "levels"
    other = 1 if PROMPT_ZSTD_LEVEL != 1 else 3
    monkeypatch.setattr(export_mod, "PROMPT_ZSTD_LEVEL", other)  # an export made at another level
    older = files_of(export_if_changed(exported.examples, out, snapshots_root=exported.suite.snapshots).out)
    assert prompt_levels(out) == {other}
    monkeypatch.undo()
    newer = files_of(export_if_changed(exported.examples, out, snapshots_root=exported.suite.snapshots).out)
    assert prompt_levels(out) == {PROMPT_ZSTD_LEVEL} != {other}
    fresh = export_suite(exported.examples, tmp_path / "fresh", snapshots_root=exported.suite.snapshots).out
    assert newer == files_of(fresh) and newer != older


def test_show_regenerates_an_example_found_in_a_dataset_folder(exported):
    ex = next(e for e in iter_examples(exported.examples) if e.token_counts is None)
    result = CliRunner().invoke(app, ["show", ex.id, "--examples", str(exported.dataset), "--root", str(exported.suite.snapshots)])
    assert result.exit_code == 0, result.output
    assert ex.messages[-1].content in result.output and result.output.rstrip().endswith(f"=== answer ===\n{ex.answer}")


def test_the_suite_manifest_travels_with_the_dataset(exported, tmp_path):
    """A built suite's manifest (varied variable, size range, per-example values) is in the dataset
    manifest, and the report's loader reads it back from the rebuilt examples' folder."""
    from graphniah.dataset import materialize_examples
    from graphniah.formats.suites import SuiteManifest, SuiteManifestExample, read_suite_manifest, write_suite_manifest
    from graphniah.sampling.suites import load_suite_spec

    examples = list(iter_examples(exported.examples))
    src = tmp_path / "examples" / "built.jsonl"
    write_examples(src, examples)
    manifest = SuiteManifest(
        suite=load_suite_spec("demo"), seed=3, per_value=None, snapshot=str(tmp_path / "somewhere" / "2026-10-06" / "cutoff=2026-04-01"),
        snapshot_hash=exported.suite.snapshot_hash, synthetic=True, version=examples[0].recipe.version,
        created_at="2026-12-01T00:00:00+00:00",
        examples=tuple(SuiteManifestExample(id=e.id, index=i, value=e.task, recipe=e.recipe) for i, e in enumerate(examples)),
    )
    write_suite_manifest(src.with_suffix(".json"), manifest)
    export_suite(src, tmp_path / "ds", snapshots_root=exported.suite.snapshots)
    card = (tmp_path / "ds" / "README.md").read_text()
    assert "The suite varies `task`." in card and "suite seed 3" in card
    assert str(tmp_path) not in (tmp_path / "ds" / "graphniah-manifest.json").read_text()  # no local path travels
    _, rebuilt = materialize_examples(tmp_path / "ds", tmp_path / "runs")
    assert rebuilt.read_bytes() == src.read_bytes()
    back = read_suite_manifest(rebuilt.with_suffix(".json"))
    assert back.model_dump(mode="json") == manifest.model_dump(mode="json") | {"snapshot": "2026-10-06/cutoff=2026-04-01"}


def test_a_manifest_of_another_version_is_refused(exported, tmp_path):
    copy = tmp_path / "newer"
    shutil.copytree(exported.dataset, copy)
    path = copy / "graphniah-manifest.json"
    path.write_text(path.read_text().replace('"format_version": 2', '"format_version": 7'))
    with pytest.raises(GraphNIAHError, match="format_version 7 is not supported"):
        open_dataset(copy)
    # a folder exported before the list task and the evidence statistics: its Parquet schema is another
    path.write_text(path.read_text().replace('"format_version": 7', '"format_version": 1'))
    with pytest.raises(GraphNIAHError, match=r"format_version 1 is not supported \(this graphniah reads version 2\); export the suite again"):
        open_dataset(copy)
    with pytest.raises(GraphNIAHError, match="not a GraphNIAH dataset folder"):
        open_dataset(tmp_path)


def test_rows_that_do_not_rebuild_the_exported_file_are_refused_and_nothing_is_written(exported, tmp_path):
    # The manifest is not hashed by itself, so a wrong canonical_sha256 passes the file check; the
    # rebuild check (shared by checked_examples and write_examples_file) must still catch it.
    copy = tmp_path / "rehashed"
    shutil.copytree(exported.dataset, copy)
    path = copy / "graphniah-manifest.json"
    m = json.loads(path.read_text())
    m["examples"]["canonical_sha256"] = "0" * 64
    path.write_text(json.dumps(m))
    assert check_files(copy) == []
    with pytest.raises(GraphNIAHError, match="do not rebuild the exported examples"):
        verify_dataset(copy)
    out = tmp_path / "out" / "rebuilt.jsonl"
    with pytest.raises(GraphNIAHError, match="do not rebuild the exported examples"):
        write_examples_file(open_dataset(copy), out)
    assert not out.exists() and list(out.parent.iterdir()) == []


def test_worker_processes_do_not_change_the_export_and_hashes_are_taken_while_reading(exported, tmp_path):
    """The pool (any size) and the in-process check give the same bytes; the manifest's source size and
    sha256 are those of the file, and its canonical sha256 is that of ``write_examples``' output, also
    when the file is not in canonical form (other JSON spacing, escaped non-ASCII, blank lines)."""
    import hashlib

    for workers in (0, 1, 2):
        export_suite(exported.examples, tmp_path / f"w{workers}", snapshots_root=exported.suite.snapshots, workers=workers)
        assert files_of(tmp_path / f"w{workers}") == files_of(exported.dataset), workers
    source = list(iter_examples(exported.examples))
    loose = tmp_path / "loose.jsonl"
    loose.write_text("\n" + "\n\n".join(json.dumps(json.loads(e.model_dump_json()), indent=None, ensure_ascii=True)
                                        for e in source) + "\n\n", encoding="utf-8")
    canonical = tmp_path / "canonical.jsonl"
    write_examples(canonical, source)
    assert loose.read_bytes() != canonical.read_bytes()
    manifests = []
    for workers in (0, 2):
        m = export_suite(loose, tmp_path / f"loose{workers}", snapshots_root=exported.suite.snapshots, workers=workers).manifest
        assert m.examples.bytes == loose.stat().st_size
        assert m.examples.sha256 == hashlib.sha256(loose.read_bytes()).hexdigest()
        assert m.examples.canonical_sha256 == hashlib.sha256(canonical.read_bytes()).hexdigest()
        assert m.examples.count == len(source)
        manifests.append(m)
    assert manifests[0] == manifests[1]
    assert [e.id for e in iter_dataset_examples(open_dataset(tmp_path / "loose2"))] == [e.id for e in source]
    # canonical lines first, then a blank line and loose ones, the last without its newline: the two
    # hashes share the prefix and part at the blank line; a canonical file has one hash for both
    lines = canonical.read_bytes().splitlines(keepends=True)
    half = len(lines) // 2
    mixed = tmp_path / "mixed.jsonl"
    mixed.write_bytes(b"".join(lines[:half]) + b"\n" + b"\n".join(json.dumps(json.loads(line), ensure_ascii=True).encode()
                                                                  for line in lines[half:]))
    m = export_suite(mixed, tmp_path / "mixed", snapshots_root=exported.suite.snapshots, workers=2).manifest
    assert m.examples.sha256 == hashlib.sha256(mixed.read_bytes()).hexdigest() != m.examples.canonical_sha256
    assert m.examples.canonical_sha256 == hashlib.sha256(canonical.read_bytes()).hexdigest()
    m = export_suite(canonical, tmp_path / "canonical", snapshots_root=exported.suite.snapshots, workers=0).manifest
    assert m.examples.sha256 == m.examples.canonical_sha256 == hashlib.sha256(canonical.read_bytes()).hexdigest()


@pytest.mark.parametrize("workers", [0, 2])
def test_a_bad_line_is_refused_naming_file_and_line_with_or_without_workers(exported, tmp_path, workers):
    lines = exported.examples.read_bytes().splitlines(keepends=True)
    bad = tmp_path / "bad.jsonl"
    bad.write_bytes(b"".join(lines[:2]) + b'{"id": "half a line\n' + b"".join(lines[2:]))
    with pytest.raises(GraphNIAHError, match=rf"{bad}:3"):
        export_suite(bad, tmp_path / "out", snapshots_root=exported.suite.snapshots, workers=workers)
    assert not (tmp_path / "out").exists()
