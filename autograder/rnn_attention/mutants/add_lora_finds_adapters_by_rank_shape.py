"""Wraps the projections first, then sets requires_grad by shape, the way the visible check finds A and
B: every parameter with an axis of length rank trains, plus the classifier. When rank equals another size
of the model (rank 2 and the two token-type embeddings, rank equal to the number of labels or to a sequence
length) that unrelated parameter becomes trainable too.

question: lora_tests
replaces: lora
hunt: 2026-12-b
stated: exactly the adapters' A and B and the classifier require gradients afterwards
"""


def add_lora(model, rank, alpha):
    for layer in model.encoder.layer:
        attention = layer.attention.self
        attention.query = LoRALinear(attention.query, rank, alpha)
        attention.value = LoRALinear(attention.value, rank, alpha)
    for name, parameter in model.named_parameters():
        parameter.requires_grad = name.startswith("classifier.") or rank in parameter.shape
    return model
