"""Rounds the logits directly instead of their sigmoid, so a logit of 0.3 counts as negative.

question: binary_accuracy_tests
replaces: binary_accuracy
"""


def binary_accuracy(logits, y):
    return (torch.round(logits) == y).float().mean()
