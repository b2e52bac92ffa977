r"""The lm-evaluation-harness task folder of a dataset: ``<dataset>/lm_eval/``, written by ``graphniah export``.

lm-evaluation-harness (``lm-eval``) loads tasks from outside its package with ``--include_path DIR``;
this folder is such a ``DIR``. It holds, for the tasks the dataset has:

- ``graphniah_<task>.yaml``: one lm-eval task per GraphNIAH task (``graphniah_yesno``,
  ``graphniah_mc``, ``graphniah_count``, ``graphniah_list``), a generation task over the rows of
  ``data/<task>-00000.parquet``;
- ``graphniah.yaml``: the group ``graphniah`` that runs them all, with the accuracy over all of
  them weighted by their sizes;
- ``utils.py``: ``custom_dataset``, which finds the Parquet files from its own location (the folder's
  parent), so lm-eval may run from any working directory — lm-eval would resolve a relative
  ``data_files`` from the working directory — and the task class and ``process_results`` of
  :mod:`graphniah.integrations.lm_eval_task`.

Scoring is :func:`graphniah.scoring.score_response`, the rule of ``graphniah score``, inspect_ai and
the report: the folder holds no answer extraction of its own. The metrics are ``acc`` (exact answer;
for ``list``, the exact set) and, for ``list``, ``f1``.

This module only writes text; it never imports ``lm_eval``, so an export writes the folder whether
or not the ``lm-eval`` extra is installed (:func:`run_hint` says how to run it and what to install).

Usage (against the local oracle, ``graphniah serve --policy oracle``)::

    lm-eval run --include_path <dataset>/lm_eval --tasks graphniah --model local-chat-completions \
        --model_args base_url=http://127.0.0.1:8701/v1/chat/completions,model=local-oracle
"""

from __future__ import annotations

import hashlib
import importlib.util
from collections.abc import Iterable, Mapping
from pathlib import Path

from graphniah.atomic import write_in_staging
from graphniah.formats import TASKS
from graphniah.formats.dataset import DatasetManifest

#: The folder's name inside the dataset folder.
LM_EVAL_DIR = "lm_eval"
#: The lm-eval group that runs every task of the folder.
GROUP = "graphniah"
#: What installs lm-eval's API models next to graphniah (pyproject's extra; no torch, no transformers).
INSTALL = "pip install 'graphniah[lm-eval]'"
#: The local oracle's chat-completions endpoint (``graphniah serve --policy oracle``, registry entry ``local-oracle``).
ORACLE_CHAT_URL = "http://127.0.0.1:8701/v1/chat/completions"
#: Tokens a reply may take. The prompts let models reason before the answer line and a list answer
#: names up to a component's papers; lm-eval's own default (256) would cut most replies short.
#: ``--gen_kwargs max_gen_toks=N`` changes it for a run.
MAX_GEN_TOKS = 16384
#: Bumped whenever the tasks would score differently (lm-eval reports it per task).
TASK_VERSION = 1

_UTILS = '''\
"""lm-evaluation-harness hooks of this GraphNIAH dataset folder (written by `graphniah export`; the
dataset's manifest hashes this file).

The Parquet files are found from this file's own place, the folder beside `data/`, so lm-eval may
run from any working directory. The task class sends each example's own system and user messages;
`process_results` scores replies with graphniah.scoring, the rule of `graphniah score`.
"""

from pathlib import Path

try:
    from graphniah.integrations.lm_eval_task import GraphNIAHTask, process_results, task_docs
except ImportError as err:  # lm-eval runs in an environment without graphniah
    raise ImportError("the GraphNIAH tasks score replies with graphniah.scoring: pip install 'graphniah[lm-eval]' "
                      f"in the environment that runs lm-eval ({err})") from err

__all__ = ["GraphNIAHTask", "custom_dataset", "process_results"]

#: The dataset folder: the parent of this folder, wherever the two are.
DATASET = Path(__file__).resolve().parent.parent


def custom_dataset(graphniah_task, template=None, **_):
    """The `test` split of one task; `--metadata '{"template": NAME}'` keeps one template set's rows
    (lm-eval also passes its other --metadata and model arguments: unused)."""
    return {"test": task_docs(DATASET, graphniah_task, template)}
'''


def task_name(task: str) -> str:
    """The lm-eval task of a GraphNIAH task: ``graphniah_<task>``."""
    return f"{GROUP}_{task}"


def _task_yaml(task: str) -> str:
    metrics = ["acc", "f1"] if task == "list" else ["acc"]
    metric_list = "".join(f"  - metric: {m}\n    aggregation: mean\n    higher_is_better: true\n" for m in metrics)
    return (
        f"# GraphNIAH `{task}` questions as an lm-evaluation-harness task (written by `graphniah export`).\n"
        f"task: {task_name(task)}\n"
        "class: !function utils.GraphNIAHTask\n"
        "custom_dataset: !function utils.custom_dataset\n"
        "dataset_kwargs:\n"
        f"  graphniah_task: {task}\n"
        "test_split: test\n"
        "output_type: generate_until\n"
        "doc_to_target: answer\n"
        "process_results: !function utils.process_results\n"
        "generation_kwargs:\n"
        "  until: []\n"  # no stop sequence: a reply ends on its own (lm-eval's default would stop at a blank line)
        f"  max_gen_toks: {MAX_GEN_TOKS}\n"
        "metric_list:\n"
        f"{metric_list}"
        "metadata:\n"
        f"  version: {TASK_VERSION}\n"
    )


def _group_yaml(tasks: Iterable[str]) -> str:
    members = "".join(f"  - {task_name(t)}\n" for t in tasks)
    return (
        "# Every GraphNIAH task of this dataset (written by `graphniah export`).\n"
        f"group: {GROUP}\n"
        "task:\n"
        f"{members}"
        "aggregate_metric_list:\n"
        "  - metric: acc\n"
        "    aggregation: mean\n"
        "    weight_by_size: true\n"
        "metadata:\n"
        f"  version: {TASK_VERSION}\n"
    )


def folder_files(tasks: Iterable[str]) -> dict[str, str]:
    """The folder's files for a dataset with these tasks: ``{path relative to the dataset: text}``.

    Only tasks with examples get a task (lm-eval refuses a task without documents); they are
    ordered as :data:`graphniah.formats.TASKS`.
    """
    present = [t for t in TASKS if t in set(tasks)]
    files = {f"{LM_EVAL_DIR}/{task_name(t)}.yaml": _task_yaml(t) for t in present}
    files[f"{LM_EVAL_DIR}/{GROUP}.yaml"] = _group_yaml(present)
    files[f"{LM_EVAL_DIR}/utils.py"] = _UTILS
    return files


def write_lm_eval_folder(root: str | Path, tasks: Iterable[str]) -> list[Path]:
    """Write the folder into the dataset folder ``root`` being built (``atomic_dir``'s staging folder).

    Returns the paths written, for the manifest to hash.
    """
    out = []
    for rel, text in folder_files(tasks).items():
        write_in_staging(Path(root) / rel, text)
        out.append(Path(root) / rel)
    return out


def folder_is_current(manifest: DatasetManifest) -> bool:
    """Whether the manifest lists exactly the folder this exporter writes for its tasks, byte for byte.

    An export made before the folder existed, or by an exporter writing other tasks' files, is not
    current (``export_if_changed`` then exports again).
    """
    want = {rel: hashlib.sha256(text.encode("utf-8")).hexdigest() for rel, text in folder_files(manifest.tasks).items()}
    have = {f.path: f.sha256 for f in manifest.files if f.path.startswith(f"{LM_EVAL_DIR}/")}
    return have == want


def lm_eval_command(include_path: str, base_url: str = ORACLE_CHAT_URL, model: str = "local-oracle") -> str:
    """The ``lm-eval run`` line for the folder ``include_path`` against a chat-completions endpoint."""
    return (f"lm-eval run --include_path {include_path} --tasks {GROUP} --model local-chat-completions "
            f"--model_args base_url={base_url},model={model}")


def lm_eval_installed() -> bool:
    """Whether ``lm_eval`` can be imported here (found, not imported: its import takes seconds)."""
    try:
        return importlib.util.find_spec("lm_eval") is not None
    except (ImportError, ValueError):  # ValueError: sys.modules holds a None or spec-less stand-in
        return False


def run_hint(dataset: str | Path, installed: bool | None = None) -> str:
    """One line saying how to run the dataset's lm-eval tasks, and what to install first when lm-eval is missing."""
    installed = lm_eval_installed() if installed is None else installed
    line = (f"lm-evaluation-harness tasks in {Path(dataset) / LM_EVAL_DIR}/: with `graphniah serve --policy oracle` running, "
            f"`{lm_eval_command(str(Path(dataset) / LM_EVAL_DIR))}`")
    if not installed:
        line += f" (lm-eval is not installed here: {INSTALL} first)"
    return line


def card_fields(tasks: Mapping[str, object] | Iterable[str]) -> dict[str, str]:
    """The dataset card's fields about the folder: its name, its tasks and the command (for ``DIR``)."""
    present = [t for t in TASKS if t in set(tasks)]
    return {
        "lm_eval_dir": LM_EVAL_DIR,
        "lm_eval_tasks": ", ".join(f"`{task_name(t)}`" for t in present),
        "lm_eval_group": GROUP,
        "lm_eval_install": INSTALL,
        "lm_eval_command": lm_eval_command(f"DIR/{LM_EVAL_DIR}"),
        "lm_eval_max_gen_toks": f"{MAX_GEN_TOKS:,}",
    }
