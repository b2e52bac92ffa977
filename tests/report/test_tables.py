"""Report tables recomputed independently from synthetic journals with known answers."""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from fractions import Fraction

import numpy as np
import pytest
from scipy import stats as sps
from statsmodels.stats.contingency_tables import mcnemar
from statsmodels.stats.multitest import multipletests
from statsmodels.stats.proportion import proportion_confint

from graphniah.errors import GraphNIAHError
from graphniah.formats.journal import JOURNAL_FORMAT, Journal, RunRecord
from graphniah.report import ReportConfig, build_report, load_suite
from tests.report.synthetic import depth_suite, make_example, write_suite


def wilson(k: int, n: int) -> tuple[float, float]:
    return proportion_confint(k, n, alpha=0.05, method="wilson")


@pytest.fixture(scope="module")
def depth(tmp_path_factory):
    root = tmp_path_factory.mktemp("depth")
    # gamma never sees the first 10 examples: its cells get daggers and no bold.
    suite = depth_suite(root, per_cell=14, seed=3, fail_rate=0.15, fail_only_rate=0.04,
                        models={"alpha": {"p": lambda ex: {4: 0.95, 8: 0.75, 16: 0.45}[ex.depth]},
                                "beta": {"p": 0.4},
                                "gamma": {"p": lambda ex: 0.8 if ex.task != "count" else 0.2}},
                        skip=None)
    data = load_suite("depth", runs_root=suite.runs_root, examples_root=suite.examples_root)
    return suite, data, build_report(data)


def test_varied_variable_inferred_from_equal_counts(depth):
    _, data, _ = depth
    assert data.variable == "depth" and data.levels == ("4", "8", "16")
    assert data.row_labels == ("alpha", "beta", "gamma")


def test_accuracy_cells_match_plain_counting(depth):
    suite, _, report = depth
    t = report.table("accuracy")
    k, n = Counter(), Counter()
    for tr in suite.truth:
        for col in (str(tr.depth), "Overall"):
            n[(tr.model, col)] += 1
            k[(tr.model, col)] += tr.correct
    for model in ("alpha", "beta", "gamma"):
        for col in ("4", "8", "16", "Overall"):
            v = t.value(model, col)
            assert (v.k, v.n) == (k[(model, col)], n[(model, col)])
            lo, hi = wilson(v.k, v.n)
            assert v.low == pytest.approx(lo, abs=1e-12) and v.high == pytest.approx(hi, abs=1e-12)
            assert t.cell(model, col).text.startswith(f"{100 * v.k / v.n:.2f}")
    # #Examples: distinct examples answered by some model; the random row is (1/2 + 1/4 + 1/151) / 3.
    answered = defaultdict(set)
    for tr in suite.truth:
        answered[str(tr.depth)].add(tr.example_id)
        answered["Overall"].add(tr.example_id)
    ex_row = next(r for r in t.rows if r[0].text == "#Examples")
    assert [c.text for c in ex_row[1:]] == [str(len(answered[c])) for c in ("4", "8", "16", "Overall")]
    base_row = next(r for r in t.rows if r[0].text == "Random guessing")
    assert {c.text for c in base_row[1:]} == {f"{100 * float(Fraction(457, 1812)):.2f}"} == {"25.22"}


def test_failures_are_counted_apart_and_daggers_mark_short_rows(depth):
    suite, data, report = depth
    for run in data.runs:
        assert set(run.failed) == suite.failed_only.get((run.model, run.settings_hash), set())
        assert run.answered == sum(1 for tr in suite.truth if tr.model == run.model)
    t = report.table("accuracy")
    for row in t.rows[:3]:
        for cell, col in zip(row[1:], t.header[1:], strict=True):
            v = t.value(row[0].text, col)
            ex = int(next(r for r in t.rows if r[0].text == "#Examples")[t.header.index(col)].text)
            assert ("†" in cell.text) == (v.n < ex)
            if "†" in cell.text:
                assert not cell.bold
    cost = report.table("cost")
    for run in data.runs:
        assert cost.value(run.label, "failed").k == len(run.failed)


def test_per_task_label_no_rate_and_counting_tables(depth):
    suite, data, report = depth
    keys = report.keys
    assert {"accuracy_yesno", "accuracy_mc", "accuracy_count", "labels", "no_rate", "counting", "counting_by_size"} <= set(keys)
    per_task = Counter()
    labels = Counter()
    no = Counter()
    for tr in suite.truth:
        per_task[(tr.task, tr.model, str(tr.depth), "n")] += 1
        per_task[(tr.task, tr.model, str(tr.depth), "k")] += tr.correct
        if tr.task == "yesno":
            lab = "YES-label" if tr.answer == "YES" else "NO-label"
            labels[(tr.model, lab, "n")] += 1
            labels[(tr.model, lab, "k")] += tr.correct
            no[(tr.model, "n")] += 1
            no[(tr.model, "k")] += tr.extracted == "NO"
    for task in ("yesno", "mc", "count"):
        t = report.table(f"accuracy_{task}")
        for model in data.row_labels:
            for col in ("4", "8", "16"):
                v = t.value(model, col)
                assert (v.k, v.n) == (per_task[(task, model, col, "k")], per_task[(task, model, col, "n")])
        base = {"yesno": "50.00", "mc": "25.00", "count": "0.66"}[task]
        assert {c.text for c in next(r for r in t.rows if r[0].text == "Random guessing")[1:]} == {base}
    lt = report.table("labels")
    for model in data.row_labels:
        for lab in ("YES-label", "NO-label"):
            v = lt.value(f"{model} | {lab}", "Overall")
            assert (v.k, v.n) == (labels[(model, lab, "k")], labels[(model, lab, "n")])
        v = report.table("no_rate").value(model, "Overall", "no_share")
        assert (v.k, v.n) == (no[(model, "k")], no[(model, "n")])
    ct = report.table("counting")
    for model in data.row_labels:
        rows = [tr for tr in suite.truth if tr.model == model and tr.task == "count"]
        pred = [None if tr.extracted is None else int(tr.extracted) for tr in rows]
        truth = [int(tr.answer) for tr in rows]
        exact = sum(p == t for p, t in zip(pred, truth, strict=True))
        low = sum(p is not None and p < t for p, t in zip(pred, truth, strict=True))
        high = sum(p is not None and p > t for p, t in zip(pred, truth, strict=True))
        none = sum(p is None for p in pred)
        within = sum(p is not None and abs(p - t) * 10 <= t for p, t in zip(pred, truth, strict=True))
        got = [ct.value(model, c).k for c in ("Exact", "Too low", "Too high", "No number", "Within 10%")]
        assert got == [exact, low, high, none, within] and sum(got[:4]) == len(rows)
        ratios = [p / t for p, t in zip(pred, truth, strict=True) if p is not None]
        assert ct.value(model, "Median ratio").value == pytest.approx(float(np.median(ratios)))


def test_pairwise_fisher_holm_and_chi2_match_scipy_statsmodels(depth):
    suite, data, report = depth
    t = report.table("pairwise")
    for model in data.row_labels:
        kn = {c: [0, 0] for c in ("4", "8", "16")}
        for tr in suite.truth:
            if tr.model == model:
                kn[str(tr.depth)][0] += tr.correct
                kn[str(tr.depth)][1] += 1
        pairs = [("4", "8"), ("4", "16"), ("8", "16")]
        raw = [sps.fisher_exact([[kn[a][0], kn[a][1] - kn[a][0]], [kn[b][0], kn[b][1] - kn[b][0]]]).pvalue for a, b in pairs]
        adj = multipletests(raw, method="holm")[1]
        for (a, b), p, q in zip(pairs, raw, adj, strict=True):
            assert t.value(f"{a} vs {b}", model, "fisher_raw").pvalue == pytest.approx(p)
            assert t.value(f"{a} vs {b}", model, "fisher_holm").pvalue == pytest.approx(q)
            diff = kn[b][0] / kn[b][1] - kn[a][0] / kn[a][1]
            assert t.value(f"{a} vs {b}", model, "fisher_holm").value == pytest.approx(diff)
        chi = sps.chi2_contingency([[k, n - k] for k, n in kn.values()], correction=False)
        assert t.value("chi2", model).pvalue == pytest.approx(chi.pvalue)


def test_cost_table_means_and_totals(depth):
    suite, data, report = depth
    t = report.table("cost")
    for model in data.row_labels:
        rows = [tr for tr in suite.truth if tr.model == model]
        assert t.value(model, "completion_tokens", "mean").value == pytest.approx(np.mean([r.completion_tokens for r in rows]))
        assert t.value(model, "response_time_s", "mean").value == pytest.approx(np.mean([r.response_time_s for r in rows]))
        assert t.value(model, "cost_usd", "total").value == pytest.approx(sum(r.cost_usd for r in rows))
    total = sum(r.cost_usd for r in suite.truth)
    assert t.rows[-1][0].text == "All models" and t.rows[-1][-1].text == f"{total:,.2f}"


def test_effective_depth_is_the_last_level_of_the_passing_prefix(depth):
    suite, data, report = depth
    threshold = float(Fraction(457, 1812)) + 0.25
    for scale in report.effective_depth:
        expected = below = None
        for d in (4, 8, 16):
            rows = [tr for tr in suite.truth if tr.model == scale.row and tr.depth == d]
            lo, _ = wilson(sum(r.correct for r in rows), len(rows))
            if lo > threshold:
                expected = str(d)
            else:
                below = str(d)
                break
        assert (scale.effective.label if scale.effective else None) == expected
        assert (scale.first_below.label if scale.first_below else None) == below
    # alpha is built to pass at depth 4 at least (95% of 42 answered): the check can fail.
    assert report.effective_depth[0].effective is not None
    eff = report.table("effective")
    assert eff.cell("alpha", "Effective depth").text == report.effective_depth[0].effective.label
    fixed = build_report(data, ReportConfig(threshold=0.0))
    assert all(s.first_below is None for s in fixed.effective_depth)  # every level beats 0%


def test_last_ok_record_counts_and_unknown_examples_are_noted(tmp_path):
    ex = [make_example("yesno", 4, 120, lab, seed=0, index=i) for i, lab in enumerate(("YES", "NO"))]
    from graphniah.formats.examples import write_examples

    write_examples(tmp_path / "examples" / "s.jsonl", ex)

    truth = {e.id: e.answer for e in ex}

    def rec(eid, status, text=None):
        return RunRecord(example_id=eid, model="m", settings_hash="h", status=status, task="yesno",
                         answer=truth.get(eid, "YES"), response=text, attempts=1, finished_at="2026-11-01T00:00:00+00:00")

    with Journal(tmp_path / "runs" / "s" / "m.jsonl") as j:
        j.append([rec(ex[0].id, "failed"), rec(ex[0].id, "ok", "\\answer{NO}"), rec(ex[0].id, "ok", "\\answer{YES}"),
                  rec(ex[1].id, "ok", "\\answer{YES}"), rec(ex[1].id, "failed"), rec("yesno-unknown", "ok", "\\answer{YES}")])
    # a partial last line (a run killed mid-write) is ignored
    with open(tmp_path / "runs" / "s" / "m.jsonl", "ab") as f:
        f.write(b'{"example_id": "x", "mo')
    data = load_suite("s", runs_root=tmp_path / "runs", examples_root=tmp_path / "examples", by="task")
    o = data.outcomes
    got = dict(zip(o.example_id.tolist(), o.extracted.tolist(), strict=True))
    assert got == {ex[0].id: "YES", ex[1].id: "YES"}  # last ok wins; a later failure does not undo an ok
    assert o.correct.tolist() == [True, False] or sorted(o.correct.tolist()) == [False, True]
    assert data.runs[0].failed == () and data.unknown_examples == 1
    assert any("not in" in n for n in data.notes)


def test_reader_errors_name_the_file_and_line(tmp_path):
    ex = [make_example("yesno", 4, 120, "YES", seed=0, index=0)]
    from graphniah.formats.examples import write_examples

    write_examples(tmp_path / "examples" / "s.jsonl", ex)
    with pytest.raises(GraphNIAHError, match="no journals"):
        load_suite("s", runs_root=tmp_path / "runs", examples_root=tmp_path / "examples")
    bad = tmp_path / "runs" / "s" / "m.jsonl"
    bad.parent.mkdir(parents=True)
    good = {"example_id": ex[0].id, "model": "m", "settings_hash": "h", "status": "ok", "task": "yesno",
            "answer": "YES", "response": "\\answer{YES}", "attempts": 1, "finished_at": "2026-11-01T00:00:00+00:00"}
    bad.write_text(json.dumps(good) + "\nnot json\n")
    with pytest.raises(GraphNIAHError, match=r"m\.jsonl:2: not JSON"):
        load_suite("s", runs_root=tmp_path / "runs", examples_root=tmp_path / "examples")
    bad.write_text('{"example_id": "a", "model": "m"}\n')
    with pytest.raises(GraphNIAHError, match=r"m\.jsonl:1: not a valid run record \(settings_hash: Field required"):
        load_suite("s", runs_root=tmp_path / "runs", examples_root=tmp_path / "examples")
    # the report reads journals through the runner's RunRecord: a field it does not know is not silently dropped
    bad.write_text(json.dumps(good | {"some_future_field": [1, 2]}) + "\n")
    with pytest.raises(GraphNIAHError, match=r"m\.jsonl:1: not a valid run record \(some_future_field"):
        load_suite("s", runs_root=tmp_path / "runs", examples_root=tmp_path / "examples")
    # a version newer than this code writes (JOURNAL_FORMAT.current + 1) is refused, naming file and line
    newer = JOURNAL_FORMAT.current + 1
    bad.write_text(json.dumps(good | {"format_version": newer}) + "\n")
    with pytest.raises(GraphNIAHError, match=rf"m\.jsonl:1: run record format_version {newer} is not supported"):
        load_suite("s", runs_root=tmp_path / "runs", examples_root=tmp_path / "examples")
    bad.write_text(json.dumps(good) + "\n")  # a line written before versions existed (version 1) still reads
    data = load_suite("s", runs_root=tmp_path / "runs", examples_root=tmp_path / "examples")
    assert data.outcomes.correct.tolist() == [True]
    with pytest.raises(GraphNIAHError, match="unknown varied variable 'colour'"):
        load_suite("s", runs_root=tmp_path / "runs", examples_root=tmp_path / "examples", by="colour")
    # the suite manifest is read through its model: a file that is not one is an error naming it
    (tmp_path / "examples" / "s.json").write_text(json.dumps({"variable": "distractor"}))
    with pytest.raises(GraphNIAHError, match=r"s\.json: not a valid suite manifest"):
        load_suite("s", runs_root=tmp_path / "runs", examples_root=tmp_path / "examples")
    from graphniah.formats.suites import Draw, SizeRange, SuiteManifest, SuiteManifestExample, SuiteSpec, write_suite_manifest

    spec = SuiteSpec(name="s", vary="distractor", values=("none", "code"), per_value=1,
                     draw=Draw(component_size=SizeRange(min=100, max=130)))
    write_suite_manifest(tmp_path / "examples" / "s.json", SuiteManifest(
        suite=spec, seed=0, per_value=1, snapshot="snap", snapshot_hash="s" * 64, synthetic=True, version="0",
        created_at="2026-11-01T00:00:00+00:00",
        examples=(SuiteManifestExample(id=ex[0].id, index=0, value="none", recipe=ex[0].recipe),)))
    data = load_suite("s", runs_root=tmp_path / "runs", examples_root=tmp_path / "examples")
    assert (data.variable, data.size_range) == ("distractor", (100, 130))


# ------------------------------------------------------------------------------------------------
# The paper's printed numbers (task experiment, GPT-5.6-Luna: Tables 13, 14 and 26)
# ------------------------------------------------------------------------------------------------


def test_task_experiment_reproduces_the_papers_printed_cells(tmp_path):
    examples = []
    depths = np.random.default_rng(11).choice([4, 8, 16, 32], size=300)  # drawn at random, as in the paper
    for task in ("yesno", "mc", "count"):
        for i in range(100):
            label = {"yesno": ("YES", "NO")[i % 2], "mc": "ABCD"[i % 4], "count": str(100 + i)}[task]
            examples.append(make_example(task, int(depths[len(examples)]), 101 + i, label, seed=1, index=len(examples)))
    # Luna: YES/NO 66 of 100 (YES-label 16 of 50, NO-label 50 of 50, so 84 NO answers),
    # multiple choice 68 of 100, counting 0 of 100.
    yes_seen = Counter()

    def luna(ex):
        i = ex.recipe.params["index"] % 100
        if ex.task == "yesno":
            if ex.answer == "NO":
                return "NO"
            yes_seen["n"] += 1
            return "YES" if yes_seen["n"] <= 16 else "NO"
        if ex.task == "mc":
            return ex.answer if i < 68 else "ABCD"[("ABCD".index(ex.answer) + 1) % 4]
        return str(int(ex.answer) // 3)

    write_suite(tmp_path, "task", examples, {"gpt-5.6-luna": {"answer": luna}}, np.random.default_rng(0))
    from graphniah.stats import PAPER_Z

    data = load_suite("task", runs_root=tmp_path / "runs", examples_root=tmp_path / "examples")
    assert data.variable == "task"
    report = build_report(data, ReportConfig(z=PAPER_Z))
    acc = report.table("accuracy")
    assert [acc.cell("gpt-5.6-luna", c).text.replace("**", "") for c in acc.header[1:]] == [
        "66.00 [56.28, 74.54]", "68.00 [58.34, 76.33]", "0.00 [0.00, 3.70]", "44.67 [39.14, 50.32]"]  # Table 26
    assert [c.text for c in next(r for r in acc.rows if r[0].text == "Random guessing")[1:]] == ["50.00", "25.00", "0.66", "25.22"]
    labels = report.table("labels")  # Table 13 layout: the labels are the columns
    assert labels.header == ("Model", "YES-label", "NO-label", "Overall")
    assert [labels.cell("gpt-5.6-luna", c).text for c in labels.header[1:]] == [
        "32.00 [20.76, 45.81]", "100.00 [92.86, 100.00]", "66.00 [56.28, 74.54]"]
    no_rate = report.table("no_rate")  # Table 14: overall 84 of 100 answered NO
    assert no_rate.cell("gpt-5.6-luna", "Overall").text == "84.00 [75.58, 89.90]"
    assert no_rate.cell("Ground truth", "Overall").text == "50.00"
    counting = report.table("counting")  # every count a third of the truth: all too low
    assert counting.cell("gpt-5.6-luna", "Too low").text == "100.00 [96.30, 100.00]"
    assert counting.cell("gpt-5.6-luna", "Exact").text == "0.00 [0.00, 3.70]"  # Table 15's Exact cell


# ------------------------------------------------------------------------------------------------
# Paired designs: the 'none of these' option and reasoning effort
# ------------------------------------------------------------------------------------------------


def test_none_option_before_after_mcnemar_and_wilcoxon(tmp_path):
    rng = np.random.default_rng(5)
    examples = [
        make_example("mc", 8, 150, "ABCD"[i % 4], seed=2, index=i, none_option=none) for i in range(40) for none in (False, True)
    ]
    models = {"m1": {"p": lambda ex: 0.3 if ex.none_option else 0.8}, "m2": {"p": 0.7}}
    suite = write_suite(tmp_path, "none", examples, models, rng)
    data = load_suite("none", runs_root=tmp_path / "runs", examples_root=tmp_path / "examples")
    assert data.variable == "none_option"
    report = build_report(data)
    t = report.table("none_option")
    for model in ("m1", "m2"):
        by = {(tr.pair, tr.none_option): tr for tr in suite.truth if tr.model == model}
        pairs = sorted({p for p, _ in by})
        before = [by[(p, False)] for p in pairs]
        after = [by[(p, True)] for p in pairs]
        gained = sum(not b.correct and a.correct for b, a in zip(before, after, strict=True))
        lost = sum(b.correct and not a.correct for b, a in zip(before, after, strict=True))
        v = t.value(model, "Gained / lost")
        assert (v.k, v.n) == (gained, lost)
        both = sum(b.correct and a.correct for b, a in zip(before, after, strict=True))
        neither = len(pairs) - gained - lost - both
        assert v.pvalue == pytest.approx(mcnemar([[both, lost], [gained, neither]], exact=True).pvalue)
        assert t.value(model, "Before").k == sum(b.correct for b in before)
        x = [b.completion_tokens for b in before]
        y = [a.completion_tokens for a in after]
        w = report.table("none_option_tokens").value(f"{model} | Output", "Median change")
        assert w.value == pytest.approx(float(np.median(np.subtract(y, x))))
        assert w.pvalue == pytest.approx(sps.wilcoxon(np.subtract(y, x), method="exact").pvalue)
    assert [c.text for c in t.rows[-1][2:5]] == ["25.00", "20.00", "-5.00"]


def test_reasoning_effort_rows_are_models_and_pairs_use_mcnemar(tmp_path):
    rng = np.random.default_rng(8)
    examples = [make_example("yesno", 8, 150, ("YES", "NO")[i % 2], seed=4, index=i) for i in range(60)]
    models = {f"luna-{e}": {"model": "luna", "journal": "luna", "effort": e, "settings": f"h-{e}", "p": p}
              for e, p in (("low", 0.5), ("medium", 0.6), ("high", 0.8))}
    suite = write_suite(tmp_path, "effort", examples, models, rng)
    data = load_suite("effort", runs_root=tmp_path / "runs", examples_root=tmp_path / "examples")
    assert data.variable == "reasoning_effort" and data.levels == ("low", "medium", "high") and data.row_labels == ("luna",)
    report = build_report(data)
    acc = report.table("accuracy")
    for e in ("low", "medium", "high"):
        rows = [tr for tr in suite.truth if tr.reasoning_effort == e]
        assert (acc.value("luna", e).k, acc.value("luna", e).n) == (sum(r.correct for r in rows), len(rows))
    paired = report.table("paired")
    at = {(tr.reasoning_effort, tr.example_id): tr.correct for tr in suite.truth}
    ids = [ex.id for ex in examples]
    gained = sum(not at[("low", i)] and at[("high", i)] for i in ids)
    lost = sum(at[("low", i)] and not at[("high", i)] for i in ids)
    v = paired.value("luna", "low → high")
    assert (v.k, v.n) == (gained, lost)
    assert "pairwise" not in report.keys
    cost = report.table("cost")
    assert cost.header[:2] == ("Model", "Reasoning effort") and len(cost.rows) == 4


def test_suite_manifest_gives_variable_and_size_range(tmp_path):
    """The manifest ``graphniah.sampling.suites.build_suite`` writes: ``suite.vary`` and the drawn size range."""
    rng = np.random.default_rng(2)
    examples = [make_example(t, 4, 105, {"yesno": "YES", "mc": "A", "count": "104"}[t], seed=0, index=i)
                for i, t in enumerate(("yesno", "mc", "count") * 4)]
    write_suite(tmp_path, "demo", examples, {"m": {"p": 0.5}}, rng)
    from graphniah.formats.suites import Draw, SizeRange, SuiteManifest, SuiteManifestExample, SuiteSpec, write_suite_manifest

    spec = SuiteSpec(name="demo", vary="task", values=("yesno", "mc", "count"), per_value=4,
                     draw=Draw(component_size=SizeRange(min=100, max=120)))
    write_suite_manifest(tmp_path / "examples" / "demo.json", SuiteManifest(
        suite=spec, seed=0, per_value=4, snapshot="snap", snapshot_hash="s" * 64, synthetic=True, version="0",
        created_at="2026-11-01T00:00:00+00:00",
        examples=tuple(SuiteManifestExample(id=ex.id, index=i, value=ex.task, recipe=ex.recipe) for i, ex in enumerate(examples))))
    data = load_suite("demo", runs_root=tmp_path / "runs", examples_root=tmp_path / "examples")
    assert data.variable == "task" and "manifest" in data.variable_source and data.size_range == (100, 120)
    base = next(r for r in build_report(data).table("accuracy").rows if r[0].text == "Random guessing")
    assert [c.text for c in base[1:4]] == ["50.00", "25.00", f"{100 / 21:.2f}"]  # counts 99..119


def test_size_ranges_follow_the_paper_and_skip_empty_ones():
    from graphniah.report.grid import size_bins

    codes, labels, uppers = size_bins(np.array([100, 149, 150, 250, 201]))
    assert labels == ("100–149", "150–199", "200–250") and codes.tolist() == [0, 0, 1, 2, 2] and uppers == (149, 199, 250)
    codes, labels, _ = size_bins(np.array([100, 120, 110]))
    assert labels == ("100–149",) and codes.tolist() == [0, 0, 0]
    codes, labels, _ = size_bins(np.array([20, 30, 40, 50]))
    assert labels == ("20–30", "31–41", "42–50") and codes.tolist() == [0, 0, 1, 2]


def test_context_length_pairs_print_raw_p_values_and_holm_beside(tmp_path):
    """Table 22: per pair of lengths, Fisher's exact test on independent samples, raw p as in the
    paper and the Holm-adjusted p beside it; 100 examples at 200k, 50 at 500k and 50 at 922k."""
    from graphniah.stats import format_pvalue

    counts = {200_000: 100, 500_000: 50, 922_000: 50}
    right = {200_000: 71, 500_000: 32, 922_000: 30}  # the paper's 71%, 64%, 60% for Gemini-3.8-Flash
    examples, rank = [], {}
    for length, n in counts.items():
        for i in range(n):
            ex = make_example("mc", 8, 150, "ABCD"[i % 4], seed=2, index=len(examples), distractor="essays",
                              context_length=length)
            rank[ex.id] = i
            examples.append(ex)

    def flash(ex):
        length = ex.recipe.params["context_length"]
        return ex.answer if rank[ex.id] < right[length] else "ABCD"[("ABCD".index(ex.answer) + 1) % 4]

    write_suite(tmp_path, "lengths", examples, {"flash": {"answer": flash}}, np.random.default_rng(1))
    data = load_suite("lengths", runs_root=tmp_path / "runs", examples_root=tmp_path / "examples", by="context_length")
    assert data.levels == ("200k", "500k", "922k")
    t = build_report(data).table("pairwise")
    pairs = [(200_000, 500_000), (200_000, 922_000), (500_000, 922_000)]
    raw = [sps.fisher_exact([[right[a], counts[a] - right[a]], [right[b], counts[b] - right[b]]]).pvalue for a, b in pairs]
    adj = multipletests(raw, method="holm")[1]
    for (a, b), p, q in zip(pairs, raw, adj, strict=True):
        row = f"{a // 1000}k vs {b // 1000}k"
        assert t.value(row, "flash", "fisher_raw").pvalue == pytest.approx(p)
        assert t.value(row, "flash", "fisher_holm").pvalue == pytest.approx(q)
        diff = right[b] / counts[b] - right[a] / counts[a]
        mde = t.value(row, "flash", "detectable_80")
        assert mde.n == counts[a] + counts[b] and mde.value is not None and mde.value > abs(diff)  # too few examples to see it
        assert t.cell(row, "flash").text == (f"{100 * diff:+.2f} p = {format_pvalue(p)} (Holm p = {format_pvalue(q)}) "
                                             f"(detects ±{100 * mde.value:.1f})")
        assert p > 0.1  # as in the paper: no change is significant
    assert "raw (as in the paper's Table 22)" in t.caption
