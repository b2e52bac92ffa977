# GraphNIAH — every target sets itself up: a fresh clone needs only `make demo` or `make test`.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
CUTOFF ?= 2026-04-01
SNAPSHOTS ?= snapshots

.PHONY: setup demo test test-fast refresh bench clean

setup: $(STAMP)

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

# The main job on the embedded default: demo release -> snapshot -> pruned graph -> path pools.
demo: $(STAMP)
	$(BIN)/graphniah refresh --cutoff $(CUTOFF) --root $(SNAPSHOTS) --demo

# Monthly refresh: real S2AG when S2_API_KEY is set, the demo release otherwise.
refresh: $(STAMP)
	$(BIN)/graphniah refresh --cutoff $(CUTOFF) --root $(SNAPSHOTS)

test: $(STAMP)
	$(BIN)/python -m pytest tests -q

test-fast: $(STAMP)
	$(BIN)/python -m pytest tests -q -m "not slow"

bench: $(STAMP)
	$(BIN)/python bench/ingest.py
	$(BIN)/python bench/graph.py

clean:
	rm -rf $(VENV) build *.egg-info
