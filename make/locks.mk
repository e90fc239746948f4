# The locks (included by the Makefile): moving them to newer releases, and what the newest would break.

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
