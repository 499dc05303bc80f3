# The README's two commands: `make demo` (install + main job) and `make test` (install + tests).
# `make demo` installs the base package only (what `run` needs); `make test` installs every extra and the test tools.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
PIP := $(BIN)/python -m pip --disable-pip-version-check --quiet
# torch goes in first, pinned: a bare `torch` requirement on a machine without it pulls the CUDA build.
TORCH ?= torch==2.13.0
# Where torch comes from: a build pip finds without an index (its find-links: a wheel already on this machine),
# else PyTorch's CPU-only index (any Python version and platform; PyPI's Linux torch is the CUDA build, about 5 GB
# with its NVIDIA packages against 0.9 GB). `make torch-route` prints the install command without running it.
TORCH_INDEX ?= https://download.pytorch.org/whl/cpu
TORCH_FROM = if $(1) install --dry-run --no-index --no-deps --ignore-installed "$(TORCH)" >/dev/null 2>&1; \
	then echo ""; else echo "--index-url $(TORCH_INDEX)"; fi

# `make test-floors`: a second venv with the base package only (no extra) at the oldest versions pyproject.toml
# allows (ci/floors.txt), running the scoring and evaluation tests that use tiny models and the install tests.
FLOORS_VENV ?= .venv-floors
FLOORS_BIN := $(FLOORS_VENV)/bin
FLOORS_PIP := $(FLOORS_BIN)/python -m pip --disable-pip-version-check --quiet
FLOORS_TESTS ?= tests/scoring tests/evaluation tests/test_install.py

.PHONY: demo test test-floors typecheck torch-route install install-dev lint clean system-deps

$(BIN)/python:
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "linguagym needs Python 3.11 or newer: make PYTHON=python3.11 ...")'
	$(PYTHON) -m venv $(VENV)

$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(PIP) install $$($(call TORCH_FROM,$(PIP))) "$(TORCH)"
	$(PIP) install -e .
	@touch $@

# The extras the tests need, then the tools as pyproject's dependency group (PEP 735: `--group` needs pip >= 25.1,
# newer than the pip a fresh venv brings on Python 3.11, so pip is upgraded first). `.[dev]` installs the same.
DEV_EXTRAS := lct,web,postgresql,lexicons,ray,notebook,peft,parquet
$(VENV)/.installed-dev: $(VENV)/.installed
	$(PIP) install --upgrade "pip>=25.1"
	$(PIP) install -e '.[$(DEV_EXTRAS)]' --group dev
	@touch $@

install: $(VENV)/.installed
install-dev: $(VENV)/.installed-dev

demo: $(VENV)/.installed
	$(BIN)/linguagym models --fetch smollm2-135m
	$(BIN)/linguagym demo

# The browser and database tests need Debian's chromium and postgresql; as root they are installed here,
# otherwise those tests skip with a reason.
system-deps:
	@if command -v chromium >/dev/null && ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium postgresql >/dev/null; \
	else echo "note: chromium/postgresql missing and not root: browser and PostgreSQL tests will skip"; fi

test: $(VENV)/.installed-dev system-deps typecheck
	$(BIN)/python -m pytest

# mypy with pyproject's [tool.mypy] (about 1.5 CPU-minutes from cold on this 2-core machine; its cache then
# makes a rerun seconds)
typecheck: $(VENV)/.installed-dev
	$(BIN)/python -m mypy

$(FLOORS_VENV)/.installed: pyproject.toml ci/floors.txt
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "linguagym needs Python 3.11 or newer: make PYTHON=python3.11 ...")'
	rm -rf $(FLOORS_VENV)  # afresh: a floor raised, or an extra installed before, must not linger
	$(PYTHON) -m venv $(FLOORS_VENV)
	$(FLOORS_PIP) install $$($(call TORCH_FROM,$(FLOORS_PIP))) "$(TORCH)"
	$(FLOORS_PIP) install -c ci/floors.txt -e . "pytest>=8,<10" "hypothesis>=6.100,<7"
	@touch $@

test-floors: $(FLOORS_VENV)/.installed
	$(FLOORS_BIN)/python -m pytest -q -m "not slow" -p no:cacheprovider $(FLOORS_TESTS)

torch-route:
	@echo "pip install $$($(call TORCH_FROM,$(PYTHON) -m pip --disable-pip-version-check)) $(TORCH)" | tr -s ' '

lint: $(VENV)/.installed-dev
	$(BIN)/ruff check linguagym tests benchmarks

clean:
	rm -rf $(VENV) $(FLOORS_VENV) build *.egg-info .pytest_cache .ruff_cache .mypy_cache
