"""Several TAs grading one class at once through one formgrader server (issue #45 item 3).

nbgrader's documented setup for several graders is one shared formgrader server (``handgrading/graders.py``
says why one, not one per TA). Here two TAs, each with a token of their own, grade the same class at the
same time through formgrader's real API (two HTTP clients, each in its own thread, started together):
Alice scores and comments every student's first written answer while Bob does every student's second.
Both TAs' work must be in the gradebook, in the server's log under their names, and in every export
(Canvas CSV, nbgrader's CSV, the feedback). The same server refuses a request without a TA's token, and
formgrader's buttons that would run nbgrader's autograde; a second server on the same course folder is
refused; a network address is refused unless the instructor says so and gives TA tokens, and once given,
the server answers there with the name TAs use in its Content-Security-Policy.

The gradebook is made through nbgrader's API (``tests/exports/test_exports.toy_course``, as
``nbgrader generate_assignment`` records it) and the records are synthetic, so no notebook runs here: the
module costs one or two server starts.
"""

from __future__ import annotations

import csv
import json
import re
import socket
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import nbformat
import pytest

from assignments.cli import main as course
from assignments.course import default
from assignments.exports import canvas, nbgrader_gradebook
from assignments.handgrading import formgrader, graders
from assignments.results.model import QuestionResult
from assignments.runs import store
from assignments.runs.folder import Run
from assignments.workflow import export
from tests.exports.test_exports import record, toy_course

STUDENTS = [str(1001 + k) for k in range(6)]
TOY = canvas.CanvasAssignment("Toy", "9")
# Who grades what: each TA one written question of every student, with points that differ per student.
WORK = {
    "alice": ("attention_written", lambda k: 1.0 + 0.5 * (k % 4)),  # of 3
    "bob": ("mha_written", lambda k: 0.5 * (k % 5)),  # of 2
}


def comment(ta: str, student: str) -> str:
    return f"{ta} read {student}'s answer: say which shapes it accepts."


@pytest.fixture
def the_class(tmp_path) -> tuple[Path, Path, str]:
    """(course folder, run folder, gradebook URL): six students with 5 autograded points each and two
    written answers each waiting for a grader."""
    root = tmp_path / "course"
    db = toy_course(root)
    (root / "source" / "toy").mkdir(parents=True)  # as nbgrader's course folder holds it (`course formgrader` checks)
    with nbgrader_gradebook.open_gradebook(db) as gb:
        gb.update_or_create_grade_cell("mha_written", "toy", "toy", max_score=2.0, cell_type="markdown")
        gb.update_or_create_solution_cell("mha_written", "toy", "toy")
    results = []
    for student in STUDENTS:
        result = record(student, padded_ok=True)
        result.assignment = "toy"
        result.questions.append(QuestionResult("mha_written", "manual", 2.0, None, []))
        results.append(result)
    roster = {s: {"name": f"Student {s}", "user_id": s, "lms": "canvas"} for s in STUDENTS}
    nbgrader_gradebook.write_gradebook(results, "toy", db, roster)
    # formgrader lists a submission only when its notebook is where it shows them from (autograded/).
    submitted = tmp_path / "toy.ipynb"
    submitted.write_text(nbformat.writes(nbformat.v4.new_notebook()), encoding="utf-8")
    for student in STUDENTS:
        nbgrader_gradebook.place_notebook(root, "toy", student, submitted, "toy")
    run = tmp_path / "run"
    for result in results:
        store.save_result(result, run / "results")
    submissions = [
        {"student": s, "path": None, "original_name": "t.ipynb", "name": f"Student {s}", "lms": "canvas", "user_id": s}
        for s in STUDENTS
    ]
    manifest = {"assignment": "toy", "source": "x.zip", "findings": [], "missing": [], "submissions": submissions}
    (run / "intake.json").write_text(json.dumps(manifest), encoding="utf-8")
    return root, run, db


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    """A redirect (to the login page) is the answer, not something to follow."""

    def redirect_request(self, *args, **kwargs):
        return None


OPENER = urllib.request.build_opener(_NoRedirect)


def call(server, path: str, token: str | None, method: str = "GET", body=None) -> tuple[int, object]:
    """One request to formgrader's API as a TA holding ``token`` (no token: a stranger)."""
    headers = {"Authorization": f"token {token}"} if token else {}
    data = None if body is None else json.dumps(body).encode("utf-8")
    request = urllib.request.Request(f"{server.base}/{path}", data=data, method=method, headers=headers)
    try:
        with OPENER.open(request, timeout=30) as reply:
            text = reply.read().decode("utf-8")
            return reply.status, (json.loads(text) if text.startswith(("[", "{")) else text)
    except urllib.error.HTTPError as error:
        text = error.read().decode("utf-8", "replace")
        return error.code, (json.loads(text) if text.startswith("{") else text)


def grade_as(server, ta: str, start: threading.Barrier, done: list) -> None:
    """What a TA's formgrader page does for one question of every student: find the grade and comment of
    that answer in the submission, save the score, then the comment. A failure goes into ``done`` too."""
    try:
        _grade(server, ta, start, done)
    except Exception as error:  # noqa: BLE001 - the test's thread reports it to the test
        done.append((ta, "failed", repr(error)[:300], 0))


def _grade(server, ta: str, start: threading.Barrier, done: list) -> None:
    token = server.access.tas[ta]
    question, score = WORK[ta]
    start.wait()
    status, submissions = call(server, "formgrader/api/submitted_notebooks/toy/toy", token)
    assert status == 200, f"{ta} could not list the submissions (HTTP {status})"
    for submission in sorted(submissions, key=lambda s: s["student"]):
        k = STUDENTS.index(submission["student"])
        _, grades = call(server, f"formgrader/api/grades?submission_id={submission['id']}", token)
        _, comments = call(server, f"formgrader/api/comments?submission_id={submission['id']}", token)
        grade = next(g for g in grades if g["name"] == question)
        note = next(c for c in comments if c["name"] == question)
        saved = call(server, f"formgrader/api/grade/{grade['id']}", token, "PUT", {"manual_score": score(k)})
        said = call(
            server,
            f"formgrader/api/comment/{note['id']}",
            token,
            "PUT",
            {"manual_comment": comment(ta, submission["student"])},
        )
        done.append((ta, submission["student"], saved[0], said[0]))


def test_two_tas_grade_one_class_at_once_and_both_tas_grades_reach_every_export(the_class, tmp_path):
    root, run, db = the_class
    access = formgrader.Access(tas=graders.draw_tokens(["alice", "bob"]))
    log_path = tmp_path / "server.log"
    started = time.perf_counter()
    with open(log_path, "w") as log:
        server = formgrader.start(root, log=log, access=access)
        try:
            with pytest.raises(RuntimeError, match="already runs on"):
                formgrader.start(root, access=access)  # one server per gradebook
            stranger = call(server, "formgrader/api/submitted_notebooks/toy/toy", None)[0]
            forged = call(server, "formgrader/api/submitted_notebooks/toy/toy", "x" * 43)[0]
            autograde = call(server, "formgrader/api/submission/toy/1001/autograde", access.tas["bob"], "POST", {})
            start, done = threading.Barrier(2), []
            threads = [threading.Thread(target=grade_as, args=(server, ta, start, done)) for ta in WORK]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join(120)
        finally:
            server.stop()
    print(f"two TAs, {len(STUDENTS)} students, one server: {time.perf_counter() - started:.1f} s")
    assert stranger in (302, 403) and forged in (302, 403), (
        f"formgrader's API answered without a TA's token (HTTP {stranger}, {forged}; 302 is the login page)"
    )
    assert autograde[0] == 403 and "course autograde" in autograde[1]["error"], f"autograde for a TA: {autograde}"
    assert sorted(done) == sorted((ta, s, 200, 200) for ta in WORK for s in STUDENTS), done

    # The gradebook holds both TAs' work; the server's log names who saved each grade and comment.
    hand = nbgrader_gradebook.read_hand_grades(db, "toy")
    for ta, (question, score) in WORK.items():
        for k, student in enumerate(STUDENTS):
            assert hand[student][question] == nbgrader_gradebook.HandGrade(score(k), comment(ta, student)), (
                ta,
                student,
            )
    said = log_path.read_text(encoding="utf-8")
    for ta in WORK:
        saves = re.findall(rf"formgrader: {ta} saved PUT /formgrader/api/(grade|comment)/", said)
        assert len(saves) == 2 * len(STUDENTS), f"the log should name {ta} for each save: {len(saves)}"

    # Every export: Canvas (total and a column per question), nbgrader's CSV, each student's feedback.
    out = tmp_path / "exports"
    opts = canvas.CanvasOptions(TOY, per_question=True)
    export(
        Run(run, exports=out, course=root),
        default().assignment("toy"),
        ("canvas", "nbgrader", "feedback"),
        db_url=db,
        canvas_options=opts,
    )
    with open(out / "canvas" / "toy_canvas.csv", newline="", encoding="utf-8") as handle:
        rows = {row["ID"]: row for row in csv.DictReader(handle) if row["ID"]}
    with open(out / "nbgrader" / "grades.csv", newline="", encoding="utf-8") as handle:
        scores = {row["student_id"]: row for row in csv.DictReader(handle)}
    for k, student in enumerate(STUDENTS):
        alice, bob = WORK["alice"][1](k), WORK["bob"][1](k)
        total = 5 + alice + bob
        assert float(rows[student][TOY.column]) == total, (student, rows[student])
        assert (
            float(rows[student]["Toy: Attention (written)"]) == alice
            and float(rows[student]["Toy: MHA (written)"]) == bob
        )
        assert float(scores[student]["score"]) == total and scores[student]["written_pending"] == "0"
        feedback = (out / "feedback" / f"{student}.md").read_text(encoding="utf-8")
        assert comment("alice", student) in feedback and comment("bob", student) in feedback
        assert f"Score: {total:g} / 10" in feedback


def test_a_network_address_needs_the_instructors_yes_and_a_token_per_ta(the_class, tmp_path, capsys):
    root, _, _ = the_class
    tokens = graders.draw_tokens(["alice"])
    for access, missing in (
        (formgrader.Access("0.0.0.0"), "--allow-remote"),
        (formgrader.Access("0.0.0.0", allow_remote=True), "a token per TA"),
        (formgrader.Access("0.0.0.0", tokens, allow_remote=True), "--public-host"),
        (formgrader.Access("10.1.2.3", tokens, allow_remote=True, certfile=Path("c.pem")), "--keyfile"),
    ):
        with pytest.raises(ValueError, match=re.escape(missing)):
            formgrader.start(root, access=access)
    assert course(["formgrader", "toy", "--root", str(root), "--ip", "0.0.0.0"]) == 2
    assert course(["formgrader", "toy", "--root", str(root), "--ta", "a b"]) == 2
    loose = tmp_path / "tokens"
    loose.write_text(f"alice {'t' * 40}\n", encoding="utf-8")
    loose.chmod(0o644)
    assert course(["formgrader", "toy", "--root", str(root), "--tokens", str(loose)]) == 2
    said = capsys.readouterr().err.splitlines()
    assert len(said) == 3 and "--allow-remote" in said[0] and "TA name" in said[1] and "chmod 600" in said[2], said
    assert not (root / formgrader.LOCK_NAME).exists(), "a refused start must not touch the course folder"

    address = network_address()
    if address is None:
        pytest.skip("this machine has no network address other than loopback to listen on")
    access = formgrader.Access(address, tokens, allow_remote=True, public_host="grading.example.edu")
    server = formgrader.start(root, access=access)
    try:
        direct = f"http://{address}:{server.port}/formgrader/api/submitted_notebooks/toy/toy"
        request = urllib.request.Request(direct, headers={"Authorization": f"token {tokens['alice']}"})
        with urllib.request.urlopen(request, timeout=30) as reply:
            policy = reply.headers["Content-Security-Policy"]
            listed = json.loads(reply.read())
        try:
            refused = OPENER.open(direct, timeout=30).status
        except urllib.error.HTTPError as error:
            refused = error.code
    finally:
        server.stop()
    assert len(listed) == len(STUDENTS) and refused in (302, 403), f"no token: HTTP {refused}"
    scripts = next(d for d in policy.split("; ") if d.startswith("script-src "))
    assert "grading.example.edu:*/formgrader/static/" in scripts and f"{address}:*/formgrader/static/" in scripts
    assert "'self'" not in scripts and "'unsafe-inline'" not in scripts
    assert server.ta_urls()["alice"].startswith(f"http://grading.example.edu:{server.port}/formgrader?token=")


def network_address() -> str | None:
    """This machine's address on its default route (no packet is sent), or None."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("192.0.2.1", 9))  # TEST-NET-1: routing only decides the source address
            address = probe.getsockname()[0]
        except OSError:
            return None
    return None if formgrader.is_loopback(address) else address


def test_a_tokens_file_names_each_ta_once_with_a_long_token(tmp_path):
    path = tmp_path / "tokens"
    path.write_text(f"# TAs of the term\nalice {'a' * 40}\nbob   {'b' * 40}  # lab 2\n", encoding="utf-8")
    path.chmod(0o600)
    assert graders.read_tokens(path) == {"alice": "a" * 40, "bob": "b" * 40}
    for text, why in (
        (f"alice {'a' * 20}\n", "shorter than"),
        (f"alice {'a' * 40}\nalice {'c' * 40}\n", "named twice"),
        (f"alice {'a' * 40}\nbob {'a' * 40}\n", "share a token"),
        (f"<img> {'a' * 40}\n", "TA name"),
        ("# nobody\n", "names no TA"),
    ):
        path.write_text(text, encoding="utf-8")
        with pytest.raises(ValueError, match=why):
            graders.read_tokens(path)


def test_a_login_cookie_names_a_ta_on_the_list_and_dies_with_the_token_list():
    import hashlib

    from jupyter_server.auth.identity import User

    tokens = graders.draw_tokens(["alice", "bob"])
    provider = graders.TaTokens(token_hashes=graders.digests(tokens))
    alice = provider.user_to_cookie(User(username="alice", name="alice", display_name="alice"))
    mallory = provider.user_to_cookie(User(username="mallory", name="mallory", display_name="mallory"))
    assert provider.user_from_cookie(alice).username == "alice" and provider.user_from_cookie(mallory) is None
    without_bob = graders.TaTokens(token_hashes=graders.digests({"alice": tokens["alice"]}))
    secrets = [p.cookie_secret_hook(hashlib.sha256(b"server secret")).hexdigest() for p in (provider, without_bob)]
    assert secrets[0] != secrets[1], "a cookie signed under one token list must not verify under another"
    assert provider._ta_for(tokens["bob"]) == "bob" and provider._ta_for("x" * 43) is None
