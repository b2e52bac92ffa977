"""Mutation testing of the rules a verdict rests on, with cosmic-ray: the kill rate per module (issue 31).

Each target is a module (or the functions of one that a feature lives in) and the fast tests that
check it. cosmic-ray (``pip install 'graphniah[mutation]'``) mutates the module one change at a
time and runs the tests; a mutant the tests fail on is *killed*, one they pass on *survived*.
Everything runs in a copy of the committed tree (``git archive HEAD``) under ``--work``, never in
the working tree, since cosmic-ray edits the files it mutates in place.

The operators are those of realistic bugs (the audit's: a wrong comparison, a dropped or inverted
condition, a wrong constant, and/or swapped, break for continue, an arithmetic slip between
neighbouring operators), not every binary operator into every other; with more mutants than
``--max-mutants`` per target a seeded sample of them is run (the counts say so). Survivors are
written with their diffs to ``<work>/<target>.survivors.txt``: each is either a missing test or an
equivalent mutant (one no test can tell from the original); the table counts both and the notes
name the equivalent ones that were judged so by reading them.

    .venv/bin/python bench/mutation.py [--target NAME ...] [--max-mutants 60] [--seed 0] [--work DIR] [--recheck]

``--recheck`` takes the survivors of a finished run in ``--work`` and tests each once more against the
tests of HEAD (its diff applied to a fresh copy): how many the tests written since kill.
"""

from __future__ import annotations

import argparse
import ast
import datetime as dt
import io
import re
import sqlite3
import subprocess
import sys
import tarfile
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class Target:
    name: str
    module: str  # path in the repository
    tests: tuple[str, ...]  # pytest arguments: files and -k expressions
    functions: tuple[str, ...] = ()  # only these functions (and methods) of the module; () = all of it
    timeout: float = 120.0
    # The session fixtures built by tests/conftest.py's shared_build (the demo snapshot) are built once, by
    # the unmutated baseline run, and reopened by every mutant's run: the mutated module must not be one
    # that builds them (it is read by every test that runs after, so its own checks still run mutated).
    shared: bool = False


TARGETS = (
    Target("baselines/__init__", "graphniah/baselines/__init__.py",
           ("tests/baselines/test_journals.py", "tests/baselines/test_topics.py", "tests/baselines/test_shortcuts.py", "-k",
            "only_the or registered or default_budget")),
    Target("baselines/shortcuts", "graphniah/baselines/shortcuts.py",
           ("tests/baselines/test_shortcuts.py", "-k", "title_space or closed_world or retrieve_ or equal_bm25 or halves "
            "or hand_made or without_words or default_budget or shortcut_named")),
    Target("baselines/topics", "graphniah/baselines/topics.py",
           ("tests/baselines/test_topics.py", "-k", "not on_real and not journal_of and not large_contexts and not cannot_read")),
    Target("report/shortcuts", "graphniah/report/shortcuts.py",
           ("tests/report/test_shortcuts.py", "tests/report/test_shortcut_levels.py", "tests/report/test_shortcut_list.py")),
    Target("sampling/examples/similarity", "graphniah/sampling/examples/similarity.py",
           ("tests/sampling/examples/test_similarity.py", "-k",
            "not (matched_examples or without_the_venue or on_the_demo or disjoint)")),
    Target("scoring", "graphniah/scoring.py", ("tests/test_scoring.py",)),
    Target("run/reuse", "graphniah/run/reuse.py", ("tests/run/test_runner.py", "-k", "first_journal_first"),
           functions=("reusable_answers",)),
    # Issue 40: the modules whose nearest tests let realistic bugs through.
    Target("sampling/examples/sample", "graphniah/sampling/examples/sample.py",
           ("tests/sampling/examples/test_sample_matching.py", "tests/sampling/examples/test_sample.py",
            "tests/sampling/examples/test_sample_contract.py", "tests/sampling/examples/test_render.py", "tests/text/test_edgelist.py",
            "tests/sampling/examples/test_similarity.py",
            "tests/text/test_positions.py", "-k",
            "sample_matching or seed_reproduces or too_small or grow_forest or answer_balance or both_ends or needles_longer "
            "or list_examples "
            "or refuses_to_replay or growth_that_fails or another_scorer or unmatched_examples_hold or on_the_learned_score "
            "or recorded_positions_equal or every_needle_block_and or connected_part or resumed_at or unmatched_draws "
            "or packed_for_every_set or edge_list_twin or counting_with_disjoint "
            "or every_option_of or rules_of_their or label_for_a_task or indices_statistics or records_what_it "
            "or worded_and_replayed or fit_their_part or each_rule_of or packed_with_another or apa_twin_named or has_no_options "
            "or name_the_task_depth or first_half_of or papers_to_avoid or example_stream_of "
            "or two_sets_or or disjoint_component_distractors"), shared=True, timeout=300.0),
    Target("sampling/examples/components", "graphniah/sampling/examples/components.py",
           ("tests/sampling/examples/test_components.py", "tests/sampling/examples/test_sample_matching.py", "-k",
            "not on_the_demo and not matched_examples_record"), shared=True, timeout=300.0),
    Target("atomic", "graphniah/atomic.py", ("tests/test_atomic.py", "tests/test_atomic_audit.py")),
    Target("ingest/openalex/read", "graphniah/ingest/openalex/read.py",
           ("tests/ingest/openalex/test_records.py", "tests/ingest/openalex/test_read.py", "tests/ingest/openalex/test_bad_input.py",
            "tests/ingest/openalex/test_read_audit.py", "tests/ingest/openalex/test_layout.py", "-k", "not both_forms and not every_layout and not manifest_names")),
    Target("ingest/openalex/layout", "graphniah/ingest/openalex/layout.py",
           ("tests/ingest/openalex/test_records.py", "tests/ingest/openalex/test_read.py", "tests/ingest/openalex/test_bad_input.py",
            "tests/ingest/openalex/test_read_audit.py", "tests/ingest/openalex/test_layout.py", "-k", "not both_forms and not every_layout and not manifest_names")),
    Target("dataset/lm_eval", "graphniah/dataset/lm_eval.py", ("tests/dataset/test_lm_eval.py", "-k", "not without_lm_eval")),
    Target("integrations/lm_eval_task", "graphniah/integrations/lm_eval_task.py",
           ("tests/integrations/test_lm_eval.py", "tests/integrations/test_lm_eval_task.py", "-k",
            "task_sends or process_results or task_docs or template_set or data_file or example_messages or text_of_an_example "
            "or reply_is_scored")),
    Target("view/pages", "graphniah/view/pages.py",
           ("tests/view/test_overlay.py", "tests/view/test_pages.py", "tests/view/test_data.py", "-k",
            "not a_change_to_any_module and (test_overlay or test_pages or view_cli_writes or without_the_snapshot or cached_page "
            "or rebuild_reuses or an_input_error or every_field or without_an_answer or of_a_dataset or cannot_name "
            "or runs_or_the_metadata or packs_its_prompt or packed_text_is)"),
           shared=True, timeout=300.0),
)

# cosmic-ray operator names kept (prefix match): the realistic ones, see the module docstring.
_KEEP = re.compile(
    r"^core/(ReplaceComparisonOperator_.*|NumberReplacer|AddNot|ReplaceAndWithOr|ReplaceOrWithAnd|ReplaceTrueWithFalse|"
    r"ReplaceFalseWithTrue|ReplaceBreakWithContinue|ReplaceContinueWithBreak|ZeroIterationForLoop|ReplaceUnaryOperator_.*|"
    r"ReplaceBinaryOperator_(Add_Sub|Sub_Add|Mul_Div|Div_Mul|FloorDiv_Div|Div_FloorDiv|Mod_FloorDiv|Pow_Mul))$"
)


def copy_head(dest: Path) -> str:
    """The committed tree (``git archive HEAD``) unpacked at ``dest``; returns the commit."""
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True, text=True, check=True).stdout.strip()
    if not (dest / "graphniah").is_dir():
        data = subprocess.run(["git", "archive", "HEAD"], cwd=REPO, capture_output=True, check=True).stdout
        dest.mkdir(parents=True, exist_ok=True)
        with tarfile.open(fileobj=io.BytesIO(data)) as tar:
            tar.extractall(dest, filter="data")
    if (REPO / "data").is_dir():
        # Tokenizer files and corpora are not committed: each links to the checkout's. The folder itself is
        # the copy's, so what is found beside it (pipelines/, the model registry) is the copy's too.
        (dest / "data").mkdir(exist_ok=True)
        for entry in (REPO / "data").iterdir():
            if not (dest / "data" / entry.name).exists():
                (dest / "data" / entry.name).symlink_to(entry)
    return commit


def function_lines(source: str, names: tuple[str, ...]) -> list[tuple[int, int]]:
    """Line ranges (1-based, inclusive) of the functions named."""
    return [(n.lineno, n.end_lineno or n.lineno) for n in ast.walk(ast.parse(source))
            if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef) and n.name in names]


def keep_mutants(db: Path, ranges: list[tuple[int, int]] | None, limit: int, rng: np.random.Generator) -> tuple[int, int]:
    """Drop the mutants of other operators or outside ``ranges`` (cosmic-ray rows are 1-based), then sample
    down to ``limit``; returns (mutants of the kept operators in range, mutants kept)."""
    con = sqlite3.connect(db)
    rows = con.execute("SELECT job_id, operator_name, start_pos_row FROM mutation_specs").fetchall()
    eligible = [job for job, op, row in rows
                if _KEEP.match(op) and (ranges is None or any(a <= row <= b for a, b in ranges))]
    chosen = set(eligible) if len(eligible) <= limit else {eligible[int(i)] for i in rng.choice(len(eligible), limit, replace=False)}
    drop = [(job,) for job, _, _ in rows if job not in chosen]
    con.executemany("DELETE FROM mutation_specs WHERE job_id = ?", drop)
    con.executemany("DELETE FROM work_items WHERE job_id = ?", drop)
    con.commit()
    con.close()
    return len(eligible), len(chosen)


def outcomes(db: Path) -> dict[str, int]:
    con = sqlite3.connect(db)
    rows = con.execute("SELECT worker_outcome, test_outcome FROM work_results").fetchall()
    con.close()
    out = {"killed": 0, "survived": 0, "incompetent": 0, "timeout": 0, "other": 0}
    for worker, test in rows:
        if worker == "TIMEOUT":
            out["timeout"] += 1  # a mutant that hangs the tests is caught: counted as killed below
        elif worker != "NORMAL":
            out["other"] += 1
        elif test == "KILLED":
            out["killed"] += 1
        elif test == "SURVIVED":
            out["survived"] += 1
        else:
            out["incompetent"] += 1
    return out


def survivors(db: Path) -> str:
    con = sqlite3.connect(db)
    rows = con.execute("SELECT s.operator_name, s.start_pos_row, r.diff FROM work_results r JOIN mutation_specs s USING (job_id) "
                       "WHERE r.worker_outcome = 'NORMAL' AND r.test_outcome = 'SURVIVED' ORDER BY s.start_pos_row").fetchall()
    con.close()
    return "\n".join(f"--- {op} at line {row}\n{diff}" for op, row, diff in rows)


def run_target(t: Target, repo: Path, work: Path, limit: int, rng: np.random.Generator) -> dict[str, object]:
    slug = re.sub(r"[^a-z0-9]+", "-", t.name.lower()).strip("-")
    cfg, db = work / f"{slug}.toml", work / f"{slug}.sqlite"
    tests = " ".join(f'"{a}"' if " " in a else a for a in t.tests)
    cfg.write_text(
        "[cosmic-ray]\n"
        f'module-path = "{t.module}"\n'
        f"timeout = {t.timeout}\n"
        "excluded-modules = []\n"
        f'test-command = "{sys.executable} -m pytest -x -q -p no:randomly -p no:cacheprovider -n 0 {" ".join(_basetemp(work, slug, t))} {tests.replace(chr(34), chr(92) + chr(34))}"\n'
        "\n[cosmic-ray.distributor]\nname = \"local\"\n"
    )
    db.unlink(missing_ok=True)
    env = _env(repo, shared=t.shared)
    subprocess.run(["cosmic-ray", "init", str(cfg), str(db)], cwd=repo, check=True, capture_output=True, env=env)
    # The tests must pass on the unmutated copy (else every mutant would count as killed); this run also
    # builds the shared fixtures the mutants' runs reopen.
    # (no per-test time limit here: building the demo snapshot on a busy machine may take longer than the suite's)
    base = subprocess.run([*_pytest_command(t, work, slug), "-o", "timeout=0"], cwd=repo, capture_output=True, text=True, env=env,
                          check=False)
    if base.returncode != 0:
        raise SystemExit(f"{t.name}: the tests fail on the unmutated copy:\n{base.stdout[-3000:]}")
    ranges = function_lines((repo / t.module).read_text(), t.functions) if t.functions else None
    eligible, kept = keep_mutants(db, ranges, limit, rng)
    t0 = time.monotonic()
    subprocess.run(["cosmic-ray", "exec", str(cfg), str(db)], cwd=repo, check=True, capture_output=True, env=env)
    got = outcomes(db)
    (work / f"{slug}.survivors.txt").write_text(survivors(db))
    caught = got["killed"] + got["timeout"]
    judged = caught + got["survived"]
    return {"target": t.name, "eligible": eligible, "run": kept, **got,
            "rate": caught / judged if judged else float("nan"), "seconds": time.monotonic() - t0}


def _basetemp(work: Path, slug: str, t: Target) -> list[str]:
    """pytest's base temporary folder of a target with shared fixtures: its parent keeps them between runs."""
    if not t.shared:
        return []
    (work / f"{slug}.pytest").mkdir(exist_ok=True)
    return [f"--basetemp={work / f'{slug}.pytest' / 'run'}"]


def _env(repo: Path, *, shared: bool = False) -> dict[str, str]:
    import os

    env = dict(os.environ)
    env["PYTHONPATH"] = str(repo)  # the copy's package, ahead of the editable install of the working tree
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    if shared:
        # tests/conftest.py's shared_build keeps a fixture in the base temporary folder's parent (with a
        # marker once built) for the xdist workers of one run: named as a worker, each run reopens it.
        env["PYTEST_XDIST_WORKER"] = "gw0"
    return env


def _pytest_command(t: Target, work: Path, slug: str) -> list[str]:
    return [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:randomly", "-p", "no:cacheprovider", "-n", "0",
            *_basetemp(work, slug, t), *t.tests]


def recheck(t: Target, work: Path) -> dict[str, int]:
    """The survivors of a finished run of ``t`` (``<work>/<target>.sqlite``) once more, each applied by its diff to
    a fresh copy of HEAD and tested with the target's tests as they are now: which of them the tests written
    since kill. A diff that no longer applies (the module changed since) is counted apart."""
    slug = re.sub(r"[^a-z0-9]+", "-", t.name.lower()).strip("-")
    con = sqlite3.connect(work / f"{slug}.sqlite")
    rows = con.execute("SELECT s.operator_name, s.start_pos_row, r.diff FROM work_results r JOIN mutation_specs s USING (job_id) "
                       "WHERE r.worker_outcome = 'NORMAL' AND r.test_outcome = 'SURVIVED' ORDER BY s.start_pos_row").fetchall()
    con.close()
    repo = work / "recheck-repo"
    if repo.exists():
        subprocess.run(["rm", "-rf", str(repo)], check=True)
    copy_head(repo)
    env = _env(repo, shared=t.shared)
    base = subprocess.run([*_pytest_command(t, work, slug), "-o", "timeout=0"], cwd=repo, capture_output=True, text=True, env=env,
                          check=False)
    if base.returncode != 0:  # else every survivor would count as killed
        raise SystemExit(f"{t.name}: the tests fail on the unmutated copy of HEAD:\n{base.stdout[-3000:]}")
    out = {"killed": 0, "survived": 0, "stale": 0, "timeout": 0}
    for op, row, diff in rows:
        # after cosmic-ray's "--- mutation diff ---" line; applied only where every line of its context is as it was
        # (it may have moved), so a module changed since never takes the mutant on another line
        patch = diff.split("\n", 1)[1]
        applied = subprocess.run(["patch", "-p1", "--fuzz=0", "-d", str(repo)], input=patch, text=True, capture_output=True, check=False)
        if applied.returncode != 0:
            out["stale"] += 1
            print(f"  {op} at line {row}: no longer applies", flush=True)
            continue
        try:
            done = subprocess.run(_pytest_command(t, work, slug), cwd=repo, capture_output=True, text=True, env=env, check=False,
                                  timeout=3 * t.timeout)
            verdict = "killed" if done.returncode != 0 else "survived"
        except subprocess.TimeoutExpired:  # on a busy machine a slow run is no proof of a kill: counted apart
            verdict = "timeout"
        finally:
            subprocess.run(["patch", "-R", "-p1", "-d", str(repo)], input=patch, text=True, capture_output=True, check=True)
        out[verdict] += 1
        print(f"  {op} at line {row}: {verdict}", flush=True)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--target", nargs="*", default=[], help="only these targets (names as in the table)")
    ap.add_argument("--max-mutants", type=int, default=60, help="mutants run per target (a seeded sample beyond it)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--work", type=Path, default=REPO / "bench" / ".data" / "mutation")
    ap.add_argument("--recheck", action="store_true", help="test the survivors of the finished run in --work against HEAD's tests")
    args = ap.parse_args()
    rng = np.random.default_rng(args.seed)
    work = args.work.resolve()
    if args.recheck:
        for t in TARGETS:
            if (not args.target or t.name in args.target) and (work / f"{re.sub(r'[^a-z0-9]+', '-', t.name.lower()).strip('-')}.sqlite").is_file():
                print(f"{t.name}: survivors of the run in {work} against the tests of HEAD", flush=True)
                got = recheck(t, work)
                print(f"{t.name}: {got['killed']} killed, {got['survived']} survived, {got['timeout']} timed out, "
                      f"{got['stale']} no longer apply", flush=True)
        return 0
    repo = work / "repo"
    commit = copy_head(repo)
    print(f"cosmic-ray on commit {commit}, {dt.datetime.now(dt.UTC):%Y-%m-%d %H:%M} UTC, at most {args.max_mutants} mutants "
          f"per target (seed {args.seed}); survivors in {work}/*.survivors.txt", flush=True)
    rows = []
    for t in TARGETS:
        if args.target and t.name not in args.target:
            continue
        r = run_target(t, repo, work, args.max_mutants, rng)
        rows.append(r)
        print(f"{r['target']}: {r['run']} of {r['eligible']} mutants run, {r['killed']} killed, {r['timeout']} timed out, "
              f"{r['survived']} survived, {r['incompetent']} incompetent, kill rate {r['rate']:.0%} ({r['seconds']:.0f}s)", flush=True)
    print("\n| module | mutants (run of eligible) | killed | survived | kill rate |\n| --- | --- | --- | --- | --- |")
    for r in rows:
        print(f"| `{r['target']}` | {r['run']} of {r['eligible']} | {int(r['killed']) + int(r['timeout'])} | {r['survived']} | "
              f"{r['rate']:.0%} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
