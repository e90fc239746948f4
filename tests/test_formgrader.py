"""The hand-grading loop through nbgrader: formgrader in a real browser, and feedback HTML for students.

One small class (one assignment, the quickest to execute; two students: the reference and the blank
release) goes through real ``nbgrader autograde`` once for the whole module. Then:
- headless Chromium opens formgrader, the assignment's submissions and one student's notebook, enters
  points and a comment for a written answer and saves them, and ``course export`` puts both in the
  Canvas CSV and the student's feedback; under the written answer that has evidence, the page shows the
  outputs ada submitted from her own (Colab) run, labelled as hers, and the grading-mode re-run of that
  cell is marked as not her numbers;
- ``nbgrader generate_feedback`` renders feedback that shows the hidden tests' outcomes, not their code.

Screenshots of the pages visited go to ``build/test-artifacts/formgrader/`` (printed by the test).
The browser test needs Debian's chromium and chromium-driver (``.ci/install-browser``); without them it
is skipped with the reason.
"""

from __future__ import annotations

import csv
import shutil
import time
from pathlib import Path

import pytest

from assignments import demo_class, formgrader, notebooks
from assignments.cli import main as course
from assignments.course import default
from assignments.exports import nbgrader_gradebook
from assignments.exports.text import question_title
from assignments.grading.doors.nbgrader import door as nbgrader_door
from assignments.results import store
from tests.helpers import QUICKEST

BUILD_DIR = default().build_dir

ASSIGNMENT = QUICKEST
CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
ARTIFACTS = BUILD_DIR / "test-artifacts" / "formgrader"
COLAB_FIGURE = "0.8731"  # in demo_class.COLAB_LINE: no grading-mode run prints it
POINTS, COMMENT = "1.5", "(a) is right; in (b), say which order information the mask still gives."

# One worker runs this module (with `--dist loadgroup`), so the class is autograded once, not per worker.
pytestmark = pytest.mark.xdist_group("formgrader")


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """(course folder, results folder): the reference and the blank release through nbgrader autograde."""
    folder = tmp_path_factory.mktemp("class")
    # ada ran her notebook on Colab: her evidence cells hold outputs the grading-mode re-run cannot print.
    students = {
        "ada": demo_class.colab_run(demo_class.filled_release(ASSIGNMENT), ASSIGNMENT, "ada"),
        "bob": default().assignment(ASSIGNMENT).release_notebook(),
    }
    paths = demo_class.write_folder(students, folder, default().assignment(ASSIGNMENT).source_path.name)
    root = tmp_path_factory.mktemp("course")
    results_folder = tmp_path_factory.mktemp("results")
    for result in nbgrader_door.autograde(ASSIGNMENT, paths, root=root):
        store.save_result(result, results_folder)
    return root, results_folder


def written_question() -> notebooks.Question:
    return next(q for q in default().assignment(ASSIGNMENT).questions if q.kind == "manual")


def evidence_question() -> tuple[str, str]:
    """(a written question with evidence, its first evidence cell)."""
    question, cells = next(iter(notebooks.evidence_cells(default().assignment(ASSIGNMENT).source_notebook()).items()))
    return question, cells[0]


# ---------------------------------------------------------------- feedback through nbgrader


def test_generate_feedback_shows_hidden_test_outcomes_but_not_their_code(graded):
    root, _ = graded
    done = nbgrader_door.nbgrader(["generate_feedback", ASSIGNMENT, "--force"], root, timeout=600)
    assert done.returncode == 0, f"nbgrader generate_feedback failed:\n{done.stderr[-1500:]}"
    pages = sorted((root / "feedback" / "ada" / ASSIGNMENT).glob("*.html"))
    assert pages, f"no feedback HTML for ada under {root / 'feedback'}"
    page = pages[0].read_text(encoding="utf-8")
    first_test = next(q.grade_id for q in default().assignment(ASSIGNMENT).questions if q.kind == "autograded")
    assert f"{first_test}: " in page and " points" in page, (
        "feedback should show the points line the hidden tests printed"
    )
    leaks = [
        text
        for text in (
            "BEGIN HIDDEN TESTS",
            "END HIDDEN TESTS",
            "hidden_tests(",
            "assignments.grading",
            "autograder/",
            "Traceback (most recent call last)",
        )
        if text in page
    ]
    assert leaks == [], f"student feedback quotes the hidden tests' code or grader internals: {leaks}"


# ---------------------------------------------------------------- formgrader in a browser


def browser(profile: Path):
    if not (CHROMIUM.exists() and CHROMEDRIVER.exists()):
        pytest.skip(
            f"NO BROWSER: {CHROMIUM} and {CHROMEDRIVER} are missing; run .ci/install-browser "
            "(apt-get install chromium chromium-driver) to test formgrader in a browser"
        )
    webdriver = pytest.importorskip("selenium.webdriver", reason="the selenium package is not installed")
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for flag in (
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--window-size=1280,900",
        f"--user-data-dir={profile}",
    ):
        options.add_argument(flag)
    # An explicit driver path: Selenium Manager never runs, so nothing is downloaded.
    return webdriver.Chrome(service=Service(str(CHROMEDRIVER)), options=options)


def wait_for(condition, what: str, timeout: float = 30):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.25)
    raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}")


def hand_grade(db: str, student: str, grade_id: str):
    with nbgrader_gradebook.open_gradebook(db) as gb:
        notebook = gb.find_submission_notebook(ASSIGNMENT, default().assignment(ASSIGNMENT).source_path.stem, student)
        grade = next(g for g in notebook.grades if g.name == grade_id)
        comment = next((c.manual_comment for c in notebook.comments if c.name == grade_id), None)
        return notebook.id, grade.manual_score, comment


def test_a_hand_grade_entered_in_formgrader_reaches_canvas_and_feedback(graded, tmp_path):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    root, results_folder = graded
    db = f"sqlite:///{root / 'gradebook.db'}"
    question = written_question()
    submission_id, before, _ = hand_grade(db, "ada", question.grade_id)
    assert before is None
    if ARTIFACTS.exists():
        shutil.rmtree(ARTIFACTS)
    ARTIFACTS.mkdir(parents=True)
    print(f"screenshots: {ARTIFACTS}")
    driver = browser(tmp_path / "chromium-profile")
    log = open(ARTIFACTS / "jupyter-server.log", "w")
    server = formgrader.start(root, log=log)
    try:
        driver.get(server.url("formgrader"))
        wait_for(lambda: ASSIGNMENT in driver.page_source, "formgrader's assignment list")
        driver.save_screenshot(str(ARTIFACTS / "1-formgrader.png"))

        driver.get(server.url(f"formgrader/gradebook/{ASSIGNMENT}/{default().assignment(ASSIGNMENT).source_path.stem}"))
        link = wait_for(
            lambda: driver.find_elements(By.CSS_SELECTOR, f"a[href$='/formgrader/submissions/{submission_id}']"),
            "the link to ada's submission",
        )
        driver.save_screenshot(str(ARTIFACTS / "2-submissions.png"))
        link[0].click()

        score = wait_for(lambda: driver.find_elements(By.ID, question.grade_id), "the written answer's score box")
        comment = driver.find_element(By.ID, f"{question.grade_id}-comment")
        driver.execute_script("arguments[0].scrollIntoView({block: 'center'});", score[0])
        score[0].clear()
        score[0].send_keys(POINTS, Keys.TAB)  # formgrader saves a score when its box changes
        comment.click()
        comment.send_keys(COMMENT)
        score[0].click()  # leaving the comment box saves it
        wait_for(
            lambda: hand_grade(db, "ada", question.grade_id)[1:] == (float(POINTS), COMMENT),
            "formgrader to save the score and the comment in the gradebook",
        )
        driver.save_screenshot(str(ARTIFACTS / "3-graded-notebook.png"))

        # Under the evidence question's answer: ada's own run as she submitted it, labelled; the grading-mode
        # re-run of the same cell (earlier in the page) is marked as not hers.
        evidence_for, cell = evidence_question()
        label = wait_for(
            lambda: driver.find_elements(
                By.XPATH, f'//*[contains(text(), "Student\'s own run: output of cell {cell}")]'
            ),
            "the evidence label",
        )
        # formgrader's stylesheet scrolls smoothly: jump instead, and wait until the label is in view.
        # The jump is repeated while waiting: a late layout change (an image decoding) can move the label.
        wait_for(
            lambda: driver.execute_script(
                "arguments[0].scrollIntoView({block: 'center', behavior: 'instant'}); "
                "const r = arguments[0].getBoundingClientRect(); "
                "return r.bottom > 0 && r.top < window.innerHeight;",
                label[0],
            ),
            "the evidence to scroll into view",
        )
        page = driver.page_source
        box = page.index(f'id="{evidence_for}"')
        own = page.index(f"Student's own run: output of cell {cell}")
        assert box < own < page.index(COLAB_FIGURE, own), (
            "the student's own evidence output is not under the written answer's score box"
        )
        assert "NOT the student's numbers" in page[:box], "the grading-mode re-run is not marked as such"
        driver.save_screenshot(str(ARTIFACTS / "4-evidence-under-answer.png"))
    finally:
        driver.quit()
        server.stop()
        log.close()

    out = tmp_path / "exports"
    assert (
        course(
            [
                "export",
                ASSIGNMENT,
                "--results",
                str(results_folder),
                "--out",
                str(out),
                "--formats",
                "canvas,feedback",
                "--db",
                db,
                "--canvas-assignment",
                "HW",
                "--canvas-id",
                "7",
                "--per-question",
            ]
        )
        == 0
    )
    with open(out / "canvas" / f"{ASSIGNMENT}_canvas.csv", newline="") as handle:
        rows = {row["Student"]: row for row in csv.DictReader(handle)}
    column = f"HW: {question_title(ASSIGNMENT, question.grade_id)}"
    assert rows["ada"][column] == POINTS, "the hand grade is not in the Canvas CSV"
    assert rows["bob"][column] == "", "bob was not graded by hand"
    feedback = (out / "feedback" / "ada.md").read_text(encoding="utf-8")
    assert COMMENT in feedback and f"{POINTS} / " in feedback, "the hand grade or comment is not in ada's feedback"
    assert COLAB_FIGURE in feedback and "Student's own run" in feedback, "ada's evidence is not in her feedback"


def test_feedback_step_drops_hidden_code_and_grader_internals_but_keeps_outcomes():
    import nbformat

    from assignments.grading.doors.nbgrader.feedback import HideHiddenTests

    cell = nbformat.v4.new_code_cell("assert f(1) == 2\n### BEGIN HIDDEN TESTS\nsecret_check(f)\n### END HIDDEN TESTS")
    cell.metadata["nbgrader"] = {
        "grade": True,
        "grade_id": "f_tests",
        "points": 2,
        "solution": False,
        "locked": True,
        "schema_version": 3,
    }
    cell.outputs = [
        nbformat.v4.new_output("stream", name="stdout", text="ok   test_f (1/1)\n[grader problem] autograder/x.py\n"),
        nbformat.v4.new_output(
            "error",
            ename="ValueError",
            evalue="bad shape",
            traceback=["Traceback", "----> 3 secret_check(f)", "ValueError: bad shape"],
        ),
    ]
    student_cell = nbformat.v4.new_code_cell("x = 1\n### BEGIN HIDDEN TESTS\nmine = 2")  # no END: must not stop
    nb = nbformat.v4.new_notebook(cells=[cell, student_cell])
    shown, _ = HideHiddenTests().preprocess(nb, {})
    text = nbformat.writes(shown)
    assert "secret_check" not in text and "HIDDEN TESTS" not in text and "autograder/x.py" not in text
    assert "mine = 2" not in text
    assert "assert f(1) == 2" in text and "ok   test_f (1/1)" in text and "ValueError: bad shape" in text


def test_course_formgrader_says_why_it_cannot_start_without_a_gradebook(tmp_path, capsys):
    assert course(["formgrader", ASSIGNMENT, "--root", str(tmp_path)]) == 1
    assert f"no gradebook in {tmp_path}" in capsys.readouterr().out


def test_a_regrade_after_hand_grading_keeps_the_hand_grades(graded, tmp_path):
    """Runs after the browser test (same module, same worker): ada may already have a hand grade from it."""
    root, _ = graded
    db = f"sqlite:///{root / 'gradebook.db'}"
    question = written_question()
    notebook_name = default().assignment(ASSIGNMENT).source_path
    with nbgrader_gradebook.open_gradebook(db) as gb:
        grade = gb.find_grade(question.grade_id, notebook_name.stem, ASSIGNMENT, "ada")
        comment = gb.find_comment(question.grade_id, notebook_name.stem, ASSIGNMENT, "ada")
        if grade.manual_score is None:
            grade.manual_score, comment.manual_comment = float(POINTS), COMMENT
            gb.db.commit()
    kept = hand_grade(db, "ada", question.grade_id)[1:]

    again = tmp_path / notebook_name.name
    shutil.copyfile(root / "submitted" / "ada" / ASSIGNMENT / notebook_name.name, again)
    [result] = nbgrader_door.autograde(ASSIGNMENT, {"ada": again}, root=root, progress=False)

    assert hand_grade(db, "ada", question.grade_id)[1:] == kept, "the regrade lost the hand grade or comment"
    assert result.autograded_points == result.autograded_max, (
        f"the regraded reference lost automatic points: {result.scores()}"
    )
