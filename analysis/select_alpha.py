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
# # GraphNIAH: selecting the concentration parameter α (appendix B)
#
# `graphniah select-alpha --out reports/select-alpha` grows examples for every candidate α and
# task, and stores every example's in-degree histogram next to the result. This notebook loads that
# run through `graphniah.report.alpha`, shows the table and Figure 10, and lets you redo the selection with
# other choices (smoothing ε, bootstrap replicates, confidence level, a subset of α or tasks)
# without growing anything again.

# %% tags=["parameters"]
import os
from pathlib import Path

ROOT = next((p for p in (Path.cwd(), *Path.cwd().parents) if (p / "pyproject.toml").is_file()), Path.cwd())
RUN = Path(os.environ.get("GRAPHNIAH_ALPHA_RUN", ROOT / "reports" / "select-alpha"))
EPSILON = float(os.environ.get("GRAPHNIAH_ALPHA_EPSILON", "1e-8"))
BOOTSTRAP = int(os.environ.get("GRAPHNIAH_ALPHA_BOOTSTRAP", "500"))

# %%
import dataclasses

from IPython.display import Image, Markdown, display

from graphniah.report.alpha import alpha_figure, load_alpha_run, select_alpha
from graphniah.report.figures import figure_bytes

generated, reference, config = load_alpha_run(RUN)
display(Markdown((RUN / "alpha.md").read_text()))

# %% [markdown]
# ## The selection again, with this notebook's parameters

# %%
config = dataclasses.replace(config, epsilon=EPSILON, bootstrap=BOOTSTRAP)
selection = select_alpha(generated, reference, config)
display(Markdown(selection.markdown()))
display(Image(data=figure_bytes(alpha_figure(selection), "png")))

# %% [markdown]
# ## Per-task divergences
#
# $D_{\alpha,\tau}$ for every candidate and task; the selection averages them over tasks.

# %%
import pandas as pd

display(pd.DataFrame(selection.kl, index=[f"α = {a:g}" for a in config.alphas], columns=list(config.tasks)).round(5))
