"""`course written`: every student's written answers, with their evidence, as a PDF for hand grading.

For each student, one HTML page and one PDF: first a cover page with the student's name and id, then per
written question (in notebook order) its prompt, its points, the student's answer as submitted (mark
schemes are never in it: the release has none, and a pasted one is cut out) and the evidence the answer
relies on, outputs and figures as submitted (``evidence.collect``: the same reading, and the same flags,
as the grading doors). One question starts on each page. Beside them:

- ``outline.json``: each question's pages, the same for every student, the cover, and per student the
  name and id on their cover, their pages in ``class.pdf`` and the findings of this command. A question
  that takes more pages for one student than for another is padded with blank pages in the others' PDFs,
  so a Gradescope PDF assignment's outline is set once for the class.
- ``class.pdf``: every student's PDF one after the other (each the same number of pages), with a PDF
  outline (bookmarks) per student and question; ``template.pdf``: the same pages with the prompts only
  and an empty cover, for the assignment's template.
- ``questions/<grade_id>.html``: one question across the class, for TAs who grade question by question.

The cover is for Gradescope's roster matching. Gradescope's guide for instructor-uploaded (exam and
quiz) assignments says: on the template, during *Edit Outline*, the instructor marks a Name region and
an ID region; when submissions are created on *Manage Scans*, Gradescope reads those two regions of
each submission's first page and proposes the roster student whose name and student ID match, and it
matches best when both regions are used and agree exactly with the roster. (It says it reads
handwriting best; this cover is typed, large, in a fixed box.) So every cover puts the name and the id
in the same two boxes at the same place, one line each, and nothing else a student wrote is on that
page. The name and id come from the roster (``cover_identities``): the LMS's name (a Canvas gradebook
export's, with ``--roster``, or the download's), and as id the one a Gradescope roster holds where
known (Gradescope's student id, else the SIS User ID), else the LMS's own key. A name is the student's
own text on some platforms: it is one printable line, escaped, cut to ``NAME_CHARS``, and cannot leave
its box.

Rendering: headless Chromium from the OS packages (``make browser``) prints the HTML to PDF; pypdf reads
the printed pages back to find where each question starts and to pad. Students' text goes through
``escaping`` (their Markdown through its allow-list: no HTML, link, remote image or script of theirs is
rendered), and a content security policy stops the page from loading anything but its own inline
images, so an answer cannot pull a file of the grading machine or a beacon into a PDF. Formulas are shown
as typed (``$\\sqrt{d_k}$``): nothing typesets LaTeX offline here.

One student never decides for the class (``Limits``): a student whose answers and evidence are larger
than ``student_bytes``, or whose PDF Chromium does not print and pypdf does not read back within
``render_s``, gets a finding and is left out of the PDFs while the class goes on and the outline is
written. Questions are found by a marker carrying a random number drawn for each run, which no answer can
contain, so typed text cannot move a question's start; and a question takes at most ``question_pages``
pages in any PDF (a longer answer keeps its first pages and a note saying where the rest is), so one long
answer cannot add pages to every classmate's PDF.
"""

from __future__ import annotations

import json
import os
import secrets
import signal
import subprocess
import tempfile
import time
import unicodedata
from dataclasses import asdict, dataclass, field
from pathlib import Path

from assignments import notebooks
from assignments.course import Assignment
from assignments.escaping import IMAGE_TYPES, NAME_CHARS, html_text, markdown_html, one_line, page_policy_meta
from assignments.exports.canvas import read_gradebook_export, student_identities
from assignments.exports.evidence_view import STYLE as EVIDENCE_STYLE
from assignments.exports.evidence_view import evidence_html
from assignments.results.model import Evidence, Finding
from assignments.runs.store import load_roster

CHROMIUM = Path("/usr/bin/chromium")
# Printed small on each question's first page and found there by pypdf. The nonce is drawn for each run
# and never shown to students, so no answer can carry a marker that moves a question.
MARKER = "QUESTION-START {nonce} {number}/{total}"
PAGE_STYLE = """@page{size:A4;margin:16mm}body{font-family:system-ui,sans-serif;color:#222;font-size:11pt}
section.question{break-after:page}section.question:last-child{break-after:auto}
.marker{font-size:7pt;color:#888}.prompt{background:#f6f8fa;padding:.3rem .8rem;border-radius:4px}
.answer{border:1px solid #ccc;padding:.3rem .8rem;border-radius:4px;margin:.6rem 0;overflow-wrap:anywhere}
.answer pre,.prompt pre{white-space:pre-wrap}.missing{color:#cf222e}img{max-width:100%}
@media screen{section.cut-note{display:none}}
section.cover{break-after:page;height:255mm;overflow:hidden;position:relative}
.cover h1{height:12mm;margin:0 0 14mm;font-size:16pt;white-space:nowrap;overflow:hidden}
.cover .label{height:6mm;margin:0;font-size:10pt;color:#444}
.cover .box{height:16mm;line-height:16mm;margin:0 0 10mm;padding:0 4mm;border:.6mm solid #000;font-size:22pt;
white-space:nowrap;overflow:hidden;font-family:"DejaVu Sans",sans-serif}
.cover .about{position:absolute;bottom:8mm;font-size:8pt;color:#666}.cover .marker{position:absolute;bottom:0}"""
COVER_PAGES = 1  # the cover is page 1 of every PDF; the questions follow
ID_CHARS = 40
TOO_LARGE, RENDER_FAILED, PAGES_CUT = "written-too-large", "written-render-failed", "written-pages-cut"


@dataclass(frozen=True)
class Limits:
    """What one student's written answers may cost ``course written``."""

    student_bytes: int = 8 * 2**20  # characters of answers, pasted images and evidence, all questions
    render_s: float = 120.0  # wall seconds for Chromium to print the PDF and pypdf to read it back
    question_pages: int = 6  # pages one question takes at most in a PDF (the last one a note when cut)


@dataclass
class WrittenAnswer:
    grade_id: str
    prompt: str  # the release's question text (Markdown)
    points: float
    answer: str | None  # Markdown as submitted; None: the student's cell is gone
    attachments: dict = field(default_factory=dict)  # name -> (mime, base64) pasted into the answer
    evidence: list[Evidence] = field(default_factory=list)


@dataclass(frozen=True)
class CoverIdentity:
    """What a student's cover page shows, for Gradescope's roster matching."""

    name: str  # as the LMS gave it (the student's own text on some platforms)
    id: str  # the id a Gradescope roster holds where known, else the LMS's key
    id_kind: str  # where the id comes from, for outline.json and the instructor


def cover_identities(
    students: list[str], roster: dict[str, dict], gradebook: dict[str, dict] | None = None
) -> dict[str, CoverIdentity]:
    """student key -> their cover's name and id, from the intake's ``roster`` (student -> what their
    platform said) and a Canvas gradebook export (``canvas.read_gradebook_export``), joined as the Canvas
    CSV joins them (``canvas.student_identities``: a join that is not one to one places nobody)."""
    placed = student_identities(students, roster, gradebook)[0] if gradebook else {}
    found = {}
    for student in students:
        info, row = roster.get(student) or {}, placed.get(student) or {}
        name = row.get("name") or info.get("name") or student
        for kind, value in (
            ("Gradescope student id", info.get("sid")),
            ("SIS User ID", row.get("sis_user_id")),
            ("Canvas user id", row.get("user_id") or (info.get("user_id") if info.get("lms") == "canvas" else "")),
            ("student key", student),
        ):
            if value:
                found[student] = CoverIdentity(one_line(name, NAME_CHARS), one_line(value, ID_CHARS), kind)
                break
    return found


class RenderError(RuntimeError):
    """One student's PDF could not be printed or read back (in time)."""


def prompts(template) -> dict[str, str]:
    """written grade_id -> the markdown cell right before it in the release (the question's text)."""
    found, previous = {}, ""
    for cell in template.cells:
        if notebooks.is_manually_graded(cell):
            found[notebooks.grade_id(cell)] = previous
        if cell.get("cell_type") == "markdown":
            previous = notebooks.text(cell.get("source"))
    return found


def _answer_text(cell) -> str:
    """The submitted answer without any mark scheme a student pasted in (nbgrader's marker rule)."""
    text = notebooks.text(cell.get("source"))
    if notebooks.has_marker(text, notebooks.MARK_SCHEME):
        text = notebooks.strip_region(text, *notebooks.MARK_SCHEME)
    return text.strip()


def _images(cell) -> dict:
    found = {}
    attachments = cell.get("attachments") if isinstance(cell.get("attachments"), dict) else {}
    for name, data in attachments.items():
        if isinstance(data, dict):
            for mime in IMAGE_TYPES:
                if isinstance(data.get(mime), str):
                    found[name] = (mime, data[mime].replace("\n", ""))
                    break
    return found


def read_answers(assignment: Assignment, path: Path) -> tuple[list[WrittenAnswer], str | None]:
    """(answers in notebook order, None) or ([], why the notebook cannot be read as this assignment's)."""
    from assignments.grading.submission.preparation import prepare

    # The written answers are read as submitted (recovered, not restored); audit and shortcuts grade code.
    prepared = prepare(assignment, Path(path), audit=False, shortcuts=False)
    if prepared.rejected:
        return [], prepared.rejection.message
    if prepared.evidence_error is not None:
        raise prepared.evidence_error  # the export stops on it: a silent gap would look like no evidence
    evidence, template = prepared.evidence, prepared.template
    submitted = {}
    for cell in prepared.recovery.notebook.cells:
        gid = notebooks.grade_id(cell)
        if gid and cell.get("cell_type") == "markdown":
            submitted.setdefault(gid, cell)
    texts = prompts(template)
    answers = []
    for question in assignment.questions:
        if question.kind != "manual":
            continue
        cell = submitted.get(question.grade_id)
        answers.append(
            WrittenAnswer(
                question.grade_id,
                texts.get(question.grade_id, ""),
                question.points,
                _answer_text(cell) if cell is not None else None,
                _images(cell) if cell is not None else {},
                [e for e in evidence if e.question == question.grade_id],
            )
        )
    return answers, None


def student_size(answers: list[WrittenAnswer]) -> int:
    """Characters a student put into their written answers: text, pasted images and evidence outputs."""
    size = 0
    for answer in answers:
        size += len(answer.answer or "") + sum(len(data) for _, data in answer.attachments.values())
        for item in answer.evidence:
            size += sum(len(output.get("text", "")) + len(output.get("png", "")) for output in item.outputs)
    return size


def _answer_body(answer: WrittenAnswer, empty: str) -> str:
    return markdown_html(answer.answer, answer.attachments) if answer.answer else f'<p class="missing">{empty}</p>'


def question_html(number: int, total: int, answer: WrittenAnswer, nonce: str = "", template: bool = False) -> str:
    """One question's section; ``template``: the prompt only, for ``template.pdf``."""
    e = html_text
    body = (
        '<p class="missing">The student\'s answer and its evidence.</p>'
        if template
        else _answer_body(answer, "No answer: this cell is empty or was deleted.")
    )
    parts = [
        f'<section class="question" id="{e(answer.grade_id)}">',
        f'<p class="marker">{MARKER.format(nonce=nonce, number=number, total=total)}</p>',
        f"<h2>Question {number}: {e(answer.grade_id)} ({answer.points:g} points)</h2>",
        f'<div class="prompt">{markdown_html(answer.prompt)}</div>',
        "<h3>Answer</h3>",
        f'<div class="answer">{body}</div>',
    ]
    if answer.evidence:
        parts += ["<h3>Evidence: outputs the answer relies on, as submitted</h3>", evidence_html(answer.evidence)]
    parts.append("</section>")
    return "\n".join(parts)


def cover_html(assignment: str, identity: CoverIdentity | None, total: int, nonce: str, key: str = "") -> str:
    """Page 1 of a student's PDF: the Name and Student ID boxes Gradescope's regions are drawn on, each
    one line at the same place for every student (``identity`` None: the empty boxes of the template).
    Its marker (number 0) lets ``locate`` check that it took exactly one page."""
    e = html_text
    name, number = (identity.name, identity.id) if identity else ("", "")
    about = f"course written · {e(assignment)}" + (f" · {e(key)}" if key else " · template")
    return "\n".join(
        [
            '<section class="cover">',
            f"<h1>{e(assignment)}: written answers</h1>",
            '<p class="label">Name</p>',
            f'<div class="box name">{e(name)}</div>',
            '<p class="label">Student ID</p>',
            f'<div class="box id">{e(number)}</div>',
            f'<p class="about">{about}</p>',
            f'<p class="marker">{MARKER.format(nonce=nonce, number=0, total=total)}</p>',
            "</section>",
        ]
    )


def cut_note_html(student: str, total: int, nonce: str, pages: int) -> str:
    """The page that stands for the rest of a question cut at ``pages`` pages: printed after the last
    question (found by its own marker, number ``total + 1``), moved into place by ``assemble``, never
    shown on screen."""
    return "\n".join(
        [
            '<section class="question cut-note">',
            f'<p class="marker">{MARKER.format(nonce=nonce, number=total + 1, total=total)}</p>',
            "<h2>The rest of this answer is left out of the PDF</h2>",
            f"<p>This answer runs past the {pages} pages one question may take in these PDFs (the same for "
            f"every student), so its remaining pages are left out here. The whole answer is in "
            f"<code>students/{html_text(student)}.html</code> beside this PDF.</p>",
            "</section>",
        ]
    )


def page(title: str, sections: list[str], heading: bool = True) -> str:
    """A whole HTML page; ``heading``: the title as its first heading (a student's page has a cover instead)."""
    return (
        "\n".join(
            [
                "<!DOCTYPE html>",
                '<html lang="en"><head><meta charset="utf-8">',
                page_policy_meta(),
                f"<title>{html_text(title)}</title><style>{PAGE_STYLE}\n{EVIDENCE_STYLE}</style></head><body>",
                *([f"<h1>{html_text(title)}</h1>"] if heading else []),
                *sections,
                "</body></html>",
            ]
        )
        + "\n"
    )


def print_pdf(page_path: Path, pdf_path: Path, chromium: Path = CHROMIUM, timeout: float = 120) -> None:
    """Headless Chromium prints ``page_path`` to ``pdf_path`` (no header or footer; the page's own policy
    allows no script and no load but its inline images). Past ``timeout`` seconds every process Chromium
    started is killed and ``RenderError`` says so."""
    if not chromium.exists():
        raise FileNotFoundError(f"{chromium} is missing: install Chromium from the OS packages (`make browser`)")
    pdf_path.unlink(missing_ok=True)  # a PDF left by an earlier run must not pass for this one
    with tempfile.TemporaryDirectory(prefix="course-written-") as profile:
        log = Path(profile) / "chromium.log"  # a file, not a pipe: a helper holding a pipe would block reading it
        with open(log, "w") as stderr:
            # A session of its own: Chromium's renderer and helper processes are killed with it.
            process = subprocess.Popen(
                [
                    str(chromium),
                    "--headless",
                    "--no-sandbox",
                    "--disable-gpu",
                    "--no-first-run",
                    "--disable-background-networking",
                    f"--user-data-dir={profile}/data",
                    "--no-pdf-header-footer",
                    f"--print-to-pdf={pdf_path}",
                    page_path.resolve().as_uri(),
                ],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=stderr,
                start_new_session=True,
            )
            try:
                process.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                raise RenderError(f"Chromium did not print the PDF within {timeout:g} s") from None
            finally:
                _kill_session(process)
        said = log.read_text(errors="replace").strip()[-500:]
    if process.returncode != 0 or not pdf_path.exists():
        raise RenderError(
            f"Chromium could not print {page_path.name} (exit status {process.returncode})"
            + (f": {said}" if said else "")
        )


def _kill_session(process: subprocess.Popen) -> None:
    """Kill every process left in ``process``'s session (Chromium's helpers outlive a killed parent)."""
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    if process.poll() is None:
        process.kill()
    process.wait()


def _marker(nonce: str, number: int, total: int) -> str:
    return MARKER.format(nonce=nonce, number=number, total=total)


@dataclass(frozen=True)
class Printed:
    """One student's PDF as Chromium printed it, located by the run's markers (0-based page indices)."""

    starts: list[int]  # the first page of each question
    note: int  # the cut note's page, printed after the last question
    pages: int

    def spans(self) -> list[int]:
        """Pages each question takes (the last one ends where the note starts)."""
        return [end - start for start, end in zip(self.starts, self.starts[1:] + [self.note])]


def locate(pdf_path: Path, total: int, nonce: str, deadline: float | None = None) -> Printed:
    """Find the cover's marker, the ``total`` questions' and the note's in the printed pages. Reading
    stops once all are found, or with ``RenderError`` past ``deadline`` (a ``time.monotonic()`` value);
    also when the cover did not take exactly the first page."""
    from pypdf import PdfReader

    reader = PdfReader(str(pdf_path))
    wanted = {number: _marker(nonce, number, total) for number in range(0, total + 2)}
    found: dict[int, int] = {}
    for index, pdf_page in enumerate(reader.pages):
        if deadline is not None and time.monotonic() > deadline:
            raise RenderError("reading the printed pages back took longer than the time limit")
        text = unicodedata.normalize("NFKC", pdf_page.extract_text() or "")  # a ligature back to its letters
        found.update({number: index for number, marker in wanted.items() if number not in found and marker in text})
        if len(found) == len(wanted):
            break
    missing = [number for number in wanted if number not in found]
    if missing:
        raise RenderError(f"the printed PDF lacks the start of question(s) {missing}")
    if found[0] != 0 or found[1] != COVER_PAGES:
        raise RenderError("the cover page did not print as the first page alone")
    return Printed([found[number] for number in range(1, total + 1)], found[total + 1], len(reader.pages))


def print_student(html_path: Path, total: int, nonce: str, limits: Limits, chromium: Path = CHROMIUM) -> Printed:
    """Print one student's page beside it as PDF and locate its questions, all within ``limits.render_s``."""
    deadline = time.monotonic() + limits.render_s
    pdf_path = html_path.with_suffix(".pdf")
    print_pdf(html_path, pdf_path, chromium, timeout=limits.render_s)
    return locate(pdf_path, total, nonce, deadline)


def assemble(pdf_path: Path, printed: Printed, widths: list[int]) -> list[int]:
    """Rewrite ``pdf_path`` as its cover, then each question k on exactly ``widths[k]`` pages: blank
    pages added after a shorter answer; a longer one keeps its first ``widths[k] - 1`` pages and then the
    note page. Returns the indices of the questions cut."""
    from pypdf import PdfReader, PdfWriter

    reader = PdfReader(str(pdf_path))
    writer = PdfWriter()
    for index in range(COVER_PAGES):
        writer.add_page(reader.pages[index])
    cut = []
    for k, (start, taken, width) in enumerate(zip(printed.starts, printed.spans(), widths)):
        if taken > width:
            cut.append(k)
            kept = [*range(start, start + width - 1), printed.note]
        else:
            kept = list(range(start, start + taken))
        for index in kept:
            writer.add_page(reader.pages[index])
        box = reader.pages[start].mediabox
        for _ in range(width - len(kept)):
            writer.add_blank_page(width=float(box.width), height=float(box.height))
    with open(pdf_path, "wb") as handle:
        writer.write(handle)
    return cut


def class_page(
    assignment: str, grade_id: str, rows: list[tuple[str, WrittenAnswer]], left_out: dict[str, str] | None = None
) -> str:
    """One question across the class: the prompt once, then each student's answer and evidence (and the
    students left out, and why)."""
    e = html_text
    first = rows[0][1] if rows else None
    sections = [f"<h2>{e(grade_id)}" + (f" ({first.points:g} points)</h2>" if first else "</h2>")]
    if first:
        sections.append(f'<div class="prompt">{markdown_html(first.prompt)}</div>')
    for student, answer in rows:
        sections += [
            f'<h3 id="{e(student)}">{e(student)}</h3>',
            f'<div class="answer">{_answer_body(answer, "No answer.")}</div>',
        ]
        if answer.evidence:
            sections.append(evidence_html(answer.evidence))
    for student, why in sorted((left_out or {}).items()):
        sections += [f'<h3 id="{e(student)}">{e(student)}</h3>', f'<p class="missing">Left out: {e(why)}</p>']
    return page(f"{assignment}: {grade_id}, every student", sections)


def write_class(
    assignment: str,
    answers: dict[str, list[WrittenAnswer]],
    out: Path,
    pdf: bool = True,
    limits: Limits = Limits(),
    chromium: Path | None = None,
    identities: dict[str, CoverIdentity] | None = None,
) -> dict:
    """Write every student's HTML (and PDF, ``class.pdf`` and ``template.pdf``), the per-question pages
    and ``outline.json``; return the outline. ``identities``: each student's cover (``cover_identities``;
    a student without one is named by their key).

    Each student is bounded by ``limits``; what one student's answers cost them (left out, pages cut) is a
    finding of theirs in the outline's ``findings``, and never stops or reshapes another's PDF."""
    out = Path(out)
    (out / "students").mkdir(parents=True, exist_ok=True)
    (out / "questions").mkdir(parents=True, exist_ok=True)
    chromium = chromium or CHROMIUM
    if pdf and not chromium.exists():
        raise FileNotFoundError(f"{chromium} is missing: install Chromium from the OS packages (`make browser`)")
    for stale in ("class.pdf", "template.pdf", "template.html"):  # an earlier run's must not pass for this one's
        (out / stale).unlink(missing_ok=True)
    nonce = f"{secrets.randbelow(10**16):016d}"  # this run's markers (digits: no font ligature splits them)
    covers = {s: (identities or {}).get(s) or CoverIdentity(one_line(s, NAME_CHARS), s, "student key") for s in answers}
    findings: dict[str, list[Finding]] = {}
    kept, left_out, printed = {}, {}, {}
    for student, mine in sorted(answers.items()):
        size = student_size(mine)
        if size > limits.student_bytes:
            why = (
                f"the written answers, pasted images and evidence hold {size / 2**20:.1f} MB, more than the "
                f"{limits.student_bytes / 2**20:g} MB `course written` prints; grade them from the notebook"
            )
            findings.setdefault(student, []).append(Finding("written-too-large", why, "warning"))
            left_out[student] = why
            continue
        kept[student] = mine
        sections = [cover_html(assignment, covers[student], len(mine), nonce, student)]
        sections += [question_html(k, len(mine), a, nonce) for k, a in enumerate(mine, start=1)]
        sections.append(cut_note_html(student, len(mine), nonce, limits.question_pages))
        html_path = out / "students" / f"{student}.html"
        title = f"{assignment}: written answers of {student}"
        html_path.write_text(page(title, sections, heading=False), encoding="utf-8")
        if pdf and mine:
            try:
                printed[student] = print_student(html_path, len(mine), nonce, limits, chromium)
            except (RenderError, OSError, ValueError) as error:  # pypdf's read errors are ValueErrors
                html_path.with_suffix(".pdf").unlink(missing_ok=True)
                why = f"no PDF: {error}; read students/{student}.html instead"
                findings.setdefault(student, []).append(Finding("written-render-failed", why, "warning"))
    questions = next(iter(answers.values()), [])
    widths = [
        max(1, min(limits.question_pages, max((p.spans()[k] for p in printed.values()), default=1)))
        for k in range(len(questions))
    ]
    for student, located in printed.items():
        for k in assemble(out / "students" / f"{student}.pdf", located, widths):
            message = (
                f"question {k + 1} ({questions[k].grade_id}) takes {located.spans()[k]} pages; the PDF keeps "
                f"its first {widths[k] - 1} and a note (the whole answer is in students/{student}.html)"
            )
            findings.setdefault(student, []).append(Finding("written-pages-cut", message, "info"))
    outline, page_number = [], 1 + COVER_PAGES
    for answer, width in zip(questions, widths):
        outline.append(
            {
                "question": answer.grade_id,
                "points": answer.points,
                "pages": list(range(page_number, page_number + width)),
            }
        )
        page_number += width
    for k, answer in enumerate(questions):
        rows = [(student, mine[k]) for student, mine in kept.items()]
        (out / "questions" / f"{answer.grade_id}.html").write_text(
            class_page(assignment, answer.grade_id, rows, left_out), encoding="utf-8"
        )
    in_class = merge_class(out, sorted(printed), covers, outline) if printed else {}
    template = write_template(out, assignment, questions, widths, nonce, limits, chromium) if printed else None
    data = {
        "assignment": assignment,
        "pdf": bool(pdf),
        "cover": {
            "page": 1,
            "regions": "Name: the first box; ID: the second box (draw Gradescope's Name and ID regions on them)",
        },
        "pages_per_submission": page_number - 1,
        "questions": outline,
        "note": (
            "pages are 1-based and the same in every student's PDF (page 1 is the cover; shorter answers are "
            f"padded, an answer longer than {limits.question_pages} pages is cut with a note)"
        ),
        "template": template,
        "students": {
            student: {
                "name": covers[student].name,
                "id": covers[student].id,
                "id_kind": covers[student].id_kind,
                "pdf": f"students/{student}.pdf" if student in printed else None,
                "class_pdf_pages": in_class.get(student),
            }
            for student in sorted(answers)
        },
        "findings": {student: [asdict(f) for f in found] for student, found in sorted(findings.items())},
    }
    (out / "outline.json").write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    return data


def merge_class(
    out: Path, students: list[str], covers: dict[str, CoverIdentity], outline: list[dict]
) -> dict[str, list[int]]:
    """``class.pdf``: the printed PDFs of ``students`` one after the other (each the same number of pages),
    with a PDF outline: one entry per student (their cover's name and id), under it the cover and each
    question. Returns each student's first and last page in it (1-based)."""
    from pypdf import PdfReader, PdfWriter

    writer = PdfWriter()
    placed = {}
    for student in students:
        reader = PdfReader(str(out / "students" / f"{student}.pdf"))
        first = len(writer.pages)
        for pdf_page in reader.pages:
            writer.add_page(pdf_page)
        cover = covers[student]
        mark = writer.add_outline_item(title=f"{cover.name} ({cover.id})", page_number=first)
        writer.add_outline_item(title="Cover: name and student ID", page_number=first, parent=mark)
        for entry in outline:
            title = f"{entry['question']} ({entry['points']:g} pts)"
            writer.add_outline_item(title=title, page_number=first + entry["pages"][0] - 1, parent=mark)
        placed[student] = [first + 1, len(writer.pages)]
    with open(out / "class.pdf", "wb") as handle:
        writer.write(handle)
    return placed


def write_template(
    out: Path,
    assignment: str,
    questions: list[WrittenAnswer],
    widths: list[int],
    nonce: str,
    limits: Limits,
    chromium: Path,
) -> str | None:
    """``template.pdf``: an empty cover and each question's prompt on the same pages as in every student's
    PDF (what a Gradescope assignment's outline is drawn on, with no student's answer in it). Returns its
    name, or None when it could not be printed (the students' PDFs stand)."""
    if not questions:
        return None
    blank = [WrittenAnswer(a.grade_id, a.prompt, a.points, None) for a in questions]
    sections = [cover_html(assignment, None, len(blank), nonce)]
    sections += [question_html(k, len(blank), a, nonce, template=True) for k, a in enumerate(blank, start=1)]
    sections.append(cut_note_html("template", len(blank), nonce, limits.question_pages))
    html_path = out / "template.html"
    html_path.write_text(page(f"{assignment}: written answers (template)", sections, heading=False), encoding="utf-8")
    try:
        located = print_student(html_path, len(blank), nonce, limits, chromium)
        assemble(html_path.with_suffix(".pdf"), located, widths)
    except (RenderError, OSError, ValueError) as error:
        html_path.with_suffix(".pdf").unlink(missing_ok=True)
        print(f"course written: no template.pdf ({one_line(str(error))}); upload any student's PDF as the template")
        return None
    return "template.pdf"


def written(
    assignment: Assignment,
    submissions: Path,
    out: Path,
    pdf: bool = True,
    limits: Limits = Limits(),
    roster: Path | None = None,
) -> tuple[dict, dict[str, str]]:
    """Read a class (an .ipynb, a folder or an LMS zip, as ``course grade`` reads it) and write everything.
    ``roster``: a Canvas gradebook export (names and SIS ids for the covers) or an intake manifest.
    Returns (outline, {student: why their notebook was left out})."""
    from assignments.workflow import collect

    gradebook = None
    if roster and Path(roster).suffix.lower() == ".csv":
        gradebook = read_gradebook_export(Path(roster))  # ValueError: not a Canvas gradebook export
    jobs, found = collect(assignment.name, Path(submissions), Path(out))
    lms = load_roster(Path(roster)) if roster and gradebook is None else found.roster()
    answers, refused = {}, {}
    for job in jobs:
        mine, why = read_answers(assignment, Path(job.path))
        if why:
            refused[job.student] = why
        else:
            answers[job.student] = mine
    covers = cover_identities(sorted(answers), lms, gradebook)
    outline = write_class(assignment.name, answers, out, pdf=pdf, limits=limits, identities=covers)
    return outline, refused
