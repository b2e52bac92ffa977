r"""Scoring: the last \answer{} block, normalisation per task, run summaries (Table 14/15 quantities)."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from graphniah.errors import GraphNIAHError
from graphniah.scoring import (
    ListPapers,
    Scored,
    counted_records,
    list_papers,
    recall_by_distance,
    run_labels,
    score_record,
    score_records,
    score_response,
    split_runs,
    title_index,
)
from graphniah.stats import counting_outcomes
from graphniah.text import normalize_answer


def test_score_response():
    s = score_response("count", "149", "I count 149 papers.\n\\answer{149}")
    assert (s.raw, s.extracted, s.correct) == ("149", "149", True)
    assert not score_response("mc", "B", "\\answer{A}").correct
    s = score_response("yesno", "NO", "I think it is NO")
    assert (s.extracted, s.correct) == (None, False)
    with pytest.raises(ValueError):
        normalize_answer("essay", "x")


@dataclass(frozen=True)
class R:
    """A record as scoring reads it; ``extracted``/``correct`` stand for the stored fields and become
    the response text (scoring never reads stored fields)."""

    example_id: str
    task: str
    answer: str
    status: str
    extracted: str | None
    correct: bool | None
    model: str = "m"
    settings_hash: str = "h"

    @property
    def response(self) -> str | None:
        return None if self.status != "ok" else (f"\\answer{{{self.extracted}}}" if self.extracted else "no answer")


def test_score_records_matches_the_paper_definitions():
    recs = [
        R("y1", "yesno", "YES", "ok", "YES", True),
        R("y2", "yesno", "NO", "ok", "NO", True),
        R("y3", "yesno", "YES", "ok", "NO", False),
        R("y4", "yesno", "NO", "failed", None, None),
        R("m1", "mc", "A", "ok", "A", True),
        R("m2", "mc", "B", "ok", None, False),
        R("c1", "count", "100", "ok", "100", True),
        R("c2", "count", "100", "ok", "95", False),
        R("c3", "count", "200", "ok", "260", False),
        R("c4", "count", "150", "ok", None, False),
    ]
    sc = score_records(recs)
    assert (sc.answered, sc.failed, sc.no_answer) == (9, 1, 2)
    assert (sc.overall.k, sc.overall.n) == (4, 9)  # accuracy over answered examples
    assert {t: (p.k, p.n) for t, p in sc.by_task.items()} == {"count": (1, 4), "mc": (1, 2), "yesno": (2, 3)}
    assert (sc.no_share.k, sc.no_share.n) == (2, 3)
    expected = counting_outcomes([100, 95, 260, None], [100, 100, 200, 150])
    assert sc.counting == expected
    assert (expected.exact, expected.too_low, expected.too_high, expected.no_number, expected.within_tolerance) == (1, 1, 1, 1, 2)


def test_counted_records_prefer_the_successful_one():
    a_fail = R("a", "yesno", "YES", "failed", None, None)
    a_ok = R("a", "yesno", "YES", "ok", "YES", True)
    b_fail1 = R("b", "yesno", "NO", "failed", None, None)
    b_fail2 = R("b", "mc", "A", "failed", None, None)
    final = counted_records([a_fail, a_ok, b_fail1, b_fail2, R("a", "yesno", "YES", "failed", None, None)])
    assert final["a"] is a_ok and final["b"] is b_fail2


def test_empty_runs_have_no_accuracy():
    sc = score_records([R("x", "count", "5", "failed", None, None)])
    assert sc.overall is None and sc.counting is None and sc.no_share is None and sc.failed == 1


def test_the_last_ok_record_counts_and_a_later_failure_does_not_undo_it():
    a_ok1, a_ok2 = R("a", "yesno", "YES", "ok", "NO", False), R("a", "yesno", "YES", "ok", "YES", True)
    b_ok, b_fail = R("b", "mc", "A", "ok", "A", True), R("b", "mc", "A", "failed", None, None)
    c_fail1, c_fail2 = R("c", "count", "5", "failed", None, None), R("c", "count", "5", "failed", None, None)
    counted = counted_records([a_ok1, b_ok, c_fail1, a_ok2, b_fail, c_fail2])
    assert counted["a"] is a_ok2 and counted["b"] is b_ok and counted["c"] is c_fail2
    assert list(counted) == ["a", "b", "c"]


def test_scores_come_from_the_response_text_never_the_stored_fields():
    @dataclass(frozen=True)
    class Stored:
        example_id: str = "y"
        model: str = "m"
        settings_hash: str = "h"
        task: str = "yesno"
        answer: str = "YES"
        status: str = "ok"
        response: str | None = "\\answer{\\textbf{yes}}."
        extracted: str | None = None  # what an older rule stored
        correct: bool | None = False

    s = score_record(Stored())
    assert (s.extracted, s.correct) == ("YES", True)
    assert score_records([Stored()]).overall.k == 1
    assert score_record(Stored(status="failed", response=None, correct=True)) == Scored(None, None, False)
    assert score_record(Stored(response=None, extracted="YES", correct=True)).correct is False


def test_records_of_several_runs_are_not_counted_together():
    recs = [R("a", "yesno", "YES", "ok", "YES", True), R("a", "yesno", "YES", "ok", "NO", False, settings_hash="h2"),
            R("b", "yesno", "NO", "ok", "NO", True, model="m2")]
    with pytest.raises(GraphNIAHError, match=r"several runs.*split_runs"):
        counted_records(recs)
    runs = split_runs(recs)
    assert list(runs) == [("m", "h"), ("m", "h2"), ("m2", "h")]
    assert [score_records(v).overall.k for v in runs.values()] == [1, 0, 1]


def test_run_labels_qualify_a_model_with_several_runs_by_effort_else_by_settings_hash():
    a, b, c, d = ("m", "a" * 64), ("m", "b" * 64), ("solo", "c" * 64), ("twin", "d" * 64)
    e = ("twin", "e" * 64)
    efforts = {a: "low", b: None, c: "high", d: "low", e: "low"}
    # the lone run is its model; distinct efforts (None reads "default") qualify; equal efforts fall back to the hash
    assert run_labels([a, c, b, d, e], efforts) == ["m (low)", "solo", "m (default)", f"twin [{'d' * 8}]", f"twin [{'e' * 8}]"]
    assert run_labels([], {}) == []


# ------------------------------------------------------------------------------------------------
# The list task
# ------------------------------------------------------------------------------------------------

_TRUTH = "\n".join(["Graph Search in Context", "A Study of Citation Chains", "Reachability, Revisited", "On Titles"])


def _listed(*lines: str) -> str:
    return "I followed the citations.\n\\answer{\n" + "\n".join(lines) + "\n}"


def test_a_list_answer_naming_half_of_the_set_scores_f1_two_thirds():
    s = score_response("list", _TRUTH, _listed("Graph Search in Context", "On Titles"))
    assert s.listing is not None and not s.correct
    assert (s.listing.precision, s.listing.recall) == (1.0, 0.5)
    assert s.listing.f1 == pytest.approx(2 / 3)
    assert s.listing.hits == (True, False, False, True)  # in the truth's line order


def test_the_exact_set_is_correct_in_any_order_case_punctuation_and_bullets():
    lines = _TRUTH.split("\n")[::-1]
    s = score_response("list", _TRUTH, _listed(*[f"- {t.upper()}." for t in lines[:2]], *[f"{i}. {t}" for i, t in enumerate(lines[2:], 1)]))
    assert s.correct and s.listing is not None and s.listing.f1 == 1.0


def test_duplicate_and_unknown_lines_count_against_precision_only():
    truth = _TRUTH.split("\n")
    dup = score_response("list", _TRUTH, _listed(*truth, truth[0]))
    assert dup.listing is not None and not dup.correct
    assert (dup.listing.precision, dup.listing.recall) == (4 / 5, 1.0)
    unknown = score_response("list", _TRUTH, _listed(*truth[:2], "A Paper That Is Not There", "Another One"))
    assert unknown.listing is not None and (unknown.listing.precision, unknown.listing.recall) == (0.5, 0.5)
    assert unknown.listing.f1 == pytest.approx(0.5)
    blank = score_response("list", _TRUTH, _listed("", "  ", *truth, ""))  # blank lines are not lines of the answer
    assert blank.correct


def test_a_list_reply_without_titles_has_no_answer_and_f1_zero():
    for text in ("no block", "\\answer{}", "\\answer{\n\n}", None):
        s = score_response("list", _TRUTH, text)
        assert s.extracted is None and not s.correct and s.listing is not None and s.listing.f1 == 0.0


@dataclass(frozen=True)
class _Rec:
    example_id: str = "x"
    model: str = "m"
    settings_hash: str = "h"
    task: str = "list"
    answer: str = _TRUTH
    status: str = "ok"
    response: str | None = None


def test_run_scores_carry_the_mean_f1_with_a_bootstrap_interval():
    half = _listed(*_TRUTH.split("\n")[:2])
    full = _listed(*_TRUTH.split("\n"))
    recs = [_Rec(example_id=f"l{i}", response=r) for i, r in enumerate([half, full, full, half])]
    sc = score_records(recs)
    assert sc.f1 is not None and sc.f1.n == 4 and sc.f1.estimate == pytest.approx((2 / 3 + 1) / 2)
    assert 2 / 3 <= sc.f1.interval.low <= sc.f1.estimate <= sc.f1.interval.high <= 1.0
    assert sc.by_task["list"].k == 2  # the exact sets
    assert score_records(recs).f1 == sc.f1  # a fixed stream: the same interval every time
    assert score_records([_Rec(task="yesno", answer="YES", response="\\answer{YES}")]).f1 is None


@pytest.mark.parametrize("bullet", ["1) ", "12) ", "3. ", "- ", "* ", "\u2022 ", "1)  ", "9999) "])
def test_each_bullet_form_is_taken_off_a_list_line(bullet):
    """Numbered lines as many models write them, ``1)`` included: the bullet goes, the title is matched."""
    truth = _TRUTH.split("\n")
    s = score_response("list", _TRUTH, _listed(*[bullet + t for t in truth]))
    assert s.correct and s.listing is not None and s.listing.hits == (True,) * len(truth)


@pytest.mark.parametrize("line", ["1)Graph Search in Context", "10000) Graph Search in Context", "(1) Graph Search in Context",
                                  "a) Graph Search in Context", "1- Graph Search in Context"])
def test_what_is_not_a_bullet_stays_part_of_the_line(line):
    """Only a dash, star, bullet or a number of one to four digits with ``.`` or ``)``, then a space, is a bullet:
    anything else stays, so the line names no truth title."""
    s = score_response("list", _TRUTH, _listed(line))
    assert s.listing is not None and s.listing.hits == (False,) * len(_TRUTH.split("\n")) and s.listing.lines == 1


# ---- the rules the mutation run found untested (bench/mutation.py) ------------------------------


def test_an_unanswered_yes_no_counts_in_the_no_share_as_not_no():
    """The NO share is answers of exactly "NO" over every answered YES/NO example, one without an answer included."""
    sc = score_records([R("y1", "yesno", "YES", "ok", "NO", True), R("y2", "yesno", "NO", "ok", None, False),
                        R("y3", "yesno", "NO", "ok", "YES", False)])
    assert (sc.no_share.k, sc.no_share.n) == (1, 3)


def test_the_several_runs_error_names_both_models_and_settings():
    recs = [R("a", "yesno", "YES", "ok", "YES", True, model="alpha", settings_hash="1" * 64),
            R("b", "yesno", "YES", "ok", "YES", True, model="beta", settings_hash="2" * 64)]
    with pytest.raises(GraphNIAHError) as err:
        counted_records(recs)
    assert str(err.value) == (f"records of several runs (alpha settings {'1' * 12} and beta settings {'2' * 12}) cannot be "
                              "counted together; group them with graphniah.scoring.split_runs first")


def test_an_empty_list_answer_has_precision_zero():
    for text in ("no block", "\\answer{\n\n}"):
        s = score_response("list", _TRUTH, text)
        assert s.listing is not None and (s.listing.lines, s.listing.precision, s.listing.recall) == (0, 0.0, 0.0)


def test_recall_by_distance_counts_each_hop_up_to_the_farthest():
    # truth at hops 1, 1, 2, 3, 3, 3; named: the first at hop 1, none at 2, two at 3
    assert recall_by_distance([True, False, False, True, False, True], [1, 1, 2, 3, 3, 3]) == ((1, 2), (0, 1), (2, 3))
    assert recall_by_distance([True], [4]) == ((0, 0), (0, 0), (0, 0), (1, 1))
    assert recall_by_distance([], []) == ()
    with pytest.raises(ValueError, match="2 hits for 1 distances"):
        recall_by_distance([True, False], [1])


@pytest.mark.parametrize("as_index", [False, True])
def test_list_papers_sorts_every_line(as_index):
    """Found and missed truth lines, other papers of the context named (each once, in the order named),
    lines naming no paper, and repeats, with ``others`` as titles or as their title_index."""
    others = ["The Source Paper", "A Distractor Paper", "Another One"]
    raw = ("1. Graph Search in Context\n- another one\nOn Titles\nNot In The Context\nGRAPH SEARCH IN CONTEXT\n"
           "A Distractor Paper\nAnother One.\n")
    got = list_papers(_TRUTH, raw, title_index(others) if as_index else others)
    assert got.found == (0, 3) and got.missed == (1, 2)
    assert got.extra == (2, 1) and got.unknown == ("Not In The Context",) and got.repeated == 2
    assert list_papers(_TRUTH, None, others) == ListPapers((), (0, 1, 2, 3), (), (), 0)
