"""The course's tests (a package, so ``tests.fixtures`` and ``tests.helpers`` import the same way everywhere:
in pytest, its xdist workers and the worker processes tests start). Shared pytest fixtures and the
isolation switch are in ``conftest.py``; plain helpers in ``helpers.py``; fixture submissions in ``fixtures/``."""
