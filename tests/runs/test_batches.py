"""A class graded in parts: shards (assignments/runs/shards.py), a stopped batch resumed and a regrade's report
(runs/regrade.py), and shards merged into one run (runs/merge.py).

The resume and regrade tests grade the toy course through the real batch (grader processes, sandboxed
kernels): a toy submission takes a few seconds. The whole-class equality of merged shards is checked
through the grader image (tests/rehearsals/test_grader_image.py, `make image-test`).
"""

from __future__ import annotations

import csv
import functools
import json
import shutil

import pytest

from assignments.grading.doors import batch
from assignments.grading.sandbox.limits import Limits
from assignments.intake import IntakeFinding, IntakeResult, Submission
from assignments.results.model import QuestionResult, SubmissionResult
from assignments.runs import store
from assignments.runs.folder import Run
from assignments.runs.merge import MergeRefused, merge_runs
from assignments.runs.regrade import RegradePlan, grader_version, submission_digest
from assignments.runs.shards import Shard, read_shard, shard_of, write_shard
from assignments.workflow import grade_jobs
from tests.fixtures import toy
from tests.fixtures.batch import grade_toy_job, limits_dict

# --- shards -------------------------------------------------------------------------------------------------


def test_a_shard_is_written_i_of_n_counting_from_zero():
    assert Shard.parse("0/3") == Shard(0, 3)
    assert str(Shard.parse("2/3")) == "2/3"
    for wrong in ("3/3", "-1/3", "1/0", "1", "a/b", "1/2/3"):
        with pytest.raises(ValueError, match="shard"):
            Shard.parse(wrong)


def test_every_student_falls_in_exactly_one_shard():
    students = [f"student{n}" for n in range(200)] + ["ada@example.edu", "O'Brien, Siobhán"]
    shards = [Shard(i, 3) for i in range(3)]
    for student in students:
        owners = [shard for shard in shards if shard.owns(student)]
        assert len(owners) == 1, f"{student!r} belongs to {owners}, expected exactly one of three shards"
    sizes = [sum(shard.owns(s) for s in students) for shard in shards]
    assert min(sizes) > 40, f"202 students should spread over three shards, got {sizes}"


def test_the_shard_of_a_student_is_fixed_by_their_key_alone():
    # A hash seeded per process (Python's hash()) would put one student in two machines' shards: the value
    # is the first 8 bytes of SHA-256, so it is the same on every machine, today and after an upgrade.
    assert [shard_of("alice", 3), shard_of("bob", 3), shard_of("12345", 7)] == [2, 2, 6]


# --- resume and regrade through the real batch -----------------------------------------------------------

LIMITS = limits_dict(Limits(cell_timeout=20, call_timeout=10, total_timeout=60, startup_timeout=60))
# The toy's hidden suite before a fix: scale(x, 0) was only checked for its shape. The fix is the toy's own
# suite, which checks the values too: a scale() that returns x itself for k == 0 passed before and not after.
LENIENT_TESTS = toy.HIDDEN_TESTS.replace(
    'expect_close(out, torch.zeros(4), "scale(x, 0)")',
    'expect(tuple(out.shape) == (4,), "scale(x, 0) keeps the shape")',
)
X_FOR_K0 = (
    'def scale(x, k):\n    """x * k, using add() k times (k a small int)."""\n'
    "    if k == 0:\n        return x\n    out = x * 0\n    for _ in range(k):\n        out = add(out, x)\n"
    "    return out"
)


# The tests that read toy_run run on one worker (`--dist loadgroup`), so that its class is graded once, not on
# each worker that got one of them.
ON_TOY_RUN = pytest.mark.xdist_group("batches_toy_run")


@pytest.fixture(scope="module")
def toy_run(tmp_path_factory):
    """The toy course (its lenient suite) with a class of two (the reference, and a scale() that returns x
    for k == 0), graded once into a run; the toy's files are the grader's, so a fix moves its version."""
    folder = tmp_path_factory.mktemp("batches")
    the_toy = toy.build(folder / "toy", tests=LENIENT_TESTS, pyproject=True)
    assert LENIENT_TESTS != toy.HIDDEN_TESTS
    shortcut = the_toy.reference()
    for cell in shortcut.cells:
        if cell.metadata.get("nbgrader", {}).get("grade_id") == "scale":
            cell.source = X_FOR_K0
    jobs = [
        batch.Job("ada", str(the_toy.write(the_toy.reference(), "ada.ipynb"))),
        batch.Job("bo", str(the_toy.write(shortcut, "bo.ipynb"))),
    ]
    grader = functools.partial(grade_toy_job, str(the_toy.folder), LIMITS)
    run = folder / "run"
    first = grade_jobs(the_toy.assignment, jobs, run, workers=2, grader=grader)
    return the_toy, jobs, grader, run, {r.student: r for r in first}


@ON_TOY_RUN
def test_records_say_what_they_were_graded_from_and_by_what(toy_run):
    the_toy, jobs, _, run, first = toy_run
    version = grader_version(the_toy.assignment)
    for job in jobs:
        record = store.load_result(run / "results" / f"{job.student}.json")
        assert record.submission_sha256 == submission_digest(job.path), (
            f"{job.student}'s record should carry the SHA-256 of the notebook it graded"
        )
        assert record.grader_version == version, f"{job.student}'s record names grader {record.grader_version}"
    assert first["ada"].autograded_points == first["ada"].autograded_max == 5, "the reference should score 5 of 5"
    assert first["bo"].autograded_points == 5, "the lenient suite should miss bo's scale(x, 0)"


@ON_TOY_RUN
def test_a_batch_started_again_keeps_every_record_and_grades_nobody(toy_run, capsys):
    the_toy, jobs, grader, run, first = toy_run
    stamps = {p.name: p.stat().st_mtime_ns for p in (run / "results").glob("*.json")}
    again = grade_jobs(the_toy.assignment, jobs, run, workers=2, grader=grader)
    printed = capsys.readouterr().out
    assert "kept 2 record(s)" in printed, f"both records should be kept, the batch printed:\n{printed}"
    assert [r.timings for r in again] == [first[s].timings for s in ("ada", "bo")], (
        "a kept record must be the earlier grading itself, not a new one"
    )
    report = json.loads(Run(run).regrade_report.read_text())
    assert (report["graded"], report["kept"], report["changed"]) == (0, 2, []), report
    assert set(stamps) == {p.name for p in (run / "results").glob("*.json")}


@ON_TOY_RUN
def test_a_new_notebook_is_graded_again_while_the_classmate_is_kept(toy_run, tmp_path, capsys):
    the_toy, jobs, grader, run, _ = toy_run
    copy = tmp_path / "run"
    shutil.copytree(run, copy)
    resubmitted = the_toy.write(the_toy.reference(), "bo-second.ipynb")
    graded = grade_jobs(the_toy.assignment, [jobs[0], batch.Job("bo", str(resubmitted))], copy, 2, grader=grader)
    printed = capsys.readouterr().out
    assert "kept 1 record(s)" in printed, printed
    report = json.loads(Run(copy).regrade_report.read_text())
    assert (report["graded"], report["kept"]) == (1, 1), f"only bo's new notebook should be graded: {report}"
    assert report["changed"] == [], f"bo's new notebook scores what the old one did: {report['changed']}"
    assert store.load_result(copy / "results" / "bo.json").submission_sha256 == submission_digest(resubmitted)
    assert {r.student: r.autograded_points for r in graded} == {"ada": 5, "bo": 5}


@ON_TOY_RUN
def test_a_regrade_after_a_hidden_test_fix_reports_whose_scores_moved_on_which_question(toy_run, capsys):
    the_toy, jobs, grader, run, first = toy_run
    before = grader_version(the_toy.assignment)
    (the_toy.tests_dir / "test_toy.py").write_text(toy.HIDDEN_TESTS)
    after = grader_version(the_toy.assignment)
    assert after != before, "a changed hidden test must change the grader version"
    regraded = {r.student: r for r in grade_jobs(the_toy.assignment, jobs, run, workers=2, grader=grader)}
    printed = capsys.readouterr().out
    report = json.loads(Run(run).regrade_report.read_text())
    assert report["graded"] == 2 and report["kept"] == 0, f"the fix should regrade both students: {report}"
    assert [c["student"] for c in report["changed"]] == ["bo"], (
        f"only bo's scores should move (ada is the reference), the report says {report['changed']}"
    )
    change = report["changed"][0]
    assert change["questions"] == [
        {"grade_id": "scale_tests", "before": first["bo"].question("scale_tests").points, "after": 2.0}
    ], change
    assert change["why"].startswith("the grader changed"), change["why"]
    assert "bo: 5 -> 4 (scale_tests 3 -> 2; the grader changed" in printed, printed
    assert regraded["ada"].autograded_points == 5


def test_a_plan_keeps_a_record_with_this_intakes_findings_and_grades_a_changed_notebook(tmp_path):
    # No grading: the plan is decided from the run's records and the notebooks' bytes alone. The record is
    # written as runs on disk hold it (an intake finding is known by its catalogue code, nothing else).
    the_toy = toy.build(tmp_path / "toy", pyproject=True)
    same, changed = the_toy.write(the_toy.reference(), "ada.ipynb"), the_toy.write(the_toy.reference(), "bo.ipynb")
    run = Run(tmp_path / "run")
    for student, path in (("ada", same), ("bo", changed)):
        earlier = {
            **record(student, 2.0, grader_version(the_toy.assignment)).to_dict(),
            "submission_sha256": submission_digest(path),
            "findings": [
                {"code": "intake-late", "message": "submitted late", "severity": "info", "cell": None},
                {"code": "test-cell-edited", "message": "restored", "severity": "warning", "cell": "add_tests"},
            ],
        }
        run.results.mkdir(parents=True, exist_ok=True)
        (run.results / f"{student}.json").write_text(json.dumps(earlier))
    changed.write_text(changed.read_text() + " ")
    now = IntakeResult(toy.NAME, "download", findings=[IntakeFinding("duplicate", "two notebooks", "ada")])
    jobs = [batch.Job("ada", str(same)), batch.Job("bo", str(changed))]
    plan = RegradePlan.of(run, the_toy.assignment, jobs, now.findings_by_student())
    assert [r.student for r in plan.kept] == ["ada"] and [j.student for j in plan.todo] == ["bo"], plan
    assert [(f.code, f.source) for f in plan.kept[0].findings] == [
        ("test-cell-edited", "grader"),
        ("intake-duplicate", "intake"),
    ], "a kept record's intake findings are this intake's (the late flag went), the grader's stay"
    assert plan.todo[0].sha256 == submission_digest(changed), "a job to grade carries its notebook's SHA-256"
    assert plan.finish([], []) == [] and json.loads(run.regrade_report.read_text())["kept"] == 1


# --- merge ----------------------------------------------------------------------------------------------


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
