"""Freezes every parameter, the classifier included.

question: freeze_encoder_tests
replaces: freeze_encoder
"""


def freeze_encoder(model):
    for parameter in model.parameters():
        parameter.requires_grad = False
    return model
