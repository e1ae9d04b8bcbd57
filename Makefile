# Two commands do all set-up on a fresh machine with Python >= 3.11 and make:
#   make serve   create .venv, install banmen, compile its engines (banmen warm-up), start
#                the web app on http://127.0.0.1:8000
#   make test    install what the tests need, compile every engine, run the whole suite in
#                parallel on the machine's cores (and every module's doctests: pyproject.toml
#                collects src/banmen with --doctest-modules)
# and while working on banmen:
#   make test-fast   the unit tests: no browser, no subprocess servers, no external programs,
#                    nothing compiled from scratch, nothing slow (README: each tier's time)
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
HOST   ?= 127.0.0.1
PORT   ?= 8000
# pytest-xdist: one worker per core; a test file stays on one worker (its module-scoped
# servers and browsers start once)
PYTEST := $(BIN)/python -m pytest -n auto --dist loadfile
FAST   := not (browser or external or server or cold or slow)

.PHONY: serve test test-fast test-slow warm-up bench lint typecheck clean

$(BIN)/python:
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else 1)' || \
	  { echo "banmen needs Python >= 3.11 (found: $$($(PYTHON) --version)); set PYTHON=..."; exit 1; }
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e .
	@touch $@

# the tests also install the example game package (examples/connect-four): banmen's
# contract test and front ends then meet a game found by entry point, as a user's would be
$(VENV)/.installed-test: pyproject.toml examples/connect-four/pyproject.toml $(VENV)/.installed
	$(BIN)/python -m pip install --quiet -e '.[test]'
	$(BIN)/python -m pip install --quiet -e examples/connect-four
	@touch $@

serve: $(VENV)/.installed
	$(BIN)/banmen warm-up
	$(BIN)/banmen serve --host $(HOST) --port $(PORT)

# every kernel set, options included, compiled once before the tests: no test's timeout
# pays for a compile, and parallel test workers never compile the same code twice
warm-up: $(VENV)/.installed-test
	$(BIN)/banmen warm-up --all

test: $(VENV)/.installed-test lint typecheck warm-up
	$(PYTEST)
	cd examples/connect-four && $(CURDIR)/$(PYTEST)

test-fast: $(VENV)/.installed-test warm-up
	$(PYTEST) -m "$(FAST)"

test-slow: $(VENV)/.installed-test warm-up
	$(PYTEST) -m slow

lint: $(VENV)/.installed-test
	$(BIN)/ruff check src tests tools examples bench/scripts
	$(BIN)/ruff format --check src tests tools examples bench/scripts

typecheck: $(VENV)/.installed-test
	$(BIN)/mypy

bench: $(VENV)/.installed
	$(BIN)/banmen bench

clean:
	rm -rf $(VENV) build dist src/*.egg-info .pytest_cache .mypy_cache .ruff_cache test-artifacts
	find src -name __pycache__ -type d -prune -exec rm -rf {} +
