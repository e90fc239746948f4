"""Freezes the embeddings, the encoder and the pooler one by one and never touches the classifier,
assuming the head is still trainable; a model that arrives with its head frozen keeps it frozen.

question: lora_tests
replaces: lora
hunt: 2026-12-a
"""


def add_lora(model, rank, alpha):
    for part in (model.embeddings, model.encoder, model.pooler):
        for parameter in part.parameters():
            parameter.requires_grad = False
    for layer in model.encoder.layer:
        attention = layer.attention.self
        attention.query = LoRALinear(attention.query, rank, alpha)
        attention.value = LoRALinear(attention.value, rank, alpha)
    return model
