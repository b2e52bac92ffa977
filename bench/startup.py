"""Benchmark of the command line's start: ``graphniah --help`` and ``graphniah CMD --help``.

Each is timed as a fresh process (the installed ``graphniah`` script beside this interpreter),
against the baseline ``python -c "import typer"``. Every run of a command is paired with a run of
the baseline right before it, ``--repeat`` times, so that a burst of load on a shared machine hits
both sides of a ratio alike; a command's ratio is the median of its runs over the median of its
paired baseline runs. Target: every command at most 1.5× the baseline.

    .venv/bin/python bench/startup.py [--repeat 7]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

TARGET = 1.5


def _commands() -> list[list[str]]:
    """Every command's ``--help`` argv, enumerated from the typer application."""
    from graphniah.cli import app

    out: list[list[str]] = [["--help"]]
    for c in app.registered_commands:
        name = c.name or c.callback.__name__.replace("_", "-")  # type: ignore[union-attr]
        out.append([name, "--help"])
    for group in app.registered_groups:
        out.append([str(group.name), "--help"])
        for c in group.typer_instance.registered_commands:
            name = c.name or c.callback.__name__.replace("_", "-")  # type: ignore[union-attr]
            out.append([str(group.name), name, "--help"])
    return out


def _time(argv: list[str]) -> float:
    t0 = time.perf_counter()
    r = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env={**os.environ, "COLUMNS": "120"})
    elapsed = time.perf_counter() - t0
    if r.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} failed ({r.returncode}): {r.stderr.decode()[-500:]}")
    return elapsed


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeat", type=int, default=7, help="Runs of each command and of its paired baseline (medians taken).")
    args = ap.parse_args()
    script = Path(sys.executable).with_name("graphniah")
    entry = [str(script)] if script.exists() else [sys.executable, "-c", "from graphniah.cli import main; main()"]
    baseline_argv = [sys.executable, "-c", "import typer"]
    commands = _commands()
    times: dict[str, list[float]] = {}
    paired: dict[str, list[float]] = {}  # the baseline run right before each run of the command
    for _ in range(args.repeat):
        for argv in commands:
            paired.setdefault(" ".join(argv), []).append(_time(baseline_argv))
            times.setdefault(" ".join(argv), []).append(_time(entry + argv))
    base = statistics.median(t for ts in paired.values() for t in ts)
    print(f"baseline python -c 'import typer': {1e3 * base:.0f} ms (median of {sum(map(len, paired.values()))}); target <= {TARGET}x")
    worst = 0.0
    for what, ts in times.items():
        ratio = statistics.median(ts) / statistics.median(paired[what])
        worst = max(worst, ratio)
        print(f"  graphniah {what:40s} {1e3 * statistics.median(ts):6.0f} ms  {ratio:4.2f}x  {'PASS' if ratio <= TARGET else 'FAIL'}")
    print(f"worst {worst:.2f}x over {len(times)} commands: {'PASS' if worst <= TARGET else 'FAIL'} (target <= {TARGET}x)")


if __name__ == "__main__":
    main()
