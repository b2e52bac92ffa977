"""Target choice: who asks, what is asked about, and the answer, from the grown components.

A task grows ``COMPONENTS[task]`` components (:mod:`graphniah.sampling.examples.spec`), the first
around the source's backbone. :func:`choose_targets` reads the question off them: the YES/NO
question's target is the first component's target (YES) or the second's (NO); the options of a
multiple-choice question are the four components' targets with the true one at the answer letter;
a listing question's targets are the first component's other papers; counting has none. Which
backbones the other components grow on (uniform, or similarity-matched) is the path draw's choice
(``sample.draw_paths``); :func:`balanced_labels` assigns a batch's answers.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from graphniah.formats.examples import option_letters
from graphniah.sampling.examples.grow import Component
from graphniah.sampling.examples.spec import COMPONENTS, ExampleSpec


def choose_targets(spec: ExampleSpec, comps: list[Component]) -> tuple[int, list[int], str]:
    """The question posed on the grown components: its source, its targets and the answer.

    Parameters
    ----------
    spec : ExampleSpec
        The example's task and label (YES or NO; the answer letter of multiple choice).
    comps : list of Component
        The grown components, ``COMPONENTS[spec.task]`` of them, the first grown around the source.

    Returns
    -------
    source : int
        The source paper's vertex: the first component's source.
    targets : list of int
        The vertices the question names, in option order: the first component's target (YES) or
        the second's (NO); the four components' targets, the first's at the answer letter (multiple
        choice); the first component's other papers (listing); none (counting).
    answer : str
        The label (YES/NO, multiple choice), the number of other papers in the source's component
        (counting), or empty for listing (its answer, the targets' titles, is written when the
        example is assembled).
    """
    first = comps[0]
    if spec.task == "yesno":
        target = first.target if spec.label == "YES" else comps[1].target
        return first.source, [target], spec.label or ""
    if spec.task == "mc":
        letters = option_letters(COMPONENTS["mc"], False)
        wrong = [c.target for c in comps[1:]]
        pos = letters.index(spec.label or "")
        return first.source, wrong[:pos] + [first.target] + wrong[pos:], spec.label or ""
    if spec.task == "list":  # every other paper of the component; the answer (their titles) is set by _assemble
        return first.source, [v for v in first.order if v != first.source], ""
    return first.source, [], str(spec.component_size - 1)


def balanced_labels(tasks: Sequence[str], rng: np.random.Generator) -> list[str | None]:
    """Answers for a sequence of tasks: YES/NO in consecutive pairs of the YES/NO examples (one of
    each, random order), letters A–D in consecutive groups of four of the multiple-choice ones,
    None for counting (appendix A.2.5). The last pair or group may be incomplete."""
    groups = {"yesno": ["YES", "NO"], "mc": list(option_letters(COMPONENTS["mc"], False))}
    current: dict[str, list[str]] = {"yesno": [], "mc": []}
    out: list[str | None] = []
    for task in tasks:
        if task not in groups:
            out.append(None)
            continue
        if not current[task]:
            current[task] = rng.permutation(groups[task]).tolist()[::-1]  # popped from the end
        out.append(current[task].pop())
    return out

