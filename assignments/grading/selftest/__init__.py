"""The autograder's own tests: the reference keeps full marks, the blank release scores zero, each
mutant (``mutation``: one known mistake applied to the reference) loses points on its own question only,
each variant keeps full marks, and every hidden test catches a mutant (``checks``); ``forking`` grades
an assignment's mutants from one run of the reference; ``report`` prints ``course selftest``."""

from assignments.grading.public import public_names

PUBLIC = {
    **dict.fromkeys(
        [
            "check_reference",
            "check_blank",
            "check_mutant",
            "check_stand_ins",
            "mutants",
            "variants",
            "grade_mutant",
            "grade_variant_packs",
            "behaviour_map",
            "behaviour_map_problems",
            "contract_parameters",
            "contract_parameter_problems",
            "uncaught_tests",
        ],
        "checks",
    ),
    **dict.fromkeys(["Mutant", "MutantError", "apply_change", "load_folder"], "mutation"),
    "grade_mutants": "forking",
}
__all__ = sorted(PUBLIC)
__getattr__ = public_names(__name__, PUBLIC)
