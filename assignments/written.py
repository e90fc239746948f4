"""`course written`: every student's written answers, with their evidence, as a PDF for hand grading.

For each student, one HTML page and one PDF: per written question (in notebook order) its prompt, its
points, the student's answer as submitted (mark schemes are never in it: the release has none, and a
pasted one is cut out) and the evidence the answer relies on, outputs and figures as submitted
(``evidence.collect``: the same reading, and the same flags, as the grading doors). One question starts
on each page. Beside them:

- ``outline.json``: each question's pages, the same for every student. A question that takes more pages
  for one student than for another is padded with blank pages in the others' PDFs, so a Gradescope PDF
  assignment's outline is set once for the class.
- ``questions/<grade_id>.html``: one question across the class, for TAs who grade question by question.

Rendering: headless Chromium from the OS packages (``make browser``) prints the HTML to PDF; pypdf reads
the printed pages back to find where each question starts and to pad. Students' text is escaped (no
HTML of theirs is rendered), a content security policy stops the page from loading anything but its
own inline images and runs no script, so an answer cannot pull a file of the grading machine into a
PDF. Formulas are shown as typed (``$\\sqrt{d_k}$``): nothing typesets LaTeX offline here.
"""

from __future__ import annotations

import html
import json
import re
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from . import notebooks
from .course import resolve
from .exports.evidence_view import STYLE as EVIDENCE_STYLE
from .exports.evidence_view import evidence_html, image_tag
from .results.model import Evidence

CHROMIUM = Path("/usr/bin/chromium")
MARKER = "QUESTION-START {number}/{total}"  # printed small on each question's first page; found by pypdf
PAGE_STYLE = """@page{size:A4;margin:16mm}body{font-family:system-ui,sans-serif;color:#222;font-size:11pt}
section.question{break-after:page}section.question:last-child{break-after:auto}
.marker{font-size:7pt;color:#888}.prompt{background:#f6f8fa;padding:.3rem .8rem;border-radius:4px}
.answer{border:1px solid #ccc;padding:.3rem .8rem;border-radius:4px;margin:.6rem 0}
.answer pre,.prompt pre{white-space:pre-wrap}.missing{color:#cf222e}img{max-width:100%}"""
CSP = "default-src 'none'; img-src data:; style-src 'unsafe-inline'"


@dataclass
class WrittenAnswer:
    grade_id: str
    prompt: str  # the release's question text (Markdown)
    points: float
    answer: str | None  # Markdown as submitted; None: the student's cell is gone
    attachments: dict = field(default_factory=dict)  # name -> base64 PNG/JPEG pasted into the answer
    evidence: list[Evidence] = field(default_factory=list)


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
            for mime in ("image/png", "image/jpeg"):
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


def markdown_html(text: str, attachments: dict | None = None) -> str:
    """Markdown as HTML with every HTML tag of the text escaped; pasted images shown from the cell."""
    import mistune

    rendered = mistune.create_markdown(escape=True, plugins=["table", "strikethrough"])(text)

    def attachment(match):
        mime, data = (attachments or {}).get(html.unescape(match.group(1)), (None, ""))
        return image_tag(data).replace("image/png", mime) if mime else "[missing image]"

    return re.sub(r'<img src="attachment:([^"]*)"[^>]*>', attachment, rendered)


def question_html(number: int, total: int, answer: WrittenAnswer) -> str:
    e = html.escape
    body = (
        markdown_html(answer.answer, answer.attachments)
        if answer.answer
        else '<p class="missing">No answer: this cell is empty or was deleted.</p>'
    )
    parts = [
        f'<section class="question" id="{e(answer.grade_id)}">',
        f'<p class="marker">{MARKER.format(number=number, total=total)}</p>',
        f"<h2>Question {number}: {e(answer.grade_id)} ({answer.points:g} points)</h2>",
        f'<div class="prompt">{markdown_html(answer.prompt)}</div>',
        "<h3>Answer</h3>",
        f'<div class="answer">{body}</div>',
    ]
    if answer.evidence:
        parts += ["<h3>Evidence: outputs the answer relies on, as submitted</h3>", evidence_html(answer.evidence)]
    parts.append("</section>")
    return "\n".join(parts)


def page(title: str, sections: list[str]) -> str:
    return (
        "\n".join(
            [
                "<!DOCTYPE html>",
                '<html lang="en"><head><meta charset="utf-8">',
                f'<meta http-equiv="Content-Security-Policy" content="{CSP}">',
                f"<title>{html.escape(title)}</title><style>{PAGE_STYLE}\n{EVIDENCE_STYLE}</style></head><body>",
                f"<h1>{html.escape(title)}</h1>",
                *sections,
                "</body></html>",
            ]
        )
        + "\n"
    )


def print_pdf(page_path: Path, pdf_path: Path, chromium: Path = CHROMIUM, timeout: float = 120) -> None:
    """Headless Chromium prints ``page_path`` to ``pdf_path`` (no header or footer; the page's own policy
    allows no script and no load but its inline images)."""
    if not chromium.exists():
        raise FileNotFoundError(f"{chromium} is missing: install Chromium from the OS packages (`make browser`)")
    with tempfile.TemporaryDirectory(prefix="course-written-") as profile:
        done = subprocess.run(
            [
                str(chromium),
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--no-first-run",
                "--disable-background-networking",
                f"--user-data-dir={profile}",
                "--no-pdf-header-footer",
                f"--print-to-pdf={pdf_path}",
                page_path.resolve().as_uri(),
            ],
            capture_output=True,
            text=True,
            timeout=timeout,
        )
    if done.returncode != 0 or not pdf_path.exists():
        raise RuntimeError(f"chromium could not print {page_path.name}: {done.stderr.strip()[-500:]}")


def question_starts(pdf_path: Path, total: int) -> list[int]:
    """0-based page index where each question's marker is printed."""
    from pypdf import PdfReader

    starts = {}
    for index, pdf_page in enumerate(PdfReader(str(pdf_path)).pages):
        for number in range(1, total + 1):
            if number not in starts and MARKER.format(number=number, total=total) in (pdf_page.extract_text() or ""):
                starts[number] = index
    missing = [n for n in range(1, total + 1) if n not in starts]
    if missing:
        raise RuntimeError(f"{pdf_path.name}: question(s) {missing} were not found in the printed pages")
    return [starts[n] for n in range(1, total + 1)]


def spans(starts: list[int], pages: int) -> list[int]:
    """Pages each question takes, from the start pages and the document's page count."""
    return [end - start for start, end in zip(starts, starts[1:] + [pages])]


def pad(pdf_path: Path, starts: list[int], widths: list[int]) -> None:
    """Rewrite ``pdf_path`` so question k takes exactly ``widths[k]`` pages (blank pages added)."""
    from pypdf import PdfReader, PdfWriter

    reader = PdfReader(str(pdf_path))
    mine = spans(starts, len(reader.pages))
    writer = PdfWriter()
    for start, taken, width in zip(starts, mine, widths):
        for index in range(start, start + taken):
            writer.add_page(reader.pages[index])
        box = reader.pages[start].mediabox
        for _ in range(width - taken):
            writer.add_blank_page(width=float(box.width), height=float(box.height))
    with open(pdf_path, "wb") as handle:
        writer.write(handle)


def class_page(assignment: str, grade_id: str, rows: list[tuple[str, WrittenAnswer]]) -> str:
    """One question across the class: the prompt once, then each student's answer and evidence."""
    e = html.escape
    first = rows[0][1]
    sections = [
        f"<h2>{e(grade_id)} ({first.points:g} points)</h2>",
        f'<div class="prompt">{markdown_html(first.prompt)}</div>',
    ]
    for student, answer in rows:
        body = (
            markdown_html(answer.answer, answer.attachments) if answer.answer else '<p class="missing">No answer.</p>'
        )
        sections += [f'<h3 id="{e(student)}">{e(student)}</h3>', f'<div class="answer">{body}</div>']
        if answer.evidence:
            sections.append(evidence_html(answer.evidence))
    return page(f"{assignment}: {grade_id}, every student", sections)


def write_class(assignment: str, answers: dict[str, list[WrittenAnswer]], out: Path, pdf: bool = True) -> dict:
    """Write every student's HTML (and PDF), the per-question pages and ``outline.json``; return the outline."""
    out = Path(out)
    (out / "students").mkdir(parents=True, exist_ok=True)
    (out / "questions").mkdir(parents=True, exist_ok=True)
    starts, lengths = {}, {}
    for student, mine in sorted(answers.items()):
        sections = [question_html(k, len(mine), a) for k, a in enumerate(mine, start=1)]
        html_path = out / "students" / f"{student}.html"
        html_path.write_text(page(f"{assignment}: written answers of {student}", sections), encoding="utf-8")
        if pdf and mine:
            pdf_path = html_path.with_suffix(".pdf")
            print_pdf(html_path, pdf_path)
            from pypdf import PdfReader

            starts[student] = question_starts(pdf_path, len(mine))
            lengths[student] = spans(starts[student], len(PdfReader(str(pdf_path)).pages))
    questions = next(iter(answers.values()), [])
    widths = [max((lengths[s][k] for s in lengths), default=1) for k in range(len(questions))]
    for student in starts:
        pad(out / "students" / f"{student}.pdf", starts[student], widths)
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
        rows = [(student, mine[k]) for student, mine in sorted(answers.items())]
        (out / "questions" / f"{answer.grade_id}.html").write_text(
            class_page(assignment, answer.grade_id, rows), encoding="utf-8"
        )
    data = {
        "assignment": assignment,
        "pdf": bool(pdf),
        "questions": outline,
        "note": "pages are 1-based and the same in every student's PDF (shorter answers are padded)",
    }
    (out / "outline.json").write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    return data


def written(assignment: str, submissions: Path, out: Path, pdf: bool = True) -> tuple[dict, dict[str, str]]:
    """Read a class (an .ipynb, a folder or an LMS zip, as ``course grade`` reads it) and write everything.
    Returns (outline, {student: why their notebook was left out})."""
    from .workflow import collect

    jobs, _ = collect(assignment, Path(submissions), Path(out))
    answers, refused = {}, {}
    for job in jobs:
        mine, why = read_answers(assignment, Path(job.path))
        if why:
            refused[job.student] = why
        else:
            answers[job.student] = mine
    outline = write_class(assignment, answers, out, pdf=pdf)
    return outline, refused
