# Two commands for a fresh machine:  make demo  (set up, run the main job)  and  make test.
# Here: the install, the demo, lint, the tests, the tutorial's course, the docs and clean. The rest is in
# make/, included at the end: rehearsals.mk (the Colab rehearsals), platforms.mk (Gradescope's installs,
# the grader image, podman, Slurm), course.mk (release, selftest), locks.mk (lock, newest), tools.mk (the
# OS programs some tests need).
# Three targets share their name with a folder of the checkout; without this, make would call them done.
.PHONY: docs image release
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
PYTEST_WORKERS ?= auto

# Every install is exactly the lock of its Python (locks/python3.X.txt, written by `make lock`): a release
# upstream never changes what `make test` runs. The lock is used as pip's constraints, so a package that
# only another platform needs (macOS's appnope) still installs. torch goes in first, on its own, from the
# CPU build (the Makefile's torch comes from the machine's wheels or, on a machine without them,
# TORCH_SPEC="torch --index-url https://download.pytorch.org/whl/cpu"); the lock fixes its version. The rest
# goes in with uv (the lock's version, installed first): on 2026-12-04, on a fresh clone with no cache, 19 s
# where pip took 42 s for the same 150 packages at the same versions (pip freeze of both venvs identical).
# Byte-compiled at install, as pip does: the sandbox's kernels run as uids that cannot write __pycache__
# here, so without it every kernel compiled what it imported again (make test ran at half its speed).
PY_VERSION := $(shell $(PYTHON) -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null)
LOCK := locks/python$(PY_VERSION).txt
TORCH_SPEC ?= torch

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(VENV)/.installed: pyproject.toml $(wildcard $(LOCK)) | $(BIN)/python
	@test -f $(LOCK) || { echo "no $(LOCK): this Python ($(PY_VERSION)) is not one the course supports;" \
	  "locks/ has $(notdir $(wildcard locks/python*.txt)); pick one with PYTHON=python3.X"; exit 1; }
	$(BIN)/python -m pip install --quiet -c $(LOCK) pip setuptools uv
	$(BIN)/python -m pip install --quiet -c $(LOCK) $(TORCH_SPEC)
	$(BIN)/python -m uv pip install --quiet --native-tls --compile-bytecode --python $(BIN)/python -c $(LOCK) \
	  --no-build-isolation -e .
	touch $@

venv: $(VENV)/.installed

demo: venv
	$(BIN)/course demo

# The Colab rehearsals, the Gradescope installs and the grader image's test have their own targets
# (make/rehearsals.mk, make/platforms.mk): CI runs the rehearsals after `make test`, and `make platforms`'
# steps, which run the other two on the toy course.
REHEARSAL := tests/rehearsals/test_colab.py
IMAGE_TEST := tests/rehearsals/test_grader_image.py
SLURM_TEST := tests/rehearsals/test_slurm.py

# ruff, pinned: another version formats differently, and CI would fail on a file nobody changed.
RUFF_SPEC ?= ruff==0.17.6
$(VENV)/.ruff: | $(VENV)/.installed
	$(BIN)/python -m pip install --quiet "$(RUFF_SPEC)"
	touch $@

# Lint and format check (pyproject.toml [tool.ruff]); `$(BIN)/ruff format . && $(BIN)/ruff check --fix .` fixes most.
lint: $(VENV)/.ruff
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

# The engine's tests (toy course) and the course's checks (the real assignments: mutants, variants, release
# drift, the real course through nbgrader and the CLI) are two targets, so that `make test` stays within ten minutes on 2 cores; CI runs
# both. Tests marked previous_runtime run only in rehearsal-previous (tests/conftest.py says which and why).
test: venv lint
	$(BIN)/python -m pytest -n $(PYTEST_WORKERS) --dist loadgroup --durations=30 --ignore=$(REHEARSAL) --ignore=$(IMAGE_TEST) --ignore=$(SLURM_TEST) \
	  -m "not previous_runtime and not course" tests

check-course: venv
	$(BIN)/python -m pytest -n $(PYTEST_WORKERS) --dist loadgroup --durations=30 --ignore=$(REHEARSAL) --ignore=$(IMAGE_TEST) --ignore=$(SLURM_TEST) \
	  -m "course and not previous_runtime" tests

# The tutorial's course (docs/tutorial.md): the toy course, and a class of three as Canvas's download and
# gradebook export give it (tests/fixtures/tutorial.py). tests/docs/test_tutorial.py runs the tutorial on it.
TUTORIAL_COURSE ?= build/tutorial
tutorial-course: venv
	rm -rf $(TUTORIAL_COURSE)
	$(BIN)/python -m tests.fixtures.tutorial $(TUTORIAL_COURSE)

# The staff documentation (docs/, Sphinx with MyST-Parser), built offline with warnings as errors into
# build/docs/html. Its tools come from locks/docs.txt, installed beside this Python's lock (the lock as
# constraints, so nothing the course runs moves) and never into the Gradescope zip or the grader image. The
# reference pages (CLI, settings, findings, the result record, export formats) and every benchmark figure are
# generated from the code and benchmarks/results/ at each build (docs/_ext/): a fresh build (-E) each time.
DOCS_LOCK := locks/docs.txt
$(VENV)/.docs-installed: $(DOCS_LOCK) | $(VENV)/.installed
	@grep -q "^# pythons:.* $(PY_VERSION)\b" $(DOCS_LOCK) || { echo "the docs tools are locked for Python" \
	  "$$(sed -n 's/^# pythons: *//p' $(DOCS_LOCK)) (locks/docs.txt); this venv has $(PY_VERSION):" \
	  "build the docs with PYTHON=python3.11 or newer"; exit 1; }
	$(BIN)/python -m pip install --quiet -c $(LOCK) -r $(DOCS_LOCK)
	touch $@

docs: $(VENV)/.docs-installed
	rm -rf build/docs
	$(BIN)/python -m sphinx -W --keep-going -E -q -b html docs build/docs/html
	@echo "docs: build/docs/html/index.html"

clean:
	rm -rf build grades dist submitted autograded feedback gradebook.db

include make/rehearsals.mk make/platforms.mk make/course.mk make/locks.mk make/tools.mk
