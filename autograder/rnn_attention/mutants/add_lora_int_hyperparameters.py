"""Casts the hyper-parameters to int before building the adapters ("rank and alpha are whole numbers"):
alpha=2.5 becomes 2, so the update is scaled by 2 / rank instead of 2.5 / rank.

question: lora_tests
replaces: lora
hunt: 2026-12-b
stated: alpha is a positive number, not necessarily whole
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
