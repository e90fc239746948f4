# The course's own jobs (included by the Makefile): the release regenerated from source/, and the
# autograder's self-test.

release: venv
	$(BIN)/course release

selftest: venv
	$(BIN)/course selftest --repeats 10
