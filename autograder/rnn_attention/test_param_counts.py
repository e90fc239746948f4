"""gru_param_count / lstm_param_count against the parameters of nn.GRU / nn.LSTM."""

from torch import nn

from assignments.grading.testkit import expect, kernel_value, question

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
def test_gru_param_count_matches_nn_gru(student):
    _check(student, "gru_param_count", nn.GRU)


@question("param_counts_tests")
def test_lstm_param_count_matches_nn_lstm(student):
    _check(student, "lstm_param_count", nn.LSTM)
