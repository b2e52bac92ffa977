"""Sampling stage: path pools and a snapshot become examples with long, packed prompts.

Takes a snapshot and its path pools (from ``graphniah.graph``); gives examples (JSON lines, one
``Example`` each): citation forests grown around disjoint backbones (``examples``), rendered as
paper blocks among distractor text (``corpora``) packed to a target length counted under three
tokenizers (``tokenizers``, ``packing``), and whole experiment suites (``suites``).
"""
