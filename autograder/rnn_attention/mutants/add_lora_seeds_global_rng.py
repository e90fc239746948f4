"""Calls torch.manual_seed(0) at the start "for reproducible adapters": the adapters' A no longer come
from the caller's random state (every call gives the same A's, whatever the caller seeded), and the
caller's global random stream is reset as a side effect.

question: lora_tests
replaces: lora
hunt: 2026-12-b
stated: A is drawn from torch's random state, not seeded
"""


def add_lora(model, rank, alpha):
    torch.manual_seed(0)
    for parameter in model.parameters():
        parameter.requires_grad = False
    for layer in model.encoder.layer:
        attention = layer.attention.self
        attention.query = LoRALinear(attention.query, rank, alpha)
        attention.value = LoRALinear(attention.value, rank, alpha)
    for parameter in model.classifier.parameters():
        parameter.requires_grad = True
    return model
