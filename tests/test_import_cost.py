"""The package keeps optional heavy imports out of grader processes (figures: benchmarks/README.md)."""

import subprocess
import sys


def test_reading_a_notebook_skips_jsonschemas_iri_grammar():
    # jsonschema builds the grammar at import when rfc3987_syntax can be imported; the package stops that
    code = "import assignments.notebooks, sys, jsonschema, nbformat; print(sys.modules.get('rfc3987_syntax', 'absent'))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() in {"None", "absent"}, (
        f"importing the package loaded rfc3987_syntax ({done.stdout.strip()}); every grader process "
        "would pay about a second of CPU for a grammar no schema here uses"
    )


def test_notebooks_still_validate_without_that_grammar():
    code = (
        "import assignments.notebooks, nbformat; from assignments.course import default; "
        "nbformat.validate(default().assignment('transfer_lm').source_notebook()); print('ok')"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.stdout.strip() == "ok", done.stderr[-2000:]


def test_a_batch_supervisor_never_imports_torch():
    # `course grade`'s own process only hands submissions to grader processes (forked from a fork server that
    # has the grader's modules) and starts the warm-kernel zygote (a process of its own): importing torch
    # there would cost about 190 MB and a second of CPU for the whole batch. This walks that path for real.
    code = (
        "import sys; from assignments import cli; from assignments.workflow import grade_class; "
        "from assignments.results import table; from assignments.grading.doors import batch; "
        "zygote = batch.start_zygote(); "
        "print(sorted(m for m in ('torch', 'transformers', 'nbgrader') if m in sys.modules)); "
        "zygote and zygote.close()"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "[]", f"the batch supervisor's own process imported {done.stdout.strip()}"


def test_reading_submitted_files_never_imports_torch():
    # Intake reads a whole class's uploads through submission.load before any grading; torch there would
    # cost about 190 MB and over a second of CPU per process for nothing.
    code = (
        "import sys, json, tempfile, pathlib; from assignments.grading.submission.load import load_submission; "
        "p = pathlib.Path(tempfile.mkdtemp()) / 'a.ipynb'; p.write_text('{\"cells\": [') ; "
        "load_submission(p); p.write_text(json.dumps({'nbformat': 4, 'nbformat_minor': 5, 'metadata': {}, 'cells': []})); "
        "load_submission(p); print(sorted(m for m in ('torch', 'transformers') if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "[]", f"reading submitted files imported {done.stdout.strip()}"
