"""gru_param_count / lstm_param_count against the parameters of nn.GRU / nn.LSTM."""

from torch import nn

from assignments.grading.testkit import behaviour, expect, kernel_value, question

SIZES = [(1, 1), (3, 5), (7, 2), (64, 128), (300, 17)]  # (input_size, hidden_size)


def _check(student, function, layer):
    got = student.run(f"result = [{function}(i, h) for i, h in sizes]", sizes=[list(s) for s in SIZES])
    for (input_size, hidden_size), value in zip(SIZES, got):
        expected = sum(p.numel() for p in layer(input_size, hidden_size).parameters())
        expect(
            isinstance(value, (int, float)) and not isinstance(value, bool),
            f"{function} should return a number; got {type(value).__name__}",
        )
        expect(
            value == expected,
            f"{function}({input_size}, {hidden_size}) should equal the parameter count "
            f"of nn.{layer.__name__}({input_size}, {hidden_size}); got {kernel_value(value)}, "
            f"which is off by {value - expected:+g}",
        )


@question("param_counts_tests")
@behaviour("gru_param_count", "count of one nn.GRU layer, both bias vectors included", mutant="params_without_bias")
def test_gru_param_count_matches_nn_gru(student):
    _check(student, "gru_param_count", nn.GRU)


@question("param_counts_tests")
@behaviour("lstm_param_count", "count of one nn.LSTM layer, four blocks", mutant="params_single_bias")
def test_lstm_param_count_matches_nn_lstm(student):
    _check(student, "lstm_param_count", nn.LSTM)


# Behaviours of these definitions that no hidden test checks, each with the reason (autograder/README.md,
# Behaviour maps): (definition, behaviour, why it is out of scope).
OUT_OF_SCOPE = [
    (
        "gru_param_count",
        "mode, gradients, randomness, reductions, order, dtype, inputs",
        "Arithmetic on two integers has none of these behaviours.",
    ),
    ("gru_param_count", "randomness", "Arithmetic on two integers draws no random number.", "randomness"),
    (
        "gru_param_count",
        "validation order",
        "It checks no argument: the sizes are positive whole numbers by contract.",
        "validation-order",
    ),
    ("gru_param_count", "exact boundaries", "It compares nothing with a threshold.", "boundary"),
    ("gru_param_count", "a sort's ties", "It sorts nothing.", "ties"),
    (
        "gru_param_count",
        "degenerate values",
        "The smallest sizes, (1, 1), are among the tested sizes, and the formula has no special case for them.",
        "degenerate",
    ),
    ("gru_param_count", "state across calls", "A function of its two arguments alone.", "state"),
    ("gru_param_count", "device of what it makes", "It makes no tensor: it returns a Python int.", "device"),
    (
        "gru_param_count",
        "hyper-parameters that are not whole numbers",
        "Its arguments are layer sizes, whole numbers; the test checks the exact integer, so a stray division shows anyway.",
        "non-integer",
    ),
    ("gru_param_count", "optimisation steps", "It takes no optimisation step.", "step-tolerance"),
    ("gru_param_count", "a batch of one", "It takes no batch.", "batch-of-one"),
    ("lstm_param_count", "randomness", "Arithmetic on two integers draws no random number.", "randomness"),
    (
        "lstm_param_count",
        "validation order",
        "It checks no argument: the sizes are positive whole numbers by contract.",
        "validation-order",
    ),
    ("lstm_param_count", "exact boundaries", "It compares nothing with a threshold.", "boundary"),
    ("lstm_param_count", "a sort's ties", "It sorts nothing.", "ties"),
    (
        "lstm_param_count",
        "degenerate values",
        "The smallest sizes, (1, 1), are among the tested sizes, and the formula has no special case for them.",
        "degenerate",
    ),
    ("lstm_param_count", "state across calls", "A function of its two arguments alone.", "state"),
    ("lstm_param_count", "device of what it makes", "It makes no tensor: it returns a Python int.", "device"),
    (
        "lstm_param_count",
        "hyper-parameters that are not whole numbers",
        "Its arguments are layer sizes, whole numbers; the test checks the exact integer, so a stray division shows anyway.",
        "non-integer",
    ),
    ("lstm_param_count", "optimisation steps", "It takes no optimisation step.", "step-tolerance"),
    ("lstm_param_count", "a batch of one", "It takes no batch.", "batch-of-one"),
]


# The values these tests call each signature parameter of the graded definitions with (autograder/README.md,
# Contract parameters): (definition, parameter, values, None when they vary, else why one is enough).
CONTRACT_PARAMETERS = [
    ("gru_param_count", "input_size", "1, 3, 7, 64, 300", None),
    ("gru_param_count", "hidden_size", "1, 2, 5, 17, 128", None),
    ("lstm_param_count", "input_size", "1, 3, 7, 64, 300", None),
    ("lstm_param_count", "hidden_size", "1, 2, 5, 17, 128", None),
]
