# karmada-ui: `make demo` runs the whole product on embedded defaults; `make test` runs the whole suite.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
PORT ?= 8000
APPS := karmada_ui core metrics clusters scheduling observability kubesyntax kubeapi

.PHONY: demo test lint bench install install-dev clean

$(VENV)/.runtime: pyproject.toml
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e .
	@touch $@

$(VENV)/.dev: $(VENV)/.runtime
	$(PY) -m pip install --quiet -e '.[dev]'
	@touch $@

install: $(VENV)/.runtime
install-dev: $(VENV)/.dev

demo: $(VENV)/.runtime
	PORT=$(PORT) $(PY) manage.py demo

test: $(VENV)/.dev
	VENV=$(VENV) bash scripts/run-tests $(ARGS)

lint: $(VENV)/.dev
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/lint-imports
	$(VENV)/bin/mypy $(APPS)

bench: $(VENV)/.dev
	@failed=""; for b in bench/bench_*.py; do echo "== $$b"; $(PY) $$b || failed="$$failed $$b"; done; \
	if [ -n "$$failed" ]; then echo "over target:$$failed"; exit 1; fi

clean:
	rm -rf var/ .pytest_cache
