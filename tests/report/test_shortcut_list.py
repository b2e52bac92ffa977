"""The list task's shortcut verdict: mean F1 against listing every paper, not exact sets against 0%."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import wilcoxon

from graphniah.formats.examples import Example
from graphniah.report import build_report, load_suite
from graphniah.report.shortcuts import shortcut_results, shortcut_verdicts
from tests.report.synthetic import write_suite
from tests.report.test_listing import _title, list_example


def _share(ex: Example, share: float) -> str:
    """The first ``share`` of the truth's titles (never all of them: no answer is an exact set)."""
    n = min(max(1, int(share * len(ex.targets))), len(ex.targets) - 1)
    return "\n".join(_title(t) for t in sorted(ex.targets)[:n])


def _f1(ex: Example, share: float) -> float:
    """F1 written out: every listed title is right (precision 1), recall = listed / reachable."""
    listed = min(max(1, int(share * len(ex.targets))), len(ex.targets) - 1)
    recall = listed / len(ex.targets)
    return 2 * recall / (1 + recall)


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    rng = np.random.default_rng(8)
    root = tmp_path_factory.mktemp("shortcut-list")
    examples = [list_example(rng, i, int(rng.integers(12, 30)), 4 if i % 2 else 8) for i in range(40)]
    models = {
        "baseline-topic-cluster": {"answer": lambda ex: _share(ex, 0.8)},  # F1 ~0.89, never exact
        "baseline-retrieval": {"answer": lambda ex: _share(ex, 0.25)},  # F1 ~0.4, below listing everything
    }
    write_suite(root, "lists", examples, models, rng)
    data = load_suite("lists", runs_root=root / "runs", examples_root=root / "examples", by="depth")
    return examples, build_report(data)


def test_list_shortcuts_are_judged_by_f1_against_listing_every_paper(report) -> None:
    examples, rep = report
    # listing every paper but the source: precision (size - 1) / (papers in the context - 1), recall 1;
    # the synthetic examples hold three times their component's papers
    every = float(np.mean([2 * ((e.component_size - 1) / (3 * e.component_size - 1))
                           / (1 + (e.component_size - 1) / (3 * e.component_size - 1)) for e in examples]))
    results = {r.shortcut: r for r in shortcut_results(rep.context) if r.task == "list"}
    assert set(results) == {"topic-cluster", "retrieval"}
    for name, share in (("topic-cluster", 0.8), ("retrieval", 0.25)):
        r = results[name]
        assert r.accuracy.k == 0  # no exact set: the accuracy rule alone would never call it a shortcut
        assert r.f1 is not None and r.list_all == pytest.approx(every)
        assert r.f1.estimate == pytest.approx(np.mean([_f1(e, share) for e in examples]))
        assert r.f1.interval.low <= r.f1.estimate <= r.f1.interval.high
    assert results["topic-cluster"].beats_random and results["topic-cluster"].f1.interval.low > every  # type: ignore[union-attr]
    assert not results["retrieval"].beats_random and results["retrieval"].f1.interval.high < every  # type: ignore[union-attr]
    # the p-value: one-sided Wilcoxon signed-rank of each example's F1 against listing every paper (scipy, directly)
    for name, share in (("topic-cluster", 0.8), ("retrieval", 0.25)):
        diffs = [_f1(e, share) - 2 * ((e.component_size - 1) / (3 * e.component_size - 1))
                 / (1 + (e.component_size - 1) / (3 * e.component_size - 1)) for e in examples]
        # doubled, to stand in the two-sided family at the same level; judged above only
        assert results[name].pvalue == pytest.approx(min(1.0, 2 * wilcoxon(diffs, alternative="greater").pvalue), rel=1e-6)
        assert results[name].direction == "above"
    [verdict] = [v for v in shortcut_verdicts(rep.context) if v.task == "list"]
    assert [r.shortcut for r in verdict.beaten_by] == ["topic-cluster"]
    assert "listing every paper (F1 " in verdict.text and "topic-cluster F1 " in verdict.text
    assert verdict.list_all == pytest.approx(every)


def test_the_table_shows_f1_beside_listing_every_paper(report) -> None:
    _, rep = report
    table = rep.table("shortcuts")
    rows = {(row[0].text, row[1].text): row for row in table.rows}
    row = rows[("List", "topic-cluster")]
    assert row[2].text.startswith("F1 ") and row[4].text.startswith("List every paper F1 ") and row[6].text == "above"
    assert rows[("List", "retrieval")][6].text == "no"  # far below listing every paper, which exploits nothing
    assert table.value("List | topic-cluster", "f1", "f1").value > table.value("List | topic-cluster", "list_all", "baseline").value
    assert "the mean F1 with its 95% bootstrap interval, against the mean F1 of listing every paper" in table.caption
    by_depth = rep.table("shortcuts_by_depth")
    assert "with the 95% Wilson interval (list: mean F1 with its bootstrap interval)" in by_depth.caption
    labels = [row[1].text for row in by_depth.rows]
    assert "List every paper (F1)" in labels and "Random guessing" not in labels
    # the baseline row per depth: listing every paper's mean F1 over that depth's examples (written out, 3 × size papers)
    examples, _ = report
    (row,) = [r for r in by_depth.rows if r[1].text == "List every paper (F1)"]
    want = {d: np.mean([_list_every_paper(e.component_size) for e in examples if e.depth == d]) for d in (4, 8)}
    assert {h: c.text for h, c in zip(by_depth.header[2:], row[2:], strict=True)} == {str(d): f"{100 * f:.2f}" for d, f in want.items()}


def test_a_list_shortcut_equal_to_listing_every_paper_and_too_few_examples(tmp_path) -> None:
    """Answering exactly what listing every paper scores is no evidence (p = 1, not an error), and with five
    examples and two cells even F1 above it on every example cannot pass Holm's first step (2^-5 > 2.5% / 2)."""
    rng = np.random.default_rng(3)
    examples = [list_example(rng, i, int(rng.integers(12, 30)), 4) for i in range(5)]

    def everything(ex: Example) -> str:  # as many titles as the context has papers but the source: the trivial F1 exactly
        base = 1000 * (int(ex.recipe.params["index"]) + 1)
        others = range(base + ex.component_size, base + 3 * ex.component_size)  # 2 × size titles that are not targets
        return "\n".join([*map(_title, ex.targets), *map(_title, others)])

    models = {"baseline-topic-cluster": {"answer": everything}, "baseline-retrieval": {"answer": lambda ex: _share(ex, 0.8)}}
    write_suite(tmp_path, "few", examples, models, rng)
    rep = build_report(load_suite("few", runs_root=tmp_path / "runs", examples_root=tmp_path / "examples", by="depth"))
    results = {r.shortcut: r for r in shortcut_results(rep.context)}
    assert results["topic-cluster"].f1.estimate == pytest.approx(results["topic-cluster"].list_all)  # type: ignore[union-attr]
    assert results["topic-cluster"].pvalue == 1.0
    assert not any(r.flaggable or r.beats_random for r in results.values())
    [verdict] = shortcut_verdicts(rep.context)
    assert verdict.text.endswith("(Holm over 2 tests; at 5 examples no result can pass, not even every answer right)")


def _list_every_paper(size: int) -> float:
    """F1 of listing every paper but the source, written out: the synthetic contexts hold 3 × size papers."""
    precision = (size - 1) / (3 * size - 1)
    return 2 * precision / (1 + precision)


def test_the_verdict_baseline_counts_each_example_once(tmp_path) -> None:
    """Two list shortcuts, one of which skipped the larger half of the examples: the verdict's F1 of listing every
    paper is the mean over the examples any shortcut answered, each once (not once per shortcut that answered it)."""
    rng = np.random.default_rng(5)
    examples = [list_example(rng, i, 10 + 4 * i, 4) for i in range(12)]
    skipped = {e.id for e in examples if e.component_size >= 34}  # the six largest
    models = {"baseline-topic-cluster": {"answer": lambda ex: _share(ex, 0.8)}, "baseline-retrieval": {"answer": lambda ex: _share(ex, 0.8)}}
    write_suite(tmp_path, "half", examples, models, rng, skip={"baseline-retrieval": skipped})
    rep = build_report(load_suite("half", runs_root=tmp_path / "runs", examples_root=tmp_path / "examples", by="depth"))
    results = {r.shortcut: r for r in shortcut_results(rep.context)}
    assert results["retrieval"].list_all == pytest.approx(np.mean([_list_every_paper(10 + 4 * i) for i in range(6)]))
    assert results["topic-cluster"].list_all == pytest.approx(np.mean([_list_every_paper(10 + 4 * i) for i in range(12)]))
    [verdict] = shortcut_verdicts(rep.context)
    assert verdict.list_all == pytest.approx(np.mean([_list_every_paper(10 + 4 * i) for i in range(12)]))
    assert f", beat listing every paper (F1 {100 * verdict.list_all:.2f}%)" in verdict.text  # type: ignore[operator]
    assert "at one-sided p (doubled) ≤ 5%" in verdict.text
