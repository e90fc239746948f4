# Two commands for a fresh machine:  make demo  (set up, run the main job)  and  make test.
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
# TORCH_SPEC="torch --index-url https://download.pytorch.org/whl/cpu"); the lock fixes its version.
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
	$(BIN)/python -m pip install --quiet -c $(LOCK) --no-build-isolation -e .
	touch $@

venv: $(VENV)/.installed

demo: venv
	$(BIN)/course demo

# The Colab rehearsals, the Gradescope installs and the grader image's test have their own targets (below): CI
# runs the rehearsals after `make test`, and `make platforms`' steps, which run the other two on the toy course.
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

# Gradescope's real install for each supported Python (tests/rehearsals/test_gradescope_images.py): the zip's
# setup.sh builds a venv of that Python (pyenv's) from its lock on the public index, torch from PyPI (the
# CUDA build: the CPU index is unreachable here), then run_autograder grades the reference, the blank
# release and a hostile upload without namespaces, as on Gradescope. One Python's venv at a time. By hand:
# the real course's quickest assignment on every supported Python (one Python's install measured 2.4 min and
# 5.5 GB idle, 22 min under a load of 15; its gradings about a minute each).
GRADESCOPE_IMAGES := tests/rehearsals/test_gradescope_images.py
gradescope-images: venv
	COURSE_GRADESCOPE_IMAGES=1 $(BIN)/python -m pytest -n 0 -s --durations=20 $(GRADESCOPE_IMAGES)

# The toy course as a folder of its own (tests/fixtures/toy.py): `make platforms` builds its Gradescope zip
# and its grader image and grades through them in seconds, where the real assignments take a minute a
# grading. Built once per run: its notebooks' cell ids are random, and the trees below are installed from
# its zip's digest.
TOY_COURSE := build/toy-course
toy-course: venv
	rm -rf $(TOY_COURSE)
	$(BIN)/python -m tests.fixtures.toy $(TOY_COURSE)

# The Gradescope leg on the toy course: its zip installed for real into venvs of the Pythons of Gradescope's
# Ubuntu 22.04 (its default) and 24.04 images, then graded through. `gradescope-trees` does the installs;
# `gradescope-images-toy` grades through them, one Python per worker (it installs any tree that is missing
# or came from another zip); `gradescope-trees-clean` removes them. The trees live under /tmp, as
# Gradescope's /autograder lies outside root's home: the kernels' uids must reach the venvs.
TOY_GRADESCOPE_PYTHONS := 3.10 3.12
GRADESCOPE_TREES := /tmp/course-gradescope-trees$(subst /,-,$(CURDIR))
TOY_ZIP := build/gradescope/toy.zip
gradescope-trees: venv
	$(BIN)/course gradescope-zip toy --root $(TOY_COURSE) --out $(TOY_ZIP)
	for python in $(TOY_GRADESCOPE_PYTHONS); do \
	  $(BIN)/python -m tests.fixtures.gradescope_install $(TOY_ZIP) $$python $(GRADESCOPE_TREES)/python$$python || exit 1; \
	done

gradescope-images-toy: venv
	COURSE_GRADESCOPE_IMAGES=1 COURSE_GRADESCOPE_ROOT=$(TOY_COURSE) COURSE_GRADESCOPE_ASSIGNMENT=toy \
	  COURSE_GRADESCOPE_PYTHONS="$(TOY_GRADESCOPE_PYTHONS)" COURSE_GRADESCOPE_TREES=$(GRADESCOPE_TREES) \
	  $(BIN)/python -m pytest -n 2 --dist loadgroup --durations=10 $(GRADESCOPE_IMAGES)

gradescope-trees-clean:
	rm -rf $(GRADESCOPE_TREES)

# The tutorial's course (docs/tutorial.md): the toy course, and a class of three as Canvas's download and
# gradebook export give it (tests/fixtures/tutorial.py). tests/docs/test_tutorial.py runs the tutorial on it.
TUTORIAL_COURSE ?= build/tutorial
tutorial-course: venv
	rm -rf $(TUTORIAL_COURSE)
	$(BIN)/python -m tests.fixtures.tutorial $(TUTORIAL_COURSE)

release: venv
	$(BIN)/course release

# The grader image (image/Containerfile; docs/how-to/grader-image.md): one assignment's grader for Gradescope,
# PrairieLearn, any container host and Kubernetes, and its `engine` target without the assignment (for a
# public registry: PrairieLearn). Here podman from Debian's packages (.ci/install-podman)
# runs with runc and cgroupfs and modest ulimits (this machine refuses its default runtime and larger
# limits); the base is Debian bookworm's root file system from debootstrap (image/base-rootfs), since no
# registry is reachable; pip reaches PyPI through the host's network and CA bundle; torch's CPU wheel comes
# from the machine's wheel folder where it has one (elsewhere: the Containerfile's default, the CPU index).
# The base image is made once per machine, and podman's layer cache keeps the locked venv until the lock
# changes, so a rebuild after a grader change takes seconds.
IMAGE_ASSIGNMENT ?= transfer_lm
# The course folder the image grades, when not this checkout (image-test-toy: the toy course).
IMAGE_ROOT ?=
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
	$(BIN)/course image $(IMAGE_ASSIGNMENT) $(if $(IMAGE_ROOT),--root $(IMAGE_ROOT)) --out build/image/$(IMAGE_ASSIGNMENT)
	$(PODMAN) build --network host $(PODMAN_LIMITS) $(IMAGE_BUILD_ARGS) --target engine -t $(IMAGE_ENGINE_TAG) \
	  build/image/$(IMAGE_ASSIGNMENT)
	$(PODMAN) build --network host $(PODMAN_LIMITS) $(IMAGE_BUILD_ARGS) -t $(IMAGE_TAG) build/image/$(IMAGE_ASSIGNMENT)

# Grades through the built image as Gradescope, PrairieLearn and a 3-shard batch (merged = whole):
# tests/rehearsals/test_grader_image.py, which `make test` leaves out (it needs podman and the image). On a real
# assignment measured 44 min under a load of 10 to 21, one container at a time; on the toy course
# (`image-test-toy`, part of `make platforms`) 13 tests in 54 s idle.
image-test: image
	COURSE_IMAGE=$(IMAGE_TAG) COURSE_ENGINE_IMAGE=$(IMAGE_ENGINE_TAG) COURSE_IMAGE_ASSIGNMENT=$(IMAGE_ASSIGNMENT) \
	  COURSE_IMAGE_ROOT=$(IMAGE_ROOT) COURSE_PODMAN="$(PODMAN) run $(PODMAN_LIMITS)" \
	  $(BIN)/python -m pytest -n 0 --durations=10 $(IMAGE_TEST)

TOY_IMAGE := IMAGE_ASSIGNMENT=toy IMAGE_ROOT=$(TOY_COURSE)
image-toy:
	$(MAKE) image $(TOY_IMAGE)

image-test-toy:
	$(MAKE) image-test $(TOY_IMAGE)

# podman, runc and debootstrap from apt for the grader image (needs root or sudo).
podman:
	.ci/install-podman

# #32's platform legs in one command, on the toy course: Gradescope's real install of its zip on Python 3.10
# and 3.12 and the grader image (podman: Gradescope, PrairieLearn, a 3-shard batch), both installing at once,
# then the gradings through them. .ci/run runs the same steps with the installs beside the tests.
platforms: venv podman
	$(MAKE) toy-course
	$(MAKE) gradescope-trees > build/gradescope-trees.log 2>&1 & trees=$$!; \
	  $(MAKE) image-toy > build/image.log 2>&1; image=$$?; \
	  wait $$trees || { tail -n 40 build/gradescope-trees.log; exit 1; }; \
	  test $$image = 0 || { tail -n 40 build/image.log; exit 1; }
	$(MAKE) gradescope-images-toy
	$(MAKE) gradescope-trees-clean
	$(MAKE) image-test-toy

# A single-node Slurm cluster from Debian's packages (munge, slurmctld, slurmd), configured for this machine and
# started (.ci/install-slurm; needs root or sudo), and the test that grades the tutorial's class on it as an
# array job and a dependent merge (tests/rehearsals/test_slurm.py; docs/how-to/large-class.md).
slurm:
	.ci/install-slurm

slurm-test: venv
	$(BIN)/python -m pytest -n 0 --durations=5 $(SLURM_TEST)

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
	$(NEWEST)/bin/python -m pytest -n $(PYTEST_WORKERS) --dist loadgroup --ignore=$(REHEARSAL) --ignore=$(IMAGE_TEST) --ignore=$(SLURM_TEST) -m "not previous_runtime" tests

selftest: venv
	$(BIN)/course selftest --repeats 10

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
