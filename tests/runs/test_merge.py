"""Shards' runs merged into one run (assignments/runs/merge.py): what a merge takes, and everything it refuses.
The whole-class equality of merged shards is checked through the grader image
(tests/rehearsals/test_grader_image.py, `make image-test`).
"""

from __future__ import annotations

import csv
import shutil

import pytest

from assignments.intake import IntakeResult, Submission
from assignments.results.model import QuestionResult, SubmissionResult
from assignments.runs import store
from assignments.runs.folder import Run
from assignments.runs.merge import MergeRefused, merge_runs
from assignments.runs.shards import Shard, read_shard, shard_of, write_shard
from tests.fixtures import toy


def record(student: str, points: float, version: str = "v1", source: str = "") -> SubmissionResult:
    return SubmissionResult(
        student,
        toy.NAME,
        "standalone",
        source_file=source,
        questions=[QuestionResult("add_tests", "autograded", 2.0, points)],
        timings={"total_s": points},
        grader_version=version,
    )


# The class of issue #43: five students over three shards (shard_of: cy -> 0, bo -> 1, ada, dee, eve -> 2).
CLASS = ["ada", "bo", "cy", "dee", "eve"]
SHARDS = 3


def intake_of(students: list[str], folder) -> IntakeResult:
    """The intake manifest `course grade` writes into every shard's run: the whole class, each notebook in the
    run's submissions/."""
    return IntakeResult(
        toy.NAME,
        "class.zip",
        [
            # A Canvas download's students (with their Canvas user ids), as the Canvas CSV needs them.
            Submission(s, str(folder / "submissions" / f"{s}.ipynb"), "toy.ipynb", name=s, lms="canvas", user_id=f"{i}")
            for i, s in enumerate(students, 1001)
        ],
    )


def shard_run(tmp_path, index: int, count: int = SHARDS, students=CLASS, version="v1", name=None):
    """Shard ``index`` of ``count`` as `course grade --shard` leaves it: its shard.json, the whole class's
    intake and notebooks, and the records of its own students."""
    run = tmp_path / (name or f"shard-{index}")
    for student in students:
        notebook = run / "submissions" / f"{student}.ipynb"
        notebook.parent.mkdir(parents=True, exist_ok=True)
        notebook.write_text(f"{student}'s notebook")
        if shard_of(student, count) == index:
            store.save_result(record(student, 1.0, version, source=str(notebook)), run / "results")
    intake_of(students, run).save(run / "intake.json")
    write_shard(run, Shard(index, count))
    return run


def written(folder) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*")) if folder.exists() else []


def test_merge_joins_the_shards_records_and_moves_their_notebooks_into_the_run(tmp_path):
    runs = [shard_run(tmp_path, i) for i in range(SHARDS)]
    merged = merge_runs(toy.NAME, runs, tmp_path / "whole")
    assert [r.student for r in merged] == CLASS
    for result in merged:
        moved = tmp_path / "whole" / "submissions" / f"{result.student}.ipynb"
        assert result.source_file == str(moved) and moved.read_text() == f"{result.student}'s notebook", (
            f"{result.student}'s notebook should be copied into the merged run and its record point there"
        )
    assert sorted(p.stem for p in (tmp_path / "whole" / "results").glob("*.json")) == CLASS
    assert read_shard(Run(tmp_path / "whole")) == Shard(0, 1), "the merged run is the whole class"


def test_merge_finds_the_notebooks_of_runs_graded_in_a_container_under_other_paths(tmp_path):
    # Graded in pods where the run was /runs/shard-0; merged on a host where it is tmp_path/shard-0.
    run = tmp_path / "shard-0"
    notebook = run / "submissions" / "ada" / "transfer_lm.ipynb"
    notebook.parent.mkdir(parents=True)
    notebook.write_text("ada's notebook")
    store.save_result(record("ada", 1.0, source="/runs/shard-0/submissions/ada/transfer_lm.ipynb"), run / "results")
    intake_of(["ada"], run).save(run / "intake.json")
    write_shard(run, None)
    (merged,) = merge_runs(toy.NAME, [run], tmp_path / "whole")
    moved = tmp_path / "whole" / "submissions" / "ada" / "transfer_lm.ipynb"
    assert merged.source_file == str(moved) and moved.read_text() == "ada's notebook", merged.source_file


def test_merge_refuses_two_different_records_of_one_student(tmp_path):
    for name, points in (("a", 1.0), ("b", 2.0)):
        store.save_result(record("ada", points), tmp_path / name / "results")
        intake_of(["ada"], tmp_path / name).save(tmp_path / name / "intake.json")
        write_shard(tmp_path / name, None)
    with pytest.raises(MergeRefused, match="different records"):
        merge_runs(toy.NAME, [tmp_path / "a", tmp_path / "b"], tmp_path / "whole")
    assert not (tmp_path / "whole").exists(), "a refused merge must write nothing"


def test_merge_refuses_shards_graded_by_different_graders(tmp_path):
    runs = [shard_run(tmp_path, i, version=f"v{i % 2}") for i in range(SHARDS)]
    with pytest.raises(MergeRefused, match="different graders"):
        merge_runs(toy.NAME, runs, tmp_path / "whole")


# --- merge: what it merges is checked (issue #43, item 5; #48, item 4) -------------------------------------


def test_an_incomplete_merge_names_the_missing_students_and_the_shards_to_grade_again(tmp_path):
    # Issue #43: shard 2 alone holds 3 of the 5 students the intake lists; the merge exited 0 and exported 3.
    with pytest.raises(MergeRefused) as refused:
        merge_runs(toy.NAME, [shard_run(tmp_path, 2)], tmp_path / "whole")
    message = str(refused.value)
    assert "2 of 5 student(s)" in message and "'bo', 'cy'" in message, message
    assert "shard(s) to grade again: 0/3, 1/3" in message and "--allow-missing" in message, message
    assert "\n" not in message, "the refusal is one line"
    assert written(tmp_path / "whole") == [], "a refused merge must write nothing"


def test_merge_allowed_to_miss_students_warns_and_exports_no_row_for_them(tmp_path, capsys):
    from assignments.exports import canvas
    from assignments.workflow import export

    the_toy = toy.build(tmp_path / "toy")
    runs = [shard_run(tmp_path, 2), shard_run(tmp_path, 1)]
    merged = merge_runs(toy.NAME, runs, tmp_path / "whole", allow_missing=True)
    printed = capsys.readouterr().out
    assert [r.student for r in merged] == ["ada", "bo", "dee", "eve"]
    assert "WARNING 1 of 5 student(s)" in printed and "'cy'" in printed and "0/3" in printed, printed
    opts = canvas.CanvasOptions(canvas.CanvasAssignment("Toy", "77"))
    (path,) = export(Run(tmp_path / "whole"), the_toy.assignment, ("canvas",), canvas_options=opts)["canvas"]
    with open(path, newline="", encoding="utf-8") as handle:
        students = [row["Student"] for row in csv.DictReader(handle)][1:]  # after "Points Possible"
    assert students == ["ada", "bo", "dee", "eve"], f"cy has no record: no row (Canvas keeps its grade): {students}"


def test_a_merge_into_a_folder_holding_other_students_records_is_refused(tmp_path):
    # A full merge, then an --allow-missing merge of fewer shards into the same folder: the first merge's
    # record for the missing student would otherwise stay and export as if these shards had graded it.
    merge_runs(toy.NAME, [shard_run(tmp_path, i) for i in range(SHARDS)], tmp_path / "whole")
    before = written(tmp_path / "whole")
    with pytest.raises(MergeRefused) as refused:
        merge_runs(toy.NAME, [shard_run(tmp_path, 2), shard_run(tmp_path, 1)], tmp_path / "whole", True)
    assert "already holds records of 1 student(s)" in str(refused.value) and "'cy'" in str(refused.value)
    assert written(tmp_path / "whole") == before, "a refused merge must write nothing"


def test_a_record_for_a_student_another_shard_owns_is_refused(tmp_path):
    # Issue #43: shard 0's run holds a record for ada (shard 2's) while shard 2's own is missing.
    runs = [shard_run(tmp_path, i) for i in (0, 1)]
    store.save_result(record("ada", 2.0, source=""), runs[0] / "results")
    with pytest.raises(MergeRefused, match=r"shard 0/3\) holds a record for 'ada', whom shard 2/3 grades"):
        merge_runs(toy.NAME, runs, tmp_path / "whole", allow_missing=True)
    assert written(tmp_path / "whole") == []


def test_a_run_that_does_not_say_its_shard_or_splits_the_class_otherwise_is_refused(tmp_path):
    unsaid = shard_run(tmp_path, 0)
    (unsaid / "shard.json").unlink()
    with pytest.raises(MergeRefused, match="does not say which shard"):
        merge_runs(toy.NAME, [unsaid], tmp_path / "whole", allow_missing=True)
    halves = [shard_run(tmp_path, 0, count=2, name="half-0"), shard_run(tmp_path, 1)]
    with pytest.raises(MergeRefused, match="different splits"):
        merge_runs(toy.NAME, halves, tmp_path / "whole", allow_missing=True)


def test_a_record_the_intake_does_not_list_is_refused(tmp_path):
    run = shard_run(tmp_path, 0, count=1, students=["ada", "bo"])
    store.save_result(record("mallory", 1.0), run / "results")
    with pytest.raises(MergeRefused, match="the intake does not list: 'mallory'"):
        merge_runs(toy.NAME, [run], tmp_path / "whole")


def test_a_path_with_dotdot_copies_nothing_from_outside_the_run(tmp_path):
    # Issue #43: a record's "submissions/../../secret" was copied from outside the shard to outside the merge.
    secret = tmp_path / "secret.txt"
    secret.write_text("the hidden tests")
    runs = [shard_run(tmp_path / "runs", i) for i in range(SHARDS)]
    escape = str(runs[0] / "submissions" / ".." / ".." / ".." / "secret.txt")
    store.save_result(record("cy", 1.0, source=escape), runs[0] / "results")
    out = tmp_path / "runs" / "merged" / "whole"
    with pytest.raises(MergeRefused, match="'..'"):
        merge_runs(toy.NAME, runs, out)
    assert written(out) == [] and sorted(p.name for p in tmp_path.iterdir()) == ["runs", "secret.txt"]


def test_an_absolute_path_outside_the_run_is_not_copied_nor_kept(tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("the hidden tests")
    runs = [shard_run(tmp_path / "runs", i) for i in range(SHARDS)]
    store.save_result(record("cy", 1.0, source=str(secret)), runs[0] / "results")
    merged = {r.student: r for r in merge_runs(toy.NAME, runs, tmp_path / "whole")}
    assert merged["cy"].source_file == "", "a notebook outside the shard's submissions/ is neither copied nor named"
    assert "the hidden tests" not in "".join(p.read_text() for p in (tmp_path / "whole").rglob("*") if p.is_file())


def test_a_linked_record_or_notebook_is_refused(tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "secret.ipynb").write_text("another course's notebook")
    runs = [shard_run(tmp_path / "a", i) for i in range(SHARDS)]
    # A record that is a link to a record elsewhere.
    store.save_result(record("cy", 1.0), elsewhere)
    (runs[0] / "results" / "cy.json").unlink()
    (runs[0] / "results" / "cy.json").symlink_to(elsewhere / "cy.json")
    with pytest.raises(MergeRefused, match="is a link"):
        merge_runs(toy.NAME, runs, tmp_path / "whole")
    # A notebook that is a link, and a submissions/ folder that is one.
    runs = [shard_run(tmp_path / "b", i) for i in range(SHARDS)]
    notebook = runs[0] / "submissions" / "cy.ipynb"
    notebook.unlink()
    notebook.symlink_to(elsewhere / "secret.ipynb")
    with pytest.raises(MergeRefused, match="follows no link"):
        merge_runs(toy.NAME, runs, tmp_path / "whole")
    runs = [shard_run(tmp_path / "c", i) for i in range(SHARDS)]
    shutil.rmtree(runs[1] / "submissions")
    (runs[1] / "submissions").symlink_to(elsewhere)
    store.save_result(record("bo", 1.0, source=str(runs[1] / "submissions" / "secret.ipynb")), runs[1] / "results")
    with pytest.raises(MergeRefused, match="follows no link"):
        merge_runs(toy.NAME, runs, tmp_path / "whole")
    assert written(tmp_path / "whole") == []


def test_shards_in_any_order_given_twice_or_merged_again_make_the_same_run(tmp_path):
    runs = [shard_run(tmp_path, i) for i in range(SHARDS)]
    retried = shutil.copytree(runs[1], tmp_path / "shard-1-retried")  # the same shard graded again

    def merged_into(out, order):
        merge_runs(toy.NAME, order, out)
        return {
            str(p.relative_to(out)): p.read_text().replace(str(out), "<out>")
            for p in sorted(out.rglob("*"))
            if p.is_file()
        }

    forward = merged_into(tmp_path / "one", runs)
    assert merged_into(tmp_path / "two", runs[::-1] + [retried, runs[0]]) == forward
    assert merged_into(tmp_path / "one", runs) == forward, "merging again into the same run changes nothing"


def test_course_merge_refuses_in_one_line_with_exit_2(tmp_path, monkeypatch, capsys):
    from assignments.cli import arguments
    from assignments.cli import main as course

    monkeypatch.setattr(arguments, "known_assignments", lambda course: [toy.NAME])  # the command line's check
    code = course(["merge", toy.NAME, str(shard_run(tmp_path, 2)), "--out", str(tmp_path / "whole")])
    printed = capsys.readouterr().out
    assert code == 2, printed
    assert printed.count("\n") == 1 and printed.startswith("course merge refused: 2 of 5 student(s)"), printed
    assert written(tmp_path / "whole") == []
