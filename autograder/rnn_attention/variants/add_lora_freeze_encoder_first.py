"""Reuses the provided freeze_encoder (everything but the classifier frozen, the classifier made
trainable) before wrapping, and wraps each layer's query and value with setattr over the two names.

question: lora_tests
replaces: lora
hunt: 2026-12-b
"""


def add_lora(model, rank, alpha):
    freeze_encoder(model)
    for layer in model.encoder.layer:
        for name in ("query", "value"):
            setattr(layer.attention.self, name, LoRALinear(getattr(layer.attention.self, name), rank, alpha))
    return model
