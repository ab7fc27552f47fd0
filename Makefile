# Two commands: `make run` and `make test`. Both create .venv and install what they need.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
PORT   ?= 8501
PYTEST_ARGS ?=

.PHONY: run dev test install bench clean-data

$(STAMP): requirements.txt
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements.txt
	@touch $(STAMP)

install: $(STAMP)

run: $(STAMP)
	$(PY) -m engine bootstrap
	@echo "Workbench: http://localhost:$(PORT)"
	$(VENV)/bin/streamlit run app.py --server.port $(PORT)

# Like run, but reloads pages when their source changes (.streamlit/config.toml turns the watcher off).
dev: $(STAMP)
	$(PY) -m engine bootstrap
	$(VENV)/bin/streamlit run app.py --server.port $(PORT) --server.fileWatcherType auto --server.runOnSave true

test: $(STAMP)
	$(PY) -m pytest $(PYTEST_ARGS)

bench: $(STAMP)
	$(PY) bench/run_all.py

clean-data:
	rm -rf data
