# The Colab rehearsals (included by the Makefile): the Colab runtimes' venvs, and the notebooks run in them.

# The Colab rehearsals run the notebooks in a kernel that is one of Colab's runtimes: a venv built from one
# pins file in tests/colab_runtimes/ (written by read_backend_info.py from Colab's published package list;
# its header names the runtime version, the commit and the Python), with that Python from pyenv and the file
# alone, --no-deps, so nothing else decides a version (torch from PyPI: a CUDA build, run on the CPU here).
# The harness (pytest, nbclient, the course package) runs from the grading venv and starts the notebooks'
# kernel from the Colab venv: Colab's IPython 7.34 and traitlets 5.7 are older than nbgrader and nbclient
# accept, so the two cannot share one venv. --no-cache: a cache would keep a second copy of several GB of
# CUDA wheels on the disk.
PYENV_ROOT ?= $(HOME)/.pyenv
COLAB_RUNTIMES := tests/colab_runtimes
colab_python = $(shell sed -n 's/^\# python: *//p' $(COLAB_RUNTIMES)/$(1).txt)
pyenv_python = $(lastword $(sort $(wildcard $(PYENV_ROOT)/versions/$(1).*/bin/python)))

# uv, at the lock's version, installs a Colab venv's pins: measured 2026-11-26 on this machine idle, 15 s of
# wall time and 24 s of CPU time for the current runtime's pins where pip took 84 s and 81 s (pip unpacks in
# Python and byte-compiles every module; the rehearsal's kernel compiles only what it imports, once). The
# venv itself still comes from that Python's `venv` module, with its pip, as Colab's has one. In a venv of its
# own, since CI builds the Colab venvs while `make venv` runs.
UV_SPEC ?= $(shell grep -m1 '^uv==' $(LOCK))
UV_VENV := .venv-uv
$(UV_VENV)/.installed:
	rm -rf $(UV_VENV)
	python3 -m venv $(UV_VENV)
	$(UV_VENV)/bin/python -m pip install --quiet "$(UV_SPEC)"
	touch $@

.venv-colab-%/.installed: $(COLAB_RUNTIMES)/%.txt | $(UV_VENV)/.installed
	@test -n "$(call pyenv_python,$(call colab_python,$*))" || { echo "Python $(call colab_python,$*) is \
	not in $(PYENV_ROOT)/versions: pyenv install $(call colab_python,$*)"; exit 1; }
	rm -rf .venv-colab-$*
	$(call pyenv_python,$(call colab_python,$*)) -m venv .venv-colab-$*
	$(UV_VENV)/bin/uv pip install --quiet --native-tls --no-cache --no-deps --python .venv-colab-$*/bin/python \
	  -r $(COLAB_RUNTIMES)/$*.txt
	touch $@

colab-venvs: .venv-colab-current/.installed .venv-colab-previous/.installed

# Each notebook, solutions filled in, top to bottom in student mode on the stand-in hub, in the runtime's
# kernel. At the current runtime also the rehearsal's own checks (a corrupted id or column must fail it, the
# full-size switch). With the previous runtime, the tests marked previous_runtime (tests/conftest.py): the
# notebooks end to end, and a hostile Gradescope upload, which `make test` leaves out for time (it grades in
# the grading venv, as everywhere).
rehearsal: venv .venv-colab-current/.installed
	COLAB_PINS=$(COLAB_RUNTIMES)/current.txt COLAB_PYTHON=$(CURDIR)/.venv-colab-current/bin/python \
	  $(BIN)/python -m pytest -n $(PYTEST_WORKERS) --durations=5 $(REHEARSAL)

PREVIOUS_RUNTIME_TESTS := $(REHEARSAL) tests/platforms/gradescope/test_bundle.py

rehearsal-previous: venv .venv-colab-previous/.installed
	COLAB_PINS=$(COLAB_RUNTIMES)/previous.txt COLAB_PYTHON=$(CURDIR)/.venv-colab-previous/bin/python \
	  REHEARSE_OPTIONAL_PARTS=0 $(BIN)/python -m pytest -n $(PYTEST_WORKERS) \
	  --dist loadgroup --durations=5 -m previous_runtime $(PREVIOUS_RUNTIME_TESTS)
