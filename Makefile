# Two commands for a fresh machine:  make demo  (set up, run the main job)  and  make test.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
# The CPU build of torch is installed first, on its own, so no later requirement pulls a CUDA build.
TORCH_SPEC ?= torch==2.13.0
PYTEST_WORKERS ?= auto

.PHONY: demo test venv release selftest clean browser

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

test: venv
	$(BIN)/python -m pytest -n $(PYTEST_WORKERS) --dist loadgroup --durations=15 tests

release: venv
	$(BIN)/course release

# Chromium and chromedriver from apt for the formgrader browser test (CI calls it; needs root or sudo).
browser:
	.ci/install-browser

selftest: venv
	$(BIN)/course selftest --repeats 10

clean:
	rm -rf build grades dist submitted autograded feedback gradebook.db
