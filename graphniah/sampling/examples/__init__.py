"""Examples stage: records, prompt templates, rendering, and the text-only verifier (the oracle).

- ``records``   PaperMeta, Message, Example (+ stats, recipe) and JSONL read/write
- ``prompts``   the template set in ``prompts/`` (loading, hash, fill/read-back)
- ``render``    paper blocks, questions, messages, Table-2 statistics
- ``textcheck`` reads messages back into a graph and recomputes the answer (never uses the
                example's structured fields)

The sampler's modules (component growth, sampling) live beside these and build on them.
"""
