"""``graphniah power``: how many examples a comparison of two accuracies needs (exact power)."""

from __future__ import annotations

from typing import Annotated

import typer

from graphniah.cli.app import app
from graphniah.errors import GraphNIAHError


@app.command("power")
def power_cmd(
    p1: Annotated[float, typer.Option(help="Accuracy of the first group (or condition).")],
    p2: Annotated[float, typer.Option(help="Accuracy of the second group (or condition).")],
    alpha: Annotated[float, typer.Option(help="Two-sided significance level.")] = 0.05,
    power: Annotated[float, typer.Option(help="Wanted probability of detecting the difference.")] = 0.8,
    paired: Annotated[bool, typer.Option("--paired", help="The same examples under both conditions: exact McNemar test (needs --discordant).")] = False,
    discordant: Annotated[float | None, typer.Option(help="With --paired: probability that an example's two answers differ (one right, one wrong).")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
) -> None:
    """Examples per group a two-sided Fisher exact test needs (exact power, every outcome enumerated); --paired for McNemar's."""
    import json

    from graphniah.stats import fisher_sample_size, mcnemar_sample_size

    if paired != (discordant is not None):
        raise GraphNIAHError("--paired and --discordant D go together (D: the share of examples whose two answers differ)")
    if discordant is not None:
        size = mcnemar_sample_size(p1, p2, discordant, alpha, power)
    else:
        size = fisher_sample_size(p1, p2, alpha, power)
    result = {"n_per_group": size.n_per_group, "test": size.test, "power": round(size.power, 6),
              "normal_approximation": round(size.normal_approximation, 3), "p1": p1, "p2": p2, "alpha": alpha,
              "target_power": power, **({"discordant": discordant} if discordant is not None else {})}
    if as_json:
        typer.echo(json.dumps(result))
        return
    what = "pairs (examples answered under both conditions)" if paired else "examples per group"
    test = "exact McNemar" if paired else "two-sided Fisher exact"
    typer.echo(f"{size.n_per_group} {what}: the {test} test at alpha {alpha:g} detects {p1:g} vs {p2:g} with power "
               f"{size.power:.3f} (target {power:g}); the normal approximation says {size.normal_approximation:.1f}")
