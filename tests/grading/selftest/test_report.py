"""``course selftest``'s report (``selftest.report``) runs every check the course's own tests run, on the toy
course."""

from assignments.grading.selftest.report import selftest


def test_course_selftest_checks_the_stand_ins_and_traces_the_reference(toy_with_mutant, capsys):
    """The toy's stand-in ``scale`` (``x * k``) is not the notebook's (a loop of ``add``): the self-test
    names it as a problem. No question's tests run another question's answer, and the report says so."""
    status = selftest([toy_with_mutant.assignment], skip_variants=True, only_mutants=["subtracts"])
    printed = capsys.readouterr().out
    assert status == 1, "a stand-in that differs from the notebook should fail the self-test"
    assert "  stand-ins: PROBLEM" in printed, printed
    assert "stand-in scale differs from the definition in answer cell scale" in printed, printed
    assert "  traced reference: no question runs another answer" in printed, printed
