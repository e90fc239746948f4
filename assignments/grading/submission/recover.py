"""Find the assignment's cells in a submission whose nbgrader metadata is missing or wrong.

Students copy their cells into a fresh Colab notebook, editors drop cell metadata, and an older release
named its cells differently. The cells are still there; only their labels are gone. ``recover`` matches
each template cell (the release notebook) to a submission cell, in this order:

1. **by id**: the submission cell carries the template cell's grade_id (the normal case);
2. **by text**: a locked or test cell whose text equals the template's (trailing spaces, line endings and
   the source's hidden-test region ignored);
3. **by definitions**: an answer code cell defines (at top level, read with ``ast``) a function, class or
   name that the template's skeleton defines, or keeps the skeleton's docstring; a cell with a syntax
   error is read line by line instead. A skeleton that defines nothing (its names sit inside the solution
   region, as in ``MY_REVIEWS = [...]``) is found by its comment lines, all of which the cell must keep;
4. **by similar text**: a locked or test cell with 80% of its lines alike (an older release); restore
   then reports it as edited and uses the template's;
5. **by position**: a markdown answer sits between the cells matched to its neighbours in the template.

Matched cells get the template's grade_id (and its nbgrader metadata when they had none), so
``restore.restore`` then rebuilds the notebook exactly as for an intact submission: the student gains
nothing by dropping metadata, and loses nothing either. Unmatched cells keep what they claimed and are
treated as cells the student added.

Conflicts are resolved the way a Jupyter "run all" would leave the kernel, and always reported: when
several cells define the same answer, the last one that parses is the answer and the others run where
the student put them, as their own code; a locked cell pasted twice counts once.
"""

from __future__ import annotations

import ast
import copy
import difflib
import re
from dataclasses import dataclass, field

from assignments import notebooks
from assignments.notebooks import HIDDEN_TESTS, strip_region
from assignments.results.model import Finding

MAGIC = re.compile(r"^[ \t]*[%!]", re.M)
COMMENT_LINE = re.compile(r"^[ \t]*#(.*)$", re.M)
# nbgrader's stub in a released answer cell: every answer skeleton has it, so it tells nothing apart.
STUB_COMMENT = "YOUR CODE HERE"
# A skeleton's comments place a cell only when they say something (at least this many characters in all).
MIN_COMMENT_CHARS = 20
DEF_LINE = re.compile(r"^(?:async[ \t]+)?(?:def|class)[ \t]+([A-Za-z_]\w*)", re.M)
ASSIGN_LINE = re.compile(r"^([A-Za-z_]\w*)[ \t]*(?::[^=\n]*)?=(?!=)", re.M)
MAX_PARSED_CHARS = 1_000_000
# Two cells with this share of lines alike (difflib's ratio) are one locked cell in two releases.
SIMILAR = 0.8
# A submission counts as this assignment's when at least 1 in FOREIGN_RATIO of its cells is found in it.
FOREIGN_RATIO = 10


def normalized(source) -> str:
    """Text as compared: line endings, trailing spaces and the source's hidden-test region ignored."""
    body = "".join(source) if isinstance(source, list) else str(source or "")
    body = strip_region(body.replace("\r\n", "\n").replace("\r", "\n"), *HIDDEN_TESTS)
    return "\n".join(line.rstrip() for line in body.strip().splitlines())


@dataclass(frozen=True)
class Definitions:
    names: frozenset  # top-level def/class names
    assigned: frozenset  # other top-level names (constants, aliases)
    docstrings: frozenset  # docstrings of those defs/classes
    complete: bool  # the cell parses (a Jupyter magic line does not count against it)
    comments: frozenset = frozenset()  # the cell's comment lines, stripped (nbgrader's stub left out)

    def placeable_by_comments(self) -> bool:
        """A skeleton that defines nothing can still be told apart by what its comments say."""
        return not (self.names or self.assigned) and sum(len(c) for c in self.comments) >= MIN_COMMENT_CHARS


def comment_lines(source: str) -> frozenset:
    return frozenset(
        line
        for line in (m.group(1).strip() for m in COMMENT_LINE.finditer(source))
        if line and STUB_COMMENT not in line
    )


def definitions(source: str) -> Definitions:
    """What a code cell defines at top level; tolerant of syntax errors and Jupyter magics."""
    code = MAGIC.sub(lambda m: m.group(0).replace("%", "#").replace("!", "#"), source)
    try:
        if len(code) > MAX_PARSED_CHARS:  # no answer is this long; reading lines is enough to place it
            raise ValueError("too long to parse")
        tree = ast.parse(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        # Half-finished answers still name what they are an answer to.
        return Definitions(
            frozenset(DEF_LINE.findall(code)),
            frozenset(ASSIGN_LINE.findall(code)),
            frozenset(),
            False,
            comment_lines(source),
        )
    names, assigned, docs = set(), set(), set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
            doc = ast.get_docstring(node)
            if doc:
                docs.add(doc.strip())
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            assigned |= {t.id for t in targets if isinstance(t, ast.Name)}
    return Definitions(frozenset(names), frozenset(assigned), frozenset(docs), True, comment_lines(source))


METHODS = ("id", "text", "definitions", "similar text", "position")


@dataclass
class Recovery:
    """How each template cell was found in the submission, and the relabelled submission."""

    notebook: object  # the submission with template metadata restored
    how: dict = field(default_factory=dict)  # template grade_id -> one of METHODS
    renamed: list = field(default_factory=list)  # (the grade_id the cell claimed, the template's)
    findings: list = field(default_factory=list)  # ambiguities, each a Finding
    graded: int = 0  # graded cells (code answers, tests) in the template
    graded_found: int = 0  # how many of them were found, by any method
    foreign: list = field(default_factory=list)  # grade_ids the template lacks, on cells left unmatched
    submitted: int = 0  # non-empty cells in the submission
    evidence: int = 0  # of those, matched by id, text or definitions

    def looks_foreign(self) -> bool:
        """Another assignment's notebook can share a name or two with this one (a PositionalEncoding),
        never most of its cells; an honest notebook, even with many cells of the student's own, is mostly
        the assignment's cells or answers."""
        return self.evidence * FOREIGN_RATIO < self.submitted

    def count(self, method: str) -> int:
        return sum(1 for m in self.how.values() if m == method)

    def summary(self) -> Finding | None:
        """The one finding that says what was recovered (None when every cell kept its grade_id)."""
        recovered = {m: self.count(m) for m in METHODS[1:]}
        if not any(recovered.values()):
            return None
        parts = [f"{n} by {'position' if m == 'position' else 'their ' + m}" for m, n in recovered.items() if n]
        total = sum(recovered.values())
        message = (
            f"{total} cell(s) had lost or changed their nbgrader metadata and were matched to the "
            f"assignment by content ({', '.join(parts)}; {self.count('id')} by grade_id); the "
            "assignment's metadata was restored and they were graded as in the original notebook"
        )
        if self.renamed:
            shown = ", ".join(f"{old} -> {new}" for old, new in self.renamed[:6])
            message += f". Renamed grade_ids: {shown}{' ...' if len(self.renamed) > 6 else ''}"
        return Finding("cells-recovered", message, "warning")


def _role(cell) -> str:
    if notebooks.is_answer(cell):
        return "answer-code" if cell.get("cell_type") == "code" else "answer-markdown"
    return "locked"


def recover(submission, template) -> Recovery:
    """Match the submission's cells to the template's (see the module docstring). Never edits its input."""
    nb = copy.deepcopy(submission)
    cells = nb.cells
    template_cells = [(notebooks.grade_id(c), c) for c in template.cells if notebooks.grade_id(c)]
    by_gid = dict(template_cells)
    order = {gid: i for i, (gid, _) in enumerate(template_cells)}
    result = Recovery(nb)
    result.graded = sum(
        1
        for _, c in template_cells
        if notebooks.is_answer(c) and c.get("cell_type") == "code" or notebooks.is_autograded_test(c)
    )
    matched: dict[int, str] = {}  # submission cell index -> template grade_id

    # 1. by id: the first cell carrying a template grade_id (restore reports any later copies).
    for index, cell in enumerate(cells):
        gid = notebooks.grade_id(cell)
        if gid in by_gid and gid not in result.how:
            matched[index] = gid
            result.how[gid] = "id"
    free = [i for i, c in enumerate(cells) if i not in matched and notebooks.grade_id(c) not in by_gid]

    # 2. by text: locked and test cells, whose text the student had no reason to change.
    wanted = {}
    for gid, cell in template_cells:
        if _role(cell) == "locked":
            wanted.setdefault((cell.get("cell_type"), normalized(cell.get("source"))), gid)
    for index in free:
        key = (cells[index].get("cell_type"), normalized(cells[index].get("source")))
        gid = wanted.get(key)
        if gid is None or not key[1]:
            continue
        if gid in result.how:
            # A locked cell pasted again: labelled as that cell, so restore keeps one and says so (run as
            # the student's code, a pasted test cell would only repeat the visible checks).
            _label(cells[index], by_gid[gid])
            continue
        matched[index] = gid
        result.how[gid] = "text"
    free = [i for i in free if i not in matched and notebooks.grade_id(cells[i]) not in by_gid]

    # 3. by definitions: answer code cells, by the names the skeleton defines.
    _match_definitions(cells, free, template_cells, result, matched)
    free = [i for i in free if i not in matched]

    # 3b. by similar text: a locked cell an older release worded a little differently (after answers
    # were placed, so an answer is never taken for a locked cell; restore reports the difference).
    _match_similar(cells, free, template_cells, result, matched)
    free = [i for i in free if i not in matched]

    # 4. by position: markdown answers between matched neighbours.
    joined = _match_positions(cells, free, template_cells, order, result, matched)

    for index, gid in sorted(matched.items()):
        if result.how[gid] != "id":
            claimed = notebooks.grade_id(cells[index])
            if claimed and claimed != gid:
                result.renamed.append((claimed, gid))
            _label(cells[index], by_gid[gid])
    result.graded_found = sum(
        1
        for gid in matched.values()
        if _role(by_gid[gid]) == "answer-code" or notebooks.is_autograded_test(by_gid[gid])
    )
    result.foreign = sorted(
        {
            notebooks.grade_id(c)
            for i, c in enumerate(cells)
            if i not in matched and notebooks.grade_id(c) and notebooks.grade_id(c) not in by_gid
        }
    )
    result.submitted = sum(1 for c in cells if notebooks.cell_text(c).strip())
    result.evidence = sum(1 for gid in matched.values() if result.how[gid] != "position")
    nb.cells = [c for i, c in enumerate(cells) if i not in joined]
    return result


def _label(cell, template_cell) -> None:
    """Give ``cell`` the template cell's grade_id. Metadata it still has keeps the rest of what it claims
    (raised points, say), so restore reports that as for any cell; a cell with none gets the template's."""
    metadata = cell.setdefault("metadata", {})
    claimed = metadata.get("nbgrader")
    if isinstance(claimed, dict) and claimed:
        claimed["grade_id"] = notebooks.grade_id(template_cell)
    else:
        metadata["nbgrader"] = copy.deepcopy(notebooks.nbgrader(template_cell))


def _match_definitions(cells, free, template_cells, result: Recovery, matched: dict) -> None:
    answers = [
        (gid, definitions(notebooks.cell_text(c)))
        for gid, c in template_cells
        if gid not in result.how and _role(c) == "answer-code"
    ]
    answers = [(gid, d) for gid, d in answers if d.names or d.assigned or d.placeable_by_comments()]
    if not answers:
        return
    claims: dict[str, list[tuple[int, Definitions]]] = {}
    for index in free:
        if cells[index].get("cell_type") != "code":
            continue
        found = definitions(notebooks.cell_text(cells[index]))
        # The skeleton's names decide; its docstring, kept by most students, places a renamed answer.
        overlapping = [
            gid
            for gid, skeleton in answers
            if found.names & skeleton.names
            or found.docstrings & skeleton.docstrings
            or (not skeleton.names and found.assigned & skeleton.assigned)
            or (skeleton.placeable_by_comments() and skeleton.comments <= found.comments)
        ]
        if overlapping:
            # A cell answering several questions at once sits at the last of them, so no later skeleton
            # stub overwrites what it defined (the earlier questions' stubs run first and are replaced).
            claims.setdefault(overlapping[-1], []).append((index, found))
            if len(overlapping) > 1:
                result.findings.append(
                    Finding(
                        "recovery-ambiguous",
                        f"cell {index + 1} defines the answers of {', '.join(overlapping)}; "
                        f"it was placed at {overlapping[-1]}, the last of them, so its definitions are the ones "
                        "that run",
                        "warning",
                        overlapping[-1],
                    )
                )
    for gid, skeleton in answers:
        candidates = claims.get(gid, [])
        if not candidates:
            continue
        # Run-all semantics: the last complete definition is what the kernel would hold.
        complete = [c for c in candidates if c[1].complete] or candidates
        chosen = complete[-1][0]
        matched[chosen] = gid
        result.how[gid] = "definitions"
        if len(candidates) > 1:
            others = ", ".join(str(i + 1) for i, _ in candidates if i != chosen)
            broken = [i + 1 for i, d in candidates if not d.complete]
            why = "the last one" + (" that parses" if broken else "")
            result.findings.append(
                Finding(
                    "recovery-ambiguous",
                    f"{len(candidates)} cells define the answer {gid} "
                    f"({', '.join(sorted(skeleton.names | skeleton.assigned)) or 'by its comments'}); {why} (cell {chosen + 1}) was "
                    f"graded as the answer, as a run-all would leave it; cell(s) {others} run where you put "
                    "them, as your own code",
                    "warning",
                    gid,
                )
            )


def _match_similar(cells, free, template_cells, result: Recovery, matched: dict) -> None:
    # Compared line by line: "most lines the same" is what an older wording looks like, and it is fast.
    lines = {i: normalized(cells[i].get("source")).splitlines() for i in free}
    for gid, cell in template_cells:
        wanted = normalized(cell.get("source")).splitlines()
        if gid in result.how or _role(cell) != "locked" or not wanted:
            continue
        matcher = difflib.SequenceMatcher(None, autojunk=False)
        matcher.set_seq2(wanted)
        best, best_ratio = None, SIMILAR
        for index in free:
            if index in matched or cells[index].get("cell_type") != cell.get("cell_type"):
                continue
            matcher.set_seq1(lines[index])
            if (
                matcher.real_quick_ratio() >= best_ratio
                and matcher.quick_ratio() >= best_ratio
                and matcher.ratio() >= best_ratio
            ):
                best, best_ratio = index, matcher.ratio()
        if best is not None:
            matched[best] = gid
            result.how[gid] = "similar text"


def _match_positions(cells, free, template_cells, order, result: Recovery, matched: dict) -> set[int]:
    """Match markdown answers by position; return the cells joined into another (to be removed)."""
    joined: set[int] = set()
    position = {gid: index for index, gid in matched.items()}
    gaps: dict[tuple[int, int], list[str]] = {}
    for gid, cell in template_cells:
        if gid in result.how or _role(cell) != "answer-markdown":
            continue
        at = order[gid]
        before = next((position[g] for g, _ in reversed(template_cells[:at]) if g in position), -1)
        after = next((position[g] for g, _ in template_cells[at + 1 :] if g in position), len(cells))
        if before < after:
            gaps.setdefault((before, after), []).append(gid)
    for (before, after), gids in gaps.items():
        candidates = [
            i for i in free if before < i < after and cells[i].get("cell_type") == "markdown" and i not in matched
        ]
        if not candidates:
            continue
        if len(candidates) == len(gids):
            pairs = list(zip(candidates, gids))
        elif len(gids) == 1:
            # Several markdown cells where one answer belongs: keep all the student wrote, in one cell.
            first = candidates[0]
            cells[first]["source"] = "\n\n".join(notebooks.cell_text(cells[i]) for i in candidates)
            joined.update(candidates[1:])
            pairs = [(first, gids[0])]
            result.findings.append(
                Finding(
                    "recovery-ambiguous",
                    f"{len(candidates)} markdown cells sit where the written answer "
                    f"{gids[0]} belongs (cells {', '.join(str(i + 1) for i in candidates)}); they were joined "
                    "into one answer",
                    "warning",
                    gids[0],
                )
            )
        else:
            result.findings.append(
                Finding(
                    "recovery-ambiguous",
                    f"{len(candidates)} markdown cells sit where the {len(gids)} written "
                    f"answers {', '.join(gids)} belong; they could not be told apart, so those answers were "
                    "left for a person to find",
                    "warning",
                    gids[0],
                )
            )
            continue
        for index, gid in pairs:
            matched[index] = gid
            result.how[gid] = "position"
    return joined


__all__ = ["recover", "Recovery", "definitions", "normalized"]
