"""The grading core on a toy suite: snippets, safe results, stand-ins, scoring, messages."""

import textwrap

import pytest
import torch

from assignments.course import Course
from assignments.grading.testkit import runtime, suite
from assignments.grading.testkit.errors import StudentCodeError, StudentTimeout
from assignments.grading.testkit.handle import LocalHandle
from assignments.notebooks import Question
from assignments.results.model import SubmissionResult, TestResult, score_questions

TOY_TESTS = """
import torch
from assignments.grading.testkit.checks import question, expect, expect_close

@question("add_tests", points=2)
def test_add_doubles_a_tensor(student):
    a = torch.arange(6.0).reshape(2, 3)
    out = student.run("result = add(a, a)", a=a)
    expect_close(out, 2 * a, "add(a, a)")

@question("add_tests", points=1)
def test_add_of_ints_is_an_int(student):
    out = student.run("result = add(1, 2)")
    assert out == 3, f"add(1, 2) should be 3; got {out}"

@question("twice_tests", points=3)
def test_twice_uses_add(student):
    out = student.run("result = twice(4)", stand_ins=("add",))
    expect(out == 8, f"twice(4) should be 8; got {out}")
"""


@pytest.fixture
def toy_suite(tmp_path):
    """A course in tmp_path whose one assignment has only a hidden suite and stand-ins (no notebook: the
    suite runner needs neither)."""
    toy = Course(tmp_path).assignment("toy")
    toy.suite_dir.mkdir(parents=True)
    (toy.suite_dir / "test_toy.py").write_text(TOY_TESTS)
    toy.stand_ins_path.write_text("def add(a, b):\n    return a + b\n")
    return toy


ORDER = ["add_tests", "twice_tests"]


def student_namespace(code: str) -> dict:
    namespace = {}
    exec(textwrap.dedent(code), namespace)
    return namespace


def by_name(results):
    return {r.name: r for r in results}


def test_correct_student_passes_every_test(toy_suite):
    ns = student_namespace("def add(a, b):\n    return a + b\ndef twice(x):\n    return add(x, x)\n")
    results, problems = suite.run_suite(toy_suite, LocalHandle(ns, toy_suite), ORDER)
    assert problems == []
    assert [r.outcome for r in results] == ["passed"] * 3
    assert sum(r.points for r in results) == 6


def test_a_mistake_costs_points_only_where_it_is_tested(toy_suite):
    # add is wrong; twice is right but calls add: the stand-in keeps twice's score intact.
    ns = student_namespace("def add(a, b):\n    return a * b\ndef twice(x):\n    return add(x, x)\n")
    results = by_name(suite.run_suite(toy_suite, LocalHandle(ns, toy_suite), ORDER)[0])
    assert results["test_add_doubles_a_tensor"].outcome == "failed"
    assert "largest difference" in results["test_add_doubles_a_tensor"].message
    assert results["test_add_of_ints_is_an_int"].message == "add(1, 2) should be 3; got 2"
    assert results["test_twice_uses_add"].outcome == "passed"
    assert ns["add"](2, 3) == 6, "the student's own add must be put back after the stand-in call"


def test_student_exceptions_become_readable_failures(toy_suite):
    ns = student_namespace("def add(a, b):\n    raise ValueError('shapes do not match')\n")
    results = by_name(suite.run_suite(toy_suite, LocalHandle(ns, toy_suite), ORDER)[0])
    assert results["test_add_of_ints_is_an_int"].message == "your code raised ValueError: shapes do not ma..."
    assert results["test_twice_uses_add"].message.startswith("your code raised NameError")


def test_on_a_gpu_host_the_suites_own_oracles_stay_on_the_cpu_beside_the_students_results(tmp_path, monkeypatch):
    """The kernel never sees an accelerator (GRADING_ENV); neither do the hidden tests' own computations in the
    grader. Here the grader's torch says a GPU is there, as on the H200 host where an oracle's DEVICE became
    CUDA and the reference lost points; the suite, its stand-ins imported as an oracle included, sees none,
    and the grader's torch answers as before once the suite is done."""
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.backends.mps, "is_available", lambda: True)
    gpu_host = Course(tmp_path).assignment("gpu_host")
    gpu_host.suite_dir.mkdir(parents=True)
    (gpu_host.suite_dir / "test_gpu_host.py").write_text(
        textwrap.dedent(
            """
            import torch
            from assignments.grading.testkit.checks import question, expect

            DEVICE = torch.device("cuda" if torch.cuda.is_available() else "cpu")  # as a notebook's DEVICE

            @question("add_tests", points=1)
            def test_the_oracle_device_is_the_cpu(student):
                out = student.run("result = add(torch.ones(2), torch.ones(2))")
                reference = torch.ones(2, device=DEVICE) * 2
                expect(DEVICE.type == "cpu" and not torch.backends.mps.is_available(), f"the suite saw {DEVICE}")
                expect(bool((out == reference).all()), "add(ones, ones) should be twos")
            """
        )
    )
    ns = student_namespace("import torch\ndef add(a, b):\n    return a + b\n")
    results, problems = suite.run_suite(gpu_host, LocalHandle(ns, gpu_host), ["add_tests"])
    assert problems == [] and [(r.outcome, r.message) for r in results] == [("passed", "")]
    assert torch.cuda.is_available() and torch.backends.mps.is_available(), "the grader's torch was not put back"


def test_two_courses_with_a_suite_file_of_the_same_name_each_run_their_own_tests(tmp_path):
    """Suite modules are cached by name (``test_toy``, ``autograder.toy.<helper>``); grading another
    course's suite of the same names in the same process must not reuse the first one's."""
    ns = student_namespace("def add(a, b):\n    return a + b\ndef twice(x):\n    return add(x, x)\n")
    names = []
    for folder, tests in (("first", TOY_TESTS), ("second", TOY_TESTS.replace("test_twice_uses_add", "test_twice_2"))):
        course = Course(tmp_path / folder).assignment("toy")
        course.suite_dir.mkdir(parents=True)
        (course.suite_dir / "test_toy.py").write_text(tests)
        course.stand_ins_path.write_text("def add(a, b):\n    return a + b\n")
        results, problems = suite.run_suite(course, LocalHandle(ns, course), ORDER)
        assert problems == [], f"the {folder} course's suite reported problems"
        names.append(sorted(r.name for r in results))
    assert "test_twice_2" in names[1], "the second course ran the first course's cached test module"


def test_tests_without_points_share_the_cell_alike_in_a_whole_run_and_a_one_question_run(
    toy_suite, monkeypatch, capsys
):
    """Three plain tests of a 2-point cell are worth 2/3 each, kept as a fraction, whether the run grades
    every question (the standalone door) or only that cell's (the nbgrader door's hidden region); three
    passes make exactly the cell's points."""
    import json

    toy_suite.source_folder.mkdir(parents=True)  # the questions' points, as the Gradescope bundle ships them
    toy_suite.manifest_path.write_text(
        json.dumps(
            {"questions": [["add_tests", 2, "autograded"], ["twice_tests", 3, "autograded"]], "shortcut_rules": {}}
        )
    )
    plain = "\n@question('add_tests')\ndef test_add_{0}(student):\n    expect(student.run('result = add({0}, 1)') == {0} + 1, 'add({0}, 1) is wrong')\n"
    (toy_suite.suite_dir / "test_toy.py").write_text(
        TOY_TESTS.replace('@question("add_tests", points=2)', '@question("add_tests", points=None)').replace(
            '@question("add_tests", points=1)', '@question("add_tests")'
        )
        + plain.format(3)
    )
    ns = student_namespace("def add(a, b):\n    return a + b\ndef twice(x):\n    return add(x, x)\n")
    whole, _ = suite.run_suite(toy_suite, LocalHandle(ns, toy_suite), ORDER)
    alone, _ = suite.run_suite(toy_suite, LocalHandle(ns, toy_suite), ORDER, ["add_tests"])
    worth = {r.name: r.max_points for r in whole if r.question == "add_tests"}
    assert sorted(worth.values()) == [2 / 3] * 3, worth
    assert {r.name: r.max_points for r in alone} == worth, "a one-question run must score tests alike"
    [add] = [q for q in score_questions(toy_suite.questions, whole) if q.grade_id == "add_tests"]
    assert add.points == 2.0
    # The nbgrader door's hidden region: the cell's value is the same sum, and one failed third costs 2/3.
    from assignments.grading.doors.nbgrader.hidden_region import COURSE_VARIABLE, hidden_tests

    monkeypatch.setenv(COURSE_VARIABLE, str(toy_suite.course.root))
    assert hidden_tests("toy", "add_tests", ns) == 2.0
    wrong = student_namespace("def add(a, b):\n    return 0 if type(a) is int and a == 3 else a + b\n")
    assert hidden_tests("toy", "add_tests", wrong) == round(4 / 3, 4)
    assert "FAIL test_add_3 (0/0.666667)" in capsys.readouterr().out


def test_selected_questions_only(toy_suite):
    ns = student_namespace("def add(a, b):\n    return a + b\ndef twice(x):\n    return 2 * x\n")
    results, _ = suite.run_suite(toy_suite, LocalHandle(ns, toy_suite), ORDER, ["twice_tests"])
    assert [r.question for r in results] == ["twice_tests"]


def test_results_are_plain_data_even_when_students_return_subclasses():
    class Sneaky(int):
        def __eq__(self, other):
            return True

    ns = {"Sneaky": Sneaky, "param": torch.nn.Parameter(torch.ones(2))}
    out = LocalHandle(ns, "toy").run("result = {'n': Sneaky(3), 'p': param, 'l': [1.5, (True, None)]}")
    assert type(out["n"]) is int and out["n"] != 4
    assert type(out["p"]) is torch.Tensor and not out["p"].requires_grad
    assert out["l"] == [1.5, (True, None)]


def test_objects_cannot_cross_the_boundary():
    with pytest.raises(StudentCodeError, match="cannot receive"):
        LocalHandle({}, "toy").run("result = object()")
    with pytest.raises(StudentCodeError, match="did not set `result`"):
        LocalHandle({}, "toy").run("x = 1")


def test_snippets_are_seeded_the_same_way_every_time():
    h = LocalHandle({}, "toy", seed=3)
    first, second = (h.run("import torch\nresult = torch.rand(4)") for _ in range(2))
    assert torch.equal(first, second)
    other = LocalHandle({}, "toy", seed=4).run("import torch\nresult = torch.rand(4)")
    assert not torch.equal(first, other)


def test_slow_student_code_times_out():
    ns = student_namespace("def spin():\n    while True:\n        pass\n")
    with pytest.raises(StudentTimeout, match="did not finish within 0.5 s"):
        LocalHandle(ns, "toy").run("result = spin()", timeout=0.5)


def test_student_exit_is_a_failure_not_an_exit():
    ns = student_namespace("import sys\ndef leave():\n    sys.exit(3)\n")
    with pytest.raises(StudentCodeError, match="SystemExit"):
        LocalHandle(ns, "toy").run("result = leave()")


def test_question_score_is_capped_at_the_cells_points():
    tests = [TestResult("a", "q", 3, 3, "passed"), TestResult("b", "q", 2, 2, "passed")]
    scored = score_questions([Question("q", 4.0, "autograded"), Question("w", 2.0, "manual")], tests)
    assert scored[0].points == 4.0 and scored[1].points is None


def test_results_round_trip_through_json():
    result = SubmissionResult(
        "s1",
        "toy",
        "standalone",
        questions=score_questions([Question("q", 1.0, "autograded")], [TestResult("a", "q", 1, 1, "passed")]),
    )
    again = SubmissionResult.from_dict(__import__("json").loads(result.to_json()))
    assert again == result and again.autograded_points == 1.0


def test_runtime_has_no_dependency_on_this_package():
    """The standalone door sends runtime.py's text into the student's kernel, which cannot import us."""
    text = open(runtime.__file__).read()
    assert "from ." not in text and "import assignments" not in text and "autograder" not in text.replace("graders", "")
