"""Records: PaperMeta from snapshot rows, Example validation, JSONL round trip and errors."""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from pydantic import ValidationError

from graphniah.errors import GraphNIAHError
from graphniah.formats.examples import (
    Example,
    ExampleStats,
    Message,
    PaperMeta,
    Recipe,
    RecipeParams,
    papers_from_table,
    read_examples,
    write_examples,
)
from graphniah.formats.snapshot import PAPERS_SCHEMA


def _row(**kw):
    base = {
        "corpusid": 1,
        "title": "T",
        "authors": [],
        "venue": None,
        "journal": None,
        "publication_date": None,
        "year": None,
        "arxiv_id": None,
        "doi": None,
    }
    return {**base, **kw}


def test_paper_meta_from_parquet_rows(tmp_path: Path) -> None:
    rows = [
        _row(
            corpusid=11,
            title="  A\ttitle \n with  breaks ",
            authors=[
                {"id": "1", "name": "Ann  Lee"},
                {"id": None, "name": ""},
                {"id": "2", "name": None},
                {"id": "3", "name": "Bo\nXu"},
            ],
            venue="",
            journal="J. Chem. Phys.",
            publication_date=dt.date(2026, 4, 2),
            year=2026,
            arxiv_id="",
        ),
        _row(corpusid=12, title="Only arXiv", venue="arXiv.org", arxiv_id="2604.00001", year=2026),
        _row(corpusid=13, title="Nothing else", authors=None),
    ]
    path = tmp_path / "papers.parquet"
    pq.write_table(pa.Table.from_pylist(rows, schema=PAPERS_SCHEMA), path)
    papers = papers_from_table(pq.read_table(path))
    assert papers[11] == PaperMeta(
        11, "A title with breaks", ("Ann Lee", "Bo Xu"), "J. Chem. Phys.", dt.date(2026, 4, 2), 2026, None
    )
    assert papers[12] == PaperMeta(12, "Only arXiv", (), "arXiv.org", None, 2026, "2604.00001")
    assert papers[13] == PaperMeta(13, "Nothing else")
    assert papers[12].venue == "arXiv.org"  # venue wins over journal when both exist
    assert PaperMeta.from_row(_row(venue="NeurIPS", journal="Proc. NeurIPS")).venue == "NeurIPS"


def test_paper_meta_is_frozen_and_needs_a_title() -> None:
    p = PaperMeta(1, "T")
    with pytest.raises(dataclasses.FrozenInstanceError):
        p.title = "U"  # type: ignore[misc]
    with pytest.raises(ValueError, match="empty title"):
        PaperMeta(2, " \n\t ")


STATS = ExampleStats(
    question_words=10,
    context_words=100,
    needles=3,
    needle_words=40,
    needle_word_pct=40.0,
    reference_lines=4,
    nodes=5,
    edges=4,
)
RECIPE = Recipe(
    snapshot_hash="a" * 64,
    pool_hash="b" * 64,
    prompts_hash="c" * 64,
    seed=2**70 + 3,
    version="0.1.0",
    params=RecipeParams(task="yesno", depth=4, component_size=50, label="YES", none_option=False, alpha=0.1,
                        distractor="code", context_length=1000, index=7, corpus="c" * 16, tokenizers={"o200k_base": "t" * 16}),
)


def _example(**kw) -> Example:
    base = dict(
        id="yesno-d4-0001",
        task="yesno",
        depth=4,
        component_size=50,
        answer="YES",
        messages=(Message(role="system", content="sys"), Message(role="user", content="Ünïcode \\answer{YES}\n\n")),
        papers=(1, 2, 3),
        edges=((1, 2), (3, 2)),
        source=1,
        targets=(3,),
        stats=STATS,
        recipe=RECIPE,
    )
    return Example(**{**base, **kw})


def test_example_validation() -> None:
    _example()
    _example(task="mc", answer="D", targets=(1, 2, 3, 4), options=("a", "b", "c", "d"))
    _example(task="mc", answer="E", targets=(1, 2, 3, 4), options=("a", "b", "c", "d"), none_option=True)
    _example(task="count", answer="49", targets=())
    bad = [
        dict(answer="yes"),
        dict(targets=(2, 3)),
        dict(task="mc", answer="E", targets=(1, 2, 3, 4), options=("a", "b", "c", "d")),
        dict(task="mc", answer="A", targets=(1, 2), options=("a",)),
        dict(task="count", answer="-1", targets=()),
        dict(task="count", answer="12", targets=(3,)),
        dict(task="count", answer="١٢", targets=()),  # non-ASCII digits are not an answer
        dict(task="other"),
        dict(depth=0),
        dict(unknown_field=1),
    ]
    for kw in bad:
        with pytest.raises(ValidationError):
            _example(**kw)
    ex = _example()
    with pytest.raises(ValidationError):
        ex.answer = "NO"  # type: ignore[misc]


def test_jsonl_round_trip_is_byte_stable(tmp_path: Path) -> None:
    exs = [_example(), _example(id="c", task="count", answer="7", targets=(), token_counts={"o200k_base": 1234})]
    path = tmp_path / "suite.jsonl"
    assert write_examples(path, exs) == 2
    back = read_examples(path)
    assert back == exs
    assert back[0].recipe.seed == 2**70 + 3 and back[1].token_counts == {"o200k_base": 1234}
    assert back[0].edges == ((1, 2), (3, 2))
    first = path.read_bytes()
    write_examples(path, back)
    assert path.read_bytes() == first
    line = json.loads(first.decode("utf-8").splitlines()[0])
    for field in (
        "id",
        "task",
        "depth",
        "component_size",
        "answer",
        "options",
        "messages",
        "papers",
        "edges",
        "source",
        "targets",
        "recipe",
        "stats",
    ):
        assert field in line
    assert "Ünïcode" in first.decode("utf-8")  # UTF-8, not \\u escapes
    assert sorted(p.name for p in tmp_path.iterdir()) == ["suite.jsonl"]  # no temporary files left


def test_failed_write_leaves_the_old_file(tmp_path: Path) -> None:
    path = tmp_path / "suite.jsonl"
    write_examples(path, [_example()])
    before = path.read_bytes()

    def broken():
        yield _example(id="x")
        raise RuntimeError("sampler crashed")

    with pytest.raises(RuntimeError):
        write_examples(path, broken())
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["suite.jsonl"]


def test_read_errors_name_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    good = _example().model_dump_json()
    path.write_text(good + "\n\n{not json\n", encoding="utf-8")
    with pytest.raises(GraphNIAHError, match=r"bad.jsonl:3: not JSON"):
        read_examples(path)
    path.write_text(good + "\n" + good.replace('"answer":"YES"', '"answer":"maybe"') + "\n", encoding="utf-8")
    with pytest.raises(GraphNIAHError, match=r"bad.jsonl:2: not a valid example"):
        read_examples(path)
    with pytest.raises(GraphNIAHError, match="cannot read examples file"):
        read_examples(tmp_path / "missing.jsonl")


def test_a_recipe_read_on_its_own_names_where_it_came_from():
    from graphniah.formats.examples import parse_recipe

    with pytest.raises(GraphNIAHError, match=r"^data/yesno-00000\.parquet \(row 3\): not a valid recipe \("):
        parse_recipe('{"seed": "not a number"}', "data/yesno-00000.parquet (row 3)")
    with pytest.raises(GraphNIAHError, match=r"^here: not a valid recipe \(.*(JSON|json)"):
        parse_recipe("{not json", "here")


def test_lines_cut_from_the_memory_map_are_the_file_objects_lines(tmp_path, monkeypatch) -> None:
    """file_lines reads a mapped file; its lines are those of reading line by line, with their breaks
    (``ends``, what the export hashes) or without (CRLF, blank and whitespace lines, a last line
    without newline), also when the pages read are given back after every line, and a file that
    cannot be mapped (no descriptor, or empty) is read in blocks of any size alike."""
    import io

    import graphniah.formats.examples as examples_mod
    from graphniah.formats.examples import example_lines, file_lines

    body = b"\n".join(json.dumps({"n": i, "text": "x" * (i * 997)}).encode() for i in range(40))
    raw = b"\n" + body.replace(b"}\n{", b"}\r\n\n  \n{", 3) + b"\n\n" + b'{"last": true}'
    cases = (raw, raw + b"\r\n", b"", b"a", b"a\n", b"\n\n", b"\r\n", b"abc\ndef", b"ab\r\ncd\n" * 5 + b"tail\r")
    for data in cases:
        path = tmp_path / "e.jsonl"
        path.write_bytes(data)
        with_ends = list(io.BytesIO(data))
        bare = [line.removesuffix(b"\n").removesuffix(b"\r") for line in with_ends]

        def mapped(ends: bool, path: Path = path) -> list[bytes]:
            with open(path, "rb", buffering=0) as f:
                return list(file_lines(f, ends=ends))

        assert (mapped(True), mapped(False)) == (with_ends, bare), data
        with monkeypatch.context() as m:
            m.setattr(examples_mod, "_GIVE_BACK", 1)  # give the pages back after every line
            assert (mapped(True), mapped(False)) == (with_ends, bare), data
        for block in (1, 2, 3, 7, 64, 1 << 20):
            with monkeypatch.context() as m:
                m.setattr(examples_mod, "READ_BLOCK", block)
                got = (list(file_lines(io.BytesIO(data), ends=True)), list(file_lines(io.BytesIO(data))))
            assert got == (with_ends, bare), (data, block)  # no file descriptor: read in blocks
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(b"")
    assert list(example_lines(empty)) == []


def _suite_with_manifest(root: Path, record: bool = True) -> Path:
    """An examples file ``<root>/s.jsonl`` with a suite manifest beside it (recording the file when ``record``)."""
    from graphniah.atomic import sha256_bytes
    from graphniah.formats import ArtifactHash
    from graphniah.formats.suites import SuiteManifest, SuiteManifestExample, write_suite_manifest
    from graphniah.sampling.suites import load_suite_spec
    from tests.report.synthetic import make_example

    exs = [make_example("yesno", 4, 120, "YES", seed=0, index=i) for i in range(3)]
    examples = root / "s.jsonl"
    write_examples(examples, exs)
    data = examples.read_bytes()
    write_suite_manifest(root / "s.json", SuiteManifest(
        suite=load_suite_spec("demo"), seed=7, per_value=None, snapshot="snap", snapshot_hash="s" * 64, synthetic=True,
        version="0", created_at="2026-11-01T00:00:00+00:00",
        examples=tuple(SuiteManifestExample(id=e.id, index=i, value=4, recipe=e.recipe) for i, e in enumerate(exs)),
        examples_file=ArtifactHash(sha256=sha256_bytes(data), bytes=len(data)) if record else None))
    return examples


@pytest.mark.parametrize("how", ["truncated", "bit-flipped", "swapped", "emptied"])
def test_an_examples_file_is_checked_against_its_suite_manifest(tmp_path: Path, how: str) -> None:
    examples = _suite_with_manifest(tmp_path)
    assert len(read_examples(examples)) == 3
    data = examples.read_bytes()
    damaged = {"truncated": data[: len(data) - 10], "bit-flipped": data.replace(b'"YES"', b'"NO!"', 1),
               "swapped": data.splitlines(keepends=True)[1] + data.splitlines(keepends=True)[0] + data.splitlines(keepends=True)[2],
               "emptied": b""}[how]
    examples.write_bytes(damaged)
    with pytest.raises(GraphNIAHError) as err:
        read_examples(examples)
    assert str(err.value).startswith(f"{examples} was changed or damaged after it was written (")
    assert str(err.value).endswith(f"); rebuild it with `graphniah build --suite demo --seed 7 --out {tmp_path}`")


def test_an_examples_file_whose_manifest_records_no_hash_is_read_as_before(tmp_path: Path) -> None:
    examples = _suite_with_manifest(tmp_path, record=False)  # a suite manifest of format 3: no examples_file
    lines = examples.read_bytes().splitlines(keepends=True)
    examples.write_bytes(lines[1] + lines[0] + lines[2])  # reordered: nothing records the order
    assert len(read_examples(examples)) == 3
    (tmp_path / "s.json").write_text("{not json")  # a damaged suite manifest is named, not skipped
    with pytest.raises(GraphNIAHError, match=rf"^{tmp_path / 's.json'}: not JSON"):
        read_examples(examples)


def test_an_examples_file_is_indexed_by_byte_offset(tmp_path: Path) -> None:
    """Each reference reads its own line's messages back from the file, hashes that line's bytes, and
    a repeated id, or a file of blank lines only, is an error naming the file."""
    import hashlib

    from graphniah.formats.examples import ExampleRef, index_examples

    first = _example()
    second = _example(id="c", task="count", answer="7", targets=(),
                      messages=(Message(role="user", content="how many?"),))
    path = tmp_path / "suite.jsonl"
    lines = [first.model_dump_json(), second.model_dump_json()]
    path.write_bytes((lines[0] + "\n\n" + lines[1] + "\n").encode())  # a blank line between: offsets skip it
    refs = index_examples(path)
    assert [r.id for r in refs] == ["yesno-d4-0001", "c"]
    assert [(r.offset, r.length) for r in refs] == [(0, len(lines[0].encode()) + 1), (len(lines[0].encode()) + 2, len(lines[1]) + 1)]
    assert refs[1].messages() == [{"role": "user", "content": "how many?"}]
    assert refs[0].messages()[1]["content"] == "Ünïcode \\answer{YES}\n\n"
    assert [r.sha256 for r in refs] == [hashlib.sha256(line.encode()).hexdigest() for line in lines]
    assert ExampleRef.of(second).sha256 == refs[1].sha256 and ExampleRef.of(second).messages() == refs[1].messages()

    path.write_bytes((lines[0] + "\n" + lines[0] + "\n").encode())
    with pytest.raises(GraphNIAHError, match=r"suite.jsonl:2: example id yesno-d4-0001 already appears on line 1"):
        index_examples(path)
    path.write_bytes(b"\n\n")
    with pytest.raises(GraphNIAHError, match="holds no examples"):
        index_examples(path)
