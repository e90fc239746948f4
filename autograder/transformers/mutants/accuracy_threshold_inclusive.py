"""Predicts positive where sigmoid(logit) >= 0.5 instead of > 0.5, so a logit of exactly 0 counts as a
positive prediction.

question: binary_accuracy_tests
replaces: binary_accuracy
"""


def binary_accuracy(logits, y):
    predictions = (torch.sigmoid(logits) >= 0.5).float()
    return (predictions == y).float().mean()
