"""Computes the LoRA scaling alpha / rank in add_lora and passes it to LoRALinear as its alpha, so the
adapter divides by rank a second time: the update is scaled by alpha / rank**2.

question: lora_tests
replaces: lora
hunt: 2026-12-a
"""


def add_lora(model, rank, alpha):
    scaling = alpha / rank
    for parameter in model.parameters():
        parameter.requires_grad = False
    for layer in model.encoder.layer:
        attention = layer.attention.self
        attention.query = LoRALinear(attention.query, rank, scaling)
        attention.value = LoRALinear(attention.value, rank, scaling)
    for parameter in model.classifier.parameters():
        parameter.requires_grad = True
    return model
