# toolproof: one place that sets the project up and runs it.
# `make demo` runs the bundled example suite; `make test` runs the whole test suite.
SHELL := /bin/bash
VENV := $(CURDIR)/.venv
PY := $(VENV)/bin/python
export PATH := $(VENV)/bin:$(CURDIR)/node_modules/.bin:$(PATH)

.PHONY: setup browser demo test lint bench clean

setup: $(VENV)/.installed node_modules/.installed

# The HTML report is tested in headless Chromium: Debian's chromium and chromium-driver, installed when missing.
browser:
	@command -v chromium >/dev/null && command -v chromedriver >/dev/null || { \
	  as_root=$$([ "$$(id -u)" = 0 ] || echo sudo); \
	  $$as_root apt-get update && DEBIAN_FRONTEND=noninteractive $$as_root apt-get install -y chromium chromium-driver; }

$(VENV)/.installed: pyproject.toml constraints.txt
	test -x $(PY) || python3 -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -c constraints.txt -e '.[dev,agents]'
	touch $@

node_modules/.installed: package.json package-lock.json
	npm ci --no-audit --no-fund --loglevel=error
	touch $@

demo: setup
	toolproof run examples/quickstart

test: setup browser
	ruff check src tests bench examples
	mypy
	lint-imports
	pytest -q -n 2 --dist loadscope -m 'not serial'
	pytest -q -m serial

bench: setup
	python bench/compare.py
	python bench/run_bench.py
	python bench/bench_assertions.py
	python bench/bench_notifications.py
	python bench/bench_startup.py
	python bench/bench_lint.py
	python bench/bench_scan.py

clean:
	rm -rf $(VENV) node_modules
