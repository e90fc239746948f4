"""Sets model.requires_grad_ on the classifier only and never freezes anything else.

question: freeze_encoder_tests
replaces: freeze_encoder
"""


def freeze_encoder(model):
    model.classifier.requires_grad_(True)
    return model
