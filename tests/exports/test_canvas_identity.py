"""One identity per student per platform (issue 43, item 2): the Canvas CSV carries Canvas's keys only, a
Gradescope student id never reaches its ID column, and a join that would merge two students refuses them
by name while the rest of the class is written. Each class goes through the real intake (a Gradescope export)
and ``course export``'s job, and the CSV through ``canvas_import`` (what Canvas' importer does with it)."""

from __future__ import annotations

import csv
from pathlib import Path

from assignments import intake
from assignments.course import default
from assignments.exports import canvas
from assignments.runs import store
from assignments.runs.folder import Run
from assignments.workflow import export
from tests.exports.test_canvas_import import canvas_import
from tests.exports.test_exports import record
from tests.intake.test_intake import GOOD, make_zip

# The course in Canvas: Ada is Canvas user 1001, Bob 1002; the university's student numbers are the SIS User IDs
# (Gradescope's roster takes them as its student ids), the logins the SIS Login IDs.
GRADEBOOK = """Student,ID,SIS User ID,SIS Login ID,Section,Homework 1 (4821)
    Points Possible,,,,,8
"Lovelace, Ada",1001,900111,ada@uni.edu,A,
"Babbage, Bob",1002,900123,bob@uni.edu,A,
"""


def submitter(name: str, sid: str, email: str) -> str:
    return f"  - :name: {name}\n    :sid: '{sid}'\n    :email: {email}\n"


def gradescope_class(tmp_path: Path, people: dict[str, str]) -> Path:
    """A run whose intake read a Gradescope export (one submission per entry of ``people``: folder number ->
    its submitter lines), each record scored: 5 for the submission numbered 3 (Mallory's), 3 otherwise."""
    metadata = "".join(f"submission_{n}:\n  :submitters:\n{who}" for n, who in people.items())
    entries = {"submission_metadata.yml": metadata.encode()}
    entries.update({f"submission_{n}/transformers.ipynb": GOOD for n in people})
    run = Run(tmp_path / "run")
    found = intake.collect(make_zip(tmp_path / "export.zip", entries), "transformers", run.submissions)
    assert found.layout == "gradescope"
    found.save(run.intake)
    for s in found.submissions:
        store.save_result(record(s.student, padded_ok=s.submission_id == 3), run.results)
    (tmp_path / "gradebook.csv").write_text(GRADEBOOK, encoding="utf-8")
    return tmp_path / "run"


def export_canvas(run: Path, roster: Path | None) -> tuple[str, list]:
    # Partial totals: these records' written answers wait for a grader, and the totals show who is placed.
    opts = canvas.CanvasOptions(canvas.CanvasAssignment("Homework 1", "4821"), ungraded_written="partial")
    written = export(Run(run), default().assignment("transformers"), ("canvas",), roster=roster, canvas_options=opts)
    return written["canvas"][0].read_text(encoding="utf-8")


def ids_written(text: str) -> list[str]:
    return [row["ID"] for row in csv.DictReader(text.splitlines())][1:]  # after "Points Possible"


def test_a_classmates_canvas_id_typed_as_a_gradescope_student_id_lands_nowhere(tmp_path, capsys):
    # Mallory typed Bob's Canvas user id as her Gradescope student id.
    run = gradescope_class(
        tmp_path,
        {
            1: submitter("Ada Lovelace", "900111", "ada@uni.edu"),
            2: submitter("Bob Babbage", "900123", "bob@uni.edu"),
            3: submitter("Mallory", "1002", "mallory@uni.edu"),
        },
    )
    text = export_canvas(run, tmp_path / "gradebook.csv")
    imported = canvas_import(text, GRADEBOOK)
    # Bob's row has Bob's score (3), not Mallory's (5); Ada's hers; nothing Canvas cannot place.
    assert imported["grades"] == {"1001": {"4821": "3"}, "1002": {"4821": "3"}}
    assert imported["unmatched"] == [] and ids_written(text) == ["1001", "1002"]
    printed = [line for line in capsys.readouterr().out.splitlines() if line.startswith("canvas: 1002")]
    assert printed == [
        "canvas: 1002 (Mallory) has no Canvas identity (a gradescope record; its key is not Canvas's); left out of "
        "the Canvas CSV (give a Canvas gradebook export as --roster to place it)"
    ]
    # Her record keeps her score and says why it is not in Canvas, for staff.
    mallory = store.load_result(Run(run).results / "1002.json")
    assert sum(q.points or 0 for q in mallory.questions) == 5, "Mallory's own result was lost or changed"


def test_without_a_canvas_roster_no_gradescope_id_reaches_canvas(tmp_path, capsys):
    run = gradescope_class(
        tmp_path,
        {1: submitter("Ada Lovelace", "900111", "ada@uni.edu"), 2: submitter("Bob Babbage", "1001", "bob@uni.edu")},
    )
    text = export_canvas(run, None)
    assert ids_written(text) == [], "an all-digit Gradescope student id was written as a Canvas user id"
    out = capsys.readouterr().out
    assert out.count("has no Canvas identity") == 2


def test_two_gradescope_submissions_claiming_one_canvas_student_are_both_refused(tmp_path, capsys):
    # Mallory's Gradescope email is Bob's Canvas login: the join would give Bob's row two students.
    run = gradescope_class(
        tmp_path,
        {
            1: submitter("Ada Lovelace", "900111", "ada@uni.edu"),
            2: submitter("Bob Babbage", "900123", "bob.b@gmail.com"),
            3: submitter("Mallory", "666", "BOB@uni.edu"),
        },
    )
    text = export_canvas(run, tmp_path / "gradebook.csv")
    assert canvas_import(text, GRADEBOOK)["grades"] == {"1001": {"4821": "3"}}, "the rest of the class is written"
    refusals = [line for line in capsys.readouterr().out.splitlines() if "is claimed by" in line]
    assert len(refusals) == 2 and all("900123 (Bob Babbage)" in line and "666 (Mallory)" in line for line in refusals)
    for key in ("900123", "666"):
        findings = store.load_result(Run(run).results / f"{key}.json").findings
        assert not any(f.code == "canvas-identity" for f in findings), "export wrote into the grader's records"


def test_one_record_matching_two_canvas_students_is_refused_naming_both():
    results = [record("900111"), record("900123")]
    roster = {
        "900111": {"lms": "gradescope", "sid": "900111", "email": "bob@uni.edu", "name": "Ada"},
        "900123": {"lms": "gradescope", "sid": "900123", "email": "b2@uni.edu", "name": "Bob"},
    }
    gradebook = {
        "1001": {"name": "Lovelace, Ada", "user_id": "1001", "sis_user_id": "900111", "sis_login_id": "ada@uni.edu"},
        "1002": {"name": "Babbage, Bob", "user_id": "1002", "sis_user_id": "900123", "sis_login_id": "bob@uni.edu"},
    }
    placed, refused = canvas.identities(results, roster, gradebook)
    assert (
        "900111" not in placed and "Canvas user 1001" in refused["900111"] and "Canvas user 1002" in refused["900111"]
    )
    # Bob's own row is then his alone.
    assert placed["900123"]["user_id"] == "1002"


def test_only_canvas_keys_are_canvas_ids():
    results = [record(k) for k in ("111", "4", "jdoe", "777")]
    roster = {
        "111": {"lms": "canvas", "user_id": "111", "name": "doejane"},
        "4": {"lms": "moodle", "user_id": "4", "name": "Jane Doe"},  # Moodle's participant 4 is not Canvas user 4
        "jdoe": {"lms": "folder", "user_id": None, "name": "jdoe"},
        "777": {"lms": "gradescope", "sid": "777", "email": None, "name": "Seven"},
    }
    gradebook = {"900": {"name": "Doe, J", "user_id": "900", "sis_user_id": "s900", "sis_login_id": "jdoe"}}
    placed, refused = canvas.identities(results, roster, gradebook)
    assert {k: v["user_id"] for k, v in placed.items()} == {"111": "111", "jdoe": "900"}
    assert sorted(refused) == ["4", "777"]
    table = canvas.rows(results, canvas.CanvasOptions(canvas.CanvasAssignment("H", "1")), roster, False, gradebook)
    assert [row[1] for row in table[1:]] == ["111", "900"]
