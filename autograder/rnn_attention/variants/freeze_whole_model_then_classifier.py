"""Freezes the whole model with requires_grad_(False), then turns the classifier back on with
requires_grad_(True).

question: freeze_encoder_tests
replaces: freeze_encoder
"""


def freeze_encoder(model):
    model.requires_grad_(False)
    model.classifier.requires_grad_(True)
    return model
