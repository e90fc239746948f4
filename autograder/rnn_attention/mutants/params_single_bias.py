"""Counts one bias vector per gate block, as in the equations, although PyTorch keeps two (bias_ih and bias_hh).

question: param_counts_tests
replaces: param_counts
"""


def gru_param_count(input_size, hidden_size):
    return 3 * (input_size * hidden_size + hidden_size * hidden_size + hidden_size)


def lstm_param_count(input_size, hidden_size):
    return 4 * (input_size * hidden_size + hidden_size * hidden_size + hidden_size)
