"""The lm-eval task module on its own (issue 40's second audit): replies scored in the answer format of
the row's template set, and rows exported before template sets read as the default set.

The replies are written out by hand as each set asks for them (``prompts/sets/``)."""

from __future__ import annotations

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

pytest.importorskip("lm_eval")

from graphniah.errors import GraphNIAHError
from graphniah.integrations.lm_eval_task import DOC_COLUMNS, _doc_table, process_results, task_docs
from tests.dataset.conftest import exported_suite


@pytest.mark.parametrize(("template", "task", "answer", "reply"), [
    ("tagged", "yesno", "YES", "The chain exists.\n<answer>YES</answer>"),
    ("stepwise", "mc", "C", "Step 1: ...\nAnswer: 3"),
    ("plain", "count", "12", "Counting the papers.\nAnswer: 12"),
])
def test_a_reply_is_scored_in_the_answer_format_of_its_rows_set(template: str, task: str, answer: str, reply: str) -> None:
    """Right in its set's format; the same reply read in the default format (``\\answer{...}``) has no answer."""
    assert process_results({"task": task, "answer": answer, "template": template}, [reply]) == {"acc": 1.0}
    assert process_results({"task": task, "answer": answer, "template": "default"}, [reply]) == {"acc": 0.0}
    assert process_results({"task": task, "answer": answer}, [reply]) == {"acc": 0.0}  # no template: the default set


def test_a_data_file_exported_before_template_sets_reads_as_the_default_set(tmp_path) -> None:
    old = [c for c in DOC_COLUMNS if c != "template"]
    rows = {"id": ["yesno-1", "yesno-2"], "task": ["yesno"] * 2, "depth": [4, 8], "component_size": [100, 120],
            "context_length": [None, 8000], "distractor": ["none", "essays"], "messages": [[{"role": "user", "content": "q"}]] * 2,
            "answer": ["YES", "NO"]}
    pq.write_table(pa.table({c: rows[c] for c in old}), tmp_path / "yesno-00000.parquet")
    table = _doc_table(tmp_path / "yesno-00000.parquet")
    assert table.column_names == list(DOC_COLUMNS)
    assert table["template"].to_pylist() == ["default", "default"] and table["id"].to_pylist() == rows["id"]


def test_a_template_set_without_rows_is_refused_by_name(tmp_path_factory) -> None:
    exported = exported_suite(tmp_path_factory)
    assert set(task_docs(exported.dataset, "yesno", "default")["template"]) == {"default"}
    with pytest.raises(GraphNIAHError, match=r"has no yesno examples in template set 'nowhere'"):
        task_docs(exported.dataset, "yesno", "nowhere")


# ---- the contracts, one by one (after the third audit) ---------------------------------------------


def test_task_docs_are_the_rows_of_the_tasks_file_column_by_column(tmp_path_factory) -> None:
    """Every column of :data:`DOC_COLUMNS`, row by row, as the data file and the examples hold them; the
    fingerprint is the data files' hashes; a template set keeps its own rows only."""
    from graphniah.dataset import read_manifest
    from graphniah.formats.examples import read_examples

    exported = exported_suite(tmp_path_factory)
    assert DOC_COLUMNS == ("id", "task", "depth", "component_size", "context_length", "distractor", "template", "messages", "answer")
    for task in ("yesno", "mc", "count"):
        docs = task_docs(exported.dataset, task)
        data = pq.read_table(exported.dataset / "data" / f"{task}-00000.parquet", columns=list(DOC_COLUMNS)).to_pylist()
        assert docs.column_names == list(DOC_COLUMNS) and docs.to_list() == data
        mine = [e for e in read_examples(exported.examples) if e.task == task]
        assert [(d["id"], d["task"], d["depth"], d["component_size"], d["answer"]) for d in docs] == [
            (e.id, e.task, e.depth, e.component_size, e.answer) for e in mine]
        assert [d["messages"] for d in docs] == [[{"role": m.role, "content": m.content} for m in e.messages] for e in mine]
        (entry,) = [f for f in read_manifest(exported.dataset).data_files() if f.task == task]
        assert docs._fingerprint == entry.sha256[:16]
        assert task_docs(exported.dataset, task, "default").to_list() == data  # every row of the demo is in the default set


def test_task_docs_name_the_dataset_and_every_task_in_their_refusals(tmp_path_factory) -> None:
    exported = exported_suite(tmp_path_factory)
    with pytest.raises(GraphNIAHError) as err:
        task_docs(exported.dataset, "Yesno")
    assert str(err.value) == (f"unknown GraphNIAH task 'Yesno' in the lm-eval task folder of {exported.dataset}; "
                              "one of yesno, mc, count, list")
    with pytest.raises(GraphNIAHError) as err:
        task_docs(exported.dataset, "list")
    assert str(err.value) == (f"dataset {exported.dataset} has no list examples (it has yesno, mc, count); "
                              "run the tasks it has, or export it again")
    with pytest.raises(GraphNIAHError) as err:
        task_docs(exported.dataset, "mc", "tagged")
    assert str(err.value) == f"dataset {exported.dataset} has no mc examples in template set 'tagged'"


def test_a_data_file_with_template_sets_keeps_each_rows_set(tmp_path) -> None:
    rows = {"id": ["count-1", "count-2"], "task": ["count"] * 2, "depth": [4, 8], "component_size": [100, 120],
            "context_length": [16000, 8000], "distractor": ["none", "essays"], "template": ["tagged", "plain"],
            "messages": [[{"role": "user", "content": "q"}]] * 2, "answer": ["3", "4"], "options": [None, None]}
    pq.write_table(pa.table(rows), tmp_path / "count-00000.parquet")
    table = _doc_table(tmp_path / "count-00000.parquet")
    assert table.column_names == list(DOC_COLUMNS)  # the columns a task needs only
    assert table.to_pydict() == {c: rows[c] for c in DOC_COLUMNS}


def test_example_messages_are_role_and_content_as_text() -> None:
    from graphniah.integrations.lm_eval_task import example_messages

    doc = {"messages": [{"role": "system", "content": "S", "name": "x"}, {"role": "user", "content": 7}]}
    assert example_messages(doc) == [{"role": "system", "content": "S"}, {"role": "user", "content": "7"}]


def test_the_text_of_an_example_is_its_last_user_message_and_the_prompt_its_messages() -> None:
    import json
    import types

    from lm_eval.models.api_models import JsonChatStr

    from graphniah.integrations.lm_eval_task import GraphNIAHTask

    doc = {"messages": [{"role": "system", "content": "sys"}, {"role": "user", "content": "first"},
                        {"role": "assistant", "content": "a"}, {"role": "user", "content": "second"}]}
    me = types.SimpleNamespace(config=types.SimpleNamespace(task="graphniah_mc"))
    assert GraphNIAHTask.doc_to_text(me, doc) == "second"
    # --apply_chat_template without a template: the messages go as JSON
    for prompt in (GraphNIAHTask.fewshot_context(me, doc, 0, system_instruction="", apply_chat_template=True),
                   GraphNIAHTask.fewshot_context(me, doc, 0, system_instruction=None)):
        assert isinstance(prompt, JsonChatStr) and json.loads(prompt.prompt) == doc["messages"]
    with pytest.raises(ValueError) as err:
        GraphNIAHTask.fewshot_context(me, doc, 3)
    assert str(err.value) == ("graphniah_mc: GraphNIAH examples are zero-shot (each carries its own instructions); "
                              "drop --num_fewshot 3")
    with pytest.raises(ValueError) as err:
        GraphNIAHTask.fewshot_context(me, doc, 0, system_instruction="Be brief.")
    assert str(err.value) == "graphniah_mc: each GraphNIAH example carries its own system message; drop --system_instruction"


def test_process_results_scores_the_first_reply_and_gives_f1_for_lists_only() -> None:
    assert process_results({"task": "yesno", "answer": "YES"}, ["\\answer{YES}", "\\answer{NO}"]) == {"acc": 1.0}
    assert process_results({"task": "yesno", "answer": "YES"}, []) == {"acc": 0.0}  # no reply: no answer
    assert process_results({"task": "count", "answer": "3", "template": None}, ["\\answer{3}"]) == {"acc": 1.0}
    assert process_results({"task": "list", "answer": "A\nB", "template": "default"}, ["\\answer{\nB\nA\n}"]) == {"acc": 1.0, "f1": 1.0}
    assert process_results({"task": "list", "answer": "A\nB"}, []) == {"acc": 0.0, "f1": 0.0}
