# The platforms (included by the Makefile): Gradescope's real install, the toy course the platform legs
# grade, the grader image under podman, and a Slurm cluster.

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
