"""A small demo class made from the committed notebooks: what `make demo` grades.

Submissions are built the way a student makes them: the release notebook with answer cells filled in.
The reference student pastes the solution (without nbgrader's markers) and runs the notebook on Colab,
so its written answers' evidence cells hold outputs (``colab_run``); the blank student uploads the
release untouched; each buggy student has one known mistake from ``autograder/<a>/mutants`` (the first
one also ran the notebook and then changed a number of its run by hand: ``hand_edited``); the shortcut
student answers one question with the library call it forbids (``autograder/<a>/shortcuts``: full
marks, and a ``shortcut`` finding); and the damaged student has the reference's cells pasted into a
fresh Colab notebook (no nbgrader metadata), which the standalone door recovers by content and
``course repair`` repairs for the nbgrader door.
"""

from __future__ import annotations

import copy
import re
import zipfile
from pathlib import Path

import nbformat

from assignments import notebooks
from assignments.course import Assignment
from assignments.demo import BUGGY
from assignments.grading.selftest import mutation
from assignments.grading.selftest.reference import filled_release

DAMAGED = "damaged-colab-copy"

# What the demo's students "saw on Colab" in their evidence cells: made-up figures, chosen far from any
# grading-mode run's (which trains a few steps on tiny data), so every view can be checked to show the
# submitted outputs and not the grader's re-run. Each line says it is a demo.
COLAB_LINE = "[demo Colab run of {cell}] VALIDATION ACCURACY 0.8731 after 3 epochs; 41.7 s per epoch; {student}\n"


def _demo_figure_png() -> str:
    """A small real PNG (base64), as a plotting cell leaves in a notebook."""
    import base64
    import io

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(3, 2))
    ax.plot([1, 2, 3], [0.62, 0.81, 0.8731], marker="o")
    ax.set_title("demo Colab run: validation accuracy")
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=60, metadata={"Software": None})
    plt.close(fig)
    return base64.b64encode(buffer.getvalue()).decode("ascii")


def colab_run(nb, assignment: Assignment, student: str = "reference"):
    """``nb`` as a student submits it after running it on Colab: every evidence cell of the assignment's
    written questions holds outputs (a text line and a figure) with Jupyter's execution counts."""
    wanted = {gid for cells in notebooks.evidence_cells(assignment.source_notebook()).values() for gid in cells}
    nb = copy.deepcopy(nb)
    png = _demo_figure_png() if wanted else ""
    count = 0
    for cell in nb.cells:
        if cell.get("cell_type") != "code":
            continue
        count += 1
        if notebooks.grade_id(cell) in wanted:
            cell.execution_count = count
            cell.outputs = [
                nbformat.v4.new_output(
                    "stream", name="stdout", text=COLAB_LINE.format(cell=notebooks.grade_id(cell), student=student)
                ),
                nbformat.v4.new_output("display_data", data={"image/png": png, "text/plain": "<Figure>"}),
            ]
    return nb


def hand_edited(nb):
    """``nb`` with the first evidence output's number changed by hand in the file: the count Jupyter
    would have written is gone (the ``evidence-edited`` finding)."""
    nb = copy.deepcopy(nb)
    for cell in nb.cells:
        if cell.get("cell_type") == "code" and cell.get("outputs"):
            cell.outputs[0]["text"] = cell.outputs[0]["text"].replace("0.8731", "0.9731")
            cell.execution_count = None
            break
    return nb


def pasted_into_colab(nb):
    """Every cell's text pasted into a fresh Colab notebook: nbgrader's metadata gone, Colab's instead."""
    fresh = nbformat.v4.new_notebook()
    fresh.metadata = {
        "colab": {"provenance": [], "name": "Copy of notebook"},
        "accelerator": "GPU",
        "kernelspec": {"name": "python3", "display_name": "Python 3"},
    }
    for index, cell in enumerate(nb.cells):
        meta = {"id": f"colab{index:04d}"}
        if cell.cell_type == "code":
            fresh.cells.append(nbformat.v4.new_code_cell(cell.source, metadata={**meta, "colab": {}}))
        else:
            fresh.cells.append(nbformat.v4.new_markdown_cell(cell.source, metadata=meta))
    return fresh


def pick_mutants(assignment: Assignment, count: int) -> list[mutation.Mutant]:
    """Mutants for ``count`` different questions, so the demo shows different kinds of lost points."""
    chosen, questions = [], set()
    for mutant in mutation.mutants(assignment):
        if len(chosen) >= count:
            break
        if mutant.question not in questions:
            chosen.append(mutant)
            questions.add(mutant.question)
    return chosen


def demo_class(assignment: Assignment, buggy: int = BUGGY) -> dict[str, object]:
    """``{student: notebook}``: a reference, a blank, ``buggy`` students with one mistake each, a shortcut
    student (the first of ``mutation.shortcut_answers``, when the assignment has one) and the reference
    pasted into a fresh Colab notebook (``DAMAGED``)."""
    students = {
        "reference": colab_run(filled_release(assignment), assignment),
        "blank": copy.deepcopy(assignment.release_notebook()),
        DAMAGED: pasted_into_colab(filled_release(assignment)),
    }
    for number, mutant in enumerate(pick_mutants(assignment, buggy)):
        typed = notebooks.student_text(nbformat.v4.new_code_cell(mutant.code))  # no nbgrader markers
        name = f"buggy-{mutant.name}"
        students[name] = filled_release(assignment, {mutant.replaces: typed})
        if number == 0:  # one student ran the notebook, then changed a number of the run by hand
            students[name] = hand_edited(colab_run(students[name], assignment, name))
    for answer in mutation.shortcut_answers(assignment)[:1]:
        typed = notebooks.student_text(nbformat.v4.new_code_cell(answer.code))
        students[f"shortcut-{answer.name}"] = filled_release(assignment, {answer.replaces: typed})
    return students


def write_canvas_zip(assignment: Assignment, students: dict[str, object], path: Path) -> dict[str, str]:
    """Package the class like a Canvas bulk download; returns {student: file name in the zip}."""
    path.parent.mkdir(parents=True, exist_ok=True)
    names = {}
    original = assignment.source_path.name
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for number, (student, nb) in enumerate(sorted(students.items()), start=1):
            login = re.sub(r"[^a-z0-9]", "", student.lower())
            names[student] = f"{login}_{1000 + number}_{50000 + number}_{original}"
            info = zipfile.ZipInfo(names[student], date_time=(2026, 11, 1, 12, 0, 0))
            archive.writestr(info, nbformat.writes(nb))
    return names
