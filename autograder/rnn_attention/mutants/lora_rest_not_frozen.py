"""Wraps the projections but freezes nothing else, counting on LoRALinear to freeze what it wraps: the
embeddings, keys, feed-forward layers, layer norms and pooler all keep training.

question: lora_tests
replaces: lora
contract: only the adapters' A and B and the classifier require gradients after add_lora
"""


def add_lora(model, rank, alpha):
    for layer in model.encoder.layer:
        attention = layer.attention.self
        attention.query = LoRALinear(attention.query, rank, alpha)
        attention.value = LoRALinear(attention.value, rank, alpha)
    return model
