# ---
# jupyter:
#   jupytext:
#     formats: py:percent
#     text_representation:
#       extension: .py
#       format_name: percent
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # GraphNIAH: statistical report of one suite
#
# This notebook is the editable form of `graphniah report`: it loads a suite's examples and run
# journals through `graphniah.report` (nothing is re-implemented here), shows the tables in the
# paper's layouts, the figures, the effective depth and size, and the table of answers for your
# own analyses. Open it with Jupyter (`jupytext` pairs it with an `.ipynb`), or run it headless:
#
#     GRAPHNIAH_SUITE=depth jupytext --to notebook --execute analysis/report.py
#
# Parameters come from environment variables (or edit the next cell).

# %% tags=["parameters"]
import os
from pathlib import Path

ROOT = next((p for p in (Path.cwd(), *Path.cwd().parents) if (p / "pyproject.toml").is_file()), Path.cwd())
SUITE = os.environ.get("GRAPHNIAH_SUITE", "demo")
RUNS = Path(os.environ.get("GRAPHNIAH_RUNS", ROOT / "runs"))
EXAMPLES = Path(os.environ.get("GRAPHNIAH_EXAMPLES", ROOT / "examples"))
BY = os.environ.get("GRAPHNIAH_BY") or None  # the varied variable; default: suite manifest, else inferred
PAPER_Z = os.environ.get("GRAPHNIAH_PAPER_Z", "") == "1"  # Wilson intervals with z = 1.96 as the paper printed them
THRESHOLD_MARGIN = float(os.environ.get("GRAPHNIAH_THRESHOLD_MARGIN", "0.25"))  # effective depth: baseline + this

# %%
from IPython.display import Image, Markdown, display

from graphniah.report import ReportConfig, build_report, load_suite
from graphniah.report.figures import figure_bytes
from graphniah.stats import PAPER_Z as Z

data = load_suite(SUITE, runs_root=RUNS, examples_root=EXAMPLES, by=BY)
report = build_report(data, ReportConfig(z=Z if PAPER_Z else None, threshold_margin=THRESHOLD_MARGIN))
display(Markdown("\n".join(f"- **{k}**: {v}" for k, v in report.facts())))
for note in data.notes:
    display(Markdown(f"> {note}"))

# %% [markdown]
# ## Accuracy by the varied variable
#
# Each cell: accuracy (%) and its Wilson interval. The random-guessing row is the exact expected
# accuracy of uniform guesses (appendix D of the paper).

# %%
display(Markdown(report.table("accuracy").markdown()))
display(Markdown(report.table("effective").markdown()))

# %%
for fig in report.figures().values():
    display(Image(data=figure_bytes(fig, "png")))

# %% [markdown]
# ## Every other table
#
# Per-task splits, YES/NO label splits and NO-answer rates, counting outcomes, the "none of these"
# comparison (when the suite has it), pairwise tests, and cost, tokens and response time.

# %%
for table in report.tables:
    if table.key not in ("accuracy", "effective"):
        display(Markdown(table.markdown()))

# %% [markdown]
# ## The answers as a table
#
# One row per answered (example, model settings): design variables, the extracted answer,
# correctness, usage. Use it for analyses the report does not make, for example accuracy by task
# and distractor type:

# %%
answers = data.outcomes.to_pandas()
answers["row"] = [data.row_labels[r] for r in data.row]
answers["value"] = [data.levels[v] for v in data.value]
display(answers.head())
display(answers.pivot_table(index="row", columns=["task", "distractor"], values="correct", aggfunc="mean").round(3))
