# The two commands of the README's quick start: `make demo` and `make test`.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
QUESTION ?= When is the final exam and where is it held?

.PHONY: demo test install install-dev lint sample-pdfs clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip

# Stamp files: pip runs again only when pyproject.toml changed (or the venv was remade), so a
# second `make demo` goes straight to the demo. `make install` forces a reinstall.
$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet -e .
	touch $@

$(VENV)/.installed-dev: pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $@ $(VENV)/.installed

install: $(BIN)/python
	rm -f $(VENV)/.installed
	$(MAKE) --no-print-directory $(VENV)/.installed

install-dev: $(BIN)/python
	rm -f $(VENV)/.installed-dev
	$(MAKE) --no-print-directory $(VENV)/.installed-dev

## Install, load the sample course, answer one question, then open the console chat.
demo: $(VENV)/.installed
	$(BIN)/coursebot ingest examples/sample-course --course sample
	$(BIN)/coursebot ask --course sample "$(QUESTION)"
	$(BIN)/coursebot chat --course sample

## Install the dev extras, lint (ruff, mypy), and run the whole test suite.
test: $(VENV)/.installed-dev lint
	$(BIN)/python -m pytest

lint:
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

## Regenerate the sample course's slide PDFs from their text source.
sample-pdfs: $(VENV)/.installed-dev
	$(BIN)/python scripts/build_sample_course.py

clean:
	rm -rf $(VENV) .coursebot .pytest_cache .ruff_cache
