"""Opening corpora: blocks, random draws, user folders, and BM25 retrieval."""

from __future__ import annotations

import numpy as np
import pytest

from graphniah.errors import GraphNIAHError
from graphniah.sampling.corpora import Kind, open_corpus
from graphniah.sampling.corpora.corpus import folder_env
from graphniah.sampling.corpora.records import block_rule, line_starts, sentence_starts, split_blocks
from graphniah.text import is_clean_block


@pytest.mark.parametrize("kind", ["code", "essays", "books", "wikipedia"])
def test_blocks_of_built_corpora(built_corpora, kind):
    corpus = open_corpus(kind)
    manifest = built_corpora[kind]
    rule = block_rule(Kind(kind))
    assert len(corpus) == manifest.n_documents
    assert manifest.recipe["blocks"] == rule.as_dict() == {k: manifest.blocks[k] for k in ("version", "unit", "max_bytes")}
    rng = np.random.default_rng(5)
    picks = [corpus.draw(rng) for _ in range(40)]
    for doc in picks:
        blocks = corpus.blocks(doc)
        assert blocks and all(is_clean_block(b) for b in blocks)
        assert blocks == rule.split(doc.text)  # the stored blocks are the rule's
        assert corpus.blocks(doc.doc_id) == blocks
        # no block holds a blank line; the blocks are consecutive parts of the paragraphs (in order,
        # nothing lost but whitespace), and a block over the size limit is a single sentence or line
        assert all(all(line.strip() for line in b.split("\n")) for b in blocks)
        assert " ".join(blocks).split() == doc.text.split()
        paragraphs = iter(split_blocks(doc.text))
        para = next(paragraphs)
        pos = 0
        for b in blocks:
            at = para.find(b, pos)
            if at < 0:
                para, pos = next(paragraphs), 0
                at = para.find(b)
            assert at == pos or (at > pos and not para[pos:at].strip()), (doc.doc_id, b[:60])
            pos = at + len(b)
            if len(b.encode()) > rule.max_bytes:
                starts = sentence_starts(b) if rule.unit == "sentence" else line_starts(b)
                assert starts == [], (doc.doc_id, b[:80])
    stored = [len(corpus.blocks(i)) for i in range(len(corpus))]
    assert sum(stored) == manifest.n_blocks == manifest.blocks["n_blocks"]
    assert manifest.blocks["n_over_max"] == sum(
        len(b.encode()) > rule.max_bytes for i in range(len(corpus)) for b in corpus.blocks(i)
    )


def test_draw_is_reproducible_and_uniform(built_corpora):
    corpus = open_corpus("essays")
    a = [corpus.draw(np.random.default_rng(42)).doc_id for _ in range(3)]
    assert len(set(a)) == 1
    rng1, rng2 = np.random.default_rng(9), np.random.default_rng(9)
    assert [corpus.draw(rng1).doc_id for _ in range(50)] == [corpus.draw(rng2).doc_id for _ in range(50)]
    rng = np.random.default_rng(3)
    counts = np.bincount([corpus.ids.index(corpus.draw(rng).doc_id) for _ in range(4900)], minlength=len(corpus))
    assert counts.min() > 50 and counts.max() < 160  # ~100 each for 49 essays


def _user_folder(tmp_path):
    folder = tmp_path / "mine"
    (folder / "sub").mkdir(parents=True)
    (folder / "cats.txt").write_text("Cats are small felines.\n\nA cat purrs when content.\n")
    (folder / "sub" / "dogs.md").write_text("Dogs bark.\n\n\nDogs are loyal companions of people.")
    (folder / "physics.txt").write_text("Quantum mechanics describes particles and waves.")
    (folder / "image.bin").write_bytes(b"\x89PNG\x00\x00binary")
    (folder / ".hidden.txt").write_text("should be ignored")
    (folder / "empty.txt").write_text("\n  \n")
    return folder


def test_user_folder_override(tmp_path, monkeypatch):
    folder = _user_folder(tmp_path)
    corpus = open_corpus("essays", tmp_path / "no-data-here", folder=folder)
    assert corpus.is_user_folder and corpus.manifest is None
    assert corpus.ids == ("cats.txt", "physics.txt", "sub/dogs.md")
    assert corpus.blocks("sub/dogs.md") == ["Dogs bark.", "Dogs are loyal companions of people."]
    monkeypatch.setenv(folder_env(Kind.WIKIPEDIA), str(folder))
    assert folder_env(Kind.WIKIPEDIA) == "GRAPHNIAH_CORPUS_WIKIPEDIA"
    via_env = open_corpus("wikipedia", tmp_path / "no-data-here")
    assert via_env.is_user_folder and len(via_env) == 3
    with pytest.raises(GraphNIAHError, match="does not exist"):
        open_corpus("books", folder=tmp_path / "nope")
    (tmp_path / "void").mkdir()
    with pytest.raises(GraphNIAHError, match="no non-empty text files"):
        len(open_corpus("books", folder=tmp_path / "void"))
    with pytest.raises(GraphNIAHError, match="sampled from the citation graph"):
        open_corpus("disjoint-component")


def test_bm25_ranks_the_relevant_document_first(tmp_path):
    corpus = open_corpus("wikipedia", folder=_user_folder(tmp_path))
    assert corpus.retrieve(["Why does my cat purr?"], 1)[0].doc_id == "cats.txt"
    assert corpus.retrieve(["loyal dogs"], 3)[0].doc_id == "sub/dogs.md"
    # two queries: each query's best passage comes first, then the rest, no repeats
    both = [d.doc_id for d in corpus.retrieve(["quantum particles", "barking dogs"], 5)]
    assert both == ["physics.txt", "sub/dogs.md"]
    assert corpus.retrieve(["xylophone zeppelin"], 3) == []
    assert corpus.retrieve(["cats"], 0) == []


def test_bm25_on_the_wikipedia_summaries(built_corpora):
    wiki = open_corpus("wikipedia")
    titles = ["Light-harvesting efficiency of photosynthesis in C4 plants",
              "Quantum error correction with surface codes"]
    got = [d.doc_id for d in wiki.retrieve(titles, 8)]
    assert len(got) == len(set(got)) == 8
    assert {"Photosynthesis", "Chlorophyll"} <= set(got)
    assert {"Quantum mechanics", "Error detection and correction", "Coding theory"} & set(got)
    s = wiki.scores(titles[0])
    assert s.shape == (len(wiki),) and s[wiki.ids.index("Photosynthesis")] > np.percentile(s, 99.9)



def test_a_user_folder_is_pinned_with_its_block_rule(tmp_path, monkeypatch):
    """Recipes pin a user folder by its texts and by the rule that cuts them into blocks: another rule
    gives other blocks, so ``graphniah show`` must see another corpus."""
    from graphniah.sampling.corpora.records import BlockRule
    from graphniah.sampling.examples import distract

    corpus = open_corpus("essays", folder=_user_folder(tmp_path))
    before = distract.corpus_fingerprint(corpus)
    assert distract.corpus_fingerprint(open_corpus("essays", folder=tmp_path / "mine")) == before
    monkeypatch.setattr(distract, "block_rule", lambda kind: BlockRule(max_bytes=100))
    assert distract.corpus_fingerprint(corpus) != before
