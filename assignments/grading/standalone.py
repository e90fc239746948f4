"""The standalone door: grade ONE submission with no student code in this process. Never raises.

    result = grade_submission("transformers", Path("alice.ipynb"), "alice")

1. **Read** the file defensively. Other encodings than UTF-8 (``decoding.decode``), Windows line
   endings and editors' extra metadata are read and noted. A missing file, binary data, invalid JSON,
   not a notebook, an nbformat older than 4 (converted, and noted) or newer than this grader knows: each
   is a clear finding and a ``rejected`` result with zero autograded points.
2. **Check** it is this assignment's notebook (``restore.check_assignment``), then **restore** locked
   and test cells from the template by grade_id (``restore.restore``): a student cannot change which
   tests run or what they are worth; every change is a finding. Cells whose grade_id was lost or
   renamed are first found by content (``recover.recover``), and that recovery is a finding too.
3. **Audit** the student's cells statically for things worth telling an instructor about (leaving the
   kernel, monkeypatching torch/builtins/pytest, reaching for grader files, defining grader names). The
   audit decides nothing; the sandbox is what makes these harmless. The **shortcut check**
   (``shortcuts.check_restored``) finds answers that use a library call their question forbids; its
   penalty, if the question declares one, is applied after scoring (``shortcuts.apply_penalties``).
4. **Execute** the restored cells in a sandboxed kernel (``sandbox.Sandbox``), then **test**: the hidden
   pytest suite runs here, in this trusted process, and reaches student code only through
   ``KernelHandle``. Scores come from ``results.score_questions``; printed output is never read as one.

The assignment is an ``Assignment`` of a course (``assignments/course.py``): tests grade a toy course the
same way. Grading uses its release notebook (or, before a release exists, the same blank notebook made
from the source with nbgrader's preprocessors) and the source notebook's points.
"""

from __future__ import annotations

import ast
import json
import time
from pathlib import Path

import nbformat

from .. import decoding, notebooks
from ..evidence import collect as collect_evidence
from ..course import Assignment, resolve
from .handle import SandboxError, answered_by, describe_exception
from .restore import check_assignment, restore
from ..results.model import BUDGET_FINDING, Finding, SubmissionResult, score_questions
from .limits import Limits
from .sandbox import KernelHandle, Sandbox, score_like_output
from .shortcuts import apply_penalties, check_restored
from .suite import run_suite

MAX_NOTEBOOK_BYTES = 50 * 1024 * 1024


def grade_submission(assignment: Assignment | str, submission, student: str = "student", *, seed: int = 0,
                     limits: Limits | None = None, hide: tuple = (), source_file: str | None = None,
                     skip_tests=(), test_log=None, shortcut_rules: dict | None = None) -> SubmissionResult:
    """Grade one submission (a path to an .ipynb, or its bytes). Always returns a SubmissionResult.

    ``assignment`` is an ``Assignment`` of any course (tests grade a toy course) or a name in this one; its
    source notebook gives the questions, its release the template, its suite folder the hidden tests and
    stand-ins. ``hide``: more folders the sandboxed kernel must not see.

    ``skip_tests`` and ``test_log`` go to ``suite.run_suite`` (the batch uses them to resume a submission
    in a fresh process after the grader was killed in one of its tests). ``shortcut_rules`` replaces the
    source notebook's ``notebooks.shortcut_rules`` (tests use it to try another penalty)."""
    started = time.perf_counter()
    assignment = resolve(assignment)
    if source_file is None:
        source_file = str(submission) if isinstance(submission, (str, Path)) else ""
    result = SubmissionResult(student=student, assignment=assignment.name, door="standalone",
                              source_file=source_file)
    try:
        question_list = assignment.questions
    except (OSError, ValueError) as error:
        result.status = "rejected"
        result.findings.append(Finding("unknown-assignment", f"no source notebook for assignment "
                                                             f"{assignment.name!r} ({error})", "error"))
        result.timings["total_s"] = round(time.perf_counter() - started, 2)
        return result
    try:
        _grade(result, assignment, submission, question_list, seed=seed, limits=limits or Limits(), hide=hide,
               skip_tests=skip_tests, test_log=test_log, shortcut_rules=shortcut_rules)
    except BaseException as error:  # noqa: BLE001 - the batch must go on whatever happened here
        if isinstance(error, KeyboardInterrupt):
            raise
        result.status = "rejected"
        result.findings.append(Finding("grader-error",
                                       f"the grader failed on this submission ({describe_exception(error)}); "
                                       "this is not the student's fault: grade it again or by hand", "error"))
        if not result.questions:
            result.questions = score_questions(question_list, [])
    result.timings["total_s"] = round(time.perf_counter() - started, 2)
    return result


def _reject(result: SubmissionResult, question_list, finding: Finding) -> None:
    result.status = "rejected"
    result.findings.append(finding)
    result.questions = score_questions(question_list, [])


def _grade(result, assignment: Assignment, submission, question_list, *, seed, limits, hide, skip_tests=(),
           test_log=None, shortcut_rules=None):
    result.questions = score_questions(question_list, [])   # zero until the tests have run
    nb, raw, problem = load_submission(submission)
    result.findings += [f for f in problem if f.severity != "error"]
    errors = [f for f in problem if f.severity == "error"]
    if nb is None:
        _reject(result, question_list, errors[0] if errors else
                Finding("not-a-notebook", "the submission could not be read as a notebook", "error"))
        result.findings += errors[1:]
        return
    template = default_template(assignment)
    wrong = check_assignment(nb, template)
    if wrong is not None:
        _reject(result, question_list, wrong)
        return
    restored, findings = restore(nb, template)
    result.findings += findings
    # The written answers' evidence is read from the notebook as submitted: restore drops every output.
    try:
        result.evidence, found = collect_evidence(nb, assignment, template)
    except Exception as error:  # noqa: BLE001 - malformed outputs must not cost the autograded points
        found = [Finding("evidence-unread", f"the written answers' evidence could not be read "
                         f"({describe_exception(error)}); the TA sees none", "warning")]
    result.findings += found
    result.findings += audit(restored)
    result.findings += check_restored(assignment, restored, template, shortcut_rules)

    order = assignment.autograded_order
    cells = [(notebooks.grade_id(cell) or f"code cell {index + 1}", _text(cell.get("source")))
             for index, cell in enumerate(notebooks.cells_to_run(restored))]
    if isinstance(submission, (str, Path)):
        hide = (*hide, str(Path(submission).resolve().parent))
    began = time.perf_counter()
    sandbox = Sandbox(raw, Path(result.source_file).name or "submission.ipynb", limits=limits, hide=hide)
    try:
        try:
            sandbox.start()
        except SandboxError as error:
            _reject(result, question_list, Finding("kernel-start-failed", str(error), "error"))
            return
        sandbox.execute_cells(cells)
        executed = time.perf_counter()
        handle = KernelHandle(sandbox, assignment, seed=seed)
        handle.owners = answered_by(template)
        tests, problems = run_suite(assignment, handle, order, skip=skip_tests, log=test_log)
        finished = time.perf_counter()
    finally:
        sandbox.close()
    result.findings += sandbox.findings + score_like_output(sandbox.cell_outputs)
    for problem in problems:
        if problem.startswith("reply-refused "):   # the kernel's reply broke a limit: the student's doing
            grade_id, _, why = problem[len("reply-refused "):].partition(": ")
            result.findings.append(Finding("reply-refused", f"a test of {grade_id} scored 0: {why}", "error",
                                           grade_id))
        elif problem.startswith("over-budget "):   # checking the answer cost the grader too much
            grade_id, _, why = problem[len("over-budget "):].partition(": ")
            result.findings.append(Finding(BUDGET_FINDING, f"a test of {grade_id} scored 0: {why}", "error",
                                           grade_id))
        else:
            result.findings.append(Finding("suite-problem", problem, "error"))
    result.questions = score_questions(question_list, tests)
    apply_penalties(result)
    result.timings.update({"kernel_start_s": round(sandbox.start_seconds, 2),
                           "execute_s": round(executed - began, 2), "tests_s": round(finished - executed, 2),
                           "kernel_peak_mb": round(sandbox.peak_rss / 2 ** 20), "restarts": sandbox.restarts,
                           # 1 when the (last) kernel was forked from the batch's warm zygote
                           "warm_kernel": int(bool(sandbox.status.get("warm"))),
                           # CPU seconds the student's code used in its kernels: what the budgets count
                           "kernel_cpu_s": round(sandbox.cpu_used(), 2),
                           # executions stopped by their CPU budget, and by the wall-clock ceiling
                           "cpu_timeouts": sandbox.timeouts["cpu"], "wall_timeouts": sandbox.timeouts["wall"],
                           # 1 when the (last) kernel ran in a cgroup of its own (cgroups.py)
                           "kernel_cgroup": int(bool(sandbox.status.get("cgroup")))})


def default_template(assignment: Assignment | str):
    """The release notebook; before ``course release`` has run, the same thing built from the source."""
    try:
        return resolve(assignment).release_notebook()
    except (OSError, ValueError):
        return notebooks.blank_notebook(resolve(assignment).source_notebook())


def _text(source) -> str:
    return "".join(source) if isinstance(source, list) else str(source or "")


def load_submission(submission) -> tuple[object | None, bytes | None, list[Finding]]:
    """(nbformat-4 notebook or None, the raw bytes, findings). Errors have severity "error"."""
    findings: list[Finding] = []
    if isinstance(submission, (bytes, bytearray)):
        raw = bytes(submission)
    elif not isinstance(submission, (str, Path)) or not str(submission):
        return None, None, [Finding("missing-file", f"no submission file was given "
                                    f"(got {type(submission).__name__})", "error")]
    else:
        path = Path(submission)
        if not path.is_file():
            what = "is a folder, not a notebook file" if path.is_dir() else "does not exist"
            return None, None, [Finding("missing-file", f"the submission {path.name!r} {what}", "error")]
        if path.stat().st_size > MAX_NOTEBOOK_BYTES:
            return None, None, [Finding("too-large", f"the notebook is {path.stat().st_size / 1e6:.0f} MB, "
                                        f"more than the {MAX_NOTEBOOK_BYTES // 2 ** 20} MB accepted; "
                                        "clear the outputs and submit again", "error")]
        raw = path.read_bytes()
    if len(raw) > MAX_NOTEBOOK_BYTES:
        return None, None, [Finding("too-large", "the notebook is too large to grade", "error")]
    if not raw.strip():
        return None, None, [Finding("empty-file", "the submitted file is empty", "error")]
    try:
        decoded = decoding.decode(raw)
    except decoding.NotText as error:
        return None, None, [Finding("invalid-json", f"the file is not text ({error}); is it a notebook?",
                                    "error")]
    if decoded.note:
        findings.append(Finding("text-encoding", decoded.note, "warning" if decoded.guessed else "info"))
    try:
        data = json.loads(decoded.text)
    except ValueError as error:
        return None, None, [Finding("invalid-json", f"the notebook file is not valid JSON ({error}); it may "
                                    "have been cut off or edited by hand", "error")]
    if not isinstance(data, dict) or not isinstance(data.get("nbformat"), int):
        return None, None, [Finding("not-a-notebook", "the file is JSON but not a Jupyter notebook", "error")]
    major = data["nbformat"]
    if major > 4:
        return None, None, [Finding("unsupported-nbformat", f"nbformat {major} is newer than this grader "
                                    "reads (4)", "error")]
    findings += _exported_by_editor(data)
    if major == 4 and isinstance(data.get("cells"), list):
        # Colab and older editors write no cell ids; nbformat 4.5 wants them (any unique ones do).
        for index, cell in enumerate(data["cells"]):
            if isinstance(cell, dict) and data.get("nbformat_minor", 0) >= 5 and "id" not in cell:
                cell["id"] = f"cell-{index}"
    try:
        nb = nbformat.reads(json.dumps(data), as_version=4)
    except Exception as error:  # noqa: BLE001 - nbformat raises many kinds
        return None, None, [Finding("not-a-notebook", f"the notebook could not be read "
                                    f"({describe_exception(error)})", "error")]
    if major < 4:
        findings.append(Finding("old-nbformat", f"the notebook was saved as nbformat {major}; it was "
                                "converted to nbformat 4 for grading", "info"))
    if not isinstance(nb.get("cells"), list):
        return None, None, [Finding("not-a-notebook", "the notebook has no cells", "error")]
    nb.cells = [c for c in nb.cells if isinstance(c, dict) and c.get("cell_type") in ("code", "markdown", "raw")]
    crlf = False
    for index, cell in enumerate(nb.cells):
        if not isinstance(cell.get("metadata"), dict):
            cell["metadata"] = nbformat.NotebookNode()
        meta = cell["metadata"].get("nbgrader")
        if meta is not None and (not isinstance(meta, dict) or not isinstance(meta.get("grade_id", ""), str)):
            del cell["metadata"]["nbgrader"]
            findings.append(Finding("metadata-invalid", f"cell {index + 1} has malformed nbgrader metadata; "
                                    "it was treated as a cell you added", "warning", f"cell {index + 1}"))
        if not isinstance(cell.get("source"), (str, list)):
            cell["source"] = ""
        elif isinstance(cell["source"], list):
            cell["source"] = "".join(str(part) for part in cell["source"])
        if "\r" in cell["source"]:
            cell["source"] = cell["source"].replace("\r\n", "\n").replace("\r", "\n")
            crlf = True
    if crlf or b"\r\n" in raw[:4096]:
        findings.append(Finding("line-endings", "the notebook was saved with Windows line endings (CRLF); "
                                "they were read as plain newlines", "info"))
    return nb, raw, findings


# Keys that Colab, VS Code and JupyterLab extensions add to a notebook; harmless, and never read.
EDITOR_KEYS = {"colab": "Colab", "vscode": "VS Code", "accelerator": "Colab", "gpuClass": "Colab",
               "widgets": "Jupyter widgets", "interpreter": "VS Code"}


def _exported_by_editor(data: dict) -> list[Finding]:
    """One info finding naming what an editor added (other metadata, attachments, missing cell ids).

    Everything listed is ignored or filled in: grading reads only cell types and sources, and the
    template supplies the nbgrader metadata."""
    seen = set()
    meta = data.get("metadata") if isinstance(data.get("metadata"), dict) else {}
    seen |= {f"{EDITOR_KEYS[k]} notebook metadata" for k in meta if k in EDITOR_KEYS}
    cells = data.get("cells") if isinstance(data.get("cells"), list) else []
    cells = [c for c in cells if isinstance(c, dict)]
    for cell in cells:
        cell_meta = cell.get("metadata") if isinstance(cell.get("metadata"), dict) else {}
        seen |= {f"{EDITOR_KEYS[k]} cell metadata" for k in cell_meta if k in EDITOR_KEYS}
        if cell.get("attachments"):
            seen.add("cell attachments")
    missing_ids = sum(1 for c in cells if "id" not in c)
    if data.get("nbformat") == 4 and data.get("nbformat_minor", 0) >= 5 and missing_ids:
        seen.add(f"{missing_ids} cell(s) without an id (given one)")
    if not seen:
        return []
    return [Finding("notebook-format", f"the notebook was saved by another editor ({', '.join(sorted(seen))}); "
                    "that was ignored for grading", "info")]


# ------------------------------------------------------------------------------------------ audit
GRADER_MODULES = {"pytest", "_pytest", "assignments", "autograder", "nbgrader", "pluggy"}
GRADER_NAMES = {"hidden_tests", "run_suite", "score_questions", "grade_submission", "_course_grader_runtime"}
PATCHED_MODULES = {"torch", "builtins", "__builtins__", "pytest", "sys", "os", "numpy", "np", "F", "nn",
                   "math", "random"}
EXIT_CALLS = {"os._exit", "sys.exit", "exit", "quit", "os.kill", "os.abort", "os.killpg", "signal.signal",
              "os.fork", "ctypes.CDLL"}
MAX_AUDITED_CHARS = 1_000_000
GRADER_PATHS = ("autograder", "source/", "solutions", "grades", "/root", "/home/", "/etc/", "/proc/", "../")


def _dotted(node) -> str:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
    return ".".join(reversed(parts))


def audit_source(source: str) -> list[str]:
    """Notes about one student cell: what it does that an honest answer has no reason to do."""
    if len(source) > MAX_AUDITED_CHARS:
        return [f"is {len(source)} characters long; not audited"]
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return []
    except (RecursionError, MemoryError):  # deeply nested expressions: the student's, not a grader error
        return ["is nested too deeply to audit"]
    try:
        return _notes(tree)
    except RecursionError:
        return ["is nested too deeply to audit"]


def _notes(tree) -> list[str]:
    notes = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
            notes += [f"imports {n}" for n in names if n.split(".")[0] in GRADER_MODULES]
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name in GRADER_NAMES:
            notes.append(f"defines {node.name}")
        elif isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                name = _dotted(target) if isinstance(target, ast.Attribute) else ""
                if name and name.split(".")[0] in PATCHED_MODULES and not name.startswith("torch.backends."):
                    notes.append(f"replaces {name}")
                elif isinstance(target, ast.Name) and target.id in GRADER_NAMES:
                    notes.append(f"defines {target.id}")
                elif isinstance(target, ast.Subscript) and _dotted(target.value) in ("sys.modules", "__builtins__"):
                    notes.append(f"replaces an entry of {_dotted(target.value)}")
        elif isinstance(node, ast.Call):
            name = _dotted(node.func)
            if name in EXIT_CALLS:
                notes.append(f"calls {name}")
            elif name in ("setattr", "delattr") and node.args and _dotted(node.args[0]).split(".")[0] in PATCHED_MODULES:
                notes.append(f"calls {name} on {_dotted(node.args[0])}")
            for arg in node.args[:1]:
                if isinstance(arg, ast.Constant) and isinstance(arg.value, str) and \
                        name.split(".")[-1] in ("open", "Path", "listdir", "read_text", "scandir", "walk", "glob") and \
                        any(p in arg.value for p in GRADER_PATHS):
                    notes.append(f"opens {arg.value[:80]!r}")
    seen, unique = set(), []
    for note in notes:
        if note not in seen:
            seen.add(note)
            unique.append(note)
    return unique


def audit(restored) -> list[Finding]:
    """One ``suspicious-code`` finding per student cell with notes (answer cells and added cells)."""
    findings = []
    for index, cell in enumerate(restored.cells):
        if cell.get("cell_type") != "code" or notebooks.is_locked(cell):
            continue
        notes = audit_source(_text(cell.get("source")))
        if notes:
            label = notebooks.grade_id(cell) or f"added cell {index + 1}"
            findings.append(Finding("suspicious-code",
                                    f"cell {label}: {'; '.join(notes[:6])} (this has no effect on the score; "
                                    "an instructor may look at it)", "warning", label))
    return findings


__all__ = ["grade_submission", "load_submission", "default_template", "audit", "audit_source",
           "MAX_NOTEBOOK_BYTES"]
