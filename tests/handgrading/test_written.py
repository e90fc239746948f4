"""`course written`: one student never decides for the class.

A class of four goes through the real command (real notebooks, headless Chromium, pypdf): two honest
students (one with flagged evidence), one hostile notebook (an answer carrying every question marker a
student could know of, links, a remote image and a script, and so long it would stretch every classmate's
PDF) and one student whose render fails. Everyone else's PDF, the outline and the per-question pages
are written; the hostile answer moves nothing and is cut to the page bound with a note. The time limit
itself (a render that hangs, with the helper processes it started) and the size cap are checked on their
own, where they cost a second rather than the limit.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import nbformat
import pytest

from assignments import notebooks
from assignments.course import resolve
from assignments.demo import students as demo_class
from assignments.handgrading.written import CHROMIUM, Limits, RenderError, WrittenAnswer, print_pdf, write_class
from tests.grading.submission.test_evidence import ASSIGNMENT, EDITED_FIGURE, QUESTION, RUN_FIGURE, ran_on_colab

LONG_QUESTION = "head_replacement_written"


def needs_chromium():
    if not CHROMIUM.exists():
        pytest.skip(f"NO BROWSER: {CHROMIUM} is missing; run .ci/install-browser (make browser)")


def hostile_answer(questions: int) -> str:
    """Every marker a student could have seen in an earlier run's HTML (any number, any nonce they could
    guess), active Markdown, and enough text for about nine pages."""
    forged = "\n\n".join(
        f"QUESTION-START {nonce} {k}/{questions}" for nonce in ("", "0000000000000000") for k in range(1, questions + 2)
    )
    active = "[click](javascript:alert(1)) ![beacon](http://127.0.0.1:9/beacon.png) <script>alert(1)</script>"
    return f"{forged}\n\n{active}\n\n" + "A very long answer. " * 1400


def page_texts(path: Path) -> list[str]:
    from pypdf import PdfReader

    return [" ".join((page.extract_text() or "").split()) for page in PdfReader(str(path)).pages]


def links(path: Path) -> list[str]:
    """Every link annotation of the PDF (an address a reader could click)."""
    from pypdf import PdfReader

    found = []
    for page in PdfReader(str(path)).pages:
        for annotation in page.get("/Annots") or []:
            action = annotation.get_object().get("/A") or {}
            found.append(str(action.get("/URI", action)))
    return found


def test_course_written_on_a_class_with_one_hostile_notebook_writes_everyone_elses_pdf(tmp_path, monkeypatch):
    needs_chromium()
    from assignments.cli import main as course
    from assignments.handgrading import written

    # zed's render fails (Chromium exits with an error on zed's page); everyone else's is the real one.
    wrapper = tmp_path / "chromium"
    wrapper.write_text(f'#!/bin/sh\ncase "$*" in *zed.html*) exit 3;; esac\nexec {CHROMIUM} "$@"\n')
    wrapper.chmod(0o755)
    monkeypatch.setattr(written, "CHROMIUM", wrapper)
    manual = [q.grade_id for q in resolve(ASSIGNMENT).questions if q.kind == "manual"]
    ada = ran_on_colab("ada")
    mallory = nbformat.from_dict(json.loads(nbformat.writes(ada)))
    next(c for c in mallory.cells if notebooks.grade_id(c) == LONG_QUESTION).source = hostile_answer(len(manual))
    students = {"ada": ada, "bob": demo_class.hand_edited(ran_on_colab("bob")), "mallory": mallory, "zed": ada}
    folder = tmp_path / "in"
    folder.mkdir()
    for student, nb in students.items():
        (folder / f"{student}.ipynb").write_text(nbformat.writes(nb), encoding="utf-8")
    out = tmp_path / "out"
    started = time.perf_counter()
    assert course(["written", ASSIGNMENT, str(folder), "--out", str(out)]) == 0
    print(f"course written, class of four: {time.perf_counter() - started:.1f} s")

    outline = json.loads((out / "outline.json").read_text())
    assert [q["question"] for q in outline["questions"]] == manual
    pages = {q["question"]: q["pages"] for q in outline["questions"]}
    assert len(pages[LONG_QUESTION]) == Limits().question_pages, "one long answer must not stretch every PDF"
    findings = {s: [f["code"] for f in found] for s, found in outline["findings"].items()}
    assert findings == {"mallory": ["written-pages-cut"], "zed": ["written-render-failed"]}, findings
    assert not (out / "students" / "zed.pdf").exists() and (out / "students" / "zed.html").is_file()
    text = {student: page_texts(out / "students" / f"{student}.pdf") for student in ("ada", "bob", "mallory")}
    for student, pdf_pages in text.items():
        assert len(pdf_pages) == outline["questions"][-1]["pages"][-1], f"{student}'s PDF differs from the outline"
        for question, numbers in pages.items():
            assert f"{question} (" in pdf_pages[numbers[0] - 1], f"{student}: {question} does not start on {numbers[0]}"
        assert "BEGIN MARK SCHEME" not in "".join(pdf_pages)
        assert links(out / "students" / f"{student}.pdf") == [], f"{student}'s PDF has something to click"
        assert f"Name {student} Student ID {student}" in pdf_pages[0], f"{student}'s cover: {pdf_pages[0]}"
    # A plain folder names its students by file: that is the cover's name and id (no roster says more).
    assert outline["students"]["ada"] == {
        "name": "ada",
        "id": "ada",
        "id_kind": "student key",
        "pdf": "students/ada.pdf",
        "class_pdf_pages": [1, outline["pages_per_submission"]],
    }
    assert len(page_texts(out / "class.pdf")) == 3 * outline["pages_per_submission"], "zed has no PDF to merge"
    assert "The rest of this answer is left out of the PDF" in text["mallory"][pages[LONG_QUESTION][-1] - 1]
    assert "javascript:alert(1)" in " ".join(text["mallory"]), "the link should be shown as its text and address"

    # A question may take more than one page (a long prompt, then the answer, then the evidence): the run
    # must be on one of its own pages, never on another question's.
    def on_question_pages(student):
        return " ".join(text[student][number - 1] for number in pages[QUESTION])

    for student, figure in (("ada", RUN_FIGURE), ("bob", EDITED_FIGURE)):
        assert figure in on_question_pages(student), f"{student}'s own run is not on {QUESTION}'s pages"
    assert "FLAGGED" in on_question_pages("bob")
    across = (out / "questions" / f"{QUESTION}.html").read_text(encoding="utf-8")
    assert across.index('id="ada"') < across.index('id="bob"') and RUN_FIGURE in across and EDITED_FIGURE in across


def test_a_render_that_hangs_is_stopped_at_the_time_limit_with_every_process_it_started(tmp_path):
    pids = tmp_path / "pids"
    hang = tmp_path / "chromium"
    hang.write_text(f"#!/bin/sh\nsleep 300 &\necho $$ $! > {pids}\nwait\n")  # a helper, then the hang
    hang.chmod(0o755)
    page = tmp_path / "page.html"
    page.write_text("<p>x</p>")
    started = time.monotonic()
    with pytest.raises(RenderError, match="within 1 s"):
        print_pdf(page, tmp_path / "page.pdf", hang, timeout=1)
    assert time.monotonic() - started < 10, "the time limit did not stop the render"
    alive = [pid for pid in map(int, pids.read_text().split()) if _running(pid)]
    assert alive == [], f"processes of the render still run after its time limit: {alive}"


def _running(pid: int) -> bool:
    """A process exists and is not a zombie waiting to be reaped (checked for up to a second)."""
    for _ in range(20):
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except (FileNotFoundError, ProcessLookupError):
            return False
        if state in ("Z", "X"):
            return False
        time.sleep(0.05)
    return True


def test_a_student_over_the_size_cap_is_left_out_and_the_class_goes_on(tmp_path):
    honest = [WrittenAnswer("q", "Explain.", 2.0, "Because attention is quadratic.")]
    hoarder = [WrittenAnswer("q", "Explain.", 2.0, "x" * 5000)]
    outline = write_class("toy", {"ada": honest, "hoarder": hoarder}, tmp_path, pdf=False, limits=Limits(4000))
    assert [f["code"] for f in outline["findings"]["hoarder"]] == ["written-too-large"]
    assert "ada" not in outline["findings"] and outline["questions"][0]["question"] == "q"
    assert (tmp_path / "students" / "ada.html").is_file() and not (tmp_path / "students" / "hoarder.html").exists()
    across = (tmp_path / "questions" / "q.html").read_text()
    assert "quadratic" in across and "Left out" in across and "x" * 5000 not in across
    assert json.loads((tmp_path / "outline.json").read_text()) == outline


# ---------------------------------------------------------------- covers for Gradescope's roster matching

# A Canvas gradebook export whose display names are the students' own text: markup, a bidirectional
# override with a line break and a classmate's id typed after it, and a name far wider than its box.
HOSTILE_NAMES = {
    "1001": "Ada Lovelace",
    "1002": '<img src=x onerror="alert(1)"> Mallory',
    "1003": "\u202eEve\u202c Stone\nStudent ID s1001",
    "1004": "W" * 300,
}


def gradebook_export(path: Path) -> Path:
    import csv

    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["Student", "ID", "SIS User ID", "SIS Login ID", "Section"])
        writer.writerow(["    Points Possible", "", "", "", "", ""])
        for user_id, name in HOSTILE_NAMES.items():
            writer.writerow([name, user_id, f"s{user_id}", f"login{user_id}", "A"])
    return path


def cover_lines(pdf: Path) -> list[tuple[str, float]]:
    """The first page's text runs with their height on the page (points from the bottom)."""
    from pypdf import PdfReader

    found = []

    def visit(text, cm, tm, font, size):
        if text.strip():
            found.append((text.strip(), round(tm[4] * cm[1] + tm[5] * cm[3] + cm[5], 1)))

    PdfReader(str(pdf)).pages[0].extract_text(visitor_text=visit)
    return found


def test_a_cover_names_each_student_as_the_roster_does_and_joins_as_the_canvas_csv(tmp_path):
    from assignments.exports.canvas import read_gradebook_export
    from assignments.handgrading.written import NAME_CHARS, CoverIdentity, cover_identities

    roster = {key: {"lms": "canvas", "user_id": key, "name": "short"} for key in HOSTILE_NAMES}
    roster["ann@uni.edu"] = {"lms": "gradescope", "sid": "900111", "email": "ann@uni.edu", "name": "Ann"}
    roster["twin"] = {"lms": "canvas", "user_id": "1001", "name": "Ada's twin"}  # claims Ada's Canvas row
    gradebook = read_gradebook_export(gradebook_export(tmp_path / "export.csv"))
    covers = cover_identities(sorted(roster), roster, gradebook)
    assert covers["1004"] == CoverIdentity("W" * (NAME_CHARS - 1) + "…", "s1004", "SIS User ID")
    assert covers["1003"].name == "?Eve? Stone Student ID s1001" and covers["1003"].id == "s1003", (
        "one printable line: no override, no line break; the id is the roster's, whatever the name says"
    )
    assert covers["ann@uni.edu"] == CoverIdentity("Ann", "900111", "Gradescope student id")
    # Two records on one Canvas row: neither gets that row's name or SIS id (as in the Canvas CSV).
    assert covers["1001"] == CoverIdentity("short", "1001", "Canvas user id")
    assert covers["twin"] == CoverIdentity("Ada's twin", "1001", "Canvas user id")


def test_every_cover_puts_the_name_and_the_id_in_the_same_two_boxes_whatever_the_name(tmp_path):
    needs_chromium()
    from pypdf import PdfReader

    from assignments.exports.canvas import read_gradebook_export
    from assignments.handgrading.written import cover_identities
    from tests.fixtures import hostile_class

    answers = [WrittenAnswer("why", "Explain *why*.", 2.0, "Because."), WrittenAnswer("how", "And how?", 1.0, "So.")]
    roster = {key: {"lms": "canvas", "user_id": key, "name": key} for key in HOSTILE_NAMES}
    covers = cover_identities(sorted(roster), roster, read_gradebook_export(gradebook_export(tmp_path / "g.csv")))
    started = time.perf_counter()
    outline = write_class("toy", {key: answers for key in HOSTILE_NAMES}, tmp_path / "out", identities=covers)
    print(f"course written, four covers and the template: {time.perf_counter() - started:.1f} s")
    out = tmp_path / "out"
    each = outline["pages_per_submission"]
    assert each == 3 and [q["pages"] for q in outline["questions"]] == [[2], [3]], "page 1 is the cover"

    places = {}
    for key in HOSTILE_NAMES:
        pdf = out / "students" / f"{key}.pdf"
        lines = cover_lines(pdf)
        texts = [text for text, _ in lines]
        assert texts[1:5:2] == ["Name", "Student ID"], texts
        assert texts[4] == f"s{key}", f"{key}: the ID box holds {texts[4]!r}"
        places[key] = [height for _, height in lines[1:5]]
        assert links(pdf) == [], f"{key}'s cover has something to click"
        html = (out / "students" / f"{key}.html").read_text(encoding="utf-8")
        assert hostile_class.active_payloads(html, "http://127.0.0.1:9") == [], f"{key}'s page runs a payload"
    assert len({tuple(p) for p in places.values()}) == 1, f"the boxes moved from one cover to another: {places}"
    assert cover_lines(out / "students" / "1002.pdf")[2][0] == '<img src=x onerror="alert(1)"> Mallory'
    eve = cover_lines(out / "students" / "1003.pdf")
    assert [height for text, height in eve if "s1001" in text] == [places["1003"][1]], (
        "a classmate's id typed into a name stays in the name box"
    )

    merged = PdfReader(str(out / "class.pdf"))
    assert len(merged.pages) == len(HOSTILE_NAMES) * each
    marks = [entry for entry in merged.outline if not isinstance(entry, list)]
    assert [m.title for m in marks] == [f"{covers[k].name} ({covers[k].id})" for k in sorted(HOSTILE_NAMES)]
    assert [merged.get_destination_page_number(m) for m in marks] == [each * k for k in range(len(HOSTILE_NAMES))]
    assert outline["students"]["1003"]["class_pdf_pages"] == [2 * each + 1, 3 * each]
    template = PdfReader(str(out / "template.pdf"))
    assert len(template.pages) == each and "Because." not in "".join(p.extract_text() for p in template.pages)
    assert [text for text, _ in cover_lines(out / "template.pdf")][1:3] == ["Name", "Student ID"], "empty boxes"


def test_course_written_refuses_a_roster_it_cannot_read_and_writes_nothing(tmp_path, capsys):
    from assignments.cli import main as course

    out = tmp_path / "out"
    assert course(["written", ASSIGNMENT, str(tmp_path), "--out", str(out), "--roster", str(tmp_path / "no.csv")]) == 2
    not_canvas = tmp_path / "other.csv"
    not_canvas.write_text("name,id\nAda,1\n", encoding="utf-8")
    assert course(["written", ASSIGNMENT, str(tmp_path), "--out", str(out), "--roster", str(not_canvas)]) == 2
    said = capsys.readouterr().err.splitlines()
    assert len(said) == 2 and "does not exist" in said[0] and "is not a Canvas gradebook export" in said[1], said
    assert not out.exists(), "a refused command must write nothing"
