"""Uses the module-level switches: model.requires_grad_(False), then wraps by layer index over
config.num_hidden_layers, then model.classifier.requires_grad_(True); the new adapters' A and B are
trainable as LoRALinear creates them.

question: lora_tests
replaces: lora
hunt: 2026-12-b
"""


def add_lora(model, rank, alpha):
    model.requires_grad_(False)
    for i in range(model.config.num_hidden_layers):
        attention = model.encoder.layer[i].attention.self
        attention.query = LoRALinear(attention.query, rank, alpha)
        attention.value = LoRALinear(attention.value, rank, alpha)
    model.classifier.requires_grad_(True)
    return model
