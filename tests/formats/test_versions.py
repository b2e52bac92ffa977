"""Versioned file formats: one model per format, old versions upgraded, unknown ones refused clearly."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from graphniah.atomic import canonical_json, sha256_bytes
from graphniah.errors import GraphNIAHError
from graphniah.formats import EFFORTS, PAPER_TASKS, TASKS, Format, add_version
from graphniah.formats.examples import Example, Recipe, RecipeParams, read_examples, write_examples
from graphniah.formats.journal import (
    Journal,
    RunRecord,
    RunSettingsEntry,
    read_journal,
    read_run_settings,
    record_run_settings,
)
from graphniah.layout import settings_file
from tests.report.synthetic import make_example

# ------------------------------------------------------------------------------------------------
# The machinery
# ------------------------------------------------------------------------------------------------


def test_a_format_reads_its_versions_and_names_file_line_and_versions_otherwise():
    fmt = Format("widget", 3, {1: add_version(2), 2: lambda o: o | {"format_version": 3, "colour": "red"}}, hint="make new widgets")
    assert fmt.readable == (1, 2, 3)
    assert fmt.to_current({"a": 1}, "w") == {"format_version": 3, "a": 1, "colour": "red"}  # no field: version 1
    assert fmt.to_current({"format_version": 2, "a": 1}, "w") == {"format_version": 3, "a": 1, "colour": "red"}
    with pytest.raises(GraphNIAHError, match=r"^f\.json:7: widget format_version 4 is not supported \(this graphniah reads "
                                             r"versions 1, 2, 3\); it was written by a newer graphniah, upgrade the package$"):
        fmt.parse_json(b'{"format_version": 4}', "f.json:7")
    with pytest.raises(GraphNIAHError, match=r"format_version '2' is not supported .*; make new widgets"):
        fmt.to_current({"format_version": "2"}, "w")
    with pytest.raises(GraphNIAHError, match=r"^w: not JSON"):
        fmt.parse_json(b"{oops", "w")
    with pytest.raises(GraphNIAHError, match="must be a JSON object, found list"):
        fmt.parse_json(b"[1]", "w")
    only = Format("gadget", 2, hint="rebuild it")  # no upgrade: version 1 is refused with the hint
    with pytest.raises(GraphNIAHError, match=r"gadget format_version 1 is not supported \(this graphniah reads version 2\); rebuild it"):
        only.to_current({}, "g")


def test_task_and_effort_names_are_defined_once():
    from graphniah.formats.journal import RunRecord as R
    from graphniah.formats.suites import Draw
    from graphniah.run.models import Effort
    from graphniah.text import prompts

    assert TASKS == ("yesno", "mc", "count", "list") and EFFORTS == ("none", "minimal", "low", "medium", "high")
    assert TASKS[:3] == PAPER_TASKS
    assert prompts.TASKS is TASKS and Draw().task == PAPER_TASKS  # a suite draws the list task only when it names it
    assert Effort.__args__ == EFFORTS  # type: ignore[attr-defined]
    assert R.model_fields["task"].annotation.__args__ == TASKS


# ------------------------------------------------------------------------------------------------
# Examples
# ------------------------------------------------------------------------------------------------


def _v3_line(ex: Example) -> str:
    """The example as format version 3 wrote it: no needle positions."""
    obj = json.loads(ex.model_dump_json())
    obj["format_version"] = 3
    del obj["needle_positions"]
    return json.dumps(obj)


def _v1_line(ex: Example) -> str:
    obj = json.loads(_v3_line(ex))
    del obj["format_version"]
    return json.dumps(obj)


def _v2_line(ex: Example) -> str:
    """The example as format version 2 wrote it: no evidence statistics (and no list task)."""
    obj = json.loads(_v3_line(ex))
    obj["format_version"] = 2
    for name in ("evidence_tokens", "hops_needed"):
        del obj["stats"][name]
    return json.dumps(obj)


def test_examples_files_of_versions_1_2_and_3_read_with_the_same_ids_and_are_written_as_version_4(tmp_path):
    exs = [make_example("yesno", 4, 120, "YES", seed=1, index=0), make_example("count", 8, 130, "129", seed=1, index=1,
                                                                               distractor="code", context_length=30_000)]
    exs = [e.model_copy(update={"stats": e.stats.model_copy(update={"evidence_tokens": None, "hops_needed": None}),
                                "needle_positions": None})
           for e in exs]  # what an upgrade gives: versions 1 and 2 did not measure the evidence, 1 to 3 record no positions
    old = tmp_path / "old.jsonl"
    old.write_text("".join(_v1_line(e) + "\n" for e in exs) + "".join(_v2_line(e) + "\n" for e in exs)
                   + "".join(_v3_line(e) + "\n" for e in exs))
    back = read_examples(old)
    assert back == exs + exs + exs and [e.format_version for e in back] == [4] * 6
    new = tmp_path / "new.jsonl"
    write_examples(new, back)
    lines = new.read_text().splitlines()
    assert all(line.startswith('{"format_version":4,"id":') for line in lines)
    assert [json.loads(line) for line in lines[:2]] == [{"format_version": 4} | json.loads(_v1_line(e)) | {"needle_positions": None}
                                                        for e in exs]


def test_examples_of_another_version_or_shape_are_refused_naming_file_and_line(tmp_path):
    ex = make_example("mc", 4, 120, "B", seed=0, index=0)
    p = tmp_path / "ex.jsonl"
    good = ex.model_dump_json()
    p.write_text(good + "\n" + good.replace('"format_version":4', '"format_version":5', 1) + "\n")
    with pytest.raises(GraphNIAHError, match=r"ex\.jsonl:2: example format_version 5 is not supported \(this graphniah reads versions 1, 2, 3, 4\); "
                                             "it was written by a newer graphniah"):
        read_examples(p)
    obj = json.loads(good)
    obj["recipe"]["params"]["colour"] = "red"  # the parameters are typed: an unknown one is not carried along
    p.write_text(json.dumps(obj) + "\n")
    with pytest.raises(GraphNIAHError, match=r"ex\.jsonl:1: not a valid example \(recipe\.params\.colour: Extra inputs"):
        read_examples(p)
    p.write_text("{not json\n")
    with pytest.raises(GraphNIAHError, match=r"ex\.jsonl:1: not JSON"):
        read_examples(p)


def test_typed_recipe_parameters_serialise_exactly_as_the_dict_they_replace():
    """Example ids hash the recipe: the typed parameters must dump to the sampler's dict, key for key."""
    base = {"task": "mc", "depth": 8, "component_size": 150, "label": "C", "none_option": False, "alpha": 0.1,
            "distractor": "none", "context_length": None}
    for extra in ({}, {"reserve_none_option": True}):
        for packing in ({}, {"tokenizers": {"o200k_base": "a" * 16}}, {"corpus": "c" * 64, "tokenizers": {"gemma": "g" * 16}}):
            d = base | extra | {"index": 3} | packing
            p = RecipeParams.model_validate(d)
            assert p.model_dump() == d and list(p.model_dump()) == list(d)  # same keys, same order
            assert json.loads(p.model_dump_json()) == d
            recipe = Recipe(snapshot_hash="s", pool_hash="p", prompts_hash="q", seed=0, version="0", params=p)
            old = {"snapshot_hash": "s", "pool_hash": "p", "prompts_hash": "q", "seed": 0, "version": "0", "params": d}
            assert sha256_bytes(canonical_json(recipe.model_dump()).encode()) == sha256_bytes(canonical_json(old).encode())
            # read access by key, as the dict allowed
            assert ("corpus" in p) == ("corpus" in d) and p.get("corpus") == d.get("corpus") and p["depth"] == 8
            assert ("reserve_none_option" in p) == ("reserve_none_option" in d)
    with pytest.raises(KeyError):
        RecipeParams.model_validate(base | {"index": 0})["corpus"]


# ------------------------------------------------------------------------------------------------
# Journals and their settings files
# ------------------------------------------------------------------------------------------------


def _record(eid: str, **kw) -> RunRecord:
    return RunRecord(example_id=eid, model="m", settings_hash="h", status="ok", task="yesno", answer="YES",
                     response="\\answer{YES}", attempts=1, finished_at="2026-11-01T00:00:00+00:00", **kw)


def test_a_version_1_journal_reads_and_a_resumed_run_appends_version_4_lines(tmp_path):
    path = tmp_path / "runs" / "s" / "m.jsonl"
    path.parent.mkdir(parents=True)
    old = [_record("a", reasoning_effort="low"), _record("b")]
    path.write_text("".join(json.dumps({k: v for k, v in json.loads(r.model_dump_json()).items() if k != "format_version"}) + "\n"
                            for r in old))
    assert read_journal(path) == old
    with Journal(path) as j:
        assert list(j.records) == old
        j.append([_record("c")])
    lines = path.read_text().splitlines()
    assert ['"format_version"' in line for line in lines] == [False, False, True]
    assert [r.example_id for r in read_journal(path)] == ["a", "b", "c"]
    assert json.loads(lines[-1])["format_version"] == 4


def test_a_version_2_journal_line_reads_without_the_example_hash_and_reuse(tmp_path):
    path = tmp_path / "m.jsonl"
    v4 = json.loads(_record("a").model_dump_json())
    v2 = {k: v for k, v in v4.items() if k not in ("example_sha256", "reused_from", "batch_id")} | {"format_version": 2}
    path.write_text(json.dumps(v2) + "\n")
    (rec,) = read_journal(path)
    assert rec == _record("a") and rec.example_sha256 is None and rec.reused_from is None


def test_journal_lines_of_another_version_are_refused_naming_file_and_line(tmp_path):
    path = tmp_path / "m.jsonl"
    good = _record("a").model_dump_json()
    path.write_text(good + "\n" + good.replace('"format_version":4', '"format_version":7', 1) + "\n")
    with pytest.raises(GraphNIAHError, match=r"m\.jsonl:2: run record format_version 7 is not supported"):
        read_journal(path)
    path.write_text(json.dumps(json.loads(good) | {"task": "essay"}) + "\n")
    with pytest.raises(GraphNIAHError, match=r"m\.jsonl:1: not a valid run record \(task:"):
        read_journal(path)


def test_run_settings_files_of_version_1_are_upgraded(tmp_path):
    journal = tmp_path / "m.jsonl"
    entry = {"model": "m", "settings": {"litellm_model": "openai/m", "reasoning_effort": "high"}, "examples": "ex.jsonl",
             "first_run": "2026-11-01T00:00:00+00:00"}
    settings_file(journal).write_text(json.dumps({"h1": entry}))  # version 1: the bare mapping
    s = read_run_settings(journal)
    assert list(s.runs) == ["h1"] and s.runs["h1"].reasoning_effort == "high"
    record_run_settings(journal, "h2", RunSettingsEntry(model="m", settings={"reasoning_effort": None}, first_run="x"))
    record_run_settings(journal, "h1", RunSettingsEntry(model="other", settings={}, first_run="y"))  # known: kept as is
    written = json.loads(settings_file(journal).read_text())
    assert written["format_version"] == 2 and list(written["runs"]) == ["h1", "h2"] and written["runs"]["h1"] == entry
    assert read_run_settings(journal).runs["h2"].reasoning_effort is None
    assert read_run_settings(tmp_path / "none.jsonl").runs == {}
    settings_file(journal).write_text(json.dumps({"format_version": 5, "runs": {}}))
    with pytest.raises(GraphNIAHError, match=r"m\.settings\.json: run settings file format_version 5 is not supported"):
        read_run_settings(journal)


# ------------------------------------------------------------------------------------------------
# Suite and snapshot manifests
# ------------------------------------------------------------------------------------------------


def test_suite_manifests_round_trip_upgrade_version_1_and_refuse_others(tmp_path):
    from graphniah.formats.suites import (
        SuiteManifest,
        SuiteManifestExample,
        SuiteSpec,
        read_suite_manifest,
        write_suite_manifest,
    )
    from graphniah.sampling.suites import load_suite_spec

    spec = load_suite_spec("context-length")  # counts keyed by value: JSON turns the keys into strings
    assert spec.counts is not None
    ex = make_example("yesno", 4, 120, "YES", seed=0, index=0)
    m = SuiteManifest(suite=spec, seed=0, per_value=None, snapshot="snap", snapshot_hash="s" * 64, synthetic=True,
                      version="0", created_at="2026-11-01T00:00:00+00:00",
                      examples=(SuiteManifestExample(id=ex.id, index=0, value=200_000, recipe=ex.recipe),
                                SuiteManifestExample(id=ex.id, index=1, value=500_000, recipe=ex.recipe, reused_from="x")))
    path = tmp_path / "s.json"
    write_suite_manifest(path, m)
    raw = json.loads(path.read_text())
    # sealed: the sha256 of the rest, as canonical JSON (sorted keys, no spaces)
    seal = raw.pop("content_sha256")
    assert seal == hashlib.sha256(json.dumps(raw, sort_keys=True, separators=(",", ":")).encode()).hexdigest()
    path.write_text(json.dumps(raw | {"content_sha256": seal, "seed": 1}))  # a value changed, still valid: refused
    with pytest.raises(GraphNIAHError, match=r"s\.json was changed or damaged after it was written \(its content_sha256 "
                                             r"differs from its content\); build the suite again with graphniah build"):
        read_suite_manifest(path)
    path.write_text(json.dumps(raw | {"content_sha256": seal}))
    assert raw["format_version"] == 4 and "reused_from" not in raw["examples"][0] and raw["examples"][1]["reused_from"] == "x"
    assert "sha256" not in raw["examples"][0] and raw["checker"] is None  # nothing recorded as verified
    back = read_suite_manifest(path)
    assert back == m and isinstance(back.suite, SuiteSpec) and back.suite.counts == spec.counts
    path.write_text(json.dumps({k: v for k, v in raw.items() if k != "examples_file"} | {"format_version": 3}))  # version 3
    assert read_suite_manifest(path) == m
    path.write_text(json.dumps({k: v for k, v in raw.items() if k not in ("checker", "examples_file")} | {"format_version": 2}))
    assert read_suite_manifest(path) == m
    del raw["format_version"], raw["examples_file"]  # version 1
    path.write_text(json.dumps(raw))
    assert read_suite_manifest(path) == m
    path.write_text(json.dumps(raw | {"format_version": 9}))
    with pytest.raises(GraphNIAHError, match=r"s\.json: suite manifest format_version 9 is not supported"):
        read_suite_manifest(path)
    path.write_text(json.dumps(raw | {"seed": "zero"}))
    with pytest.raises(GraphNIAHError, match=r"s\.json: not a valid suite manifest \(seed:"):
        read_suite_manifest(path)


def _v1_snapshot_manifest() -> dict:
    """A manifest as the builder wrote it before ``format_version`` (``"format": 1``, no ``resources``)."""
    return {
        "created_at": "2026-12-01T23:42:42+00:00", "cutoff": "2026-04-01", "duckdb_version": "2.0.1",
        "eligibility": {"edge_drop_reasons": ["duplicate"], "paper_drop_reasons": ["before_cutoff"]},
        "files": {"papers.parquet": {"bytes": 1, "rows": 1, "sha256": "a" * 64}}, "format": 1,
        "inputs": [{"dataset": "papers", "path": "papers/part-00000.jsonl.gz", "role": "release", "sha256": "b" * 64, "size": 9}],
        "package_version": "0.1.0", "release_id": "2026-10-06",
        "rows": {"papers": {"read": 2, "kept": 1, "dropped": {"before_cutoff": 1}}, "edges": {"read": 0, "kept": 0, "dropped": {}}},
        "snapshot_hash": "c" * 64, "source": {"type": "release", "release_dir": "/x"}, "synthetic": True,
        "timings": {"wall": {"total": 0.3}, "cpu": {}},
    }


def test_snapshot_folders_written_before_versions_keep_working(tmp_path):
    import datetime as dt

    from graphniah.formats.snapshot import MANIFEST_FILE, Snapshot, find_snapshot_by_hash, newest_snapshot

    folder = tmp_path / "2026-10-06" / "cutoff=2026-04-01"
    folder.mkdir(parents=True)
    (folder / MANIFEST_FILE).write_text(json.dumps(_v1_snapshot_manifest()))
    snap = Snapshot.open(folder)
    m = snap.manifest
    assert (m.format_version, m.cutoff, m.synthetic, m.resources) == (3, dt.date(2026, 4, 1), True, None)
    assert snap.content_hash == "c" * 64 and m["rows"]["papers"]["kept"] == 1 and m.get("resources", {}) == {}
    assert find_snapshot_by_hash(tmp_path, "c" * 64).path == folder and newest_snapshot(tmp_path).path == folder


def test_a_snapshot_manifest_that_does_not_validate_says_to_rebuild(tmp_path):
    from graphniah.formats.snapshot import MANIFEST_FILE, Snapshot, read_snapshot_manifest, write_snapshot_manifest

    folder = tmp_path / "snap"
    folder.mkdir()
    broken = _v1_snapshot_manifest()
    del broken["snapshot_hash"]
    (folder / MANIFEST_FILE).write_text(json.dumps(broken))
    with pytest.raises(GraphNIAHError, match=r"manifest\.json: not a valid snapshot manifest \(snapshot_hash: Field required\); "
                                             "rebuild the snapshot with graphniah refresh"):
        _ = Snapshot.open(folder).manifest
    (folder / MANIFEST_FILE).write_text(json.dumps(_v1_snapshot_manifest() | {"format": 2}))  # not a format this code wrote
    with pytest.raises(GraphNIAHError, match=r"not a valid snapshot manifest \(format: Extra inputs"):
        read_snapshot_manifest(folder / MANIFEST_FILE)
    v2 = {k: v for k, v in _v1_snapshot_manifest().items() if k != "format"} | {"format_version": 2, "resources": {"threads": 1}}
    (folder / MANIFEST_FILE).write_text(json.dumps(v2))  # upgraded: built before the preprint guard
    assert read_snapshot_manifest(folder / MANIFEST_FILE).earliest_public_date is None
    v3 = v2 | {"format_version": 3, "earliest_public_date": {"min": "2026-04-01", "max": "2026-04-30"}}
    written = write_snapshot_manifest(folder / MANIFEST_FILE, v3)
    assert read_snapshot_manifest(folder / MANIFEST_FILE) == written and written.earliest_public_date is not None
    with pytest.raises(GraphNIAHError, match="format_version 4 is not supported"):
        (folder / MANIFEST_FILE).write_text(json.dumps(v3 | {"format_version": 4}))
        read_snapshot_manifest(folder / MANIFEST_FILE)


def test_the_report_reads_a_version_1_suite_through_the_models(tmp_path: Path):
    """Examples and a journal written before versions existed give the same report as today's files."""
    from graphniah.report import load_suite

    exs = [make_example("yesno", 4, 120 + i, lab, seed=0, index=i) for i, lab in enumerate(("YES", "NO", "YES"))]
    (tmp_path / "examples").mkdir()
    (tmp_path / "examples" / "s.jsonl").write_text("".join(_v1_line(e) + "\n" for e in exs))
    recs = [RunRecord(example_id=e.id, model="m", settings_hash="h", status="ok", task="yesno", answer=e.answer,
                      response="\\answer{YES}", attempts=1, finished_at="x") for e in exs]
    (tmp_path / "runs" / "s").mkdir(parents=True)
    (tmp_path / "runs" / "s" / "m.jsonl").write_text(
        "".join(json.dumps({k: v for k, v in json.loads(r.model_dump_json()).items() if k != "format_version"}) + "\n" for r in recs))
    old = load_suite("s", runs_root=tmp_path / "runs", examples_root=tmp_path / "examples", by="task")
    write_examples(tmp_path / "examples" / "s.jsonl", exs)
    with Journal(tmp_path / "runs" / "s" / "m2.jsonl") as j:  # the same calls, as today's runner writes them
        j.append([r.model_copy(update={"model": "m"}) for r in recs])
    (tmp_path / "runs" / "s" / "m.jsonl").unlink()
    new = load_suite("s", runs_root=tmp_path / "runs", examples_root=tmp_path / "examples", by="task")
    got = [dict(zip(d.outcomes.example_id.tolist(), d.outcomes.correct.tolist(), strict=True)) for d in (old, new)]
    assert got[0] == got[1] == {e.id: e.answer == "YES" for e in exs}


def test_every_task_has_one_label_and_the_report_reads_them():
    from graphniah.formats import TASK_LABELS
    from graphniah.report import page

    assert tuple(TASK_LABELS) == TASKS and len(set(TASK_LABELS.values())) == len(TASKS)
    assert {label: page._TASKS[label] for label in TASK_LABELS.values()} == {v: k for k, v in TASK_LABELS.items()}
