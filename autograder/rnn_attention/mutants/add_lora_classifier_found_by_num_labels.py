"""Finds the classifier head's parameters by their size (first dimension equal to config.num_labels)
instead of by name, so with two labels the token-type embeddings (type_vocab_size 2) stay trainable too.

question: lora_tests
replaces: lora
hunt: 2026-12-a
"""


def add_lora(model, rank, alpha):
    for parameter in model.parameters():
        parameter.requires_grad = parameter.shape[0] == model.config.num_labels
    for layer in model.encoder.layer:
        attention = layer.attention.self
        attention.query = LoRALinear(attention.query, rank, alpha)
        attention.value = LoRALinear(attention.value, rank, alpha)
    return model
