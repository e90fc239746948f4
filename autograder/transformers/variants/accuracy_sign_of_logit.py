"""Predicts positive where the logit is above 0 (the same as sigmoid above 0.5) without computing the
sigmoid.

question: binary_accuracy_tests
replaces: binary_accuracy
"""


def binary_accuracy(logits, y):
    return ((logits > 0).float() == y).float().mean()
