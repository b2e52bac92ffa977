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
