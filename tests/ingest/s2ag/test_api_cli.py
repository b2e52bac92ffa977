"""``graphniah s2ag releases | download | diffs`` against the fake Datasets API server."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from graphniah.cli import app, main
from tests.ingest.s2ag.fake_api import FakeS2AG, Faults
from tests.ingest.s2ag.test_api import KEY, RELEASES, served_demo, shard
from tests.secret_scan import assert_secret_absent


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return served_demo(tmp_path_factory)


@pytest.fixture
def fake(served: Path) -> Iterator[FakeS2AG]:
    target = shard(served, f"releases/{RELEASES[-1]}/papers", 1)
    with FakeS2AG(served, api_key=KEY, faults=Faults(too_many_requests=1, cut_after={target: 2048})) as srv:
        yield srv


def _run(args: list[str], env: dict[str, str | None]) -> tuple[int, str]:
    result = CliRunner(env={"S2_API_BASE": None, **env}).invoke(app, args)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result.exit_code, result.output


def test_cli_lists_downloads_and_fetches_diffs(fake: FakeS2AG, served: Path, tmp_path: Path) -> None:
    env = {"S2_API_KEY": KEY, "S2_API_BASE": fake.base_url}
    code, out = _run(["s2ag", "releases"], env)
    assert code == 0 and out.split() == list(RELEASES)

    code, out = _run(["s2ag", "download", "--root", str(tmp_path), "--dataset", "papers", "--dataset", "authors"], env)
    assert code == 0, out
    rel = tmp_path / "releases" / RELEASES[-1]
    assert (rel / "release.json").exists()
    for ds in ("papers", "authors"):
        for f in (served / "releases" / RELEASES[-1] / ds).glob("*.gz"):
            assert (rel / ds / f.name).read_bytes() == f.read_bytes()
    assert "retry" in out and "release complete" in out  # the 429 and the cut were reported
    assert KEY not in "".join(out.split())

    code, out = _run(["s2ag", "diffs", "--since", RELEASES[0], "--root", str(tmp_path), "--api-base", fake.base_url], {"S2_API_KEY": KEY})
    assert code == 0, out
    steps = [str(tmp_path / "diffs" / f"{a}_to_{b}") for a, b in zip(RELEASES, RELEASES[1:], strict=False)]
    assert [line for line in out.splitlines() if line.startswith(str(tmp_path))] == steps
    assert all((Path(s) / "diff.json").exists() for s in steps)
    assert_secret_absent(tmp_path, KEY)


def test_cli_without_key_says_to_set_it(
    fake: FakeS2AG, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("S2_API_KEY", raising=False)
    monkeypatch.setenv("S2_API_BASE", fake.base_url)
    for command in (["download", "--root", str(tmp_path)], ["diffs", "--since", RELEASES[0], "--root", str(tmp_path)]):
        monkeypatch.setattr(sys, "argv", ["graphniah", "s2ag", *command])
        with pytest.raises(SystemExit) as info:
            main()
        assert info.value.code == 2
        err = " ".join(capsys.readouterr().err.split())
        assert "set the S2_API_KEY environment variable" in err
    assert fake.requests == ()  # refused before any request


def test_cli_errors_do_not_show_the_key(
    served: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with FakeS2AG(served, api_key=KEY + "-other") as srv:
        monkeypatch.setenv("S2_API_KEY", KEY)
        monkeypatch.setattr(sys, "argv", ["graphniah", "s2ag", "download", "--root", str(tmp_path), "--api-base", srv.base_url])
        with pytest.raises(SystemExit) as info:
            main()
    captured = capsys.readouterr()
    err = " ".join(captured.err.split())  # rich wraps long lines
    assert info.value.code == 2
    assert "HTTP 403" in err and "check the key in S2_API_KEY" in err
    assert KEY not in "".join((captured.err + captured.out).split())
