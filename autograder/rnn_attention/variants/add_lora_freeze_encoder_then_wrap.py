"""Reuses the provided freeze_encoder (everything but the classifier frozen) and then wraps query and
value with setattr over an index range of config.num_hidden_layers.

question: lora_tests
replaces: lora
hunt: 2026-12-a
"""


def add_lora(model, rank, alpha):
    freeze_encoder(model)
    for i in range(model.config.num_hidden_layers):
        attention = model.encoder.layer[i].attention.self
        for projection in ("query", "value"):
            setattr(attention, projection, LoRALinear(getattr(attention, projection), rank, alpha))
    return model
