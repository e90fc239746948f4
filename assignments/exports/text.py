"""Wording shared by the student-facing exports: readable names, numbers, and safe messages."""

from __future__ import annotations

import re

from assignments import titles

# Findings about the grader itself (their text may quote grader internals, so students get a fixed line)
# and findings for staff only (left out of what students read): the catalogue says which.
from assignments.results.findings import INTERNAL_CODES, STAFF_ONLY_CODES  # noqa: E402
from assignments.results.model import Finding, SubmissionResult, bounded_message
from assignments.titles import humanise_question, title_case

INTERNAL_LINE = "the grader had an internal problem with this submission; course staff have been told"
_FRAME = re.compile(r'^\s*File ".*", line \d+')


def plural(count: int, noun: str, nouns: str | None = None) -> str:
    """``1 submission``, ``2 submissions`` (``nouns`` where adding an s is wrong: entry -> entries)."""
    return f"{count} {noun if count == 1 else (nouns or noun + 's')}"


def humanise_test(name: str) -> str:
    """``test_mha_matches_pytorch[seed1]`` -> ``MHA matches PyTorch (seed1)``."""
    base, _, param = name.partition("[")
    base = re.sub(r"^test_?", "", base).replace("_", " ").strip() or name
    text = title_case(base)
    return f"{text} ({param.rstrip(']')})" if param else text


def question_titles(assignment) -> dict[str, str]:
    """grade_id -> the title students know the question by, from the assignment's source notebook (or the
    grading manifest that stands for it: ``titles.question_titles``). Empty when neither can be read
    (records of another course, tests)."""
    from assignments.course import resolve

    try:
        found = resolve(assignment).questions
    except (OSError, KeyError, ValueError):
        return {}
    return titles.question_titles(found)


def question_title(assignment, question) -> str:
    """The title of ``question`` (a ``QuestionResult``, or a grade_id) of ``assignment``: the one the grader
    recorded (``QuestionResult.title``), else the assignment's own, else the readable grade_id (records
    graded before titles were recorded have none)."""
    if not isinstance(question, str) and question.title:
        return question.title
    grade_id = question if isinstance(question, str) else question.grade_id
    return question_titles(assignment).get(grade_id) or humanise_question(grade_id)


def recorded_title(results: list[SubmissionResult], grade_id: str):
    """A record's ``QuestionResult`` of ``grade_id`` that carries a title (else the grade_id): what
    ``question_title`` takes where a column or panel stands for every student's answer to one question."""
    for result in results:
        for question in result.questions:
            if question.grade_id == grade_id and question.title:
                return question
    return grade_id


def safe_message(text: str) -> str:
    """A test or finding message as students may read it: no traceback frames, bounded length."""
    if not text:
        return ""
    if "Traceback (most recent call last)" in text:
        lines = [line for line in text.strip().splitlines() if line.strip()]
        text = lines[-1] if lines else ""
    text = "\n".join(line for line in text.splitlines() if not _FRAME.match(line)).strip()
    return bounded_message(text)


def student_findings(result: SubmissionResult) -> list[Finding]:
    """The record's findings as students see them: grader internals become a fixed line, staff-only
    notes are left out."""
    shown = []
    for finding in result.findings:
        if finding.code in STAFF_ONLY_CODES:
            continue
        message = INTERNAL_LINE if finding.code in INTERNAL_CODES else safe_message(finding.message)
        shown.append(Finding(finding.code, message, finding.severity, finding.cell))
    return shown


def execution_seconds(result: SubmissionResult) -> float:
    """Total grading time from the record's timings (``total_s`` if present, else the sum of ``*_s``)."""
    timings = result.timings or {}
    if isinstance(timings.get("total_s"), (int, float)):
        return float(timings["total_s"])
    return float(sum(v for k, v in timings.items() if k.endswith("_s") and isinstance(v, (int, float))))
