"""`course written`: every student's written answers, with their evidence, as a PDF for hand grading.

For each student, one HTML page and one PDF: per written question (in notebook order) its prompt, its
points, the student's answer as submitted (mark schemes are never in it: the release has none, and a
pasted one is cut out) and the evidence the answer relies on, outputs and figures as submitted
(``evidence.collect``: the same reading, and the same flags, as the grading doors). One question starts
on each page. Beside them:

- ``outline.json``: each question's pages, the same for every student, and per student the findings of
  this command. A question that takes more pages for one student than for another is padded with blank
  pages in the others' PDFs, so a Gradescope PDF assignment's outline is set once for the class.
- ``questions/<grade_id>.html``: one question across the class, for TAs who grade question by question.

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

from .. import notebooks
from ..course import resolve
from ..escaping import IMAGE_TYPES, html_text, markdown_html, page_policy_meta
from ..exports.evidence_view import STYLE as EVIDENCE_STYLE
from ..exports.evidence_view import evidence_html
from ..results.model import Evidence, Finding

CHROMIUM = Path("/usr/bin/chromium")
# Printed small on each question's first page and found there by pypdf. The nonce is drawn for each run
# and never shown to students, so no answer can carry a marker that moves a question.
MARKER = "QUESTION-START {nonce} {number}/{total}"
PAGE_STYLE = """@page{size:A4;margin:16mm}body{font-family:system-ui,sans-serif;color:#222;font-size:11pt}
section.question{break-after:page}section.question:last-child{break-after:auto}
.marker{font-size:7pt;color:#888}.prompt{background:#f6f8fa;padding:.3rem .8rem;border-radius:4px}
.answer{border:1px solid #ccc;padding:.3rem .8rem;border-radius:4px;margin:.6rem 0;overflow-wrap:anywhere}
.answer pre,.prompt pre{white-space:pre-wrap}.missing{color:#cf222e}img{max-width:100%}
@media screen{section.cut-note{display:none}}"""
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


def read_answers(assignment, path: Path) -> tuple[list[WrittenAnswer], str | None]:
    """(answers in notebook order, None) or ([], why the notebook cannot be read as this assignment's)."""
    from assignments.grading.submission.preparation import prepare

    assignment = resolve(assignment)
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


def question_html(number: int, total: int, answer: WrittenAnswer, nonce: str = "") -> str:
    e = html_text
    parts = [
        f'<section class="question" id="{e(answer.grade_id)}">',
        f'<p class="marker">{MARKER.format(nonce=nonce, number=number, total=total)}</p>',
        f"<h2>Question {number}: {e(answer.grade_id)} ({answer.points:g} points)</h2>",
        f'<div class="prompt">{markdown_html(answer.prompt)}</div>',
        "<h3>Answer</h3>",
        f'<div class="answer">{_answer_body(answer, "No answer: this cell is empty or was deleted.")}</div>',
    ]
    if answer.evidence:
        parts += ["<h3>Evidence: outputs the answer relies on, as submitted</h3>", evidence_html(answer.evidence)]
    parts.append("</section>")
    return "\n".join(parts)


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


def page(title: str, sections: list[str]) -> str:
    return (
        "\n".join(
            [
                "<!DOCTYPE html>",
                '<html lang="en"><head><meta charset="utf-8">',
                page_policy_meta(),
                f"<title>{html_text(title)}</title><style>{PAGE_STYLE}\n{EVIDENCE_STYLE}</style></head><body>",
                f"<h1>{html_text(title)}</h1>",
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
    """Find the ``total`` questions' markers and the note's in the printed pages. Reading stops once all
    are found, or with ``RenderError`` past ``deadline`` (a ``time.monotonic()`` value)."""
    from pypdf import PdfReader

    reader = PdfReader(str(pdf_path))
    wanted = {number: _marker(nonce, number, total) for number in range(1, total + 2)}
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
    return Printed([found[number] for number in range(1, total + 1)], found[total + 1], len(reader.pages))


def print_student(html_path: Path, total: int, nonce: str, limits: Limits, chromium: Path = CHROMIUM) -> Printed:
    """Print one student's page beside it as PDF and locate its questions, all within ``limits.render_s``."""
    deadline = time.monotonic() + limits.render_s
    pdf_path = html_path.with_suffix(".pdf")
    print_pdf(html_path, pdf_path, chromium, timeout=limits.render_s)
    return locate(pdf_path, total, nonce, deadline)


def assemble(pdf_path: Path, printed: Printed, widths: list[int]) -> list[int]:
    """Rewrite ``pdf_path`` so question k takes exactly ``widths[k]`` pages: blank pages added after a
    shorter answer; a longer one keeps its first ``widths[k] - 1`` pages and then the note page. Returns
    the indices of the questions cut."""
    from pypdf import PdfReader, PdfWriter

    reader = PdfReader(str(pdf_path))
    writer = PdfWriter()
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
) -> dict:
    """Write every student's HTML (and PDF), the per-question pages and ``outline.json``; return the outline.

    Each student is bounded by ``limits``; what one student's answers cost them (left out, pages cut) is a
    finding of theirs in the outline's ``findings``, and never stops or reshapes another's PDF."""
    out = Path(out)
    (out / "students").mkdir(parents=True, exist_ok=True)
    (out / "questions").mkdir(parents=True, exist_ok=True)
    chromium = chromium or CHROMIUM
    if pdf and not chromium.exists():
        raise FileNotFoundError(f"{chromium} is missing: install Chromium from the OS packages (`make browser`)")
    nonce = f"{secrets.randbelow(10**16):016d}"  # this run's markers (digits: no font ligature splits them)
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
        sections = [question_html(k, len(mine), a, nonce) for k, a in enumerate(mine, start=1)]
        sections.append(cut_note_html(student, len(mine), nonce, limits.question_pages))
        html_path = out / "students" / f"{student}.html"
        html_path.write_text(page(f"{assignment}: written answers of {student}", sections), encoding="utf-8")
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
    outline, page_number = [], 1
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
    data = {
        "assignment": assignment,
        "pdf": bool(pdf),
        "questions": outline,
        "note": (
            "pages are 1-based and the same in every student's PDF (shorter answers are padded, an answer "
            f"longer than {limits.question_pages} pages is cut with a note)"
        ),
        "findings": {student: [asdict(f) for f in found] for student, found in sorted(findings.items())},
    }
    (out / "outline.json").write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    return data


def written(
    assignment: str, submissions: Path, out: Path, pdf: bool = True, limits: Limits = Limits()
) -> tuple[dict, dict[str, str]]:
    """Read a class (an .ipynb, a folder or an LMS zip, as ``course grade`` reads it) and write everything.
    Returns (outline, {student: why their notebook was left out})."""
    from ..workflow import collect

    jobs, _ = collect(assignment, Path(submissions), Path(out))
    answers, refused = {}, {}
    for job in jobs:
        mine, why = read_answers(assignment, Path(job.path))
        if why:
            refused[job.student] = why
        else:
            answers[job.student] = mine
    outline = write_class(assignment, answers, out, pdf=pdf, limits=limits)
    return outline, refused
