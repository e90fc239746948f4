# Two commands for a fresh machine:  make demo  (set up, run the main job)  and  make test.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
PYTEST_WORKERS ?= auto

# Every install is exactly the lock of its Python (locks/python3.X.txt, written by `make lock`): a release
# upstream never changes what `make test` runs. The lock is used as pip's constraints, so a package that
# only another platform needs (macOS's appnope) still installs. torch goes in first, on its own, from the
# CPU build (the Makefile's torch comes from the machine's wheels or, on a machine without them,
# TORCH_SPEC="torch --index-url https://download.pytorch.org/whl/cpu"); the lock fixes its version.
PY_VERSION := $(shell $(PYTHON) -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null)
LOCK := locks/python$(PY_VERSION).txt
TORCH_SPEC ?= torch

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(VENV)/.installed: pyproject.toml $(wildcard $(LOCK)) | $(BIN)/python
	@test -f $(LOCK) || { echo "no $(LOCK): this Python ($(PY_VERSION)) is not one the course supports;" \
	  "locks/ has $(notdir $(wildcard locks/python*.txt)); pick one with PYTHON=python3.X"; exit 1; }
	$(BIN)/python -m pip install --quiet -c $(LOCK) pip setuptools
	$(BIN)/python -m pip install --quiet -c $(LOCK) $(TORCH_SPEC)
	$(BIN)/python -m pip install --quiet -c $(LOCK) --no-build-isolation -e .
	touch $@

venv: $(VENV)/.installed

demo: venv
	$(BIN)/course demo

# The Colab rehearsals and the grader image's test have their own targets (below): CI runs them after `make test`.
REHEARSAL := tests/test_colab_rehearsal.py
IMAGE_TEST := tests/test_grader_image.py

# ruff, pinned: another version formats differently, and CI would fail on a file nobody changed.
RUFF_SPEC ?= ruff==0.17.6
$(VENV)/.ruff: | $(VENV)/.installed
	$(BIN)/python -m pip install --quiet "$(RUFF_SPEC)"
	touch $@

# Lint and format check (pyproject.toml [tool.ruff]); `$(BIN)/ruff format . && $(BIN)/ruff check --fix .` fixes most.
lint: $(VENV)/.ruff
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

# Tests marked previous_runtime run only in rehearsal-previous (tests/conftest.py says which and why).
test: venv lint
	$(BIN)/python -m pytest -n $(PYTEST_WORKERS) --dist loadgroup --durations=15 --ignore=$(REHEARSAL) --ignore=$(IMAGE_TEST) -m "not previous_runtime" tests

# The Colab rehearsals: each builds a venv from one pins file in tests/colab_runtimes/ (Colab's current and
# previous runtimes: Python version, date, source), with that Python from pyenv and Colab's own torch from
# the package index (a CUDA build; it runs on the CPU, and takes a few minutes to install). The course
# package goes in under the same pins, so the rehearsal's harness cannot move a pinned library.
# --no-cache-dir: pip's cache would keep a second copy of several GB of CUDA wheels on the disk.
PYENV_ROOT ?= $(HOME)/.pyenv
COLAB_RUNTIMES := tests/colab_runtimes
colab_python = $(shell sed -n 's/^\# python: *//p' $(COLAB_RUNTIMES)/$(1).txt)
pyenv_python = $(lastword $(sort $(wildcard $(PYENV_ROOT)/versions/$(1).*/bin/python)))

.venv-colab-%/.installed: $(COLAB_RUNTIMES)/%.txt pyproject.toml
	@test -n "$(call pyenv_python,$(call colab_python,$*))" || { echo "Python $(call colab_python,$*) is \
	not in $(PYENV_ROOT)/versions: pyenv install $(call colab_python,$*)"; exit 1; }
	$(call pyenv_python,$(call colab_python,$*)) -m venv .venv-colab-$*
	.venv-colab-$*/bin/python -m pip install --quiet --upgrade pip
	.venv-colab-$*/bin/python -m pip install --quiet --no-cache-dir -r $(COLAB_RUNTIMES)/$*.txt
	.venv-colab-$*/bin/python -m pip install --quiet --no-cache-dir -c $(COLAB_RUNTIMES)/$*.txt -e .
	touch $@

colab-venvs: .venv-colab-current/.installed .venv-colab-previous/.installed

# Each notebook, solutions filled in, top to bottom in student mode on the stand-in hub, at the runtime's
# pins. At the current runtime also the rehearsal's own checks (a corrupted id or column must fail it, the
# full-size switch). At the previous runtime, the tests marked previous_runtime (tests/conftest.py): the
# notebooks end to end, and the variants in both doors and a hostile Gradescope upload, which `make test`
# leaves out for time.
rehearsal: .venv-colab-current/.installed
	COLAB_PINS=$(COLAB_RUNTIMES)/current.txt .venv-colab-current/bin/python -m pytest -n $(PYTEST_WORKERS) \
	  --durations=5 $(REHEARSAL)

PREVIOUS_RUNTIME_TESTS := $(REHEARSAL) tests/grading/selftest/test_autograder_selftest.py \
  tests/test_gradescope_bundle.py

rehearsal-previous: .venv-colab-previous/.installed
	COLAB_PINS=$(COLAB_RUNTIMES)/previous.txt REHEARSE_OPTIONAL_PARTS=0 .venv-colab-previous/bin/python -m pytest -n $(PYTEST_WORKERS) \
	  --dist loadgroup --durations=5 -m previous_runtime $(PREVIOUS_RUNTIME_TESTS)

release: venv
	$(BIN)/course release

# The grader image (image/Containerfile; README, The grader image): one assignment's grader for Gradescope,
# PrairieLearn, any container host and Kubernetes, and its `engine` target without the assignment (for a
# public registry: PrairieLearn). Here podman from Debian's packages (.ci/install-podman)
# runs with runc and cgroupfs and modest ulimits (this machine refuses its default runtime and larger
# limits); the base is Debian bookworm's root file system from debootstrap (image/base-rootfs), since no
# registry is reachable; pip reaches PyPI through the host's network and CA bundle; torch's CPU wheel comes
# from the machine's wheel folder where it has one (elsewhere: the Containerfile's default, the CPU index).
# The base image is made once per machine, and podman's layer cache keeps the locked venv until the lock
# changes, so a rebuild after a grader change takes seconds.
IMAGE_ASSIGNMENT ?= transfer_lm
IMAGE_BASE ?= localhost/course-base:bookworm
IMAGE_TAG ?= localhost/course-grader:$(IMAGE_ASSIGNMENT)
IMAGE_ENGINE_TAG ?= localhost/course-grader:engine
PODMAN ?= podman --runtime runc --cgroup-manager cgroupfs
PODMAN_LIMITS ?= --ulimit nofile=4096:4096 --ulimit nproc=4096:4096
HOST_CA ?= $(firstword $(wildcard /etc/ssl/certs/ca-certificates.crt))
WHEELS ?= $(firstword $(wildcard /opt/wheels))
IMAGE_BUILD_ARGS = --build-arg BASE_IMAGE=$(IMAGE_BASE) \
  $(if $(WHEELS),-v $(WHEELS):/opt/wheels:ro --build-arg "TORCH_SPEC=torch --no-index --find-links /opt/wheels") \
  $(if $(HOST_CA),-v $(HOST_CA):/etc/ssl/host-ca.crt:ro --build-arg PIP_CERT=/etc/ssl/host-ca.crt)

image-base:
	PODMAN="$(PODMAN)" image/base-rootfs $(IMAGE_BASE)

image: venv image-base
	$(BIN)/course image $(IMAGE_ASSIGNMENT) --out build/image/$(IMAGE_ASSIGNMENT)
	$(PODMAN) build --network host $(PODMAN_LIMITS) $(IMAGE_BUILD_ARGS) --target engine -t $(IMAGE_ENGINE_TAG) \
	  build/image/$(IMAGE_ASSIGNMENT)
	$(PODMAN) build --network host $(PODMAN_LIMITS) $(IMAGE_BUILD_ARGS) -t $(IMAGE_TAG) build/image/$(IMAGE_ASSIGNMENT)

# Grades through the built image as Gradescope, PrairieLearn and a 3-shard batch (merged = whole):
# tests/test_grader_image.py, which `make test` leaves out (it needs podman and the image).
image-test: image
	COURSE_IMAGE=$(IMAGE_TAG) COURSE_ENGINE_IMAGE=$(IMAGE_ENGINE_TAG) COURSE_IMAGE_ASSIGNMENT=$(IMAGE_ASSIGNMENT) \
	  COURSE_PODMAN="$(PODMAN) run $(PODMAN_LIMITS)" \
	  $(BIN)/python -m pytest -n 0 --durations=10 $(IMAGE_TEST)

# Chromium and chromedriver from apt for the formgrader browser test (CI calls it; needs root or sudo).
browser:
	.ci/install-browser

# LibreOffice Calc from apt for the CSV test that opens exports in a real spreadsheet (CI calls it).
spreadsheet:
	.ci/install-spreadsheet

# Moving to newer releases: resolve the newest versions the requirements allow into every supported
# Python's lock (pyenv's interpreters; torch stays at the version installed here). Commit the locks
# after `make test` passes on them: CI then tests exactly what it records.
lock: venv
	$(BIN)/course lock

# What the newest releases would break, without touching the lock or blocking anything: a venv of its
# own with the newest versions the requirements allow (torch as locked), the packages that moved, and
# the tests run there (the lock's own test fails there by design: it names every moved package).
NEWEST := .venv-newest
newest:
	rm -rf $(NEWEST)
	$(PYTHON) -m venv $(NEWEST)
	$(NEWEST)/bin/python -m pip install --quiet --upgrade pip
	grep '^torch==' $(LOCK) > $(NEWEST)/torch.txt
	$(NEWEST)/bin/python -m pip install --quiet -c $(NEWEST)/torch.txt $(TORCH_SPEC)
	$(NEWEST)/bin/python -m pip install --quiet -e .
	-$(NEWEST)/bin/course lock --check
	$(NEWEST)/bin/python -m pytest -n $(PYTEST_WORKERS) --dist loadgroup --ignore=$(REHEARSAL) --ignore=$(IMAGE_TEST) -m "not previous_runtime" tests

selftest: venv
	$(BIN)/course selftest --repeats 10

clean:
	rm -rf build grades dist submitted autograded feedback gradebook.db
