"""Claims and their sources: every figure or finding stated in a source's prose, prompts, model answers and
mark schemes is measured, derived, estimated or cited, and says which (issue #34).

The convention is Markdown's footnote syntax, so the text stays readable in Jupyter (which shows the marker
as typed) and renders as footnotes on GitHub (model_answers.md). A claim carries a marker, ``[^key]``, in the
same sentence; the notebook defines each key once, on a line of its own in a Markdown cell::

    ... reach close to the same perplexity[^haviv2022].

    [^haviv2022]: Haviv, Ram, Press, Izsak and Levy (2022), "Transformer language models without positional
      encodings still learn positional information", Findings of EMNLP. Setting: causal LMs of 125M to 1.3B
      parameters trained on WikiText-103 and the Pile, perplexity on their test sets.
    [^cpu-minutes]: Measured: benchmarks/student_cpu.py (benchmarks/README.md, CPU table), 2-core x86-64, one
      thread, scaled by 1.9 to Colab's CPU runtime.

A definition's first word says its kind:

- ``Measured:`` a run in this repository made the figure: it names the cell by its grade_id (``cell
  transfer_run``) or a file of the repository by its path, and the conditions (mode, data, seeds, machine);
- ``Derived:`` arithmetic on figures the text states, written out in full;
- ``Estimate:`` a planning figure (time to plan for), with whose estimate it is and what it rests on;
- anything else is a citation: authors, a year and the work, then ``Setting:`` and the conditions the cited
  figure holds under (model, data, size), so a reader can tell whether it transfers to this notebook.

What counts as a claim (``claims_in``): a sentence that states a quantity with a unit (a percentage, a
duration, a memory size, "N times faster"), an approximate quantity ("about two million", "a few thousand",
"~15"), or a general finding in words that usually signal one ("typically", "tends to", "works as well",
"faster to train"). Code, inline code and formulas are not read. An author who knows of a claim the
patterns miss writes ``[^?]``, "source needed", which the check lists until it is replaced by a real key.

Scope: the Markdown cells of the source notebook and the staff's optional-answers file. A student sees every
cell but the written answers (answer and mark scheme are replaced in the release), so a marker in a cell
students see must be defined in a cell students see; a marker in a written answer may use any definition.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from assignments import notebooks

# Assignments whose sources are not annotated yet: the release reports their unsourced claims without
# refusing them. Empty since issue #34 annotated all three; a new assignment may be listed here, with why,
# until `course claims <name>` is clean.
NOT_YET_ENFORCED: dict[str, str] = {}

MARKER = re.compile(r"\[\^([^\]\s]+)\](?!:)")
DEFINITION = re.compile(r"^\[\^([^\]\s]+)\]:\s*(.*)$")
SOURCE_NEEDED = "?"
KINDS = ("Measured:", "Derived:", "Estimate:")

_NUMBER_WORDS = (
    r"one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|forty|fifty|"
    r"hundred|thousand|million|billion|half|a few|a dozen|dozens|hundreds|thousands|millions"
)
_DIGITS = r"\d[\d,]*(?:\.\d+)?"
_NUMBER = rf"(?:{_DIGITS}|(?:{_NUMBER_WORDS})\b)"
_DIGITS_RANGE = rf"{_DIGITS}(?:\s*(?:-|–|to)\s*{_DIGITS})?"
_RANGE = rf"{_NUMBER}(?:\s*(?:-|–|to)\s*{_NUMBER})?"
# Each pattern finds one kind of claim; the name shows in the report. A number word needs a space before
# its unit ("ones" is no duration), and short units need digits ("2H" in a formula is no duration).
PATTERNS = {
    "a percentage": re.compile(rf"\b{_DIGITS_RANGE}\s*%|\b{_RANGE}\s+(?:percent|per cent|percentage points?)\b", re.I),
    "a duration": re.compile(
        rf"\b{_DIGITS_RANGE}\s?(?:ms|s|sec|min)\b(?![-'])"
        rf"|\b{_RANGE}\s+(?:seconds?|minutes?|hours?|days?|weeks?)\b",
        re.I,
    ),
    "a memory size": re.compile(rf"\b{_DIGITS_RANGE}\s?(?:[KMGT]i?B)\b"),
    "a ratio": re.compile(
        rf"\b{_NUMBER}\s*(?:x|×)\s+(?:faster|slower|more|fewer|larger|smaller|less)\b"
        rf"|\b{_NUMBER}\s+times\s+(?:faster|slower|more|fewer|larger|smaller|less|as)\b",
        re.I,
    ),
    "an approximate quantity": re.compile(
        rf"(?:\b(?:about|around|roughly|approximately)\s+|~\s*|≈\s*){_NUMBER}"
        rf"|\ba few (?:hundred|thousand|million|billion)\b",
        re.I,
    ),
    "a general finding": re.compile(
        r"\b(?:typically|usually|tends? to|in practice|works? as well|is known to|are known to|"
        r"studies show|faster to train|slower to train|outperforms?)\b",
        re.I,
    ),
}
# Abbreviations whose full stop does not end a sentence.
_ABBREVIATIONS = re.compile(r"\b(?:et al|e\.g|i\.e|etc|vs|cf|approx|Fig|Eq|No|resp)\.", re.I)
_CODE_FENCE = re.compile(r"^\s*(```|~~~)")
_INLINE_CODE = re.compile(r"`[^`\n]*`")
_MATH = re.compile(r"\$\$.*?\$\$|\$[^$\n]*\$", re.S)
_LINK_TARGET = re.compile(r"\]\([^)]*\)|<[^>\n]*>")
_SENTENCE_END = re.compile(r"(?<=[.!?])[\"”')\]*_]*\s+(?=[A-Z0-9(\[\"“*_])")
_BLOCK_START = re.compile(r"^\s*(?:[-*+]\s|\d+[.)]\s|#{1,6}\s|\|)")


@dataclass(frozen=True)
class Text:
    """One Markdown text the check reads: where it is (for messages) and whether only staff read it."""

    place: str  # "<file>: cell N (grade_id)" or "<file>"
    text: str
    staff_only: bool


@dataclass(frozen=True)
class Claim:
    kind: str  # which pattern found it
    sentence: str
    markers: tuple[str, ...]  # the keys the sentence carries


@dataclass(frozen=True)
class Definition:
    key: str
    text: str
    place: str
    staff_only: bool


def _prose_lines(text: str) -> list[str]:
    """``text`` without fenced code, inline code, formulas, HTML tags and link targets (a URL is no claim)."""
    kept, fenced = [], False
    for line in text.split("\n"):
        if _CODE_FENCE.match(line):
            fenced = not fenced
            continue
        kept.append("" if fenced else line)
    text = "\n".join(kept)
    for pattern in (_MATH, _INLINE_CODE, _LINK_TARGET):
        text = pattern.sub(lambda m: "]" if m.group(0).startswith("]") else " ", text)
    return text.split("\n")


def _blocks(text: str) -> list[str]:
    """Paragraphs, list items, headings and table rows, each joined into one line; footnote definitions and
    nbgrader's marker lines are left out."""
    blocks, current = [], []

    def close():
        if current:
            blocks.append(" ".join(current))
            current.clear()

    in_definition = False
    for line in _prose_lines(text):
        stripped = line.strip()
        if DEFINITION.match(stripped) and not line[:1].isspace():
            close()
            in_definition = True
            continue
        if in_definition and line[:1].isspace() and stripped:
            continue  # a definition's continuation line
        in_definition = False
        if not stripped or notebooks.marker_in(line):
            close()
            continue
        if _BLOCK_START.match(line):
            close()
        current.append(stripped)
        if stripped.startswith(("#", "|")):
            close()
    close()
    return blocks


def sentences(text: str) -> list[str]:
    """The sentences of a Markdown text, as the check reads them (see ``_blocks``)."""
    found = []
    for block in _blocks(text):
        protected = _ABBREVIATIONS.sub(lambda m: m.group(0).replace(".", "\0"), block)
        found += [part.replace("\0", ".") for part in _SENTENCE_END.split(protected) if part.strip()]
    return found


def claims_in(text: str) -> list[Claim]:
    """Every sentence of ``text`` that makes a claim (or that its author flagged), with its markers."""
    found = []
    for sentence in sentences(text):
        markers = tuple(MARKER.findall(sentence))
        plain = MARKER.sub("", sentence)
        if plain.rstrip(" *_\"'”)").endswith("?"):
            continue  # a question asks; it claims nothing
        kind = next((name for name, pattern in PATTERNS.items() if pattern.search(plain)), None)
        if kind is None and SOURCE_NEEDED in markers:
            kind = "flagged by the author"
        if kind is not None:
            found.append(Claim(kind, sentence, markers))
    return found


def definitions_in(item: Text) -> list[Definition]:
    """Footnote definitions: a ``[^key]: ...`` line and its indented continuation lines."""
    found, current = [], None
    for line in item.text.split("\n"):
        match = DEFINITION.match(line) if not line[:1].isspace() else None
        if match:
            current = [match.group(1), [match.group(2)]]
            found.append(current)
        elif current is not None and line[:1].isspace() and line.strip():
            current[1].append(line.strip())
        else:
            current = None
    return [Definition(key, " ".join(parts).strip(), item.place, item.staff_only) for key, parts in found]


def _excerpt(sentence: str, limit: int = 100) -> str:
    return sentence if len(sentence) <= limit else sentence[: limit - 3].rstrip() + "..."


_PATH = r"[\w./-]+\.(?:py|md|json|ipynb|txt)\b"


def definition_problems(definition: Definition, cell_ids: set[str], root: Path) -> list[str]:
    """What a definition lacks for its kind (empty when it is complete)."""
    text = definition.text
    if text.startswith("Measured:"):
        # "cell <grade_id>": a word after "cell" is a grade_id when the notebook has it or when it is shaped
        # like one (an underscore or a digit: a misspelt id); "every cell of the notebook" names none.
        named = [
            name for name in re.findall(r"\bcells? ([\w-]+)", text) if name in cell_ids or re.search(r"[_\d]", name)
        ]
        paths = re.findall(_PATH, text)
        problems = [f"names cell {name!r}, which the notebook does not have" for name in named if name not in cell_ids]
        problems += [
            f"names {path}, which is not a file of the repository" for path in paths if not (root / path).is_file()
        ]
        conditions = text[len("Measured:") :]
        for name in named:
            conditions = re.sub(rf"\bcells? {re.escape(name)}\b", "", conditions)
        conditions = re.sub(_PATH, "", conditions).strip(" ,;.()")
        if not named and not paths:
            problems.append("a Measured: source names what measured it: cell <grade_id>, or a file's path")
        elif len(conditions) < 20:
            problems.append("a Measured: source states its conditions (mode, data, seeds, machine)")
        return problems
    if text.startswith("Derived:"):
        return (
            []
            if re.search(r"\d\s*[=×*/+−-]\s*\d|\d\s*[=×*/+−-].*=\s*\d", text)
            else ["a Derived: source writes out its arithmetic"]
        )
    if text.startswith("Estimate:"):
        return [] if len(text) >= 60 else ["an Estimate: says whose estimate it is and what it rests on"]
    problems = []
    if not re.search(r"\b(?:19|20)\d\d\b", text):
        problems.append("a citation gives the year of the work")
    if "Setting:" not in text:
        problems.append("a citation states its setting after 'Setting:' (model, data, size)")
    return problems


def check_texts(texts: list[Text], cell_ids: set[str], root: Path) -> list[str]:
    """Every problem of ``texts`` read together (one footnote namespace), one ``<place>: <problem>`` line each."""
    definitions: dict[str, Definition] = {}
    problems = []
    for item in texts:
        for definition in definitions_in(item):
            if definition.key in definitions:
                problems.append(
                    f"{item.place}: footnote [^{definition.key}] is defined twice "
                    f"(first in {definitions[definition.key].place})"
                )
                continue
            definitions[definition.key] = definition
            problems += [
                f"{item.place}: footnote [^{definition.key}]: {problem}"
                for problem in definition_problems(definition, cell_ids, root)
            ]
    used = set()
    for item in texts:
        for sentence in sentences(item.text):
            for key in MARKER.findall(sentence):
                used.add(key)
                found = definitions.get(key)
                if key == SOURCE_NEEDED:
                    problems.append(f"{item.place}: source needed ([^?]): {_excerpt(sentence)!r}")
                elif found is None:
                    problems.append(f"{item.place}: footnote [^{key}] has no definition (a '[^{key}]: ...' line)")
                elif found.staff_only and not item.staff_only:
                    problems.append(
                        f"{item.place}: footnote [^{key}] is defined in {found.place}, which students "
                        "do not see: define it in a cell they see"
                    )
        problems += [
            f"{item.place}: unsourced claim ({claim.kind}): {_excerpt(claim.sentence)!r}; put a footnote "
            "[^key] in that sentence and define it (measured, derived, estimate or cited)"
            for claim in claims_in(item.text)
            if not claim.markers
        ]
    problems += [
        f"{d.place}: footnote [^{key}] is defined but never used" for key, d in definitions.items() if key not in used
    ]
    return problems


def assignment_texts(assignment, display=str) -> list[Text]:
    """The Markdown cells of an assignment's source notebook, then its optional-answers file if it has one."""
    nb = notebooks.read(assignment.source_path)
    name = display(assignment.source_path)
    texts = [
        Text(
            f"{name}: cell {index} ({notebooks.grade_id(cell) or 'no grade_id'})",
            cell.source,
            notebooks.is_manually_graded(cell),
        )
        for index, cell in enumerate(nb.cells)
        if cell.cell_type == "markdown"
    ]
    if assignment.optional_answers_path.is_file():
        texts.append(
            Text(
                display(assignment.optional_answers_path),
                assignment.optional_answers_path.read_text(encoding="utf-8"),
                True,
            )
        )
    return texts


def check_assignment(assignment, display=str) -> list[str]:
    """Every claims problem of one assignment, as ``course release`` and ``course hygiene`` report them."""
    nb = notebooks.read(assignment.source_path)
    cell_ids = {gid for gid in (notebooks.grade_id(cell) for cell in nb.cells) if gid}
    return check_texts(assignment_texts(assignment, display), cell_ids, assignment.course.root)


def every_problem(course, names: list[str]) -> list[str]:
    """Every claims problem of the named assignments, enforced or not (``course claims``)."""
    return [line for name in names for line in check_assignment(course.assignment(name), course.display)]


def enforced_problems(course, names: list[str]) -> list[str]:
    """The claims problems that refuse a release: those of every named assignment not in NOT_YET_ENFORCED."""
    return [
        line
        for name in names
        if name not in NOT_YET_ENFORCED
        for line in check_assignment(course.assignment(name), course.display)
    ]


def pending_notes(course, names: list[str]) -> list[str]:
    """One line per named assignment whose claims are not enforced yet and still have problems."""
    notes = []
    for name in names:
        if name in NOT_YET_ENFORCED:
            count = len(check_assignment(course.assignment(name), course.display))
            if count:
                notes.append(
                    f"note: {name}: {count} claims problem(s), not enforced yet ({NOT_YET_ENFORCED[name]}); "
                    f"`course claims {name}` lists them"
                )
    return notes
