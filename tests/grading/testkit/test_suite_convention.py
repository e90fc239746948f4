"""Every hidden suite follows one convention (autograder/README.md, "Layout"): one ``test_<question>.py`` per
autograded question, its helpers named by role, and nothing imported from this repository's ``assignments``
but the test kit's face. The files are read as syntax trees, never imported."""

import ast
from pathlib import Path

import pytest

from assignments.course import default
from assignments.grading.testkit import PUBLIC

ASSIGNMENTS = default().present()
FACE = "assignments.grading.testkit"
# The modules a suite folder may hold besides its tests: stand_ins.py (the engine reads it) and one helper
# module per role.
HELPERS = {"__init__", "stand_ins", "inputs", "oracles", "checks"}
QUESTION_SUFFIX = "_tests"


def suite_files(assignment: str) -> list[Path]:
    """The suite folder's own modules (mutants/, shortcuts/ and variants/ are answers, not the suite)."""
    return sorted(default().assignment(assignment).suite_dir.glob("*.py"))


def file_of(grade_id: str) -> str:
    """The file of a question's tests: the grade_id without its ``_tests`` suffix."""
    return f"test_{grade_id.removesuffix(QUESTION_SUFFIX)}.py"


def question_of(function: ast.FunctionDef) -> str | None:
    """The grade_id of a test's ``@question("<grade_id>", ...)`` marker, or None without one."""
    for decorator in function.decorator_list:
        if (
            isinstance(decorator, ast.Call)
            and isinstance(decorator.func, ast.Name)
            and decorator.func.id == "question"
            and decorator.args
            and isinstance(decorator.args[0], ast.Constant)
        ):
            return decorator.args[0].value
    return None


def imported_modules(tree: ast.Module) -> list[tuple[int, str]]:
    """(line, module) for every import in the file, nested ones and ``__import__("...")`` included; a
    ``from package import name`` counts as ``package.name`` so that importing a submodule that way shows."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            found += [(node.lineno, f"{node.module}.{alias.name}") for alias in node.names]
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, (ast.Name, ast.Attribute))
            and getattr(node.func, "id", getattr(node.func, "attr", "")) in ("__import__", "import_module")
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            found.append((node.lineno, node.args[0].value))
    return found


def test_course_has_suites():
    assert ASSIGNMENTS, "assignments.course lists no assignment with a source notebook"
    for assignment in ASSIGNMENTS:
        assert default().assignment(assignment).suite_dir.is_dir(), f"{assignment} has no hidden suite folder"


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_one_file_per_question_named_after_it(assignment):
    problems = []
    for path in suite_files(assignment):
        if not path.name.startswith("test_"):
            continue
        tests = [
            node
            for node in ast.parse(path.read_text(encoding="utf-8")).body
            if isinstance(node, ast.FunctionDef) and node.name.startswith("test_")
        ]
        questions = {question_of(node) for node in tests}
        if not tests:
            problems.append(f"{path.name} holds no test")
        elif None in questions:
            unmarked = [node.name for node in tests if question_of(node) is None]
            problems.append(f"{path.name}: {', '.join(unmarked)} carry no @question marker")
        elif len(questions) > 1:
            problems.append(
                f"{path.name} holds tests of {len(questions)} questions: {', '.join(sorted(questions))} "
                f"(one file per question)"
            )
        elif file_of(next(iter(questions))) != path.name:
            problems.append(
                f"{path.name} holds the tests of {next(iter(questions))}; name it {file_of(next(iter(questions)))}"
            )
    assert not problems, f"{assignment}:\n" + "\n".join(problems)


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_every_autograded_question_has_its_test_file(assignment):
    folder = default().assignment(assignment).suite_dir
    missing = [
        f"{q.grade_id} ({q.points:g} points): no {file_of(q.grade_id)}"
        for q in default().assignment(assignment).questions
        if q.kind == "autograded" and q.points > 0 and not (folder / file_of(q.grade_id)).is_file()
    ]
    assert not missing, f"{assignment}:\n" + "\n".join(missing)


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_helpers_named_by_role(assignment):
    other = [
        path.name for path in suite_files(assignment) if not path.name.startswith("test_") and path.stem not in HELPERS
    ]
    roles = ", ".join(f"{name}.py" for name in sorted(HELPERS - {"__init__", "stand_ins"}))
    assert not other, (
        f"{assignment}: helper modules {other} are not named by role; use {roles} (autograder/README.md, Layout)"
    )


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_suite_imports_only_the_test_kit_face(assignment):
    problems = []
    for path in suite_files(assignment):
        for line, module in imported_modules(ast.parse(path.read_text(encoding="utf-8"))):
            package, _, name = module.rpartition(".")
            face = module == FACE or (package == FACE and name in PUBLIC)
            if (module == "assignments" or module.startswith("assignments.")) and not face:
                problems.append(f"{path.name}:{line} imports {module}")
    assert not problems, (
        f"{assignment}: hidden suites import from assignments only {FACE} (`from {FACE} "
        f"import name`; add a missing name to its PUBLIC map):\n" + "\n".join(problems)
    )
