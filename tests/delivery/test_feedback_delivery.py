"""Feedback delivered the way each LMS takes it (#45 item 2): a Canvas "Re-Upload Submissions" zip whose pages
are named as Canvas named each student's download, Moodle's feedback zip, the Canvas API's dry run, the
release record, and the hostile cases: colliding display names, names with ``../`` or control characters,
ids Canvas would read as someone else's, a student missing from the download, a grade not true yet."""

from __future__ import annotations

import json
import zipfile
from dataclasses import replace
from pathlib import Path, PurePosixPath

import pytest

from assignments import cli, intake
from assignments.delivery import archive, canvas_reupload, moodle_zip, record
from assignments.delivery.release import plan, release_zip
from assignments.intake import IntakeResult, Submission
from assignments.results.model import Finding, QuestionResult, SubmissionResult, TestResult
from assignments.runs import store
from assignments.runs.folder import Run
from tests.intake.test_intake import FINGERPRINTS, GOOD, make_zip

A = "transformers"
# A Canvas "Download Submissions" zip as Canvas names it: <name>[_LATE]_<user id>_<attachment id>_<file name>.
CANVAS_DOWNLOAD = {
    "doejane_111_900_transformers.ipynb": GOOD,
    "smithjohn_LATE_222_901_Copy of transformers (1).ipynb": GOOD,
    "doejane_333_902_transformers.ipynb": GOOD,  # another Jane Doe: the same name part, her own ids
    "ødegårdkari_444_903_transformers.ipynb": GOOD,
}


def graded(student: str, written: float | None = 2.0, **changes) -> SubmissionResult:
    result = SubmissionResult(
        student,
        A,
        "standalone",
        questions=[
            QuestionResult(
                "attention_tests",
                "autograded",
                4.0,
                4.0,
                [TestResult("test_attention_matches_reference", "attention_tests", 4.0, 4.0, "passed")],
                title="Scaled dot-product attention",
            ),
            QuestionResult("why_scale", "manual", 3.0, written, title="Why scale the scores"),
        ],
    )
    return replace(result, **changes)


def canvas_run(tmp_path: Path, download: dict = CANVAS_DOWNLOAD, ungraded: tuple = ()) -> tuple[Run, IntakeResult]:
    """A run graded from a Canvas download: the real intake reads the zip, one record per student."""
    run = Run(tmp_path / "run")
    found = intake.collect(make_zip(tmp_path / "canvas.zip", download), A, run.submissions, fingerprints=FINGERPRINTS)
    found.save(run.intake)
    for student in found.students():
        store.save_result(graded(student, None if student in ungraded else 2.0), run.results)
    return run, found


def members(path: Path) -> dict[str, bytes]:
    with zipfile.ZipFile(path) as archive_file:
        return {info.filename: archive_file.read(info) for info in archive_file.infolist()}


def roster(found: IntakeResult) -> dict:
    return found.roster()


# --- Canvas ---------------------------------------------------------------------------------------------


def test_each_canvas_page_is_named_as_canvas_named_that_students_download(tmp_path):
    run, found = canvas_run(tmp_path)
    done = release_zip(run, A, store.load_results(run.results), roster(found), found, "canvas")
    assert not done.held
    pages = members(done.archive)
    download = {s.student: PurePosixPath(s.entry).name for s in found.submissions}
    assert sorted(pages) == sorted(str(PurePosixPath(name).with_suffix(".html")) for name in download.values())
    for submission in found.submissions:
        name = str(PurePosixPath(download[submission.student]).with_suffix(".html"))
        # Canvas's own reading of the name attaches it to this student's own upload, and to no one else's.
        assert canvas_reupload.canvas_ids(name) == (submission.user_id, str(submission.submission_id))
        page = pages[name].decode()
        assert f"({submission.student})" in page
        assert all(f"({other})" not in page for other in found.students() if other != submission.student)
    assert "smithjohn_LATE_222_901_Copy of transformers (1).html" in pages, "the late marker is kept"


def test_the_release_record_says_what_went_to_whom_when_and_from_which_results(tmp_path):
    run, found = canvas_run(tmp_path)
    done = release_zip(run, A, store.load_results(run.results), roster(found), found, "canvas")
    [entry] = record.load(run.released)
    assert run.released == run.root / "feedback" / "released.json"
    assert entry["lms"] == "canvas" and entry["via"] == "canvas-reupload-zip" and entry["assignment"] == A
    assert entry["run"] == str(run.root) and entry["released_at"].endswith("Z")
    assert entry["results_digest"] == record.results_digest(run)[0]
    assert entry["archive_sha256"] == record.sha256(done.archive.read_bytes())
    pages = members(done.archive)
    for item in entry["delivered"]:
        assert item["sha256"] == record.sha256(pages[item["file"]])
        assert item["record_sha256"] == record.sha256((run.results / f"{item['student']}.json").read_bytes())
        assert item["lms_key"]["canvas_user_id"] == item["student"] and item["score"] == "6 / 7"
    # Releasing again with nothing changed: --changed-only leaves everyone out and records nothing.
    again = release_zip(run, A, store.load_results(run.results), roster(found), found, "canvas", changed_only=True)
    assert again.archive is None and sorted(again.unchanged) == found.students()
    assert len(record.load(run.released)) == 1


def test_written_answers_not_graded_hold_the_page_or_say_not_graded_never_zero(tmp_path):
    run, found = canvas_run(tmp_path, ungraded=("111",))
    results = store.load_results(run.results)
    done = release_zip(run, A, results, roster(found), found, "canvas")
    assert [(h.student, "written answer(s) not graded yet" in h.why) for h in done.held] == [("111", True)]
    assert not any(name.startswith("doejane_111_") for name in members(done.archive))
    assert record.load(run.released)[0]["held"][0]["student"] == "111"

    sent = release_zip(run, A, results, roster(found), found, "canvas", include_ungraded=True)
    page = members(sent.archive)["doejane_111_900_transformers.html"].decode()
    assert "Why scale the scores: not graded yet (3 points)" in page and "Score: pending: 1 written answer" in page
    assert "0 / 3" not in page
    item = next(i for i in record.load(run.released)[-1]["delivered"] if i["student"] == "111")
    assert item["written_pending"] and item["score"] == "4 / 7 so far"


def test_a_rejected_records_page_goes_out_at_once_saying_why(tmp_path):
    """Nothing in a notebook that could not be read will ever be graded by hand: its page is true now."""
    run, found = canvas_run(tmp_path)
    results = store.load_results(run.results)
    results[0] = graded(results[0].student, None, status="rejected")
    results[0].findings.append(Finding("invalid-json", "the file is not valid JSON", "error"))
    pages, held = plan(results, roster(found), found, "canvas")
    assert not held and "could not be graded" in pages[0].data.decode()


def test_a_record_the_grader_had_a_problem_with_is_held(tmp_path):
    run, found = canvas_run(tmp_path)
    results = store.load_results(run.results)
    results[0].findings.append(Finding("grader-crash", "the grader process died", "error"))
    pages, held = plan(results, roster(found), found, "canvas")
    assert [h.student for h in held] == [results[0].student] and "grade it again first" in held[0].why


# --- Moodle ---------------------------------------------------------------------------------------------


def test_moodle_feedback_zip_puts_each_page_in_the_participants_own_folder(tmp_path):
    folder = tmp_path / "moodle"
    (folder / "Jane Doe_4321_assignsubmission_file_").mkdir(parents=True)
    (folder / "Jane Doe_4321_assignsubmission_file_" / "transformers.ipynb").write_bytes(GOOD)
    (folder / "Jane Doe_4322_assignsubmission_file_transformers.ipynb").write_bytes(GOOD)  # same name, another id
    run = Run(tmp_path / "run")
    found = intake.collect(folder, A, run.submissions, fingerprints=FINGERPRINTS)
    found.save(run.intake)
    for student in found.students():
        store.save_result(graded(student), run.results)
    done = release_zip(run, A, store.load_results(run.results), roster(found), found, "moodle")
    pages = members(done.archive)
    assert sorted(pages) == [
        "Jane Doe_4321_assignsubmission_file_/transformers_feedback.html",
        "Jane Doe_4322_assignsubmission_file_/transformers_feedback.html",
    ]
    for name, page in pages.items():
        participant = moodle_zip.moodle_participant(name)
        assert f"({participant})" in page.decode() and participant in ("4321", "4322")
    assert record.load(run.released)[0]["delivered"][0]["lms_key"] == {"moodle_participant_id": "4321"}


# --- hostile names and identities -----------------------------------------------------------------------


def forged(student: str, **fields) -> Submission:
    """A manifest entry as a hand-edited or foreign intake.json could hold it."""
    base = {"path": None, "original_name": "transformers.ipynb", "name": "doejane", "lms": "canvas"}
    return Submission(student, **{**base, "user_id": student, "submission_id": 900, **fields})


HOSTILE_NAMES = {
    "dotdot": {"name": "doe/../jane", "original_name": "../../../etc/passwd.ipynb"},
    "absolute": {"name": "/root", "original_name": "/tmp/x.ipynb"},
    "control": {"name": "doe\x1b[31mjane\x00", "original_name": "a\rb\n\x1b[2J.ipynb"},
    "bidi": {"name": "jane\u202egnp.exe", "original_name": "x\u202eblm.ipynb"},
    "backslash": {"name": "doe\\jane", "original_name": "..\\..\\x.ipynb"},
    "digits": {"name": "424242_777_888", "original_name": "999_111.ipynb"},  # read by Canvas as ids
    "dots": {"name": "...", "original_name": "....ipynb"},
    "long": {"name": "a" * 5000, "original_name": "b" * 5000 + ".ipynb"},
}


@pytest.mark.parametrize("case", sorted(HOSTILE_NAMES))
def test_a_hostile_name_stays_one_safe_file_that_canvas_and_moodle_read_as_its_students(case, tmp_path):
    fields = HOSTILE_NAMES[case]
    canvas = canvas_reupload.reupload_name(forged("111", **fields), A)
    assert archive.member_problem(canvas) is None and "/" not in canvas
    assert canvas_reupload.canvas_ids(canvas) == ("111", "900")
    moodle = moodle_zip.feedback_path(forged("4321", lms="moodle", **fields), A)
    assert archive.member_problem(moodle) is None and moodle.count("/") == 1
    assert moodle_zip.moodle_participant(moodle) == "4321"
    archive.write_zip(tmp_path / "x.zip", {canvas: b"1", moodle: b"2"})
    with zipfile.ZipFile(tmp_path / "x.zip") as written:
        for info in written.infolist():
            assert (info.external_attr >> 16) == 0o100644, "a regular file, never a link"


def test_one_students_page_never_reaches_another(tmp_path):
    manifest = IntakeResult(
        A,
        "forged",
        submissions=[
            forged("111"),
            forged("111-5f3a", user_id="111", submission_id=950),  # a second record claiming Canvas user 111
            forged("555", user_id="55a"),  # not a Canvas id
            forged("666", lms="plain", user_id=None, submission_id=None),
            forged("777", submission_id=None),  # a text entry: no attachment to comment on
        ],
        missing=[forged("888", original_name="notes.txt", submission_id=905)],  # sent files, no notebook
    )
    results = [graded(s.student) for s in manifest.submissions] + [graded("888"), graded("ghost")]
    pages, held = plan(results, {}, manifest, "canvas")
    why = {h.student: h.why for h in held}
    assert [p.student for p in pages] == ["888"] and pages[0].file == "doejane_888_905_notes.html"
    assert "shares its LMS key" in why["111"] and "shares its LMS key" in why["111-5f3a"]
    assert "no Canvas user id" in why["555"] and "not from a Canvas download" in why["666"]
    assert "no attachment id" in why["777"] and "not in the run's intake manifest" in why["ghost"]
    # The API needs no attachment: the text entry's student gets a comment; the duplicates still get nothing.
    api_pages, api_held = plan(results, {}, manifest, "canvas", api=True)
    assert sorted(p.student for p in api_pages) == ["777", "888"]
    assert {"111", "111-5f3a"} <= {h.student for h in api_held}


def test_a_student_in_the_download_without_a_record_is_named_not_guessed(tmp_path):
    run, found = canvas_run(tmp_path)
    results = [r for r in store.load_results(run.results) if r.student != "444"]
    pages, held = plan(results, {}, found, "canvas")
    assert [h.student for h in held] == ["444"] and "no results record" in held[0].why


@pytest.mark.parametrize(
    "name",
    ["../x.html", "/abs.html", "a\\b.html", "a/./b.html", "a//b.html", ".hidden.html", "~lock.html", "x\x1b.html", ""],
)
def test_the_zip_writer_refuses_any_name_that_could_leave_its_folder(tmp_path, name):
    with pytest.raises(ValueError, match="refused zip member"):
        archive.write_zip(tmp_path / "x.zip", {"fine.html": b"1", name: b"2"})
    assert not (tmp_path / "x.zip").exists()


def test_the_zip_writer_refuses_two_names_one_disk_would_merge(tmp_path):
    with pytest.raises(ValueError, match="differ only in letter case"):
        archive.write_zip(tmp_path / "x.zip", {"DoeJane_1_2_a.html": b"1", "doejane_1_2_a.html": b"2"})


# --- the command ----------------------------------------------------------------------------------------


def test_course_feedback_writes_the_zip_records_it_and_says_who_was_held(tmp_path, capsys):
    run, found = canvas_run(tmp_path, ungraded=("222",))
    status = cli.main(["feedback", A, "--lms", "canvas", "--results", str(run.results)])
    said = capsys.readouterr().out
    assert status == 0, said
    assert f"canvas: 3 page(s) in {run.feedback / 'canvas' / f'{A}_feedback_canvas.zip'}" in said
    assert "Re-Upload Submissions" in said and "held back: 1 student(s)" in said and "  222: 1 written" in said
    assert len(record.load(run.released)) == 1


def test_the_canvas_api_dry_run_prints_what_it_would_post_and_sends_nothing(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("CANVAS_API_TOKEN", raising=False)
    run, found = canvas_run(tmp_path)
    args = ["feedback", A, "--lms", "canvas", "--results", str(run.results), "--api", "--dry-run"]
    assert cli.main(args) == 2 and "the Canvas API needs --canvas-url" in capsys.readouterr().err
    target = ["--canvas-url", "https://canvas.example.edu", "--canvas-course", "17", "--canvas-id", "4242"]
    assert cli.main(args + target) == 0
    said = capsys.readouterr().out
    assert said.count("would post transformers_feedback.html") == 4
    assert "as a comment on Canvas user 111's submission to assignment 4242 of course 17" in said
    assert not run.released.exists() and not (run.feedback / "canvas").exists()


def test_platforms_that_grade_themselves_need_nothing_and_bad_input_writes_nothing(tmp_path, capsys):
    assert cli.main(["feedback", A, "--lms", "gradescope"]) == 0
    assert "results.json" in capsys.readouterr().out
    empty = Run(tmp_path / "run")
    store.save_result(graded("111"), empty.results)
    assert cli.main(["feedback", A, "--lms", "moodle", "--results", str(empty.results)]) == 2
    assert "no intake manifest" in capsys.readouterr().err
    assert cli.main(["feedback", A, "--lms", "moodle", "--dry-run", "--results", str(empty.results)]) == 2
    assert not empty.feedback.exists()
    json.loads((empty.results / "111.json").read_text())  # untouched
