"""Benchmark of how full packed prompts are (prints figures, asserts nothing).

For each text kind and target length L, prompts are packed from the built corpora under the three
tokenizers (40 paper-like needle blocks, ``--seeds`` seeds each), once with the blocks the corpus
stores (the current rule: paragraphs, long ones cut at sentences or code lines into pieces of at
most ``MAX_BLOCK_BYTES``) and once with whole paragraphs (rule v1: blank lines only). Printed per
kind and L: the smallest and mean fill ``max over tokenizers of the prompt's tokens / L`` (the
issue asks for >= 0.97 at every L >= 30,000) and the stop reasons. Then, per kind, the blocks
longer than ``MAX_BLOCK_BYTES`` (single sentences or code lines, never cut) and the most tokens any
of them costs with its separator under any tokenizer (the fill bound needs <= 900 at L = 30,000;
shorter blocks cost at most their bytes + 2 tokens).

    python bench/fill.py [--lengths 30000 200000] [--seeds 3]
"""

from __future__ import annotations

import argparse
from collections import Counter

import numpy as np

from graphniah.sampling.corpora import TEXT_KINDS, Corpus, fetch, open_corpus, split_blocks
from graphniah.sampling.corpora.records import MAX_BLOCK_BYTES
from graphniah.sampling.examples.distract import DocumentSource, wikipedia_source
from graphniah.sampling.examples.render import build_messages
from graphniah.sampling.packing import Distractor, Frame, pack
from graphniah.text import BLOCK_SEPARATOR, load_all

SLOT = "\x00slot\x00"


class ParagraphSource(DocumentSource):
    """The same draws as ``DocumentSource``, but each document as whole paragraphs (rule v1)."""

    def draw(self, rng: np.random.Generator) -> Distractor:
        d = super().draw(rng)
        doc = self.corpus.get(d.label.split(":", 1)[1])
        return Distractor(d.label, tuple(split_blocks(doc.text)))


def needles(rng: np.random.Generator, n: int = 40) -> list[str]:
    out = []
    for i in range(n):
        refs = "\n".join(f"Author{j} (2026). Paper {i}-{j} on graphs. Venue {j}." for j in range(int(rng.integers(1, 4))))
        out.append(f"Title: Needle paper {i} about citation search\nAuthors: A. Person{i}\nReferences:\n{refs}")
    return out


def source(corpus: Corpus, blocks: list[str], whole_paragraphs: bool):
    if corpus.kind.value == "wikipedia" and not whole_paragraphs:
        return wikipedia_source(corpus, [b.split("\n", 1)[0].removeprefix("Title: ") for b in blocks])
    return ParagraphSource(corpus) if whole_paragraphs else DocumentSource(corpus)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--lengths", type=int, nargs="+", default=[30_000, 200_000])
    ap.add_argument("--seeds", type=int, default=3)
    args = ap.parse_args()
    fetch()
    toks = load_all()
    msgs = build_messages("count", "Starting from the paper titled Alpha, how many papers can be reached?", [SLOT])
    frame = Frame.around([(m.role, m.content) for m in msgs], SLOT)
    print(f"fill = max over tokenizers of prompt tokens / L; blocks of at most {MAX_BLOCK_BYTES} bytes")
    print(f"{'kind':<10} {'L':>8} {'rule':<16} {'min fill':>9} {'mean fill':>9}  stops")
    for kind in TEXT_KINDS:
        corpus = open_corpus(kind)
        for limit in args.lengths:
            for whole in (False, True):
                fills, stops = [], Counter()
                for seed in range(args.seeds):
                    rng = np.random.default_rng([seed, limit])
                    nd = needles(rng)
                    keys = rng.random(len(nd))
                    p = pack(frame, nd, keys, source(corpus, nd, whole), limit, toks, np.random.default_rng(seed))
                    fills.append(max(p.token_counts.values()) / limit)
                    stops[p.stop] += 1
                rule = "v1 paragraphs" if whole else "v2 (stored)"
                print(f"{kind.value:<10} {limit:>8,} {rule:<16} {min(fills):>9.4f} {np.mean(fills):>9.4f}  {dict(stops)}", flush=True)
    print("\nblocks over the byte limit (whole sentences or code lines) and their largest token cost (+ separator):")
    for kind in TEXT_KINDS:
        corpus = open_corpus(kind)
        big = [b for i in range(len(corpus)) for b in corpus.blocks(i) if len(b.encode("utf-8")) > MAX_BLOCK_BYTES]
        worst = {n: int(t.count_batch([b + BLOCK_SEPARATOR for b in big]).max()) if big else 0 for n, t in toks.items()}
        longest = max((len(b.encode("utf-8")) for b in big), default=0)
        print(f"{kind.value:<10} {len(big):>5} blocks over {MAX_BLOCK_BYTES} bytes (longest {longest:,} bytes); most tokens: {worst}")


if __name__ == "__main__":
    main()
