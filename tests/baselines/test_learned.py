"""The learned-surface shortcut: what it reads from a rendered prompt, that it finds a planted cue and
none where there is none, how scores become answers, and its cached scorer and settings."""

from __future__ import annotations

import dataclasses
import datetime as dt
import math

import numpy as np
import pytest
from scipy.stats import binomtest
from sklearn.feature_extraction.text import TfidfVectorizer

from graphniah.baselines.learned import answer_with
from graphniah.baselines.pairs import FEATURES, QuestionRows, Rule, answers_from_scores, question_rows
from graphniah.baselines.training import Scorer, source_folds, train_scorer
from graphniah.errors import GraphNIAHError
from graphniah.formats.examples import Example, PaperMeta
from graphniah.text import load_prompts, parse_context, split_messages
from graphniah.text.textcheck import normalize
from tests.text.test_textcheck import Case, build_case, make_example

PR = load_prompts()


def no_retrieval(t, blocks):  # type: ignore[no-untyped-def]
    """The retrieval column left open (NaN): these tests are about the other columns."""
    return None


def col(rows: QuestionRows, name: str) -> list[float]:
    return [float(v) for v in rows.x[:, FEATURES.index(name)]]


# --------------------------------------------------------------------------- reading a rendered prompt


def _printed_venue(venue: str | None) -> str | None:
    return None if venue is None or venue.casefold() in ("arxiv", "arxiv.org") else venue


def _expected(case: Case, pid: int, source: int) -> dict[str, float]:
    """A candidate's columns worked out from the case's metadata and citations (not from the text)."""
    cites = [(u, v) for u, v in case.edges]
    citing = {u for u, _ in cites}
    order = sorted(citing, key=case.block_index)  # the blocks in context order
    p, s = case.papers[pid], case.papers[source]

    def block_date(q: int) -> dt.date | None:
        return case.papers[q].publication_date if q in citing else None

    def year(q: int) -> int | None:  # a block prints the year of its date; a reference line the year (date's first)
        m = case.papers[q]
        if q in citing:
            return m.publication_date.year if m.publication_date is not None else None
        return m.publication_date.year if m.publication_date is not None else m.year

    def venue(q: int) -> str | None:
        return _printed_venue(case.papers[q].venue)

    nan = math.nan
    sep = PR.block.author_separator  # a name holding the separator reads as two names, as the checker reads it

    def names(m: PaperMeta) -> list[str]:
        return [a for a in sep.join(m.authors).split(sep) if a] if m.authors else []

    sa, pa = {normalize(a) for a in names(s)}, {normalize(a) for a in names(p)}
    first = min(k for k, q in enumerate(order) if q == pid or (q, pid) in cites)
    dp, ds = block_date(pid), block_date(source)
    yp, ys = year(pid), year(source)
    return {
        "shared_authors": float(len(sa & pa)) if sa and pa else nan,
        "same_venue": float(normalize(venue(pid)) == normalize(venue(source))) if venue(pid) and venue(source) else nan,
        "year_gap": float(yp - ys) if yp is not None and ys is not None else nan,
        "day_gap": float((dp - ds).days) if dp is not None and ds is not None else nan,
        "title_words": float(len(normalize(p.title).split())),
        "title_chars": float(len(p.title)),
        "authors": float(len(names(p))),
        "has_block": float(pid in citing),
        "references": float(sum(u == pid for u, _ in cites)),
        "mentions": float((pid in citing) + sum(v == pid for _, v in cites)),
        "first_position": first / (len(order) - 1),
    }


def _needles_only(case: Case) -> Example:
    """The case's example with its paper blocks alone (the distractor runs dropped), in context order."""
    blocks = [case.blocks[i] for i in sorted(case.needle_at)]
    papers = [p for c in case.comps for p in c]
    return make_example(case.example.id, case.task, case.papers, [e for e in case.edges if e[0] in set(papers)], case.comps,
                        case.source, case.targets, case.none_option, blocks)


@pytest.mark.parametrize("seed", [3, 5, 8])
def test_features_of_a_rendered_count_question_by_hand(seed: int) -> None:
    case = build_case(seed, "count", size=(4, 10))
    ex = _needles_only(case)  # every component's blocks, disjoint-component distractors' too
    rows = question_rows(ex, PR, no_retrieval)
    assert rows is not None and rows.task == "count"
    # A reference line "A (2025). X vs. Y." may read as title "X vs" from venue "Y": a paper printed only so is
    # named by the checker's reading of it (its node's every reading is a title the text may mean).
    nodes = parse_context(split_messages(ex.messages, PR)[2], PR).nodes
    pid_of = {t: p for p, m in case.papers.items() for n in nodes if normalize(m.title) in n.titles for t in n.titles}
    ambiguous = {pid_of[t] for n in nodes if len(n.titles) > 1 for t in n.titles}
    assert sorted(pid_of[normalize(t)] for t in rows.titles) == sorted(p for p in case.papers if p != case.source)
    # title similarity: scikit-learn's TF-IDF (smoothed idf, unit rows) over the distinct titles, words of the normal form
    docs = [normalize(n.title) for n in nodes]
    tfidf = TfidfVectorizer(analyzer=str.split).fit_transform(docs)
    src_row = docs.index(normalize(case.papers[case.source].title))
    for i, title in enumerate(rows.titles):
        pid = pid_of[normalize(title)]
        want = _expected(case, pid, case.source)
        if pid in ambiguous:  # where its title ends and its venue begins is open: the reading, not the stored values
            want = {k: v for k, v in want.items() if k not in ("title_words", "title_chars", "same_venue")}
        for name, value in want.items():
            got = rows.x[i, FEATURES.index(name)]
            assert (math.isnan(got) and math.isnan(value)) or got == pytest.approx(value), (title, name, got, value)
        sim = float((tfidf[docs.index(normalize(title))] @ tfidf[src_row].T).toarray()[0, 0])
        assert rows.x[i, FEATURES.index("title_similarity")] == pytest.approx(sim)
    assert set(col(rows, "task")) == {2.0} and set(col(rows, "papers")) == {float(len(docs))}
    assert all(math.isnan(v) for v in col(rows, "retrieval_reachable"))
    # the rank: the share of the context's other papers more similar to the source
    sims = np.array(col(rows, "title_similarity"))
    for i in range(len(sims)):
        assert rows.x[i, FEATURES.index("title_rank")] == pytest.approx((sims > sims[i] + 1e-12).sum() / len(sims))


def test_an_edge_list_example_is_not_read(shortcut_suite) -> None:
    edges = [ex for ex in shortcut_suite.examples if ex.recipe.params.render == "edges"]
    assert edges and all(question_rows(ex, PR, no_retrieval) is None for ex in edges)


# --------------------------------------------------------------------------- a planted cue, and none

LONGER = " revisited with extended experiments, a broader survey of related methods and new baselines"


def _mc_cases(seeds: range, planted: bool) -> list[Example]:
    """Multiple-choice examples rendered with the real templates; ``planted``: every wrong option's title is longer."""
    out = []
    for seed in seeds:
        case = build_case(seed, "mc", size=(3, 8))
        if planted:
            right = {p for p in case.comps[0]}
            papers = {pid: (dataclasses.replace(m, title=m.title + LONGER) if pid in case.targets and pid not in right else m)
                      for pid, m in case.papers.items()}
            blocks = case.rerender(papers)
            case_papers = [p for c in case.comps for p in c]
            out.append(make_example(case.example.id, "mc", papers, [e for e in case.edges if e[0] in set(case_papers)],
                                    case.comps, case.source, case.targets, False, blocks))
        else:
            out.append(case.example)
    return out


def _accuracy(train: list[Example], test: list[Example]) -> tuple[int, int]:
    model, rule, model_hash, _ = train_scorer(train, PR, no_retrieval, seed=0)
    got = answer_with(Scorer(model, rule, model_hash, {}), test, PR, no_retrieval)
    return sum(got[ex.id] == ex.answer for ex in test), len(test)


def test_it_finds_a_planted_cue_and_no_cue_where_there_is_none() -> None:
    train, test = range(1, 51), range(1001, 1031)
    k, n = _accuracy(_mc_cases(train, True), _mc_cases(test, True))
    # wrong options always longer: far above guessing (25%), by an exact one-sided binomial test
    assert binomtest(k, n, 0.25, alternative="greater").pvalue < 1e-9, (k, n)
    k0, n0 = _accuracy(_mc_cases(train, False), _mc_cases(test, False))
    # the same design without the cue: no different from guessing (exact two-sided test)
    assert binomtest(k0, n0, 0.25).pvalue > 0.01, (k0, n0)


# --------------------------------------------------------------------------- answers from scores


def _rows(task: str, titles: tuple[str, ...], none_option: bool = False) -> QuestionRows:
    return QuestionRows("x", task, titles, np.zeros((len(titles), len(FEATURES))), none_option)


def test_answer_rules_per_task() -> None:
    rule = Rule({"yesno": 0.6, "mc": 0.5, "count": 0.3, "list": 0.3}, "above")
    assert answers_from_scores(_rows("yesno", ("T",)), np.array([0.61]), rule) == "YES"
    assert answers_from_scores(_rows("yesno", ("T",)), np.array([0.6]), rule) == "NO"  # passing means above
    mc = _rows("mc", ("a", "b", "c", "d"), none_option=True)
    assert answers_from_scores(mc, np.array([0.1, 0.7, 0.2, 0.3]), rule) == "B"
    assert answers_from_scores(mc, np.array([0.1, 0.4, 0.2, 0.3]), rule) == "E"  # none passes: "none of these"
    assert answers_from_scores(_rows("mc", ("a", "b", "c", "d")), np.array([0.1, 0.4, 0.2, 0.3]), rule) == "B"
    scores = np.array([0.9, 0.2, 0.35, 0.31, 0.1])
    titles = ("e", "D", "c", "b", "a")
    assert answers_from_scores(_rows("count", titles), scores, rule) == "3"  # 0.9, 0.35, 0.31
    assert answers_from_scores(_rows("count", titles), scores, Rule(rule.thresholds, "sum")) == "2"  # round(1.87)
    assert answers_from_scores(_rows("count", titles), np.array([0.5, 0.5, 0.5]), Rule(rule.thresholds, "sum")) == "2"  # 1.5 rounds up
    assert answers_from_scores(_rows("list", titles), scores, rule) == "b\nc\ne"


# --------------------------------------------------------------------------- the journal: settings, cache


def test_settings_record_the_training_draw_and_a_rerun_reuses_the_scorer(shortcut_suite, demo_snapshot, tmp_path, monkeypatch) -> None:
    from graphniah.baselines import journals, training
    from graphniah.formats.journal import read_run_settings
    from graphniah.layout import inputs_file

    snapshots = demo_snapshot.path.parents[1]
    [j] = journals.write_baselines(shortcut_suite.path, "s", tmp_path, shortcuts=["learned-surface"], snapshots=snapshots,
                                   training_per_task=2)
    s = read_run_settings(j.path).runs[j.settings_hash].settings
    t = s["training"]
    assert s["shortcut"] == "learned-surface" and len(s["model_hash"]) == 64
    assert t["requested_per_task"] == 2 and t["seed"] == training.training_seed(shortcut_suite.examples[0].recipe.seed)
    assert t["seed"] != shortcut_suite.examples[0].recipe.seed
    drawn = t["drawn_per_task"]
    assert drawn == {"yesno": 2, "mc": 2, "count": 2}  # the suite's tasks (no list question in it), each the size asked
    read = [ex for ex in shortcut_suite.examples if ex.recipe.params.render == "apa"]  # the questions it answers
    assert t["suite_papers_kept_out"] == len(training.suite_papers(read)) > len(read)
    # two questions per task is far below the issue's 1,000: the settings say so, naming what was drawn
    assert t["design_per_task"] == 1000
    assert t["size"] == ("smaller than the design's 1,000 questions per task ("
                         + ", ".join(f"{task} {n}" for task, n in drawn.items())
                         + "): a reader trained on more questions may find cues this one missed")
    # a re-run loads the cached scorer: no draw (building a sampling context would fail), same hash and answers
    # (without the journal's inputs record, which would reuse the journal itself and read no scorer)
    monkeypatch.setattr("graphniah.sampling.SamplingContext", None)
    inputs_file(j.path).unlink()
    [again] = journals.write_baselines(shortcut_suite.path, "s", tmp_path, shortcuts=["learned-surface"], snapshots=snapshots,
                                       training_per_task=2)
    assert again.settings_hash == j.settings_hash and again.answers == j.answers
    assert read_run_settings(again.path).runs[again.settings_hash].settings["training"]["size"] == t["size"]  # cached: labelled too
    # the cache is keyed by the suite papers kept out of the draw as well as the design: the same suite
    # reuses it, a suite of the same design whose questions ask about another paper trains anew
    # (its scorer's training questions could otherwise have that paper as source or true target)
    class Drew(Exception):
        pass

    def drawing():  # type: ignore[no-untyped-def]
        raise Drew

    assert training.load_or_train(read, drawing, PR, no_retrieval, tmp_path, per_task=2).model_hash == s["model_hash"]
    other = [read[0].model_copy(update={"source": max(training.suite_papers(read)) + 1}), *read[1:]]
    assert training.training_specs(other, 2) == training.training_specs(read, 2)  # the same design
    with pytest.raises(Drew):
        training.load_or_train(other, drawing, PR, no_retrieval, tmp_path, per_task=2)
    # a cached scorer whose bytes no longer match its recorded hash is refused, naming the file
    (pkl,) = (tmp_path / ".scorers").glob("*.pkl")
    pkl.write_bytes(pkl.read_bytes() + b"x")
    inputs_file(j.path).unlink()
    with pytest.raises(GraphNIAHError, match="does not match its hash"):
        journals.write_baselines(shortcut_suite.path, "s", tmp_path, shortcuts=["learned-surface"], snapshots=snapshots,
                                 training_per_task=2)


def test_the_training_draw_keeps_the_size_asked_with_no_kept_out_paper_as_source(demo_snapshot, demo_graph) -> None:
    """Half the depth-4 pool's endpoint papers kept out (as a suite's sources and true targets would be):
    every training question is still built, and none has a kept-out source or true target. Dropping
    questions after the draw (the rule before) would have kept about half of them."""
    from graphniah.baselines.training import _draw
    from graphniah.progress import NO_PROGRESS
    from graphniah.sampling import ExampleSpec, SamplingContext

    ctx = SamplingContext(demo_snapshot, demo_graph)
    verts = ctx.pool(4)[0]
    avoid = frozenset(int(c) for c in ctx.graph.corpusids[np.concatenate([verts[::2, 3], verts[::2, 6]])])
    specs = [ExampleSpec("yesno", 4, 20, "YES"), ExampleSpec("mc", 4, 20, "B")] * 3
    examples, redrawn, failed = _draw(ctx, specs, 5, avoid, NO_PROGRESS)
    assert len(examples) == 6 and failed == 0 and redrawn > 0  # tuples touching a kept-out paper were drawn again
    for ex in examples:
        true = ex.targets[0] if ex.task == "yesno" else ex.targets["ABCD".index(ex.answer)]
        assert ex.source not in avoid and true not in avoid


def test_suite_papers_are_sources_and_stated_true_targets(shortcut_suite) -> None:
    from graphniah.baselines.training import suite_papers

    want = {ex.source for ex in shortcut_suite.examples}
    want |= {ex.targets[0] for ex in shortcut_suite.examples if ex.task == "yesno" and ex.answer == "YES"}
    want |= {ex.targets["ABCDE".index(ex.answer)] for ex in shortcut_suite.examples if ex.task == "mc" and ex.answer != "E"}
    assert suite_papers(shortcut_suite.examples) == want


def test_the_training_size_is_labelled_against_the_issues_thousand() -> None:
    from graphniah.baselines.training import size_label

    assert size_label({"yesno": 1000, "mc": 1200}) == {"design_per_task": 1000,
                                                       "size": "at least the design's 1,000 questions per task"}
    assert size_label({"yesno": 1000, "mc": 25, "list": 999})["size"] == (
        "smaller than the design's 1,000 questions per task (mc 25, list 999): a reader trained on more questions may "
        "find cues this one missed")
    assert size_label({})["size"].startswith("smaller than the design's 1,000 questions per task (nothing drawn)")


def test_real_suites_train_on_at_least_a_thousand_questions_per_task() -> None:
    import inspect

    from graphniah.baselines.journals import write_baselines
    from graphniah.baselines.learned import learned_surface
    from graphniah.baselines.training import load_or_train
    from graphniah.cli.baselines import baselines_cmd

    # issue 36: "at least 1,000 questions per task", the default of the command and of every function on its way
    for fn, name in ((baselines_cmd, "training_per_task"), (write_baselines, "training_per_task"),
                     (learned_surface, "per_task"), (load_or_train, "per_task")):
        assert inspect.signature(fn).parameters[name].default >= 1000, fn.__qualname__


def test_the_out_of_fold_split_keeps_each_source_on_one_side_and_uses_both():
    # Sources asked several times, in a shuffled order. Distinct ids in increasing order are 3, 12, 41,
    # 77, 905, alternating folds 0, 1, 0, 1, 0: every question of a source lands in its source's fold.
    sources = [905, 12, 905, 77, 12, 3, 905, 77, 3, 41]
    folds = source_folds(sources)
    assert folds.tolist() == [0, 1, 0, 1, 1, 0, 0, 1, 0, 0]
    for s in set(sources):
        assert len({int(f) for f, t in zip(folds, sources, strict=True) if t == s}) == 1
    assert source_folds([8, 8, 8]).tolist() == [0, 0, 0]  # one source: one fold (train_scorer then uses the mean)
