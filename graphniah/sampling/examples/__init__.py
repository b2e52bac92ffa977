"""Examples: the sampler that draws, grows, poses, renders and verifies one example at a time.

- ``spec``       what defines an example (``ExampleSpec``) and the snapshot it is drawn from (``SamplingContext``)
- ``papers``     the snapshot's papers as the steps take them (``Papers``: graph, title keys, metadata)
- ``backbones``  backbone paths drawn from a path pool
- ``similarity`` matched sampling: wrong answers whose titles are as close to the source as the true answer's
- ``components`` matched components: the other components as close in subject to the source's as it is to itself
- ``grow``       the components grown around the backbones (preferential attachment)
- ``targets``    the question posed on the grown components: source, targets and answer
- ``render``     paper blocks, questions, chat messages, statistics
- ``distract``   distractors of each kind
- ``sample``     the drawing loop: draw, grow, pose, render, pack, verify; ``regenerate`` from a recipe

The example records are ``graphniah.formats.examples``; the prompt templates, the text-only reader that
verifies every example (``textcheck``), the edge-list rendering (``edgelist``), where blocks lie in tokens
(``positions``) and the evidence statistics are ``graphniah.text``.
"""
