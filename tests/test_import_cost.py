"""The package keeps optional heavy imports out of grader processes (figures: benchmarks/README.md)."""

import subprocess
import sys


def test_reading_a_notebook_skips_jsonschemas_iri_grammar():
    # jsonschema builds the grammar at import when rfc3987_syntax can be imported; the package stops that
    code = ("import assignments.notebooks, sys, jsonschema, nbformat; "
            "print(sys.modules.get('rfc3987_syntax', 'absent'))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() in {"None", "absent"}, (
        f"importing the package loaded rfc3987_syntax ({done.stdout.strip()}); every grader process "
        "would pay about a second of CPU for a grammar no schema here uses")


def test_notebooks_still_validate_without_that_grammar():
    code = ("import assignments.notebooks, nbformat; from assignments.course import default; "
            "nbformat.validate(default().assignment('transfer_lm').source_notebook()); print('ok')")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.stdout.strip() == "ok", done.stderr[-2000:]
