"""Casts rank and alpha to int before building the adapters (as peft's lora_alpha is an int), so a
non-integer alpha such as 2.5 or 0.5 is truncated and the update is scaled by the wrong amount.

question: lora_tests
replaces: lora
hunt: 2026-12-a
"""


def add_lora(model, rank, alpha):
    rank, alpha = int(rank), int(alpha)
    for parameter in model.parameters():
        parameter.requires_grad = False
    for layer in model.encoder.layer:
        attention = layer.attention.self
        attention.query = LoRALinear(attention.query, rank, alpha)
        attention.value = LoRALinear(attention.value, rank, alpha)
    for parameter in model.classifier.parameters():
        parameter.requires_grad = True
    return model
