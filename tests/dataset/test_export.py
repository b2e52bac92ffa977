"""``graphniah export`` takes a verification ``graphniah build`` recorded for the same bytes with the
same checker, and checks everything else: the check runs exactly for the examples without one."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from graphniah.atomic import sha256_bytes
from graphniah.dataset import export as export_mod
from graphniah.dataset import export_suite
from graphniah.errors import GraphNIAHError
from graphniah.formats.examples import example_to_json, iter_examples, write_examples
from graphniah.formats.suites import SuiteManifest, SuiteManifestExample, write_suite_manifest
from graphniah.sampling.suites import load_suite_spec
from graphniah.text import load_prompts, textcheck


def _manifest(examples, recorded: set[str], checker: str | None, snapshot_hash: str) -> SuiteManifest:
    return SuiteManifest(
        suite=load_suite_spec("demo"), seed=3, per_value=None, snapshot="2026-10-06/cutoff=2026-04-01", snapshot_hash=snapshot_hash,
        synthetic=True, version=examples[0].recipe.version, created_at="2026-12-01T00:00:00+00:00", checker=checker,
        examples=tuple(SuiteManifestExample(id=e.id, index=i, value=e.task, recipe=e.recipe,
                                            sha256=sha256_bytes(example_to_json(e).encode()) if e.id in recorded else None)
                       for i, e in enumerate(examples)),
    )


@pytest.mark.parametrize("workers", [0, 2])
def test_export_checks_exactly_the_examples_without_a_recorded_verification(exported, tmp_path: Path,
                                                                           monkeypatch: pytest.MonkeyPatch, workers: int) -> None:
    examples = list(iter_examples(exported.examples))
    recorded = {e.id for e in examples[::2]}
    src = tmp_path / "examples" / "built.jsonl"
    write_examples(src, examples)
    # a recorded example whose bytes changed after the build (same example, JSON spaced out): its
    # record no longer applies
    lines = src.read_text().splitlines()
    lines[0] = json.dumps(json.loads(lines[0]))
    src.write_text("\n".join(lines) + "\n")
    checked: list[str] = []
    real_verify = textcheck.verify

    def counting_verify(ex, prompts=None):
        checked.append(ex.id)
        return real_verify(ex, prompts)

    monkeypatch.setattr(export_mod, "verify", counting_verify)
    snapshot_hash = exported.suite.snapshot_hash
    write_suite_manifest(src.with_suffix(".json"),
                         _manifest(examples, recorded, textcheck.checker_version(load_prompts()), snapshot_hash))
    export_suite(src, tmp_path / "ds", snapshots_root=exported.suite.snapshots, workers=workers)
    expected = sorted({e.id for e in examples} - recorded | {examples[0].id})
    if workers == 0:  # a worker process counts in its own copy of the list
        assert sorted(checked) == expected
    # the same examples exported without any recorded verification: identical data files
    plain = tmp_path / "plain.jsonl"
    write_examples(plain, examples)
    export_suite(plain, tmp_path / "ds-plain", suite="built", snapshots_root=exported.suite.snapshots, workers=workers)
    assert {p.name: p.read_bytes() for p in (tmp_path / "ds" / "data").iterdir()} == \
        {p.name: p.read_bytes() for p in (tmp_path / "ds-plain" / "data").iterdir()}


def test_a_verification_by_another_checker_counts_for_nothing(exported, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    examples = list(iter_examples(exported.examples))
    src = tmp_path / "examples" / "built.jsonl"
    write_examples(src, examples)
    write_suite_manifest(src.with_suffix(".json"), _manifest(examples, {e.id for e in examples}, "another-checker",
                                                             exported.suite.snapshot_hash))
    checked: list[str] = []
    real_verify = textcheck.verify
    monkeypatch.setattr(export_mod, "verify", lambda ex, prompts=None: (checked.append(ex.id), real_verify(ex, prompts))[1])
    export_suite(src, tmp_path / "ds", snapshots_root=exported.suite.snapshots, workers=0)
    assert sorted(checked) == sorted(e.id for e in examples)
    # and a wrong answer among the recorded ones is still caught when the checker differs
    bad = examples[0].model_copy(update={"answer": "YES" if examples[0].answer == "NO" else "NO"})
    write_examples(src, [bad, *examples[1:]])
    with pytest.raises(Exception, match=bad.id):
        export_suite(src, tmp_path / "ds2", snapshots_root=exported.suite.snapshots, workers=0)


def test_the_arrays_built_from_buffers_are_those_of_pa_array(exported) -> None:
    """The exporter assembles each column from its buffers (``pa.array`` would import pandas); the
    arrays, and so the Parquet bytes, are those ``pa.array`` gives, nulls included (examples without
    a length or token counts beside packed ones)."""
    import io

    import pyarrow as pa
    import pyarrow.parquet as pq

    from graphniah.formats.dataset import SCHEMA, example_to_row

    rows = [example_to_row(e, i) for i, e in enumerate(iter_examples(exported.examples))]
    assert {r["token_counts"] is None for r in rows} == {True, False}
    assert {r["context_length"] is None for r in rows} == {True, False}
    for part in (rows, rows[-3:], rows[:1], []):
        for f in SCHEMA:
            values = [r[f.name] for r in part]
            built = export_mod._arrow_array(values, f.type, f.name)
            built.validate(full=True)
            assert built.equals(pa.array(values, type=f.type)), f.name

    def parquet(table: pa.Table) -> bytes:
        sink = io.BytesIO()
        pq.write_table(table, sink, compression="zstd")
        return sink.getvalue()

    built = pa.Table.from_arrays([export_mod._arrow_array([r[f.name] for r in rows], f.type, f.name) for f in SCHEMA], schema=SCHEMA)
    assert parquet(built) == parquet(pa.Table.from_pylist(rows, schema=SCHEMA))


def test_export_loads_neither_pandas_nor_datasets(exported, tmp_path: Path) -> None:
    """Importing pandas (which ``pa.array`` and ``Schema.empty_table`` do) cost the export about as much
    CPU as reading the whole bench file; the folder is written with pyarrow alone."""
    import subprocess
    import sys

    out = tmp_path / "ds"
    code = ("import sys\nfrom graphniah.dataset import export_suite\n"
            f"export_suite({str(exported.examples)!r}, {str(out)!r}, snapshots_root={str(exported.suite.snapshots)!r}, workers=0)\n"
            "print(sorted(m for m in ('pandas', 'datasets', 'pyarrow.compute') if m in sys.modules))\n")
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip() == "[]"
    assert {p.relative_to(out): p.read_bytes() for p in out.rglob("*") if p.is_file()} == \
        {p.relative_to(exported.dataset): p.read_bytes() for p in exported.dataset.rglob("*") if p.is_file()}



def test_rows_carry_their_template_set_and_the_harnesses_select_one(tmp_path_factory: pytest.TempPathFactory,
                                                                    tmp_path: Path) -> None:
    """Issue 38: one example in two template sets, exported; the ``template`` column names each row's
    set, and inspect_ai's and lm-eval's tasks keep one set's rows and read replies in its format."""
    import pyarrow.parquet as pq

    from graphniah.formats.dataset import open_dataset
    from graphniah.formats.snapshot import find_snapshot_by_hash
    from graphniah.integrations.inspect_task import dataset_samples
    from graphniah.integrations.lm_eval_task import _doc_table, process_results, task_docs
    from graphniah.sampling.examples.sample import build_example
    from graphniah.sampling.examples.spec import ExampleSpec, SamplingContext
    from tests.run.helpers import demo_suite

    suite = demo_suite(tmp_path_factory)
    ctx = SamplingContext(find_snapshot_by_hash(suite.snapshots, suite.snapshot_hash))
    worded = [build_example(ctx, ExampleSpec("mc", 4, 20, "B", template=t, templates=("default", "tagged")), 5, 0)
              for t in ("default", "tagged")]
    path = tmp_path / "examples" / "worded.jsonl"
    write_examples(path, worded)
    folder = export_suite(path, tmp_path / "worded-dataset", snapshots_root=suite.snapshots).out
    ds = open_dataset(folder)
    (data,) = ds.data_paths()
    assert pq.read_table(data, columns=["id", "template"]).to_pylist() == [
        {"id": worded[0].id, "template": "default"}, {"id": worded[1].id, "template": "tagged"}]
    samples = dataset_samples(str(folder), template="tagged")
    assert [s.id for s in samples] == [worded[1].id] and samples[0].metadata["template"] == "tagged"
    with pytest.raises(GraphNIAHError, match="template=brief"):
        dataset_samples(str(folder), template="brief")
    docs = task_docs(folder, "mc", "tagged")
    assert docs["id"] == [worded[1].id]
    doc = docs[0]
    assert process_results(doc, ["Option two.\n<answer>2</answer>"])["acc"] == 1.0  # B, numbered 2 in this set
    assert process_results(doc, ["\\answer{B}"])["acc"] == 0.0  # not the format this set asks for
    # A data file exported before the column existed reads as the default set.
    old = tmp_path / "old.parquet"
    table = pq.read_table(data)
    pq.write_table(table.drop_columns(["template"]), old)
    assert _doc_table(old)["template"].to_pylist() == ["default", "default"]
