r"""GraphNIAH inside lm-evaluation-harness: what the ``utils.py`` of a dataset's ``lm_eval/`` folder imports.

``graphniah export`` writes the task folder (:mod:`graphniah.dataset.lm_eval`); lm-eval imports
this module through it. Three pieces:

- :func:`task_docs`: a task's rows, read from the dataset's Parquet file after the folder is checked
  against its manifest (``graphniah verify``'s hash check), as an in-memory ``datasets.Dataset``:
  nothing is downloaded or cached, and only the columns a task needs are read;
- :class:`GraphNIAHTask`: lm-eval's configurable task, except that the prompt of an example is the
  example's own chat messages (system, then user), exactly as ``graphniah run`` sends them. A chat
  API model (``local-chat-completions``, ``openai-chat-completions``) gets them as its
  ``messages``, with or without ``--apply_chat_template``; with the flag, a model that renders its
  own template (``hf``, ``vllm``) renders these messages;
- :func:`process_results`: :func:`graphniah.scoring.score_response` on the reply, giving ``acc``
  (1.0 when right: for ``list``, the exact set) and for ``list`` also ``f1``. These are the verdicts
  of ``graphniah score``, inspect_ai and the report on the same replies.

Notes
-----
An example is zero-shot and carries its own system prompt, so ``--num_fewshot`` above 0 and
``--system_instruction`` are refused: either would send a prompt other than the example's. A call
that fails for good stops lm-eval's run (``graphniah run`` instead records it and leaves it out of the
accuracy); a reply without content is lm-eval's placeholder text, which has no answer and is wrong.
A task's rows are held in memory, as lm-eval holds its datasets: about 4 MB per 922k-token example
(``--log_samples`` writes each prompt once more, in its sample log).
Importing this module imports ``lm_eval`` (``pip install 'graphniah[lm-eval]'``).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import datasets
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
from datasets.table import InMemoryTable
from lm_eval.api.task import ConfigurableTask
from lm_eval.models.api_models import JsonChatStr

from graphniah.dataset import open_dataset
from graphniah.errors import GraphNIAHError
from graphniah.formats import TASKS
from graphniah.scoring import score_response
from graphniah.text.prompts import answer_format

#: The columns a task reads: the prompt, the truth, and the design variables (kept in lm-eval's sample logs).
DOC_COLUMNS = ("id", "task", "depth", "component_size", "context_length", "distractor", "template", "messages", "answer")


def task_docs(dataset: str | os.PathLike[str], task: str, template: str | None = None) -> datasets.Dataset:
    """The rows of one task of a dataset folder, checked against its manifest, in suite order.

    Parameters
    ----------
    dataset : path
        The dataset folder (``graphniah export``'s output).
    task : str
        ``yesno``, ``mc``, ``count`` or ``list``.
    template : str, optional
        Keep the rows worded in this template set only (``--metadata '{"template": "tagged"}'``);
        a folder exported before template sets holds ``default`` rows only.

    Returns
    -------
    datasets.Dataset
        The columns :data:`DOC_COLUMNS`, held in memory (no cache files, no hub).
    """
    if task not in TASKS:
        raise GraphNIAHError(f"unknown GraphNIAH task {task!r} in the lm-eval task folder of {dataset}; one of {', '.join(TASKS)}")
    ds = open_dataset(dataset)  # every file against the manifest's hashes, the data files' schema
    entries = [f for f in ds.manifest.data_files() if f.task == task]
    if not entries:
        raise GraphNIAHError(f"dataset {dataset} has no {task} examples (it has {', '.join(t for t in TASKS if t in ds.manifest.tasks)}); "
                             f"run the tasks it has, or export it again")
    table = pa.concat_tables([_doc_table(ds.path / f.path) for f in entries])
    if template is not None:
        table = table.filter(pc.equal(table["template"], template))
        if not table.num_rows:
            raise GraphNIAHError(f"dataset {dataset} has no {task} examples in template set {template!r}")
    return datasets.Dataset(InMemoryTable(table), fingerprint="-".join(f.sha256[:16] for f in entries))


def _doc_table(path: os.PathLike[str]) -> pa.Table:
    """A data file's :data:`DOC_COLUMNS`; a file exported before template sets gets ``template`` = default."""
    names = set(pq.read_schema(path).names)
    table = pq.read_table(path, columns=[c for c in DOC_COLUMNS if c in names])
    if "template" not in names:
        table = table.add_column(DOC_COLUMNS.index("template"), "template", pa.array(["default"] * table.num_rows, pa.string()))
    return table


def example_messages(doc: Mapping[str, Any]) -> list[dict[str, str]]:
    """The chat messages of a row, ``[{role, content}, ...]``, as the example holds them."""
    return [{"role": str(m["role"]), "content": str(m["content"])} for m in doc["messages"]]


class GraphNIAHTask(ConfigurableTask):  # type: ignore[misc]  # lm_eval is untyped
    """lm-eval's YAML-configured generation task whose prompt is the example's own chat messages."""

    def __init__(self, config: dict[str, Any] | None = None) -> None:
        # lm-eval hands the whole YAML over, ``class`` key included, which TaskConfig does not take.
        super().__init__(config={k: v for k, v in (config or {}).items() if k != "class"})

    def doc_to_text(self, doc: Mapping[str, Any], doc_to_text: Any = None) -> str:
        """The user message (what lm-eval shows as the example's text; the prompt is :meth:`fewshot_context`)."""
        return next(m["content"] for m in reversed(example_messages(doc)) if m["role"] == "user")

    def fewshot_context(
        self,
        doc: Mapping[str, Any],
        num_fewshot: int,
        system_instruction: str | None = None,
        apply_chat_template: bool = False,
        fewshot_as_multiturn: bool = False,
        chat_template: Callable[..., Any] | None = None,
        gen_prefix: str | None = None,
    ) -> Any:
        """The example's messages: as a JSON chat (what lm-eval's chat API models send as ``messages``),
        or rendered by the model's ``chat_template`` under ``--apply_chat_template``."""
        if num_fewshot:
            raise ValueError(f"{self.config.task}: GraphNIAH examples are zero-shot (each carries its own instructions); "
                             f"drop --num_fewshot {num_fewshot}")
        if system_instruction:
            raise ValueError(f"{self.config.task}: each GraphNIAH example carries its own system message; drop --system_instruction")
        messages = example_messages(doc)
        if apply_chat_template and chat_template is not None:
            return chat_template(messages)
        return JsonChatStr(json.dumps(messages, ensure_ascii=False))


def process_results(doc: Mapping[str, Any], results: Sequence[str]) -> dict[str, float]:
    r"""Score the reply with :func:`graphniah.scoring.score_response`: ``acc``, and ``f1`` for list questions."""
    fmt = answer_format(str(doc.get("template") or "default"))  # the answer format the example's set asks for
    scored = score_response(str(doc["task"]), str(doc["answer"]), results[0] if results else None, fmt)
    out = {"acc": 1.0 if scored.correct else 0.0}
    if scored.listing is not None:
        out["f1"] = scored.listing.f1
    return out
