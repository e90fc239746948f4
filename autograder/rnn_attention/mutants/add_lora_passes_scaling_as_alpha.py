"""Passes the scaling alpha / rank where LoRALinear expects alpha ("the layer is scaled by alpha / r"), so
LoRALinear divides by rank a second time: the update is scaled by alpha / rank**2.

question: lora_tests
replaces: lora
hunt: 2026-12-b
stated: each adapter is LoRALinear(base, rank, alpha), scaled by alpha / rank
"""


def add_lora(model, rank, alpha):
    for parameter in model.parameters():
        parameter.requires_grad = False
    scaling = alpha / rank
    for layer in model.encoder.layer:
        attention = layer.attention.self
        attention.query = LoRALinear(attention.query, rank, scaling)
        attention.value = LoRALinear(attention.value, rank, scaling)
    for parameter in model.classifier.parameters():
        parameter.requires_grad = True
    return model
