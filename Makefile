# Two commands: `make run` and `make test`. Both create .venv and install what they need.
# `make serve` serves the JSON HTTP API (same .venv) on API_PORT.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
PORT   ?= 8501
API_PORT ?= 8000
API_HOST ?= 127.0.0.1
PYTEST_ARGS ?=
# Fewer glibc malloc arenas: the model's threads otherwise fragment memory and a long-running app creeps up
# (docs/reliability.md, soak).
export MALLOC_ARENA_MAX ?= 2

.PHONY: run dev serve test test-fast test-slow soak install bench clean-data

# tools/install.py installs the pinned requirements with uv (seconds), or with pip when uv cannot be had
# (WORKBENCH_INSTALLER=pip forces pip).
$(STAMP): requirements.txt tools/install.py
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PYTHON) tools/install.py $(PY) requirements.txt
	@touch $(STAMP)

# Also exports the embedding model (once per machine, into ~/.cache/reflective-rag-workbench), so a later
# `make run` starts with it ready.
install: $(STAMP)
	$(PY) -m engine bootstrap --model-only

# The app starts at once; it exports the model if `make install` did not, and indexes sample_docs/ into an empty
# store in the background, showing the progress on every page.
run: $(STAMP)
	@echo "Workbench: http://localhost:$(PORT)"
	WORKBENCH_BOOTSTRAP_DIR=sample_docs $(VENV)/bin/streamlit run app.py --server.port $(PORT)

# Like run, but reloads pages when their source changes (.streamlit/config.toml turns the watcher off).
dev: $(STAMP)
	$(PY) -m engine bootstrap
	$(VENV)/bin/streamlit run app.py --server.port $(PORT) --server.fileWatcherType auto --server.runOnSave true

# The JSON HTTP API (OpenAPI at /openapi.json); set WORKBENCH_API_TOKENS / WORKBENCH_USERS to require tokens.
serve: $(STAMP)
	$(PY) -m engine bootstrap
	$(PY) -m engine serve --host $(API_HOST) --port $(API_PORT)

# The whole suite, in two steps: the default suite (plain `pytest`; minutes), then the tests marked
# slow or browser (real subprocesses, Chromium, Ray, PostgreSQL, S3, the 10,000-case fuzz run).
test: test-fast test-slow

test-fast: $(STAMP)
	$(PY) -m pytest $(PYTEST_ARGS)

test-slow: $(STAMP)
	$(PY) -m pytest -m "(slow or browser) and not live and not soak" $(PYTEST_ARGS)

# The ten-minute mixed ingest/ask soak (SOAK_SECONDS=60 for a short one); CI runs it after make test.
soak: $(STAMP)
	$(PY) -m pytest -m soak -s tests/reliability/test_soak.py

bench: $(STAMP)
	$(PY) bench/run_all.py

clean-data:
	rm -rf data
