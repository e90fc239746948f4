"""`course repair`: damaged but honest notebooks made gradable by plain `nbgrader autograde` (issue #11, 2).

The damaged variants are built from the toy assignment's filled release with one known mistake
(``tests/fixtures/damaged.py``, shared with tests/grading/submission/test_recovery.py; the toy with its
mutant is conftest's ``toy_with_mutant``): repair works on any assignment the same way. The command line
(`course repair`, which takes an assignment of this repository's course) is checked on a real one. The fast tests compare
each repaired copy with the repaired original, cell by cell (type, text, nbgrader metadata): the same cells
mean nbgrader runs the same notebook. They also check the report, refusals and that every copy is a
valid UTF-8 nbformat-4 file. One batch then grades the original as sent and two repaired copies that
carry every kind of damage between them (combined to keep real nbgrader's run short), after `course
repair`, through real `nbgrader autograde` in one course folder, and compares the scores question by
question. That course is test_nbgrader_door.py's (tests/fixtures/nbgrader_class.py): one nbgrader
run for both files.
"""

from __future__ import annotations

import contextlib
import io
import json

import nbformat
import pytest

from assignments import cli, notebooks
from assignments.course import default
from assignments.demo import students as demo_class
from assignments.grading.doors.nbgrader import door as nbgrader_door
from assignments.grading.doors.nbgrader import repair
from tests.fixtures import damaged
from tests.fixtures.nbgrader_class import BUGGY, DAMAGED
from tests.helpers import QUICKEST
from tests.helpers import notebook_bytes as as_file

OTHER = "rnn_attention"  # a real assignment's notebook, sent to the toy by mistake

# One worker runs this module and test_nbgrader_door.py (`--dist loadgroup`): their shared nbgrader
# class is graded once.
pytestmark = pytest.mark.xdist_group("nbgrader_class")


@pytest.fixture(scope="module")
def assignment(toy_with_mutant):
    return toy_with_mutant.assignment


@pytest.fixture(scope="module")
def original(assignment):
    return damaged.with_one_mistake(assignment)


@pytest.fixture(scope="module")
def template(assignment):
    return assignment.release_notebook()


# name -> the submitted file's bytes, from the original notebook
VARIANTS = {
    "metadata stripped": lambda nb: as_file(damaged.metadata_stripped(nb)),
    "copied into a new notebook": lambda nb: as_file(demo_class.pasted_into_colab(nb)),
    "grade_ids renamed": lambda nb: as_file(damaged.renamed(nb)),
    "an older release": lambda nb: as_file(damaged.older_release(nb)),
    "answer pasted twice into a new notebook": lambda nb: as_file(
        damaged.answer_pasted_twice(nb, damaged.earlier_attempt(nb))[0]
    ),
    "latin-1": lambda nb: damaged.saved_as(nb, "latin-1"),
    "utf-16 with BOM": lambda nb: damaged.saved_as(nb, "utf-16"),
    "windows-1252 with CRLF": lambda nb: damaged.saved_as(nb, "cp1252", "\r\n"),
}


def repaired(assignment, tmp_path, files: dict[str, bytes]) -> dict[str, repair.Repair]:
    """Repair ``{student: file bytes}`` of ``assignment`` into tmp_path/out; one Repair per student."""
    paths = {}
    for student, raw in files.items():
        paths[student] = tmp_path / "in" / f"{student}.ipynb"
        paths[student].parent.mkdir(parents=True, exist_ok=True)
        paths[student].write_bytes(raw)
    return {r.student: r for r in repair.repair_class(assignment, paths, tmp_path / "out")}


def cells(path) -> list[tuple]:
    """What nbgrader autograde sees of each cell: its type, text and nbgrader metadata."""
    return [(c.cell_type, c.source, notebooks.nbgrader(c)) for c in notebooks.read(path).cells]


@pytest.fixture(scope="module")
def class_repaired(assignment, tmp_path_factory, original):
    files = {"original": as_file(original)}
    files.update({name.replace(" ", "-"): build(original) for name, build in VARIANTS.items()})
    return repaired(assignment, tmp_path_factory.mktemp("class"), files)


# --- the repaired copies ------------------------------------------------------------------------------------
@pytest.mark.parametrize("variant", sorted(set(VARIANTS) - {"answer pasted twice into a new notebook"}))
def test_a_damaged_notebook_is_repaired_into_what_the_original_becomes(class_repaired, variant):
    done, intact = class_repaired[variant.replace(" ", "-")], class_repaired["original"]
    assert done.status == "repaired", f"{variant}: {done.status} ({done.refused})"
    assert cells(done.repaired) == cells(intact.repaired), (
        f"{variant}: the repaired copy should hold the same cells, texts and nbgrader metadata as the original's"
    )


def test_an_answer_pasted_twice_keeps_both_in_run_all_order(class_repaired, original):
    done = class_repaired["answer-pasted-twice-into-a-new-notebook"]
    answer = next(c for c in original.cells if notebooks.is_answer(c) and c.cell_type == "code")
    sources = [source for kind, source, _ in cells(done.repaired) if kind == "code"]
    assert sources.index(damaged.earlier_attempt(original)) < sources.index(answer.source), (
        "the earlier attempt should run before the answer, so the answer is the definition nbgrader tests"
    )
    graded = next(s for _, s, meta in cells(done.repaired) if meta.get("grade_id") == notebooks.grade_id(answer))
    assert graded == answer.source, "the complete, later definition should be the graded answer cell"


def test_the_original_is_written_unchanged_with_nothing_to_report(class_repaired, original):
    intact = class_repaired["original"]
    assert intact.status == "unchanged" and intact.changes == [] and intact.findings() == []
    assert [s for _, s, _ in cells(intact.repaired)] == [c.source for c in original.cells]


@pytest.mark.parametrize("variant", ["latin-1", "utf-16 with BOM", "windows-1252 with CRLF"])
def test_a_repaired_copy_is_a_valid_utf8_notebook(class_repaired, variant, assignment):
    done = class_repaired[variant.replace(" ", "-")]
    raw = open(done.repaired, "rb").read()
    text = raw.decode("utf-8")  # raises if it is not UTF-8
    assert not text.startswith("\ufeff") and "\r" not in text, "a BOM or CRLF line endings were left in"
    nb = nbformat.reads(text, as_version=4)
    nbformat.validate(nb)
    assert nb.nbformat == 4 and any(damaged.ACCENTED in c.source for c in nb.cells), (
        "the accented letters should survive the repair"
    )
    assert damaged.ACCENTED.strip() in text, "the accented letters should be written as UTF-8, not escaped"
    assert done.repaired.endswith(f"submitted/{done.student}/{assignment.name}/{assignment.source_path.name}"), (
        done.repaired
    )


# --- the report ------------------------------------------------------------------------------------------
def test_the_report_says_how_each_cell_was_found(class_repaired, template):
    named = sum(1 for c in template.cells if notebooks.grade_id(c))
    colab = class_repaired["copied-into-a-new-notebook"]
    assert sum(colab.matched.values()) == named, f"every release cell should be found: {colab.matched}"
    assert colab.matched["id"] == 0 and all(colab.matched[m] for m in ("text", "definitions", "position")), (
        colab.matched
    )
    assert class_repaired["an-older-release"].matched["similar text"], (
        "reworded test cells of an older release should be found by similar text"
    )
    first = next(notebooks.grade_id(c) for c in template.cells if notebooks.grade_id(c))
    assert [f"{first}_v2", first] in class_repaired["grade_ids-renamed"].renamed
    assert class_repaired["original"].matched["id"] == named


def test_the_report_says_what_changed(class_repaired):
    expected = {
        "metadata-stripped": "cells-recovered",
        "latin-1": "text-encoding",
        "windows-1252-with-CRLF": "line-endings",
        "an-older-release": "test-cell-edited",
        "answer-pasted-twice-into-a-new-notebook": "recovery-ambiguous",
    }
    for student, code in expected.items():
        got = [f.code for f in class_repaired[student].changes]
        assert code in got, f"{student}: the report should say {code}; it says {got}"


def test_repair_json_and_the_table_cover_every_student(class_repaired, tmp_path, assignment):
    repairs = list(class_repaired.values())
    path = repair.save_report(assignment, repairs, tmp_path / repair.REPORT)
    report = json.loads(path.read_text(encoding="utf-8"))
    assert report["assignment"] == assignment.name
    by_student = {s["student"]: s for s in report["students"]}
    assert sorted(by_student) == sorted(class_repaired)
    colab = by_student["copied-into-a-new-notebook"]
    assert colab["status"] == "repaired" and colab["matched"]["definitions"] > 0
    assert any(c["code"] == "cells-recovered" and "by their definitions" in c["message"] for c in colab["changes"])
    table = repair.report_table(repairs, "title")
    for method in ("by id", "by text", "by definitions", "by similar text", "by position"):
        assert method in table.splitlines()[1], f"the table has no column {method!r}:\n{table}"
    assert all(student in table for student in class_repaired)


def test_another_assignments_notebook_is_reported_not_repaired(tmp_path, assignment):
    target = nbgrader_door.submitted_path(tmp_path / "out", assignment, "other-colab")
    target.parent.mkdir(parents=True)
    target.write_text("a copy left by an earlier run")
    other = demo_class.filled_release(default().assignment(OTHER))
    done = repaired(
        assignment,
        tmp_path,
        {
            "other": as_file(other),
            "other-colab": as_file(demo_class.pasted_into_colab(other)),
            "picture": b"\x89PNG\r\n\x1a\n\x00\x00IHDR",
        },
    )
    for student, code in (
        ("other", "wrong-assignment"),
        ("other-colab", "wrong-assignment"),
        ("picture", "invalid-json"),
    ):
        record = done[student]
        assert record.status == "not repaired" and record.refused.code == code, (
            f"{student}: expected refusal {code}, got {record.status} {record.refused}"
        )
        assert record.repaired is None
        assert not nbgrader_door.submitted_path(tmp_path / "out", assignment, student).exists(), (
            f"{student}: no repaired copy (nor an earlier run's) may be left for nbgrader to grade"
        )
        assert [f.code for f in record.findings()] == ["not-repaired"] and record.refused.message in record.findings()[
            0
        ].message, "the nbgrader record should say why"
    table = repair.report_table(list(done.values()))
    assert f"other: not repaired: {done['other'].refused.message}" in table, table


def test_images_attached_to_a_written_answer_are_kept(tmp_path, original, assignment):
    nb = demo_class.pasted_into_colab(original)
    written = next(i for i, c in enumerate(original.cells) if notebooks.is_answer(c) and c.cell_type == "markdown")
    nb.cells[written].source += "\n![plot](attachment:plot.png)"
    nb.cells[written]["attachments"] = {"plot.png": {"image/png": "iVBORw0KGgo="}}
    done = repaired(assignment, tmp_path, {"ada": as_file(nb)})["ada"]
    answer = notebooks.read(done.repaired).cells[written]
    assert notebooks.grade_id(answer) == notebooks.grade_id(original.cells[written])
    assert answer.get("attachments") == {"plot.png": {"image/png": "iVBORw0KGgo="}}, (
        "the written answer's image should be in the repaired copy, for the person who grades it"
    )


def test_cells_the_student_added_get_unique_ids(tmp_path, original, template, assignment):
    colab = demo_class.pasted_into_colab(original)  # a fresh notebook: its ids are not the release's
    colab.cells.insert(2, nbformat.v4.new_code_cell("helper = 1", id=template.cells[0].id))
    older = json.loads(nbformat.writes(original))  # nbformat 4.4 has no cell ids at all
    older["nbformat_minor"] = 4
    for cell in older["cells"]:
        cell.pop("id")
    older["cells"].insert(2, nbformat.v4.new_code_cell("other = 2"))
    older["cells"][2].pop("id")
    done = repaired(assignment, tmp_path, {"colab": as_file(colab), "older": json.dumps(older).encode()})
    for student, added in (("colab", "helper = 1"), ("older", "other = 2")):
        written = nbformat.read(done[student].repaired, as_version=4)
        nbformat.validate(written)
        ids = [c.get("id") for c in written.cells]
        assert None not in ids and len(set(ids)) == len(ids), f"{student}: cell ids should be present and unique"
        assert added in [c.source for c in written.cells], f"{student}: the added cell was lost"


def test_course_repair_reads_an_lms_zip_and_prints_the_table(tmp_path):
    original = demo_class.filled_release(default().assignment(QUICKEST))
    students = {
        "ada": original,
        "grace": demo_class.pasted_into_colab(original),
        "linus": demo_class.filled_release(default().assignment(OTHER)),
    }
    files = demo_class.write_canvas_zip(default().assignment(QUICKEST), students, tmp_path / "download.zip")
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        status = cli.main(["repair", QUICKEST, str(tmp_path / "download.zip"), "--out", str(tmp_path / "out")])
    out = printed.getvalue()
    assert status == 0, out
    keys = {student: name.split("_")[1] for student, name in files.items()}  # Canvas user ids
    report = {s["student"]: s["status"] for s in json.loads((tmp_path / "out" / repair.REPORT).read_text())["students"]}
    assert report == {keys["ada"]: "unchanged", keys["grace"]: "repaired", keys["linus"]: "not repaired"}, report
    assert nbgrader_door.submitted_path(tmp_path / "out", default().assignment(QUICKEST), keys["grace"]).is_file()
    assert "by definitions" in out and f"{keys['linus']}: not repaired" in out and "nbgrader autograde" in out, out


# --- real nbgrader autograde: the repaired copies score what the original scores -------------------------
@pytest.fixture(scope="module")
def nbgrader_scores(nbgrader_class, original):
    """nbgrader's records of the original as sent and of the damaged copies `course repair` repaired."""
    assert nbgrader_class.students[BUGGY] == original, (
        "the nbgrader class's buggy student should be the original the damaged copies are made from"
    )
    return {"original": nbgrader_class.results[BUGGY], **{s: nbgrader_class.results[s] for s in DAMAGED}}


def test_the_original_loses_points_on_its_mistake_only(nbgrader_scores):
    original = nbgrader_scores["original"]
    assert original.status == "graded" and 0 < original.autograded_points < original.autograded_max, (
        f"the original should lose points on its one mistake only; nbgrader scored {original.scores()}"
    )


@pytest.mark.parametrize("student", sorted(DAMAGED))
def test_a_repaired_notebook_scores_in_nbgrader_what_the_original_scores(nbgrader_scores, student):
    got, expected = nbgrader_scores[student], nbgrader_scores["original"]
    assert got.status == "graded", [f.message for f in got.findings]
    assert got.scores() == expected.scores(), (
        f"{student}: nbgrader scored the repaired copy {got.scores()}; the original scores {expected.scores()}"
    )
