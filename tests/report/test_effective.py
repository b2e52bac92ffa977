"""Base accuracy and effective context length: NoLiMa's rule on hand-made accuracies (the boundary at
exactly 85% of the base), and a synthetic base: true suite read, split and tabled end to end."""

from __future__ import annotations

import datetime as dt
from fractions import Fraction

import numpy as np
import pytest

from graphniah.formats.suites import SuiteManifest, SuiteManifestExample, SuiteSpec, write_suite_manifest
from graphniah.report import build_report, load_suite
from graphniah.report.effective import NOLIMA_RATIO, LengthCheck, nolima_length
from graphniah.stats import proportion
from tests.report.synthetic import make_example, write_suite


def level(length: int, k: int | None, n: int = 100) -> LengthCheck:
    return LengthCheck(f"{length // 1000}k", length, None if k is None else proportion(k, n, 0.95))


@pytest.mark.parametrize(("base", "levels", "want"), [
    # base 80%: the bar is 68% exactly; 68/100 passes (at the bar), 67/100 does not
    ((80, 100), [(1000, 90), (2000, 68), (4000, 67)], 2000),
    ((80, 100), [(1000, 67), (2000, 90)], None),  # the shortest length already falls short
    # a prefix: a pass after a failure does not count
    ((80, 100), [(1000, 70), (2000, 60), (4000, 75)], 1000),
    # base 100% with another n: 17/20 is exactly 85%
    ((20, 20), [(1000, 85), (2000, 85), (8000, 84)], 2000),
    # levels without answers are skipped, order of the input does not matter
    ((60, 100), [(4000, 51), (1000, None), (2000, 52)], 4000),
    # base 0: every accuracy reaches 85% of it
    ((0, 100), [(1000, 0), (2000, 0)], 2000),
])
def test_nolima_rule_on_hand_made_accuracies(base: tuple[int, int], levels: list[tuple[int, int | None]], want: int | None) -> None:
    b = proportion(base[0], base[1], 0.95)
    got = nolima_length(b, [level(length, k) for length, k in levels])
    assert (got.length if got else None) == want
    assert Fraction(85, 100) == NOLIMA_RATIO


def test_exactly_85_percent_passes_where_floating_point_would_not() -> None:
    # 0.85 * (100/300) = 0.28333... in floats; 85/300 is the exact bar and must pass.
    b = proportion(100, 300, 0.95)
    assert nolima_length(b, [level(1000, 85, 300)]) is not None
    assert nolima_length(b, [level(1000, 84, 300)]) is None


def _base_suite(tmp_path):
    """Two context lengths, 20 examples each, and their no-distractor twins; answers fixed per example:
    ``good`` is right on every twin, on 17 of 20 at 1,000 tokens (85%, at the bar) and on 16 of 20 at
    2,000 (80%); ``weak`` is right on half of the twins and on 9 of 20 at both lengths."""
    examples, twins, entries = [], [], []
    for li, length in enumerate((1000, 2000)):
        for i in range(20):
            idx = li * 20 + i
            ex = make_example("yesno", 8, 100, ("YES", "NO")[i % 2], seed=0, index=idx, distractor="essays",
                              context_length=length)
            twin = make_example("yesno", 8, 100, ("YES", "NO")[i % 2], seed=0, index=idx, distractor="none",
                                context_length=length)
            examples.append(ex)
            twins.append(twin)
            entries.append((ex, length, twin.id, False))
    entries += [(t, t.recipe.params.context_length, t.id, True) for t in twins]
    right: dict[str, set[str]] = {"good": set(), "weak": set()}
    for n, t in enumerate(twins):
        right["good"].add(t.id)
        if n % 2 == 0:
            right["weak"].add(t.id)
    for li in range(2):
        group = examples[li * 20 : (li + 1) * 20]
        right["good"].update(e.id for e in group[: (17, 16)[li]])
        right["weak"].update(e.id for e in group[:9])

    def answers(name: str):
        return lambda ex: ex.answer if ex.id in right[name] else ("NO" if ex.answer == "YES" else "YES")

    models = {name: {"answer": answers(name)} for name in right}
    write_suite(tmp_path, "length", examples + twins, models, np.random.default_rng(0))
    spec = SuiteSpec(name="length", vary="context_length", values=(1000, 2000), per_value=20, base=True)
    manifest = SuiteManifest(
        suite=spec, seed=0, per_value=20, snapshot="s", snapshot_hash="s" * 64, synthetic=True, version="0",
        created_at=dt.datetime(2026, 12, 1, tzinfo=dt.UTC).isoformat(),
        examples=tuple(SuiteManifestExample(id=ex.id, index=ex.recipe.params.index, value=value, recipe=ex.recipe,
                                            base_id=base, is_base=is_base) for ex, value, base, is_base in entries),
    )
    write_suite_manifest(tmp_path / "examples" / "length.json", manifest)
    return examples, twins


def test_base_twins_leave_the_tables_and_give_base_accuracy_and_effective_length(tmp_path) -> None:
    examples, twins = _base_suite(tmp_path)
    data = load_suite("length", runs_root=tmp_path / "runs", examples_root=tmp_path / "examples")
    assert set(data.examples) == {e.id for e in examples} and data.levels == ("1k", "2k")
    assert set(data.outcomes.example_id.tolist()) == {e.id for e in examples}
    assert data.base is not None and set(data.base.example_id.tolist()) == {t.id for t in twins}
    report = build_report(data)
    table = report.table("effective_length")
    assert "NoLiMa rule" in " ".join(table.header) and "RULER rule" in " ".join(table.header)
    cells = {(v.row, v.column): v for v in table.values}
    good, weak = (next(r for r in data.row_labels if r.startswith(m)) for m in ("good", "weak"))
    assert (cells[(good, "base accuracy")].k, cells[(good, "base accuracy")].n) == (40, 40)
    assert (cells[(weak, "base accuracy")].k, cells[(weak, "base accuracy")].n) == (20, 40)
    b = cells[(weak, "base accuracy")]
    assert b.low is not None and b.high is not None and b.low < 0.5 < b.high  # the Wilson bounds are given
    # good: 85% at 1k (exactly 85% of 100%), 80% at 2k -> 1,000; weak: 45% >= 85% of 50% at both -> 2,000
    assert cells[(good, "effective length (NoLiMa rule)")].value == 1000.0
    assert (cells[(good, "effective length (NoLiMa rule)")].k, cells[(good, "effective length (NoLiMa rule)")].n) == (17, 20)
    assert cells[(weak, "effective length (NoLiMa rule)")].value == 2000.0
    # the accuracy table counts the suite's own examples only
    accuracy = {(v.row, v.column): v for v in report.table("accuracy").values if v.metric == "accuracy"}
    assert accuracy[(good, "1k")].k == 17 and accuracy[(good, "1k")].n == 20


def test_the_ruler_column_applies_the_fixed_threshold_to_the_wilson_lower_bound(tmp_path) -> None:
    """RULER's rule differs from NoLiMa's on the same answers: with a fixed threshold of 50%, ``good``
    (17/20 at 1k, 16/20 at 2k) keeps 2,000 tokens by RULER's rule, whose Wilson lower bounds are 0.640
    and 0.584 (statsmodels), while NoLiMa's 85%-of-base rule stops at 1,000; at the default threshold
    (random 50% + 25 points = 75%) neither length's lower bound clears it."""
    from statsmodels.stats.proportion import proportion_confint

    from graphniah.report import ReportConfig

    _base_suite(tmp_path)
    data = load_suite("length", runs_root=tmp_path / "runs", examples_root=tmp_path / "examples")
    good, weak = (next(r for r in data.row_labels if r.startswith(m)) for m in ("good", "weak"))
    assert proportion_confint(17, 20, method="wilson")[0] == pytest.approx(0.6396, abs=1e-4)
    assert proportion_confint(16, 20, method="wilson")[0] == pytest.approx(0.5840, abs=1e-4)
    assert proportion_confint(9, 20, method="wilson")[0] == pytest.approx(0.2582, abs=1e-4)

    cells = {(v.row, v.column): v for v in build_report(data, ReportConfig(threshold=0.5)).table("effective_length").values}
    ruler = cells[(good, "effective length (RULER rule)")]
    assert (ruler.value, ruler.k, ruler.n) == (2000.0, 16, 20)
    assert ruler.low == pytest.approx(0.5840, abs=1e-4)
    assert cells[(good, "effective length (NoLiMa rule)")].value == 1000.0  # the other rule, on the same answers
    assert cells[(weak, "effective length (RULER rule)")].value is None  # 0.258 < 0.5 at the shortest length
    row = next(r for r in build_report(data, ReportConfig(threshold=0.5)).table("effective_length").rows if r[0].text == good)
    assert row[4].text == "2k"

    default = {(v.row, v.column): v for v in build_report(data).table("effective_length").values}
    assert default[(good, "effective length (RULER rule)")].value is None  # 0.640 < 0.75
