"""The hand-grading loop through nbgrader: formgrader in a real browser, and feedback HTML for students.

One small class of the toy course (``fixtures/toy.py``, with two written questions, one of them with an
evidence cell; two students: ada, the reference run on Colab, and Canvas user 4242, the blank release
carrying every payload of ``fixtures/hostile_class``) goes through real ``nbgrader autograde`` once for
the whole module. Then:
- headless Chromium opens formgrader, the assignment's submissions and one student's notebook, enters
  points and a comment for a written answer and saves them, and the export puts both in the
  Canvas CSV and the student's feedback; under the written answer that has evidence, the page shows the
  outputs ada submitted from her own (Colab) run, labelled as hers, and the grading-mode re-run of that
  cell is marked as not her numbers;
- ``nbgrader generate_feedback`` renders feedback that shows the hidden tests' outcomes, not their code,
  and none of the hostile student's payloads as markup;
- the hostile class in both doors (4242 through nbgrader, 4343 through the standalone door from a Canvas
  zip), its display names from a Canvas gradebook export: the TA opens each submission in formgrader,
  grades and comments the written answer, goes on with Next, and no payload runs (no console line, no
  request to a local listener, no grade or comment the TA did not enter); the evidence typed into a
  cell is labelled FLAGGED in both doors.

``course export`` resolves an assignment's name in this repository's course only, so the exports call
what the command forwards to, ``workflow.export`` on the run the command would make (``export_command`` below).

Screenshots of the pages visited go to ``build/test-artifacts/formgrader/`` (printed by the test).
The browser test needs Debian's chromium and chromium-driver (``.ci/install-browser``); without them it
is skipped with the reason.
"""

from __future__ import annotations

import csv
import http.server
import shutil
import threading
import time
import urllib.error
import urllib.request
import zipfile
from pathlib import Path

import pytest

from assignments import exports, notebooks
from assignments.cli import main as course
from assignments.course import default
from assignments.demo import students as demo_class
from assignments.exports import nbgrader_gradebook
from assignments.exports.text import question_title
from assignments.grading.doors.nbgrader import door as nbgrader_door
from assignments.handgrading import formgrader
from assignments.runs import store
from assignments.runs.folder import Run
from assignments.workflow import export
from tests.fixtures import hostile_class, toy
from tests.helpers import write_folder

BUILD_DIR = default().build_dir

ASSIGNMENT = NOTEBOOK = toy.NAME  # the toy's assignment and its one notebook, as nbgrader names them
CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
ARTIFACTS = BUILD_DIR / "test-artifacts" / "formgrader"
COLAB_FIGURE = "0.8731"  # in demo_class.COLAB_LINE: no grading-mode run prints it
POINTS, COMMENT = "1.5", "Right that it broadcasts; say which shapes it accepts."
# Canvas user ids (the student keys of a Canvas download) of the hostile student in each door.
HOSTILE_NBGRADER, HOSTILE_STANDALONE = "4242", "4343"

# One worker runs this module (with `--dist loadgroup`), so the class is autograded once, not per worker.
pytestmark = pytest.mark.xdist_group("formgrader")


class _Recorder(http.server.BaseHTTPRequestHandler):
    def do_GET(self):  # noqa: N802 - the name http.server calls
        self.server.hits.append(self.path)
        self.send_response(204)
        self.end_headers()

    do_POST = do_GET  # noqa: N815

    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def listener():
    """(its URL, the paths asked for): a local HTTP listener that a payload which loads or runs reaches."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Recorder)
    server.hits = []
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}", server.hits
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="module")
def the_toy(tmp_path_factory):
    """The toy course with two written questions, the second with an evidence cell."""
    built = toy.build(tmp_path_factory.mktemp("toy"), evidence=True, second_written=True, pyproject=True)
    return built


def hostile_notebook(the_toy, listener_url: str):
    question, cell = evidence_question(the_toy)
    return hostile_class.hostile_notebook(the_toy.release, listener_url, question, cell)


@pytest.fixture(scope="module")
def graded(tmp_path_factory, listener, the_toy):
    """(course folder, results folder): the reference and the hostile blank release through nbgrader autograde."""
    a = the_toy.assignment
    folder = tmp_path_factory.mktemp("class")
    # ada ran her notebook on Colab: her evidence cells hold outputs the grading-mode re-run cannot print.
    students = {
        "ada": demo_class.colab_run(demo_class.filled_release(a), a, "ada"),
        HOSTILE_NBGRADER: hostile_notebook(the_toy, listener[0]),
    }
    paths = write_folder(students, folder, a.source_path.name)
    root = tmp_path_factory.mktemp("course")
    results_folder = tmp_path_factory.mktemp("results")
    for result in nbgrader_door.autograde(a, paths, root=root):
        store.save_result(result, results_folder)
    return root, results_folder


def written_question(the_toy) -> notebooks.Question:
    """The first written question (2 points, no evidence)."""
    return next(q for q in the_toy.question_list if q.kind == "manual")


def evidence_question(the_toy) -> tuple[str, str]:
    """(a written question with evidence, its first evidence cell)."""
    question, cells = next(iter(notebooks.evidence_cells(the_toy.source).items()))
    return question, cells[0]


def export_command(assignment, results: Path, out: Path, formats: str, db: str, roster=None, canvas=None) -> None:
    """What ``course export <assignment> --results --out --formats --db [--roster] [canvas options]`` does,
    for an ``Assignment`` of any course: the run of the results folder, its exports and its nbgrader course
    folder moved where the command line says; every problem fails the test."""
    run = Run.of_results(results).with_exports(out).with_course(exports.sqlite_folder(db))
    problems: list[str] = []
    written = export(
        run,
        assignment,
        formats.split(","),
        roster=roster,
        db_url=db,
        canvas_choices=canvas,
        strict=False,
        problems=problems,
    )
    assert problems == [] and written, f"the export reported problems: {problems}"


# ---------------------------------------------------------------- feedback through nbgrader


def test_generate_feedback_shows_hidden_test_outcomes_but_not_their_code(graded, listener, the_toy):
    root, _ = graded
    done = nbgrader_door.nbgrader(["generate_feedback", ASSIGNMENT, "--force"], root, 600, the_toy.folder)
    assert done.returncode == 0, f"nbgrader generate_feedback failed:\n{done.stderr[-1500:]}"
    pages = sorted((root / "feedback" / "ada" / ASSIGNMENT).glob("*.html"))
    assert pages, f"no feedback HTML for ada under {root / 'feedback'}"
    page = pages[0].read_text(encoding="utf-8")
    first_test = next(q.grade_id for q in the_toy.question_list if q.kind == "autograded")
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
    hostile = sorted((root / "feedback" / HOSTILE_NBGRADER / ASSIGNMENT).glob("*.html"))
    assert hostile, f"no feedback HTML for {HOSTILE_NBGRADER}, the hostile student"
    active = hostile_class.active_payloads(hostile[0].read_text(encoding="utf-8"), listener[0])
    assert active == [], f"the hostile student's feedback holds markup a browser would run or load: {active[:5]}"


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
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})  # console lines and CSP reports
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
        notebook = gb.find_submission_notebook(ASSIGNMENT, NOTEBOOK, student)
        grade = next(g for g in notebook.grades if g.name == grade_id)
        comment = next((c.manual_comment for c in notebook.comments if c.name == grade_id), None)
        return notebook.id, grade.manual_score, comment


def enter_hand_grade(driver, grade_id: str, points: str, comment: str) -> None:
    """Type a score and a comment for one answer in formgrader's page, as a TA does."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    score = wait_for(lambda: driver.find_elements(By.ID, grade_id), "the written answer's score box")[0]
    box = driver.find_element(By.ID, f"{grade_id}-comment")
    click(driver, score)
    score.clear()
    score.send_keys(points, Keys.TAB)  # formgrader saves a score when its box changes
    click(driver, box)
    box.send_keys(comment)
    click(driver, score)  # leaving the comment box saves it


def click(driver, element) -> None:
    """Click ``element`` once it is in view and nothing covers it: formgrader scrolls the page (animated)
    to whatever box has the focus, so a click may land while the page moves."""
    from selenium.common.exceptions import ElementClickInterceptedException

    def clicked():
        driver.execute_script("arguments[0].scrollIntoView({block: 'center', behavior: 'instant'});", element)
        try:
            element.click()
        except ElementClickInterceptedException:
            return False
        return True

    wait_for(clicked, "a box to click that nothing covers")


def test_a_hand_grade_entered_in_formgrader_reaches_canvas_and_feedback(graded, the_toy, tmp_path):
    from selenium.webdriver.common.by import By

    root, results_folder = graded
    db = f"sqlite:///{root / 'gradebook.db'}"
    question = written_question(the_toy)
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

        driver.get(server.url(f"formgrader/gradebook/{ASSIGNMENT}/{NOTEBOOK}"))
        link = wait_for(
            lambda: driver.find_elements(By.CSS_SELECTOR, f"a[href$='/formgrader/submissions/{submission_id}']"),
            "the link to ada's submission",
        )
        driver.save_screenshot(str(ARTIFACTS / "2-submissions.png"))
        link[0].click()

        enter_hand_grade(driver, question.grade_id, POINTS, COMMENT)
        wait_for(
            lambda: hand_grade(db, "ada", question.grade_id)[1:] == (float(POINTS), COMMENT),
            "formgrader to save the score and the comment in the gradebook",
        )
        driver.save_screenshot(str(ARTIFACTS / "3-graded-notebook.png"))

        # Under the evidence question's answer: ada's own run as she submitted it, labelled; the grading-mode
        # re-run of the same cell (earlier in the page) is marked as not hers.
        evidence_for, cell = evidence_question(the_toy)
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
    canvas = {"name": "HW", "canvas_id": "7", "per_question": True}
    export_command(the_toy.assignment, results_folder, out, "canvas,feedback", db, canvas=canvas)
    with open(out / "canvas" / f"{ASSIGNMENT}_canvas.csv", newline="") as handle:
        rows = {row["Student"]: row for row in csv.DictReader(handle)}
    column = f"HW: {question_title(the_toy.assignment, question.grade_id)}"
    assert rows["ada"][column] == POINTS, "the hand grade is not in the Canvas CSV"
    assert rows[HOSTILE_NBGRADER][column] == "", f"{HOSTILE_NBGRADER} was not graded by hand"
    feedback = (out / "feedback" / "ada.md").read_text(encoding="utf-8")
    assert COMMENT in feedback and f"{POINTS} / " in feedback, "the hand grade or comment is not in ada's feedback"
    assert COLAB_FIGURE in feedback and "Student's own run" in feedback, "ada's evidence is not in her feedback"


def grade_standalone_hostile(the_toy, listener_url: str, folder: Path) -> Path:
    """The standalone door's hostile student: a Canvas download whose file and folder names are payloads,
    holding the hostile notebook with what nbformat would not write (``tampered_file``); returns its
    results folder."""
    from assignments.workflow import grade_class

    download = folder / "canvas_download.zip"
    with zipfile.ZipFile(download, "w") as archive:
        name = f"{hostile_class.FOLDER_NAME}/mallory_{HOSTILE_STANDALONE}_70001_{hostile_class.FILE_NAME}"
        archive.writestr(name, hostile_class.tampered_file(hostile_notebook(the_toy, listener_url), listener_url))
    run = folder / "standalone"
    grade_class(the_toy.assignment, download, run, workers=1)
    return run / "results"


def canvas_gradebook_export(path: Path, listener_url: str) -> Path:
    """A Canvas gradebook export naming both hostile students with names that are markup."""
    names = hostile_class.roster_names(listener_url)
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["Student", "ID", "SIS User ID", "SIS Login ID", "Section"])
        for student, name in zip((HOSTILE_NBGRADER, HOSTILE_STANDALONE), names):
            writer.writerow([name, student, "", "", "A"])
    return path


def open_grade_and_go_on(
    driver, server, db: str, evidence: tuple[str, str], student: str, points: str, comment: str, shot: Path
) -> None:
    """The TA's round on one hostile submission: open it from the list, check what the page shows, grade
    and comment the written answer that has evidence (``evidence``: it and its evidence cell; screenshot
    ``shot``), then Next."""
    from selenium.webdriver.common.by import By

    question, cell = evidence
    submission_id = hand_grade(db, student, question)[0]
    driver.get(server.url(f"formgrader/gradebook/{ASSIGNMENT}/{NOTEBOOK}"))
    link = wait_for(
        lambda: driver.find_elements(By.CSS_SELECTOR, f"a[href$='/formgrader/submissions/{submission_id}']"),
        f"the link to {student}'s submission",
    )
    link[0].click()
    wait_for(lambda: driver.find_elements(By.ID, question), f"{student}'s score box")
    page = driver.page_source
    box = page.index(f'id="{question}"')
    assert box < page.find(f"FLAGGED (edited) evidence cell {cell}", box), (
        f"{student}: the typed-in evidence is not labelled FLAGGED under the answer"
    )
    shown = driver.find_element(By.TAG_NAME, "body").text
    assert f"<script>{hostile_class.logs('answer-script')}" in shown, (
        f"{student}: the raw HTML of the answer is not shown to the TA as text"
    )
    enter_hand_grade(driver, question, points, comment)
    wait_for(
        lambda: hand_grade(db, student, question)[1:] == (float(points), comment),
        f"formgrader to save {student}'s score and comment",
    )
    driver.save_screenshot(str(shot))
    here = driver.current_url
    driver.find_element(By.CSS_SELECTOR, "li.next a").click()
    wait_for(lambda: driver.current_url != here, "Next to open the next submission or the list")


def jupyter_api_status(server, path: str, method: str) -> int:
    """The HTTP status of one request to the Jupyter server with the TA's token."""
    request = urllib.request.Request(
        f"{server.base}/{path}", method=method, data=b"{}", headers={"Authorization": f"token {server.token}"}
    )
    try:
        with urllib.request.urlopen(request, timeout=30) as reply:
            return reply.status
    except urllib.error.HTTPError as error:
        return error.code


def test_formgrader_shows_a_hostile_class_inert_in_both_doors(graded, listener, the_toy, tmp_path):
    """Runs after the first browser test (same module, same worker): ada may have a hand grade already."""
    from selenium.webdriver.common.by import By

    root, results_folder = graded
    listener_url, hits = listener
    db = f"sqlite:///{root / 'gradebook.db'}"
    evidence = evidence_question(the_toy)
    question = evidence[0]
    roster = canvas_gradebook_export(tmp_path / "gradebook_export.csv", listener_url)
    # Both doors' records into the gradebook formgrader opens, names from the Canvas export: the standalone
    # record also places its notebook beside that gradebook.
    for results in (grade_standalone_hostile(the_toy, listener_url, tmp_path), results_folder):
        export_command(the_toy.assignment, results, tmp_path / "exports", "nbgrader", db, roster=roster)
    before = nbgrader_gradebook.read_hand_grades(db, ASSIGNMENT)
    graded_here = {HOSTILE_NBGRADER: ("1", "Typed-in numbers, not a run."), HOSTILE_STANDALONE: ("0.5", "See me.")}

    shots = ARTIFACTS / "hostile"
    shutil.rmtree(shots, ignore_errors=True)
    shots.mkdir(parents=True)
    print(f"screenshots: {shots}")
    driver = browser(tmp_path / "chromium-profile")
    log = open(shots / "jupyter-server.log", "w")
    server = formgrader.start(root, log=log)
    try:
        driver.get(server.url("formgrader"))
        wait_for(lambda: ASSIGNMENT in driver.page_source, "formgrader's assignment list")
        # The names from the Canvas export are shown as text in formgrader's list of submissions.
        driver.get(server.url(f"formgrader/gradebook/{ASSIGNMENT}/{NOTEBOOK}"))
        wait_for(lambda: driver.find_elements(By.CSS_SELECTOR, "a.name-shown"), "the list of submissions")
        driver.find_element(By.ID, "toggle_names").click()
        names = driver.find_element(By.TAG_NAME, "body").text
        assert "‹img src=x onerror=" in names and "Mallory" in names, "the display names are not shown as text"
        driver.save_screenshot(str(shots / "1-names.png"))
        for number, (student, (points, comment)) in enumerate(graded_here.items(), start=2):
            shot = shots / f"{number}-{student}.png"
            open_grade_and_go_on(driver, server, db, evidence, student, points, comment, shot)
        console = [entry["message"] for entry in driver.get_log("browser")]
        refused_kernel = jupyter_api_status(server, "api/kernels", "POST")
    finally:
        driver.quit()
        server.stop()
        log.close()

    assert refused_kernel == 403, f"formgrader's server started a kernel for the TA's token (HTTP {refused_kernel})"
    ran = [line for line in console if hostile_class.MARKER in line]
    assert ran == [], f"payloads ran in formgrader: {ran[:3]}"
    refused = [line for line in console if "Content Security Policy" in line]
    assert refused == [], (
        f"the CSP refused something (a payload got past the sanitizer, or formgrader broke): {refused[:3]}"
    )
    assert hits == [], f"payloads made requests to the local listener: {hits[:5]}"
    after = nbgrader_gradebook.read_hand_grades(db, ASSIGNMENT)
    expected = {student: dict(grades) for student, grades in before.items()}
    for student, (points, comment) in graded_here.items():
        expected.setdefault(student, {})[question] = nbgrader_gradebook.HandGrade(float(points), comment)
    assert after == expected, "grades or comments changed that the TA did not enter"


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
    # A name of this checkout's course: the command line checks names before it looks at --root.
    assert course(["formgrader", "transformers", "--root", str(tmp_path)]) == 2
    assert f"--root {tmp_path} holds no gradebook.db" in capsys.readouterr().err


def test_a_regrade_after_hand_grading_keeps_the_hand_grades(graded, the_toy, tmp_path):
    """Runs after the browser test (same module, same worker): ada may already have a hand grade from it."""
    root, _ = graded
    db = f"sqlite:///{root / 'gradebook.db'}"
    question = written_question(the_toy)
    notebook_name = the_toy.assignment.source_path
    with nbgrader_gradebook.open_gradebook(db) as gb:
        grade = gb.find_grade(question.grade_id, notebook_name.stem, ASSIGNMENT, "ada")
        comment = gb.find_comment(question.grade_id, notebook_name.stem, ASSIGNMENT, "ada")
        if grade.manual_score is None:
            grade.manual_score, comment.manual_comment = float(POINTS), COMMENT
            gb.db.commit()
    kept = hand_grade(db, "ada", question.grade_id)[1:]

    again = tmp_path / notebook_name.name
    shutil.copyfile(root / "submitted" / "ada" / ASSIGNMENT / notebook_name.name, again)
    [result] = nbgrader_door.autograde(the_toy.assignment, {"ada": again}, root=root, progress=False)

    assert hand_grade(db, "ada", question.grade_id)[1:] == kept, "the regrade lost the hand grade or comment"
    assert result.autograded_points == result.autograded_max, (
        f"the regraded reference lost automatic points: {result.scores()}"
    )
