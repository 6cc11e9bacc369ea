# The two commands of the README's quick start: `make demo` and `make test`.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
QUESTION ?= When is the final exam and where is it held?

.PHONY: demo test install install-dev lint sample-pdfs clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip

install: $(BIN)/python
	$(BIN)/pip install --quiet -e .

install-dev: $(BIN)/python
	$(BIN)/pip install --quiet -e '.[dev]'

## Install, load the sample course, answer one question, then open the console chat.
demo: install
	$(BIN)/coursebot ingest examples/sample-course --course sample
	$(BIN)/coursebot ask --course sample "$(QUESTION)"
	$(BIN)/coursebot chat --course sample

## Install the dev extras, lint, and run the whole test suite.
test: install-dev lint
	$(BIN)/python -m pytest

lint:
	$(BIN)/ruff check .

## Regenerate the sample course's slide PDFs from their text source.
sample-pdfs: install-dev
	$(BIN)/python scripts/build_sample_course.py

clean:
	rm -rf $(VENV) .coursebot .pytest_cache .ruff_cache
