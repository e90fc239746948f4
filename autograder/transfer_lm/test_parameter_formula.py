"""parameter_formula_tests: the closed-form count against counted models and the assignment's numbers."""

from assignments.grading.testkit import behaviour, expect, kernel_value, question
from autograder.transfer_lm.oracles import reference_model

CONFIGS = [  # (ntoken, nhid, nlayers, nhead, nclasses)
    (53, 10, 2, 2, 4),
    (101, 24, 3, 3, 101),
    (17, 8, 1, 4, 5),
    (7, 6, 5, 1, 2),
]


def _counted(ntoken, nhid, nlayers, nhead, nclasses):
    model = reference_model(ntoken, nhead, nhid, nlayers, nclasses)
    return sum(p.numel() for p in model.parameters() if p.requires_grad)


def _formula(student, configs):
    return student.run("result = [formula_parameter_count(*c) for c in configs]", configs=[list(c) for c in configs])


@question("parameter_formula_tests")
@behaviour("formula_parameter_count", "the closed form against counted models", mutant="formula_no_attention_biases")
def test_formula_matches_counted_models(student):
    answers = _formula(student, CONFIGS)
    for config, answer in zip(CONFIGS, answers):
        expected = _counted(*config)
        expect(
            isinstance(answer, int) and not isinstance(answer, bool),
            f"the formula should return an int; got {type(answer).__name__}",
        )
        expect(
            answer == expected,
            f"for (ntoken, nhid, nlayers, nhead, nclasses) = {config} the model has "
            f"{expected} trainable parameters; your formula gives {kernel_value(answer)}",
        )


@question("parameter_formula_tests")
@behaviour(
    "formula_parameter_count", "the written question's sizes, nhead irrelevant", mutant="formula_no_attention_biases"
)
def test_formula_assignment_numbers(student):
    # The numbers of the written question: 50,001 words, nhid 200, 4 layers, 2 heads, feed-forward 200.
    configs = [(50001, 200, 4, 2, 50001), (50001, 200, 4, 2, 2), (50001, 200, 4, 8, 2)]
    lm, clf, clf8 = _formula(student, configs)
    # The counts themselves answer a written question, so the messages never print them.
    expect(
        lm == 21018401,
        f"for the written question's sizes your formula gives {kernel_value(lm)} for the language model, "
        "which is not its number of trainable parameters; compare each layer's weights and "
        "biases with the model's state dict",
    )
    expect(
        clf == 10968602,
        f"for the written question's sizes your formula gives {kernel_value(clf)} for the 2-class "
        "classifier, which is not its number of trainable parameters",
    )
    expect(clf8 == clf, "the number of heads does not change the parameter count; your formula says it does")


# Behaviours of these definitions that no hidden test checks, each with the reason (autograder/README.md,
# Behaviour maps): (definition, behaviour, why it is out of scope).
OUT_OF_SCOPE = [
    (
        "formula_parameter_count",
        "mode, gradients, randomness, order, dtype, inputs",
        "Arithmetic on integers has none of these behaviours.",
    ),
    # The kinds every definition answers for (autograder/README.md, Kinds every definition answers for).
    ("formula_parameter_count", "randomness", "Arithmetic on its arguments draws no random number.", "randomness"),
    (
        "formula_parameter_count",
        "validation order",
        "It checks no argument and has no special case: one expression for every configuration.",
        "validation-order",
    ),
    ("formula_parameter_count", "exact boundaries", "It compares nothing with a threshold.", "boundary"),
    ("formula_parameter_count", "a sort's ties", "It sorts and ranks nothing.", "ties"),
    (
        "formula_parameter_count",
        "degenerate values",
        "The expression has no branch on a value; the smallest configurations (one layer, one head, two classes) are among test_formula_matches_counted_models's.",
        "degenerate",
    ),
    ("formula_parameter_count", "state across calls", "A pure function of its arguments: it keeps nothing.", "state"),
    ("formula_parameter_count", "device of what it makes", "It returns an int and makes no tensor.", "device"),
    (
        "formula_parameter_count",
        "hyper-parameters that are not whole numbers",
        "Every argument is a whole count, and nhid must be a multiple of nhead for the model to exist, so even a per-head count by integer division (nhid // nhead) equals the packed one in every valid configuration.",
        "non-integer",
    ),
    ("formula_parameter_count", "optimisation steps", "It takes no optimisation step.", "step-tolerance"),
    ("formula_parameter_count", "a batch of one", "It takes no batch, only sizes.", "batch-of-one"),
]


# The values these tests call each signature parameter of the graded definitions with (autograder/README.md,
# Contract parameters): (definition, parameter, values, None when they vary, else why one is enough).
CONTRACT_PARAMETERS = [
    ("formula_parameter_count", "ntoken", "53, 101, 17, 7, 50001", None),
    ("formula_parameter_count", "nhid", "10, 24, 8, 6, 200", None),
    ("formula_parameter_count", "nlayers", "2, 3, 1, 5, 4", None),
    ("formula_parameter_count", "nhead", "2, 3, 4, 1, 8", None),
    ("formula_parameter_count", "nclasses", "4, 101, 5, 2, 50001", None),
]
