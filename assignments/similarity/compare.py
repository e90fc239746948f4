"""How alike two students' answers are: normalized tokens, hashed k-grams, winnowing, pair scores.

The method follows MOSS (Schleimer, Wilkerson and Aiken, "Winnowing", SIGMOD 2003), written here for
notebook answer cells:

1. **Tokens**: each answer cell is read with Python's ``tokenize``. Comments, blank lines, layout,
   docstrings, grouping or tuple parentheses and trailing commas are dropped; every identifier the
   student could rename becomes ``V`` (variables, parameters, functions, ``self.`` attributes); keywords,
   builtins and attribute names after a dot (``.softmax``, ``.transpose``: the library API a solution
   calls) stay; strings become ``S`` and numbers their value (``1.`` and ``1.0`` are one token).
   Renaming variables or reformatting changes nothing.
2. **Fingerprints**: every run of ``K`` tokens (a k-gram) is hashed; k-grams that occur anywhere in the
   release notebook's code (the skeletons students start from, the provided cells) are dropped, so
   starter code is not evidence; winnowing then keeps the smallest hash of every ``WINDOW`` consecutive
   ones. Any passage of at least ``K + WINDOW - 1`` tokens that two answers share yields at least one
   shared fingerprint, whatever surrounds it.
3. **Scores**: fingerprints count only within the same question. A pair's score is the Jaccard index of
   their fingerprints over all questions together (shared / either has), so a long copied answer weighs
   more than a copied one-liner; per question the report gives the Jaccard index and the containment
   (shared / the smaller answer), which exposes one answer copied inside a longer one.

Students' answer cells are found by grade_id after the same restoration the standalone grader does
(``submission.prepare``), so a notebook rebuilt in Colab or renamed by an editor compares like an intact one.
"""

from __future__ import annotations

import ast
import builtins
import hashlib
import io
import keyword
import os
import re
import time
import tokenize
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from assignments import notebooks
from assignments.course import Assignment

K = 12  # tokens per k-gram: shorter runs (``return V, V``) are common to every honest answer
WINDOW = 6  # winnowing window: any shared run of K + WINDOW - 1 = 17 tokens is always detected
# No answer is this long; a longer one (a pasted data dump, a hostile file) is compared on its beginning,
# so one notebook cannot stall the class.
MAX_ANSWER_CHARS = 100_000
MAGIC = re.compile(r"^[ \t]*[%!]", re.M)  # IPython magics and shell lines: not Python, kept as comments
KEPT_NAMES = frozenset(dir(builtins)) - {"_"}
SKIPPED = {tokenize.COMMENT, tokenize.NL, tokenize.ENCODING, tokenize.ENDMARKER}
FSTRING_PARTS = {
    getattr(tokenize, name) for name in ("FSTRING_START", "FSTRING_MIDDLE", "FSTRING_END") if hasattr(tokenize, name)
}  # Python 3.12+ splits f-strings into parts


# ---------------------------------------------------------------- tokens


def tokens(source: str) -> tuple[list[str], list[int]]:
    """The normalized token stream of a code cell and, for each token, its 1-based line in ``source``.

    A cell that does not tokenize (a half-written answer) is read line by line, so what the student did
    write still counts."""
    code = MAGIC.sub(lambda m: m.group(0).replace("%", "#").replace("!", "#"), source)
    try:
        return _normalize(list(tokenize.generate_tokens(io.StringIO(code).readline)))
    except (tokenize.TokenError, SyntaxError):  # IndentationError is a SyntaxError
        pass
    texts, lines = [], []
    for number, line in enumerate(code.splitlines(), start=1):
        try:
            raw = list(tokenize.generate_tokens(io.StringIO(line.strip() + "\n").readline))
        except (tokenize.TokenError, SyntaxError):
            continue
        line_texts, _ = _normalize(raw)
        texts += line_texts
        lines += [number] * len(line_texts)
    return texts, lines


def _normalize(raw: list[tokenize.TokenInfo]) -> tuple[list[str], list[int]]:
    significant = [
        t for t in raw if t.type not in SKIPPED and not (t.type == tokenize.ERRORTOKEN and not t.string.strip())
    ]
    texts: list[str] = []
    lines: list[int] = []
    dropped = -1  # index of the last string statement dropped: its end of line goes with it
    grouping: list[bool] = []  # for each open "(": is it a grouping or tuple parenthesis (dropped)?
    for index, token in enumerate(significant):
        before = significant[index - 1] if index else None
        if token.type == tokenize.OP and token.string in ("(", ")", ","):
            if _layout_only(token, before, significant[index + 1] if index + 1 < len(significant) else None, grouping):
                continue
        text = _token_text(token, before, significant[index - 2] if index > 1 else None)
        if text is None or (index == dropped + 1 and token.type == tokenize.NEWLINE):
            continue
        if token.type == tokenize.STRING and _is_statement(significant, index):
            dropped = index  # a docstring, or a string used as a comment
            continue
        texts.append(text)
        lines.append(token.start[0])
    return texts, lines


def _layout_only(token, before, after, grouping: list[bool]) -> bool:
    """Punctuation that only changes layout: parentheses that group or make a tuple (``return (a, b)``
    is ``return a, b``; a call's or a definition's parentheses stay) and a trailing comma."""
    if token.string == "(":
        call = before is not None and (
            before.type == tokenize.NAME
            and not keyword.iskeyword(before.string)
            or before.string in (")", "]")
            or before.type == tokenize.STRING
        )
        grouping.append(not call)
        return not call
    if token.string == ")":
        return grouping.pop() if grouping else False
    return after is not None and after.string in (")", "]", "}")  # a comma right before a closing bracket


def _token_text(token, before, two_before) -> str | None:
    kind, string = token.type, token.string
    if kind == tokenize.NAME:
        if keyword.iskeyword(string):
            return string
        if before is not None and before.string == "." and before.type == tokenize.OP:
            # An attribute: the API called (``.softmax``) stays, the student's own ``self.x`` does not.
            return "V" if two_before is not None and two_before.string in ("self", "cls") else "." + string
        return string if string in KEPT_NAMES else "V"
    if kind == tokenize.OP:
        return ";" if string == ";" else (None if string == "." else string)
    if kind == tokenize.NEWLINE:
        return ";"
    if kind == tokenize.INDENT:
        return "{"
    if kind == tokenize.DEDENT:
        return "}"
    if kind == tokenize.STRING:
        return "S"
    if kind in FSTRING_PARTS:  # an f-string is one string; the expressions inside it are tokens
        return "S" if kind == getattr(tokenize, "FSTRING_START", None) else None
    if kind == tokenize.NUMBER:
        return _number(string)
    return string


def _number(string: str) -> str:
    """A number by its value: ``1.``, ``1.0`` and ``1_0e-1`` are one token."""
    try:
        return repr(ast.literal_eval(string))
    except (ValueError, SyntaxError):
        return string


def _is_statement(significant, index: int) -> bool:
    """The string at ``index`` is a statement of its own (a docstring), not part of an expression."""
    before = significant[index - 1].type if index else tokenize.NEWLINE
    after = significant[index + 1].type if index + 1 < len(significant) else tokenize.NEWLINE
    return before in (tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT) and after == tokenize.NEWLINE


# ---------------------------------------------------------------- fingerprints

_TOKEN_IDS: dict[str, int] = {}


def _token_id(text: str) -> int:
    """A 64-bit id for a token that is the same in every process (``hash`` of a str is not)."""
    found = _TOKEN_IDS.get(text)
    if found is None:
        found = _TOKEN_IDS[text] = int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "big")
    return found


def kgram_hashes(texts: list[str], k: int = K) -> list[int]:
    """The hash of every run of ``k`` tokens, in order (a tuple of ints hashes the same in every process)."""
    ids = [_token_id(text) for text in texts]
    return [hash(tuple(ids[i : i + k])) for i in range(len(ids) - k + 1)]


def winnow(hashes: list[int], window: int = WINDOW) -> set[int]:
    """The smallest hash of every ``window`` consecutive ones (all of a shorter list's smallest)."""
    if len(hashes) <= window:
        return {min(hashes)} if hashes else set()
    return {min(hashes[start : start + window]) for start in range(len(hashes) - window + 1)}


def starter_hashes(template) -> frozenset[int]:
    """Every k-gram of the release notebook's code: skeletons and provided cells, which all students share."""
    found: set[int] = set()
    for cell in template.cells:
        if cell.get("cell_type") == "code":
            found.update(kgram_hashes(tokens(notebooks.cell_text(cell))[0]))
    return frozenset(found)


def fingerprints(source: str, starter: frozenset[int]) -> frozenset[int]:
    """The winnowed fingerprints of one answer, starter code left out."""
    return frozenset(winnow([h for h in kgram_hashes(tokens(source)[0]) if h not in starter]))


# ---------------------------------------------------------------- a class's answers


@dataclass
class Student:
    """One student's code answers and their fingerprints, per answer cell (grade_id)."""

    student: str
    name: str = ""
    answers: dict[str, str] = field(default_factory=dict)
    prints: dict[str, frozenset[int]] = field(default_factory=dict)
    problem: str | None = None  # why this notebook was not compared (unreadable, another assignment's)
    notes: list[str] = field(default_factory=list)  # what was unusual but still compared

    def keyed_prints(self, questions: list[str]) -> frozenset:
        """All fingerprints, each tagged with its question, so answers only match the same question's (one
        int per fingerprint: sets of ints intersect several times faster than sets of tuples)."""
        return frozenset(hash((index, h)) for index, gid in enumerate(questions) for h in self.prints.get(gid, ()))


@dataclass(frozen=True)
class Context:
    """What every student is compared against: the template, its code answer cells, the starter code."""

    template: object
    questions: tuple[str, ...]
    starter: frozenset[int]


def context(assignment: Assignment, template=None) -> Context:
    """The release notebook (``template``) with its code answer cells in notebook order."""
    if template is None:
        from assignments.grading.submission.load import default_template

        template = default_template(assignment)
    questions = tuple(
        notebooks.grade_id(c)
        for c in template.cells
        if notebooks.is_answer(c) and c.get("cell_type") == "code" and notebooks.grade_id(c)
    )
    return Context(template, questions, starter_hashes(template))


def read_answers(path: Path, ctx: Context) -> tuple[dict[str, str], str | None]:
    """The student's code answers by grade_id, found as the standalone grader finds them (cells with
    lost metadata recovered by content), or ``({}, why)`` for a notebook that cannot be compared."""
    from assignments.grading.submission.preparation import prepare

    # Only the answers are compared: the evidence, the audit and the shortcut check would be wasted here.
    prepared = prepare(None, path, template=ctx.template, evidence=False, audit=False, shortcuts=False)
    if prepared.rejected:
        return {}, prepared.rejection.message
    wanted = set(ctx.questions)
    return {
        notebooks.grade_id(c): notebooks.cell_text(c)
        for c in prepared.restored.cells
        if notebooks.grade_id(c) in wanted
    }, None


def fingerprint_student(student: str, path: Path, ctx: Context, name: str = "") -> Student:
    """One student's answers and fingerprints; whatever goes wrong is this student's ``problem``, and the
    class goes on."""
    try:
        answers, problem = read_answers(path, ctx)
    except Exception as error:  # noqa: BLE001 - one hostile notebook must not stop the class
        from assignments.grading.testkit.kernel_text import describe_exception

        return Student(student, name, problem=f"the notebook could not be read ({describe_exception(error)})")
    result = Student(student, name, problem=problem)
    for gid, code in answers.items():
        if len(code) > MAX_ANSWER_CHARS:
            result.notes.append(f"{gid} is {len(code):,} characters long; its first {MAX_ANSWER_CHARS:,} were compared")
            code = code[:MAX_ANSWER_CHARS]
        result.answers[gid] = code
        result.prints[gid] = fingerprints(code, ctx.starter)
    return result


_WORKER_CONTEXT: Context | None = None


def _worker_init(ctx: Context) -> None:
    global _WORKER_CONTEXT
    _WORKER_CONTEXT = ctx


def _worker_fingerprint(job: tuple[str, str, str]) -> Student:
    student, path, name = job
    return fingerprint_student(student, Path(path), _WORKER_CONTEXT, name)


def fingerprint_class(
    submissions: list[tuple[str, Path, str]], ctx: Context, workers: int | None = None
) -> list[Student]:
    """Read and fingerprint every ``(student, notebook path, display name)``, in ``workers`` processes
    (default: the CPU cores); in student order."""
    workers = max(1, min(workers or os.cpu_count() or 1, len(submissions)))
    jobs = [(student, str(path), name) for student, path, name in sorted(submissions)]
    if workers == 1:
        return [fingerprint_student(s, Path(p), ctx, n) for s, p, n in jobs]
    with ProcessPoolExecutor(workers, initializer=_worker_init, initargs=(ctx,)) as pool:
        return list(pool.map(_worker_fingerprint, jobs, chunksize=max(1, len(jobs) // (workers * 4))))


# ---------------------------------------------------------------- pairs


@dataclass
class QuestionMatch:
    """One question of one pair: how much the two answers share, and which of their lines."""

    grade_id: str
    jaccard: float  # shared fingerprints / fingerprints either answer has
    containment: float  # shared fingerprints / fingerprints of the smaller answer
    shared: int
    lines_a: list[int] = field(default_factory=list)  # 1-based lines inside a passage both answers have
    lines_b: list[int] = field(default_factory=list)


@dataclass
class Pair:
    a: str
    b: str
    score: float  # Jaccard index over all questions' fingerprints together
    shared: int  # fingerprints the two have in common (same question)
    questions: list[QuestionMatch] = field(default_factory=list)  # filled by ``explain``


def rank_pairs(students: list[Student], questions: list[str] | tuple[str, ...]) -> list[Pair]:
    """Every pair of compared students that shares a fingerprint, highest score first."""
    keyed = [(s.student, s.keyed_prints(list(questions))) for s in students if s.problem is None]
    pairs = []
    for index, (a, mine) in enumerate(keyed):
        if not mine:
            continue
        for b, theirs in keyed[index + 1 :]:
            shared = len(mine & theirs)
            if shared:
                pairs.append(Pair(a, b, shared / (len(mine) + len(theirs) - shared), shared))
    pairs.sort(key=lambda p: (-p.score, -p.shared, p.a, p.b))
    return pairs


def explain(pair: Pair, by_student: dict[str, Student], questions, starter: frozenset[int]) -> Pair:
    """Fill ``pair.questions``: per question the scores and the lines that both answers share."""
    first, second = by_student[pair.a], by_student[pair.b]
    pair.questions = []
    for gid in questions:
        mine, theirs = first.prints.get(gid, frozenset()), second.prints.get(gid, frozenset())
        if not mine and not theirs:
            continue
        shared = len(mine & theirs)
        either, smaller = len(mine | theirs), min(len(mine), len(theirs))
        lines_a, lines_b = (
            shared_lines(first.answers.get(gid, ""), second.answers.get(gid, ""), starter) if shared else ([], [])
        )
        pair.questions.append(
            QuestionMatch(
                gid, shared / either if either else 0.0, shared / smaller if smaller else 0.0, shared, lines_a, lines_b
            )
        )
    pair.questions.sort(key=lambda q: (-q.jaccard, questions.index(q.grade_id)))
    return pair


def shared_lines(first: str, second: str, starter: frozenset[int]) -> tuple[list[int], list[int]]:
    """Lines of each answer that hold a token of a k-gram the other answer also has: every shared passage,
    not only its winnowed fingerprints, so the highlight shows the whole of it. Tokens of the starter code
    (a skeleton's ``def`` line) are never highlighted."""
    texts_a, lines_a = tokens(first)
    texts_b, lines_b = tokens(second)
    hashes_a, hashes_b = kgram_hashes(texts_a), kgram_hashes(texts_b)
    common = (set(hashes_a) & set(hashes_b)) - starter
    return _covered(hashes_a, lines_a, common, starter), _covered(hashes_b, lines_b, common, starter)


def _covered(hashes: list[int], lines: list[int], common: set[int], starter: frozenset[int]) -> list[int]:
    shared, provided = [False] * len(lines), [False] * len(lines)
    for start, h in enumerate(hashes):
        if h in common:
            shared[start : start + K] = [True] * K
        elif h in starter:
            provided[start : start + K] = [True] * K
    return sorted({line for line, mine, given in zip(lines, shared, provided) if mine and not given})


@dataclass
class Comparison:
    """A class compared: the students (with what was not compared and why) and the ranked pairs."""

    assignment: str
    questions: tuple[str, ...]
    students: list[Student]
    pairs: list[Pair]
    timings: dict[str, float] = field(default_factory=dict)  # seconds per phase

    def nearest(self) -> dict[str, tuple[str, float]]:
        """Each student's most similar classmate and their score (students sharing nothing are absent)."""
        best: dict[str, tuple[str, float]] = {}
        for pair in self.pairs:  # best first, so the first pair naming a student is theirs
            best.setdefault(pair.a, (pair.b, pair.score))
            best.setdefault(pair.b, (pair.a, pair.score))
        return best


def compare_class(
    assignment: Assignment,
    submissions: list[tuple[str, Path, str]],
    top: int = 20,
    workers: int | None = None,
    template=None,
) -> Comparison:
    """Fingerprint every submission, rank every pair, and explain the ``top`` pairs question by question."""
    clock = time.perf_counter()
    ctx = context(assignment, template)
    students = fingerprint_class(submissions, ctx, workers)
    timings = {"fingerprints_s": time.perf_counter() - clock}
    clock = time.perf_counter()
    pairs = rank_pairs(students, ctx.questions)
    timings["pairs_s"] = time.perf_counter() - clock
    clock = time.perf_counter()
    by_student = {s.student: s for s in students}
    for pair in pairs[:top]:
        explain(pair, by_student, list(ctx.questions), ctx.starter)
    timings["explain_s"] = time.perf_counter() - clock
    return Comparison(assignment.name, ctx.questions, students, pairs, timings)
