"""Wording shared by the student-facing exports: readable names, numbers, and safe messages."""

from __future__ import annotations

import re

# Findings about the grader itself (their text may quote grader internals, so students get a fixed line)
# and findings for staff only (left out of what students read): the catalogue says which.
from ..results.findings import INTERNAL_CODES, STAFF_ONLY_CODES  # noqa: E402
from ..results.model import Finding, SubmissionResult, bounded_message

INTERNAL_LINE = "the grader had an internal problem with this submission; course staff have been told"
_FRAME = re.compile(r'^\s*File ".*", line \d+')


# Words that names spell in lower case (Python identifiers) but a title spells as the field does.
SPELLING = {
    "lm": "LM",
    "mlm": "MLM",
    "bert": "BERT",
    "gru": "GRU",
    "lstm": "LSTM",
    "mha": "MHA",
    "clip": "CLIP",
    "pytorch": "PyTorch",
    "grucell": "GRUCell",
    "qkv": "QKV",
    "nn": "nn",
    "cls": "CLS",
}


def _title(words: str) -> str:
    """Words of an identifier as a title: known acronyms and names spelled as usual, the first letter up."""
    text = " ".join(SPELLING.get(word.lower(), word) for word in words.split())
    return text[:1].upper() + text[1:]


def plural(count: int, noun: str, nouns: str | None = None) -> str:
    """``1 submission``, ``2 submissions`` (``nouns`` where adding an s is wrong: entry -> entries)."""
    return f"{count} {noun if count == 1 else (nouns or noun + 's')}"


def humanise_test(name: str) -> str:
    """``test_mha_matches_pytorch[seed1]`` -> ``MHA matches PyTorch (seed1)``."""
    base, _, param = name.partition("[")
    base = re.sub(r"^test_?", "", base).replace("_", " ").strip() or name
    text = _title(base)
    return f"{text} ({param.rstrip(']')})" if param else text


def humanise_question(grade_id: str) -> str:
    """``scaled_dot_product_tests`` -> ``Scaled dot product``; ``mlm_step_tests`` -> ``MLM step``;
    ``attention_written`` -> ``Attention (written)``."""
    text = grade_id
    suffix = ""
    if text.endswith("_tests"):
        text = text[: -len("_tests")]
    elif text.endswith("_written"):
        text, suffix = text[: -len("_written")], " (written)"
    text = text.replace("_", " ").strip() or grade_id
    return _title(text) + suffix


def question_titles(assignment: str) -> dict[str, str]:
    """grade_id -> the title students know the question by: the notebook's heading above it; where one
    heading covers several questions, the heading and the readable grade_id. Empty when the assignment's
    source notebook cannot be read (records of another course, tests)."""
    from ..course import resolve

    try:
        found = resolve(assignment).questions
    except (OSError, KeyError, ValueError):
        return {}
    shared = {}
    for question in found:
        shared[question.heading] = shared.get(question.heading, 0) + 1
    titles = {}
    for question in found:
        readable = humanise_question(question.grade_id)
        if not question.heading:
            titles[question.grade_id] = readable
        else:
            titles[question.grade_id] = (
                question.heading if shared[question.heading] == 1 else f"{question.heading} · {readable}"
            )
    return titles


def question_title(assignment: str, grade_id: str) -> str:
    return question_titles(assignment).get(grade_id) or humanise_question(grade_id)


def points(value: float | None) -> str:
    """2.0 -> "2", 1.5 -> "1.5", None -> "–"."""
    if value is None:
        return "–"
    text = f"{round(float(value), 4):.4f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


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
