# Two commands for a fresh machine:  make demo  (set up, run the main job)  and  make test.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
# The CPU build of torch is installed first, on its own, so no later requirement pulls a CUDA build.
TORCH_SPEC ?= torch==2.13.0
PYTEST_WORKERS ?= auto

.PHONY: demo test venv release selftest clean browser spreadsheet lock venv-old rehearsal rehearsal-old

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet "$(TORCH_SPEC)"
	$(BIN)/python -m pip install --quiet -e .
	touch $@

venv: $(VENV)/.installed

demo: venv
	$(BIN)/course demo

# The Colab rehearsal has its own targets (below): CI runs them after `make test`, at both version ends.
REHEARSAL := tests/test_colab_rehearsal.py

# Tests marked old_end run only in rehearsal-old (tests/conftest.py says which and why).
test: venv
	$(BIN)/python -m pytest -n $(PYTEST_WORKERS) --dist loadgroup --durations=15 --ignore=$(REHEARSAL) -m "not old_end" tests

# The oldest library versions a Colab runtime of the past year carried (README: supported versions).
# torch stays at the CPU build of TORCH_SPEC: older torch wheels on PyPI are multi-GB CUDA builds.
OLD_VENV ?= .venv-old
OLD_LIBS ?= transformers==4.57.6 datasets==3.6.0 huggingface_hub<1.0

$(OLD_VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(OLD_VENV)
	$(OLD_VENV)/bin/python -m pip install --quiet --upgrade pip
	$(OLD_VENV)/bin/python -m pip install --quiet "$(TORCH_SPEC)"
	$(OLD_VENV)/bin/python -m pip install --quiet -e . $(foreach lib,$(OLD_LIBS),"$(lib)")
	touch $@

venv-old: $(OLD_VENV)/.installed

# The Colab rehearsal at the newest and at the oldest supported versions. At the old end also every hidden
# suite (reference, blank, mutants; the same suites the nbgrader door runs in the student's kernel) and the
# standalone door through the Gradescope bundle on the transformers notebook, whose grading imports transformers
# (there also a hostile upload, marked old_end, which `make test` leaves out).
OLD_END_TESTS := $(REHEARSAL) tests/test_autograder_selftest.py tests/test_gradescope_bundle.py

rehearsal: venv
	$(BIN)/python -m pytest -n $(PYTEST_WORKERS) --durations=5 $(REHEARSAL)

rehearsal-old: venv-old
	$(OLD_VENV)/bin/python -m pytest -n $(PYTEST_WORKERS) --dist loadgroup --durations=5 $(OLD_END_TESTS)

release: venv
	$(BIN)/course release

# Chromium and chromedriver from apt for the formgrader browser test (CI calls it; needs root or sudo).
browser:
	.ci/install-browser

# LibreOffice Calc from apt for the CSV test that opens exports in a real spreadsheet (CI calls it).
spreadsheet:
	.ci/install-spreadsheet

# The versions this venv has, for the Gradescope bundle (run after the tests pass; commit the file).
lock: venv
	$(BIN)/course lock

selftest: venv
	$(BIN)/course selftest --repeats 10

clean:
	rm -rf build grades dist submitted autograded feedback gradebook.db
