# Two commands do all set-up on a fresh machine with Python >= 3.11 and make:
#   make serve   create .venv, install banmen, start the web app on http://127.0.0.1:8000
#   make test    install what the tests need, run the whole suite (and every module's
#                doctests: pyproject.toml collects src/banmen with --doctest-modules)
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
HOST   ?= 127.0.0.1
PORT   ?= 8000

.PHONY: serve test bench lint typecheck clean

$(BIN)/python:
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else 1)' || \
	  { echo "banmen needs Python >= 3.11 (found: $$($(PYTHON) --version)); set PYTHON=..."; exit 1; }
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e .
	@touch $@

$(VENV)/.installed-test: pyproject.toml $(VENV)/.installed
	$(BIN)/python -m pip install --quiet -e '.[test]'
	@touch $@

serve: $(VENV)/.installed
	$(BIN)/banmen serve --host $(HOST) --port $(PORT)

test: $(VENV)/.installed-test lint typecheck
	$(BIN)/python -m pytest

lint: $(VENV)/.installed-test
	$(BIN)/ruff check src tests tools
	$(BIN)/ruff format --check src tests tools

typecheck: $(VENV)/.installed-test
	$(BIN)/mypy

bench: $(VENV)/.installed
	$(BIN)/banmen bench

clean:
	rm -rf $(VENV) build dist src/*.egg-info .pytest_cache .mypy_cache .ruff_cache test-artifacts
	find src -name __pycache__ -type d -prune -exec rm -rf {} +
