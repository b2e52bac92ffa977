"""The text contract: what a prompt says and how it is read back, shared by every stage.

- ``prompts``    the template set in ``prompts/``: loading, its hash, and the :class:`Template` that both
                 fills a line (the renderer) and enumerates its readings (the reader)
- ``textcheck``  the text-only reader: messages back into a citation graph and the answer they imply
                 (``verify``, ``solve``); never reads an example's structured fields
- ``edgelist``   the edge-list rendering (GraphWalks' format): ids for papers and one ``<id> -> <id>`` line
                 per citation
- ``positions``  where the paper blocks and the question sit in a rendered prompt, in tokens (the viewer's
                 needle map reads them; the sampler records them)
- ``evidence``   how far a breadth-first search from the source must read before the answer is settled
- ``surface``    what a pair of printed papers shows besides the citations (title similarity, shared
                 authors, venue, year and day gaps, title length, author count) as feature rows
- ``normalize``  the answer of a response: its last ``\\answer{...}`` block in the task's canonical form
- ``tokenizers`` the three tokenizers a prompt must fit under, offline and exact, with their chat templates
                 (their pinned files and download are :mod:`graphniah.assets.tokenizers`'s)

The package imports no stage. The names in ``__all__`` are what other packages use; they load on
first access (module ``__getattr__``), so importing the package costs nothing. Three names are not
here because a submodule of the package has the same name or another meaning of it:
``textcheck.normalize`` (title normal form), ``evidence.evidence`` and ``tokenizers.Message``
(a ``(role, content)`` pair); import them from their module.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from graphniah.lazy import attribute

if TYPE_CHECKING:
    from graphniah.assets.tokenizers import O200K_SHA256, QWEN_VOCAB_SHA256
    from graphniah.formats.names import TOKENIZERS
    from graphniah.text.evidence import distances
    from graphniah.text.normalize import extract_answer, normalize_answer, title_key, unwrap_answer
    from graphniah.text.prompts import EDGE_TASKS, PROMPTS_ENV, PromptSet, default_prompts_dir, load_prompts, prompts_hash
    from graphniah.text.surface import SURFACE_FEATURES, PrintedPaper, pair_features
    from graphniah.text.textcheck import (
        ParsedQuestion,
        TextGraph,
        TextNode,
        Undetermined,
        VerifyResult,
        answer_of,
        checker_version,
        edge_blocks,
        edge_line_pattern,
        paper_blocks,
        parse_context,
        parse_edge_context,
        parse_messages,
        parse_question,
        rendering_of,
        solve,
        split_messages,
        verify,
    )
    from graphniah.text.tokenizers import (
        BLOCK_SEPARATOR,
        Gemma,
        GlueFlags,
        O200k,
        Qwen35,
        Tokenizer,
        counts_compose,
        is_clean_block,
        load_all,
        load_tokenizer,
    )

# Where each public name lives; loaded on first access.
_HOMES = {
    **dict.fromkeys(["distances"], "graphniah.text.evidence"),
    **dict.fromkeys(["extract_answer", "normalize_answer", "title_key", "unwrap_answer"], "graphniah.text.normalize"),
    **dict.fromkeys(["EDGE_TASKS", "PROMPTS_ENV", "PromptSet", "default_prompts_dir", "load_prompts", "prompts_hash"],
                    "graphniah.text.prompts"),
    **dict.fromkeys(["SURFACE_FEATURES", "PrintedPaper", "pair_features"], "graphniah.text.surface"),
    **dict.fromkeys(["ParsedQuestion", "TextGraph", "TextNode", "Undetermined", "VerifyResult", "answer_of", "checker_version",
                     "edge_blocks", "edge_line_pattern", "paper_blocks", "parse_context", "parse_edge_context", "parse_messages",
                     "parse_question", "rendering_of", "solve", "split_messages", "verify"], "graphniah.text.textcheck"),
    **dict.fromkeys(["TOKENIZERS"], "graphniah.formats.names"),
    **dict.fromkeys(["O200K_SHA256", "QWEN_VOCAB_SHA256"], "graphniah.assets.tokenizers"),  # the pins the counts rest on  # defined with the other shared names
    **dict.fromkeys(["BLOCK_SEPARATOR", "Gemma", "GlueFlags", "O200k",
                     "Qwen35", "Tokenizer", "counts_compose", "is_clean_block", "load_all", "load_tokenizer"],
                    "graphniah.text.tokenizers"),
}

__all__ = [*_HOMES]  # the public names are the map's keys


def __getattr__(name: str) -> Any:
    return attribute(__name__, _HOMES, name)
