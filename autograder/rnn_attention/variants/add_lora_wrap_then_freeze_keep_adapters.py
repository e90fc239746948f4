"""Wraps first and freezes afterwards: it remembers the parameters that each new adapter created as
trainable, freezes the whole model with requires_grad_(False), then re-enables exactly those and the
classifier.

question: lora_tests
replaces: lora
hunt: 2026-12-a
"""


def add_lora(model, rank, alpha):
    adapter_parameters = []
    for layer in model.encoder.layer:
        attention = layer.attention.self
        for projection in ("query", "value"):
            adapter = LoRALinear(getattr(attention, projection), rank, alpha)
            adapter_parameters += [p for p in adapter.parameters() if p.requires_grad]
            setattr(attention, projection, adapter)
    model.requires_grad_(False)
    for parameter in adapter_parameters:
        parameter.requires_grad_(True)
    model.classifier.requires_grad_(True)
    return model
