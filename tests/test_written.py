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
from tests.test_evidence import ASSIGNMENT, EDITED_FIGURE, QUESTION, RUN_FIGURE, ran_on_colab

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
