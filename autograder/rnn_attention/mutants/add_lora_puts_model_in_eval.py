"""Calls model.eval() before wrapping ("so that dropout does not disturb the check that the output is
unchanged") and never restores the mode: a model given in training mode comes back in evaluation mode.

question: lora_tests
replaces: lora
hunt: 2026-12-b
stated: add_lora does not change the model's mode (model.training)
"""


def add_lora(model, rank, alpha):
    model.eval()
    for parameter in model.parameters():
        parameter.requires_grad = False
    for layer in model.encoder.layer:
        attention = layer.attention.self
        attention.query = LoRALinear(attention.query, rank, alpha)
        attention.value = LoRALinear(attention.value, rank, alpha)
    for parameter in model.classifier.parameters():
        parameter.requires_grad = True
    return model
