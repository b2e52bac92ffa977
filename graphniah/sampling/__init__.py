"""Sampling stage: path pools and a snapshot become examples with long, packed prompts.

Takes a snapshot and its path pools (from ``graphniah.graph``); gives examples (JSON lines, one
``Example`` each): citation forests grown around disjoint backbones (``examples``), rendered as
paper blocks among distractor text (``corpora``) packed to a target length counted under three
tokenizers (``packing``, with the tokenizers of ``graphniah.text``), and whole experiment suites
(``suites``). The prompt templates and the text-only reader that checks every example are
``graphniah.text``'s.

The names in ``__all__`` are what other stages use; they load on first access (module
``__getattr__``), so importing the package costs nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from graphniah.lazy import attribute

if TYPE_CHECKING:
    from graphniah.sampling.examples.sample import SampleStats, build_example, grow_forest
    from graphniah.sampling.examples.spec import COMPONENTS, ExampleSpec, SamplingContext, spec_of

# Where each public name lives; loaded on first access.
_HOMES = {
    **dict.fromkeys(["COMPONENTS", "ExampleSpec", "SamplingContext", "spec_of"], "graphniah.sampling.examples.spec"),
    **dict.fromkeys(["SampleStats", "build_example", "grow_forest"], "graphniah.sampling.examples.sample"),
}

__all__ = [*_HOMES]  # the public names are the map's keys


def __getattr__(name: str) -> Any:
    return attribute(__name__, _HOMES, name)
