"""The topic-cluster shortcut: grouping titles by subject, answering by group membership, and its journal."""

from __future__ import annotations

import re

import numpy as np
import pytest
import scipy.sparse as sp

from graphniah.baselines import SHORTCUT_TASKS, SHORTCUTS, is_baseline_model
from graphniah.baselines.journals import settings_of, write_baselines
from graphniah.baselines.reading import CheckerTitleSpace
from graphniah.baselines.shortcuts import answer
from graphniah.baselines.topics import TitleGroups, _answer, group_titles, topic_cluster
from graphniah.formats.journal import read_journal
from graphniah.text import ParsedQuestion, parse_context, split_messages
from graphniah.text.textcheck import normalize

# Four subjects with disjoint vocabularies; each title uses three of its subject's words and a number.
SUBJECTS = (
    ("protein", "folding", "kinase", "enzyme", "ligand", "binding"),
    ("galaxy", "redshift", "stellar", "cosmic", "quasar", "nebula"),
    ("tensor", "gradient", "neural", "training", "transformer", "attention"),
    ("tariff", "inflation", "monetary", "fiscal", "labour", "wages"),
)


def _titles(subjects: int, per: int, rng: np.random.Generator) -> tuple[list[str], list[int]]:
    titles, truth = [], []
    for s in range(subjects):
        for i in range(per):
            words = rng.choice(SUBJECTS[s], size=3, replace=False)
            titles.append(f"{' '.join(words).capitalize()} study number {s * per + i}")
            truth.append(s)
    order = rng.permutation(len(titles))  # subjects interleaved, as blocks are in a context
    return [titles[i] for i in order], [truth[i] for i in order]


def _same_partition(a: np.ndarray | list[int], b: np.ndarray | list[int]) -> bool:
    pairs = set(zip(np.asarray(a).tolist(), np.asarray(b).tolist(), strict=True))
    return len(pairs) == len(set(np.asarray(a).tolist())) == len(set(np.asarray(b).tolist()))


@pytest.mark.parametrize("k", [2, 4])
def test_disjoint_vocabularies_are_split_by_subject(k: int) -> None:
    titles, truth = _titles(k, 30, np.random.default_rng(k))
    groups = group_titles(titles, k, np.random.default_rng(0))
    assert groups.titles == tuple(titles)
    assert _same_partition(groups.labels, truth)


def test_the_grouping_is_a_function_of_the_generator() -> None:
    titles, _ = _titles(4, 25, np.random.default_rng(3))
    # mix the subjects so the split is not forced: the draws decide it
    mixed = [f"{t} {SUBJECTS[(i * 7) % 4][i % 6]}" for i, t in enumerate(titles)]
    a = group_titles(mixed, 4, np.random.default_rng(12)).labels
    b = group_titles(mixed, 4, np.random.default_rng(12)).labels
    assert np.array_equal(a, b)


def test_titles_with_one_normal_form_count_once_and_tiny_contexts() -> None:
    groups = group_titles(["A study of X-rays.", "a study of x rays", "Quasar nebula"], 2, np.random.default_rng(0))
    assert groups.titles == ("A study of X-rays.", "Quasar nebula")
    assert sorted(groups.labels.tolist()) == [0, 1]  # two titles, two groups: each its own
    assert groups.group_of("A STUDY OF X RAYS") == groups.labels[0]
    assert groups.group_of("Not in the context") is None


def _groups(titles: list[str], labels: list[int]) -> TitleGroups:
    space = CheckerTitleSpace.fit(titles)
    return TitleGroups(tuple(titles), dict(space.row), space.vectors, np.asarray(labels, dtype=np.int64))


# Source S in group 0 with P, Q; R and T in group 1. Q shares more words with S than P does.
TITLES = ["Kinase folding in enzymes", "Kinase binding", "Kinase folding in proteins", "Galaxy redshift", "Quasar nebula"]
S, P, Q, R, T = TITLES
LABELS = [0, 0, 0, 1, 1]


def _q(task: str, targets: tuple[str, ...] = (), none_option: bool = False) -> ParsedQuestion:
    return ParsedQuestion(task, S, targets, none_option)  # type: ignore[arg-type]


def test_yes_no_by_the_source_s_group() -> None:
    g = _groups(TITLES, LABELS)
    assert _answer(_q("yesno", (P,)), g) == "YES"
    assert _answer(_q("yesno", (R,)), g) == "NO"
    assert _answer(_q("yesno", ("A title the context lacks",)), g) is None


def test_multiple_choice_picks_the_most_similar_option_in_the_source_s_group() -> None:
    g = _groups(TITLES, LABELS)
    assert g.similarity(S, Q) > g.similarity(S, P)  # the premise: Q is the nearer of the two in the group
    assert _answer(_q("mc", (R, P, T, Q)), g) == "D"  # two options in the group: the more similar one
    assert _answer(_q("mc", (R, T, P, "Quasar nebula")), g) == "C"  # one option in the group
    # none in the group: the "none of these" option when there is one, else the most similar option
    assert _answer(_q("mc", (R, T, R, T), none_option=True), g) == "E"
    far = _groups(TITLES, [0, 1, 1, 1, 1])
    assert far.similarity(S, Q) > max(far.similarity(S, t) for t in (P, R, T))
    assert _answer(_q("mc", (P, Q, R, T)), far) == "B"


def test_counting_and_listing_read_the_source_s_group() -> None:
    g = _groups(TITLES, LABELS)
    assert _answer(_q("count"), g) == "2"
    assert _answer(_q("list"), g) == "Kinase binding\nKinase folding in proteins"  # by title, case-blind
    lonely = _groups(TITLES, [1, 0, 0, 0, 0])
    assert _answer(_q("count"), lonely) == "0"
    assert _answer(_q("list"), lonely) == ""


def test_a_registered_shortcut_of_every_task() -> None:
    assert "topic-cluster" in SHORTCUTS and SHORTCUT_TASKS["topic-cluster"] is None
    assert is_baseline_model("baseline-topic-cluster")
    settings = settings_of("topic-cluster", 7)
    assert settings["neighbours"] == 10 and settings["kmeans_runs"] == 10 and settings["seed"] == 7


def test_on_real_examples_it_reads_titles_only(shortcut_suite) -> None:
    examples = shortcut_suite.examples
    got = topic_cluster(examples, seed=5)
    assert got == answer("topic-cluster", examples, seed=5)  # the one entry point
    assert got == topic_cluster(examples, seed=5)  # deterministic
    for ex in examples:
        rendered_edges = ex.recipe.params.render == "edges"
        assert (ex.id in got) != rendered_edges  # abstains on edge lists (ids say nothing of a subject)
        if rendered_edges:
            continue
        a = got[ex.id]
        assert a is not None
        if ex.task == "yesno":
            assert a in ("YES", "NO")
        elif ex.task == "mc":
            assert a in ("ABCDE" if ex.none_option else "ABCD")
        else:
            _, _, context = split_messages(ex.messages)
            named = {normalize(n.title) for n in parse_context(context).nodes}
            assert 0 <= int(a) < len(named)
    # a stored answer, papers or edges never matter: the same messages with other truths give the same answers
    blind = [ex.model_copy(update={"answer": "X", "papers": (), "edges": (), "targets": ()}) for ex in examples]
    assert topic_cluster(blind, seed=5) == got


def test_journal_of_the_topic_cluster_shortcut(shortcut_suite, tmp_path) -> None:
    [journal] = write_baselines(shortcut_suite.path, "shortcuts", tmp_path, shortcuts=["topic-cluster"], seed=5)
    assert journal.path == tmp_path / "shortcuts" / "baseline-topic-cluster.jsonl"
    records = read_journal(journal.path)
    assert {r.example_id for r in records} == set(topic_cluster(shortcut_suite.examples, seed=5))
    assert all(r.model == "baseline-topic-cluster" for r in records)


def test_nearest_titles_ties_go_to_the_first_in_the_context() -> None:
    from graphniah.baselines.topics import _nearest

    sims = np.array([[-np.inf, 0.5, 0.0, 0.5, 0.5, 0.1], [0.2, -np.inf, 0.0, 0.0, 0.0, 0.0]])
    assert _nearest(sims, 2).tolist() == [[False, True, False, True, False, False], [True, False, True, False, False, False]]


def test_the_title_graph_in_blocks_is_the_plain_one() -> None:
    """Rows of many blocks (1,500 titles, blocks of 1,024) give the graph a full stable sort gives."""
    from graphniah.baselines.topics import _knn_graph

    rng = np.random.default_rng(1)
    titles = [" ".join(rng.choice([w for s in SUBJECTS for w in s], size=2)) for _ in range(1500)]  # many ties
    vectors = CheckerTitleSpace.fit(titles).vectors
    sims = np.asarray((vectors @ vectors.T).todense())
    np.fill_diagonal(sims, -np.inf)
    nearest = np.argsort(-sims, axis=1, kind="stable")[:, :10]
    a = np.zeros(sims.shape)
    a[np.repeat(np.arange(len(sims)), 10), nearest.ravel()] = 1
    assert np.array_equal(_knn_graph(vectors, 10).toarray(), (a + a.T) / 2)


@pytest.mark.slow
def test_large_contexts_use_the_block_eigensolver_and_still_split_subjects() -> None:
    from graphniah.baselines import topics

    rng = np.random.default_rng(5)
    vocab = [[f"s{s}w{i}" for i in range(40)] for s in range(4)]  # a wide vocabulary per subject, and shared words
    common = [f"common{i}" for i in range(20)]
    truth = rng.integers(0, 4, size=2400)  # 2,400 titles: above the dense limit
    titles = [" ".join([*rng.choice(vocab[s], size=4, replace=False), *rng.choice(common, size=2)]) + f" {i}"
              for i, s in enumerate(truth)]
    assert len(titles) > topics.DENSE_LIMIT
    assert _same_partition(group_titles(titles, 4, np.random.default_rng(0)).labels, truth)


def test_topic_cluster_answers_every_rendered_example_of_each_task() -> None:
    """On hand-made examples rendered with the real templates (no snapshot): every APA example of each
    task is answered in its task's form (or None, where its text names a question title twice), the
    one in another template is left out, and the answers are a function of the seed."""
    from tests.report.synthetic import make_example
    from tests.text.test_textcheck import build_case

    exs = [build_case(seed, task).example for seed in range(1, 5) for task in ("yesno", "mc", "count")]
    other = make_example("yesno", 4, 20, "YES", seed=0, index=99)
    got = topic_cluster([other, *exs], seed=3)  # the one left out first: those after it are still answered
    assert set(got) == {ex.id for ex in exs}
    for ex in exs:
        form = {"yesno": r"YES|NO", "mc": r"[ABCD]", "count": r"\d+"}[ex.task]
        answer = got[ex.id]
        assert answer is None or re.fullmatch(form, answer), (ex.task, answer)  # None: a title the text names twice
    assert sum(v is not None for v in got.values()) >= len(exs) // 2
    assert topic_cluster(exs, seed=3) == got  # the same seed, the same answers


def test_nearest_on_continuous_rows_is_the_k_largest() -> None:
    from graphniah.baselines.topics import _nearest

    rng = np.random.default_rng(11)
    sims = rng.random((40, 60))
    for k in (1, 2, 3, 7, 10):
        want = np.zeros(sims.shape, dtype=bool)
        want[np.repeat(np.arange(40), k), np.argsort(-sims, axis=1)[:, :k].ravel()] = True
        assert np.array_equal(_nearest(sims, k), want), k


def _reference_embedding(w: np.ndarray, k: int) -> np.ndarray:
    """The embedding written out: D^-1/2 W D^-1/2, its k top eigenvectors, rows times D^-1/2, unit rows."""
    d = w.sum(axis=1)
    inv = np.diag(1 / np.sqrt(d))
    vecs = np.linalg.eigh(inv @ w @ inv)[1][:, -k:]
    emb = inv @ vecs
    return emb / np.linalg.norm(emb, axis=1, keepdims=True)


def _same_up_to_column_order_and_signs(a: np.ndarray, b: np.ndarray) -> bool:
    """Solvers may order or flip eigenvectors differently: their rows' inner products do not change."""
    return bool(np.allclose(a @ a.T, b @ b.T, atol=1e-6))


@pytest.mark.parametrize("dense", [True, False])
def test_the_embedding_is_the_normalised_spectral_one(monkeypatch, dense) -> None:
    from graphniah.baselines import topics

    rng = np.random.default_rng(2)
    n = 40
    w = rng.random((n, n)) * (rng.random((n, n)) < 0.3)
    w = (w + w.T) / 2 + np.diag(rng.random(n))  # uneven degrees, distinct eigenvalues
    monkeypatch.setattr(topics, "DENSE_LIMIT", n if dense else n - 1)
    got = topics._embedding(sp.csr_matrix(w), 3, np.random.default_rng(0))
    assert _same_up_to_column_order_and_signs(got, _reference_embedding(w, 3))


def test_the_dense_solver_up_to_the_limit_the_block_solver_above(monkeypatch) -> None:
    from graphniah.baselines import topics

    calls: list[int] = []

    def block_solver(m, x, **kw):  # type: ignore[no-untyped-def]
        calls.append(m.shape[0])
        return np.zeros(x.shape[1]), x

    monkeypatch.setattr(topics, "lobpcg", block_solver)
    monkeypatch.setattr(topics, "DENSE_LIMIT", 30)
    for n in (30, 31):
        w = sp.csr_matrix(np.ones((n, n)) - np.eye(n))
        topics._embedding(w, 2, np.random.default_rng(0))
    assert calls == [31]


def test_kmeans_keeps_the_first_run_of_least_inertia(monkeypatch) -> None:
    from graphniah.baselines import topics

    x = np.array([[0.0], [1.0], [10.0], [11.0]])
    # runs: inertia 50.5 (a bad split), 1.0 (the best), 1.0 again with other labels (a tie), 200.5
    runs = iter([
        (np.array([[0.0], [7.333]]), np.array([0, 1, 1, 1])),
        (np.array([[0.5], [10.5]]), np.array([0, 0, 1, 1])),
        (np.array([[10.5], [0.5]]), np.array([1, 1, 0, 0])),
        (np.array([[20.0], [5.5]]), np.array([1, 1, 1, 1])),
    ] + [(np.array([[20.0], [5.5]]), np.array([1, 1, 1, 1]))] * (topics.KMEANS_RUNS - 4))
    monkeypatch.setattr(topics, "kmeans2", lambda *a, **kw: next(runs))
    assert topics._kmeans(x, 2, np.random.default_rng(0)).tolist() == [0, 0, 1, 1]


def test_a_context_the_checker_cannot_read_gives_no_answer_and_the_next_is_answered(monkeypatch, shortcut_suite) -> None:
    from graphniah.baselines import topics
    from graphniah.text import Undetermined

    examples = [ex for ex in shortcut_suite.examples if ex.recipe.params.render == "apa"][:2]
    real = topics.parse_context
    seen: list[int] = []

    def first_undetermined(context, prompts=None):  # type: ignore[no-untyped-def]
        seen.append(1)
        if len(seen) == 1:
            raise Undetermined("two blocks contradict each other")
        return real(context, prompts)

    monkeypatch.setattr(topics, "parse_context", first_undetermined)
    got = topics.topic_cluster(examples, seed=1)
    assert got[examples[0].id] is None and got[examples[1].id] is not None


def test_an_option_in_the_source_s_group_beats_none_of_these_and_similarity_stays_in_the_group() -> None:
    g = _groups(TITLES, LABELS)
    assert _answer(_q("mc", (R, P, T, R), none_option=True), g) == "B"  # one option in the group: not E
    # Q (more words shared with S) is in the other group here: the option in S's group wins, however less similar
    split = _groups(TITLES, [0, 0, 1, 1, 1])
    assert split.similarity(S, Q) > split.similarity(S, P) > 0
    assert _answer(_q("mc", (Q, P, R, T)), split) == "B"
    assert _answer(_q("mc", (Q, P, R, T), none_option=True), split) == "B"


def test_a_list_answer_drops_the_source_by_its_printed_title() -> None:
    g = _groups(TITLES, LABELS)
    # the question prints the source's title in another case and with a full stop: the same paper
    q = ParsedQuestion("list", "KINASE FOLDING IN ENZYMES.", (), False)  # type: ignore[arg-type]
    assert _answer(q, g) == "Kinase binding\nKinase folding in proteins"
    assert _answer(ParsedQuestion("count", "kinase folding in enzymes", (), False), g) == "2"  # type: ignore[arg-type]


def test_multiple_choice_contexts_split_into_four_groups_the_others_into_two(monkeypatch) -> None:
    from graphniah.baselines import topics
    from tests.text.test_textcheck import build_case

    asked: dict[str, set[int]] = {}
    real = topics.group_titles

    def spy(titles, k, rng, **kw):  # type: ignore[no-untyped-def]
        asked.setdefault(current[0], set()).add(k)
        return real(titles, k, rng, **kw)

    monkeypatch.setattr(topics, "group_titles", spy)
    current = [""]
    for task in ("yesno", "mc", "count"):
        current[0] = task
        topic_cluster([build_case(seed, task).example for seed in (1, 2)], seed=3)
    assert asked == {"yesno": {2}, "mc": {4}, "count": {2}}  # as many groups as the task has components


def _complete(n: int) -> np.ndarray:
    import networkx as nx

    return nx.to_numpy_array(nx.complete_graph(n))


@pytest.mark.parametrize("n", [2, 5, 10, 11])
def test_few_titles_link_to_every_other_title_and_never_to_themselves(n: int) -> None:
    """With at most NEIGHBOURS + 1 titles every title's nearest are all the others: the complete graph, no loop."""
    from graphniah.baselines.topics import _knn_graph

    titles = [f"{SUBJECTS[i % 4][i % 6]} {SUBJECTS[(i + 1) % 4][(i + 2) % 6]} item{i}" for i in range(n)]
    vectors = CheckerTitleSpace.fit(titles).vectors
    assert vectors.shape[0] == n
    assert np.array_equal(_knn_graph(vectors, 10).toarray(), _complete(n))
    groups = group_titles(titles, 2, np.random.default_rng(0))
    assert sorted(set(groups.labels.tolist())) == [0, 1]


def test_the_title_graph_over_several_blocks_of_distinct_titles_is_the_plain_one() -> None:
    """1,600 distinct titles (rows 1,024 at a time: two blocks), many ties: the graph a full stable sort gives,
    each title linked to exactly ten others and never to itself."""
    import itertools

    from graphniah.baselines.topics import _knn_graph

    words = [w for s in SUBJECTS for w in s]
    combos = list(itertools.combinations(words, 3))
    rng = np.random.default_rng(2)
    titles = [" ".join(combos[i]) for i in rng.choice(len(combos), size=1600, replace=False)]
    vectors = CheckerTitleSpace.fit(titles).vectors
    assert vectors.shape[0] == 1600  # distinct normal forms: no row collapses
    sims = np.asarray((vectors @ vectors.T).todense())
    np.fill_diagonal(sims, -np.inf)
    nearest = np.argsort(-sims, axis=1, kind="stable")[:, :10]
    a = np.zeros(sims.shape)
    a[np.repeat(np.arange(len(sims)), 10), nearest.ravel()] = 1
    got = _knn_graph(vectors, 10).toarray()
    assert np.array_equal(got, (a + a.T) / 2)
    assert not got.diagonal().any()  # no self-loop in any block
    assert ((got > 0).sum(axis=1) >= 10).all()  # its own ten links, and those of titles that chose it


# --- the contract, option by option (issue 40: each parameter reaches the output, each refusal, each boundary)


def test_the_neighbours_option_reaches_the_title_graph(monkeypatch) -> None:
    """``group_titles(..., neighbours=n)`` links each title to n others, not to the default ten."""
    from graphniah.baselines import topics

    seen: list[int] = []
    real = topics._knn_graph

    def spy(vectors, neighbours):  # type: ignore[no-untyped-def]
        seen.append(neighbours)
        return real(vectors, neighbours)

    monkeypatch.setattr(topics, "_knn_graph", spy)
    titles, _ = _titles(2, 12, np.random.default_rng(4))
    group_titles(titles, 2, np.random.default_rng(0), neighbours=3)
    group_titles(titles, 2, np.random.default_rng(0))
    assert seen == [3, 10]
    graph = real(CheckerTitleSpace.fit(titles).vectors, 3)
    assert ((graph.toarray() > 0).sum(axis=1) >= 3).all() and graph.toarray().max() == 1.0  # three links of its own each


@pytest.mark.parametrize("k", [2, 4])
def test_as_many_titles_as_groups_each_its_own_group_in_context_order(k: int) -> None:
    """With n ≤ k distinct titles no clustering runs: title i is group i (n = k and n = k − 1)."""
    words = ["Galaxy redshift", "Kinase binding", "Tensor gradient", "Tariff inflation"]
    for n in (k, k - 1):
        groups = group_titles(words[:n], k, np.random.default_rng(1))
        assert groups.labels.tolist() == list(range(n))
        assert groups.titles == tuple(words[:n])
    # one more title than groups: clustered, so two titles share a group
    more = [*words, "Quasar nebula"][: k + 1]
    assert len(set(group_titles(more, k, np.random.default_rng(1)).labels.tolist())) == k


def test_a_source_the_context_does_not_name_gives_no_answer_for_any_task() -> None:
    g = _groups(TITLES, LABELS)
    for task, targets in (("yesno", (P,)), ("mc", (P, Q, R, T)), ("count", ()), ("list", ())):
        q = ParsedQuestion(task, "A source the context lacks", targets, False)  # type: ignore[arg-type]
        assert _answer(q, g) is None, task
    # a multiple-choice option the context lacks: no answer either, even with the others in the source's group
    assert _answer(_q("mc", (P, Q, "An option the context lacks", T)), g) is None


def test_a_list_answer_is_sorted_case_blind_and_count_is_the_group_less_the_source() -> None:
    titles = ["Kinase folding in enzymes", "zeta kinase binding", "alpha kinase", "Beta kinase folding", "Galaxy redshift"]
    g = _groups(titles, [0, 0, 0, 0, 1])
    q = ParsedQuestion("list", titles[0], (), False)  # type: ignore[arg-type]
    assert _answer(q, g) == "alpha kinase\nBeta kinase folding\nzeta kinase binding"  # case-sensitive: 'Beta' before 'alpha'
    assert _answer(ParsedQuestion("count", titles[0], (), False), g) == "3"  # type: ignore[arg-type]
    other = ParsedQuestion("count", "Galaxy redshift", (), False)  # type: ignore[arg-type]
    assert _answer(other, g) == "0"


def test_multiple_choice_ties_go_to_the_first_option_and_letters_follow_the_option_count() -> None:
    g = _groups(TITLES, LABELS)
    # none of the options in the source's group, no "none of these": every similarity is 0, the first option wins
    assert g.similarity(S, R) == g.similarity(S, T) == 0.0
    assert _answer(_q("mc", (R, T, R, T)), g) == "A"
    assert _answer(_q("mc", (T, R, T, R)), g) == "A"
    # two options of the source's group with one title: equal similarity, the first of them
    assert _answer(_q("mc", (R, Q, T, Q)), g) == "B"
    # 'none of these' is the letter after the last option
    assert _answer(_q("mc", (R, T, R, T), none_option=True), g) == "E"


def test_the_seed_and_the_example_id_key_each_example_s_generator(monkeypatch) -> None:
    """Each example's draws come from the ``shortcut`` stream of (seed, suite_key(example id)), so another seed
    gives other draws and two examples never share one."""
    from graphniah.baselines import topics
    from graphniah.seeds import Stream, generator, suite_key
    from tests.text.test_textcheck import build_case

    states: list[tuple[str, dict]] = []
    real = topics.group_titles

    def spy(titles, k, rng, **kw):  # type: ignore[no-untyped-def]
        states.append((current[0], rng.bit_generator.state))
        return real(titles, k, rng, **kw)

    monkeypatch.setattr(topics, "group_titles", spy)
    exs = [build_case(seed, "yesno").example for seed in (1, 2)]
    current = [""]
    for seed in (3, 8):
        for ex in exs:
            current[0] = ex.id
            topic_cluster([ex], seed=seed)
    want = [(ex.id, generator(Stream.SHORTCUT, seed, suite_key(ex.id)).bit_generator.state) for seed in (3, 8) for ex in exs]
    assert states == want
    assert len({str(s) for _, s in states}) == 4


def test_kmeans_runs_kmeans_runs_times_from_the_given_generator(monkeypatch) -> None:
    from graphniah.baselines import topics

    rng = np.random.default_rng(0)
    seeds: list[object] = []
    real = topics.kmeans2

    def spy(x, k, **kw):  # type: ignore[no-untyped-def]
        seeds.append(kw.get("seed"))
        return real(x, k, **kw)

    monkeypatch.setattr(topics, "kmeans2", spy)
    x = np.array([[0.0], [1.0], [10.0], [11.0]])
    assert sorted(topics._kmeans(x, 2, rng).tolist()) == [0, 0, 1, 1]
    assert len(seeds) == 10 and all(s is rng for s in seeds)


def test_the_prompts_given_are_the_ones_read(monkeypatch) -> None:
    """``topic_cluster(..., prompts=p)`` reads each question and context with ``p``, not the shipped set."""
    import copy

    from graphniah.baselines import topics
    from graphniah.text import load_prompts
    from tests.text.test_textcheck import build_case

    mine = copy.copy(load_prompts())
    used: list[object] = []
    real_read, real_parse = topics.read_question, topics.parse_context

    def read(ex, prompts):  # type: ignore[no-untyped-def]
        used.append(prompts)
        return real_read(ex, prompts)

    def parse(context, prompts=None):  # type: ignore[no-untyped-def]
        used.append(prompts)
        return real_parse(context, prompts)

    monkeypatch.setattr(topics, "read_question", read)
    monkeypatch.setattr(topics, "parse_context", parse)
    ex = build_case(1, "count").example
    got = topics.topic_cluster([ex], mine, seed=2)
    assert ex.id in got and len(used) == 2 and all(p is mine for p in used)
