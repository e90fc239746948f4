"""Counts every parameter, including frozen ones (requires_grad=False).

question: count_parameters_tests
replaces: count_parameters
"""


def count_trainable_parameters(model):
    """The number of scalar weights the optimizer would update: parameters with requires_grad=True.

    Frozen parameters (requires_grad=False) and buffers (like the positional table `pe`) do not count.
    Returns an int. Our solution is 1 line.
    """
    return sum(p.numel() for p in model.parameters())
