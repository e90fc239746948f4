"""The autograder's own tests (``course selftest``): does each hidden suite reward the reference and catch
mistakes?

- ``mutation``: mutants, variants and shortcut answers, written as changes against the solution, and the
  folders they are read from;
- ``reference``: the notebooks every check starts from; the reference keeps full marks, the blank release
  scores zero;
- ``mutant_checks``: each mutant loses points on its own question only, and every hidden test fails for
  some mutant; ``visible_checks``: a mutant that breaks a rule the skeleton states fails the visible check
  below its TODO; ``forking`` grades an assignment's mutants from one run of the reference;
- ``variant_checks``: each variant keeps full marks in both real doors, packed into few notebooks;
- ``behaviour_rows`` (the behaviour map) and ``parameter_rows`` (the contract parameters): the tables each
  hidden test module declares (``suite_tables`` reads them), and ``kinds``, the kinds of behaviour every
  graded definition answers for;
- ``stand_in_checks``: each stand-in is the notebook's own definition and scores full marks as a student;
  ``foreign_answers``: no question's tests run another question's answer;
- ``report`` prints ``course selftest``.
"""

from assignments.grading.public import public_names

PUBLIC = {
    **dict.fromkeys(["check_reference", "check_blank"], "reference"),
    **dict.fromkeys(["check_mutant", "grade_mutant", "uncaught_tests"], "mutant_checks"),
    "check_stand_ins": "stand_in_checks",
    "grade_variant_packs": "variant_checks",
    **dict.fromkeys(["behaviour_map", "behaviour_map_problems"], "behaviour_rows"),
    **dict.fromkeys(["contract_parameters", "contract_parameter_problems"], "parameter_rows"),
    **dict.fromkeys(["Mutant", "MutantError", "apply_change", "load_folder", "mutants", "variants"], "mutation"),
    "grade_mutants": "forking",
}
__all__ = sorted(PUBLIC)
__getattr__ = public_names(__name__, PUBLIC)
