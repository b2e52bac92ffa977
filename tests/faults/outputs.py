"""Every command that writes, each given a bad output path: the cases of ``tests/cli/test_bad_outputs.py``
and of the fuzzer's ``output-path`` target (:mod:`tests.faults.fuzz`).

A case runs in a scratch folder made by :func:`scaffold`, where everything but the output is in order
(a regular file ``notes.txt``, an empty folder, a suite ``examples/demo.jsonl``, a snapshot whose
``pruned``/``paths`` are regular files), so the only thing wrong is the output path.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

Argv = Callable[[Path, Path], list[str]]  # (scratch folder, bad output path) -> argv

#: command -> (kind of output, argv writing to the bad path)
WRITERS: dict[str, tuple[str, Argv]] = {
    "demo-release": ("folder", lambda t, o: ["demo-release", "--out", str(o), "--papers", "100"]),
    "demo": ("folder", lambda t, o: ["demo", "--root", str(o)]),
    "sample": ("file", lambda t, o: ["sample", "--task", "yesno", "--depth", "4", "--out", str(o), "--root", str(t)]),
    "build": ("folder", lambda t, o: ["build", "--suite", "demo", "--out", str(o), "--root", str(t)]),
    # prune and paths write into a snapshot's pruned/ and paths/ folders: in the scaffold, regular files
    "prune": ("folder", lambda t, o: ["prune", "--depth", "4", "--snapshot", str(t / "snap")]),
    "paths": ("folder", lambda t, o: ["paths", "--depth", "4", "--seed", "0", "--snapshot", str(t / "snap")]),
    "ingest": ("folder", lambda t, o: ["ingest", "--release", str(t / "empty"), "--cutoff", "2026-04-01", "--out", str(o)]),
    "store load": ("file", lambda t, o: ["store", "load", "--store", str(o), "--release", str(t / "empty")]),
    "store apply-diff": ("file", lambda t, o: ["store", "apply-diff", "--store", str(o), "--diff", str(t / "empty")]),
    "store snapshot": ("folder", lambda t, o: ["store", "snapshot", "--store", str(t / "s.duckdb"), "--cutoff", "2026-04-01",
                                               "--out", str(o)]),
    "refresh": ("folder", lambda t, o: ["refresh", "--cutoff", "2026-04-01", "--root", str(o), "--demo"]),
    "report": ("folder", lambda t, o: ["report", "--suite", "demo", "--examples-root", str(t / "examples"), "--out", str(o)]),
    "select-alpha": ("folder", lambda t, o: ["select-alpha", "--root", str(t), "--out", str(o)]),
    "run": ("folder", lambda t, o: ["run", "--model", "local-oracle", "--suite", "demo", "--examples-root",
                                    str(t / "examples"), "--runs", str(o)]),
    "baselines": ("folder", lambda t, o: ["baselines", "--suite", "demo", "--examples-root", str(t / "examples"),
                                          "--runs", str(o)]),
    "export": ("folder", lambda t, o: ["export", "--suite", "demo", "--examples-root", str(t / "examples"), "--out", str(o)]),
    "view": ("folder", lambda t, o: ["view", "--examples", str(t / "examples" / "demo.jsonl"), "--out", str(o)]),
    "corpora fetch": ("folder", lambda t, o: ["corpora", "fetch", "--data", str(o)]),
    "tokenize fetch": ("folder", lambda t, o: ["tokenize", "fetch", "--data", str(o)]),
    "models fetch": ("folder", lambda t, o: ["models", "fetch", "smollm2", "--data", str(o)]),
    "s2ag download": ("folder", lambda t, o: ["s2ag", "download", "--root", str(o)]),
    "s2ag diffs": ("folder", lambda t, o: ["s2ag", "diffs", "--root", str(o), "--since", "2026-10-06"]),
    "openalex fetch": ("folder", lambda t, o: ["openalex", "fetch", "--from-publication-date", "2026-04-01",
                                               "--to-publication-date", "2026-04-02", "--out", str(o)]),
}
#: The commands that write nothing.
READ_ONLY = frozenset({"version", "verify", "show", "score", "serve", "power", "corpora list", "tokenize count", "store status",
                       "models list", "s2ag releases", "batches"})
#: Commands that need an API key before they look at their output (a fake one: nothing is fetched).
NEEDS_KEY = frozenset({"s2ag download", "s2ag diffs"})

#: how an output path goes wrong -> bad path given the scratch folder and the output's kind
BAD: dict[str, Callable[[Path, str], Path]] = {
    "under a regular file": lambda t, kind: t / "notes.txt" / "x" / "out",
    "special file system": lambda t, kind: Path("/proc/graphniah-test/out"),
    "wrong kind": lambda t, kind: t / ("notes.txt" if kind == "folder" else "empty"),
}


def bad_output(command: str, bad: str, scratch: Path) -> tuple[Path, str] | None:
    """The bad path of ``command`` for ``bad`` and words its error must hold; None where the case does not apply
    (``prune`` and ``paths`` write into the snapshot given, whose folders are the wrong kind in the scaffold)."""
    kind, _ = WRITERS[command]
    if command in ("prune", "paths"):
        if bad != "wrong kind":
            return None
        return scratch / "snap" / ("pruned" if command == "prune" else "paths"), "exists and is not a folder"
    words = {"under a regular file": "is a file, not a folder", "special file system": "on a proc file system",
             "wrong kind": "not a folder" if kind == "folder" else "is a folder, not a file"}[bad]
    return BAD[bad](scratch, kind), words


def scaffold(t: Path) -> Path:
    """Make the scratch folder ``t`` the cases run in; returns it."""
    t.mkdir(parents=True, exist_ok=True)
    (t / "notes.txt").write_text("hello\n")
    (t / "empty").mkdir(exist_ok=True)
    (t / "examples").mkdir(exist_ok=True)
    (t / "examples" / "demo.jsonl").write_text("{}\n")  # a suite that exists: the output is the only thing wrong
    (t / "snap").mkdir(exist_ok=True)
    (t / "snap" / "manifest.json").write_text("{}\n")
    (t / "snap" / "pruned").write_text("not a folder\n")
    (t / "snap" / "paths").write_text("not a folder\n")
    return t
