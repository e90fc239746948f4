"""Freezes every parameter whose name does not start with "classifier." and leaves the classifier's own
flags alone ("it is trainable already"): a model that arrives with its head frozen (after freeze-all, or
loaded with requires_grad off) comes back with a frozen classifier.

question: lora_tests
replaces: lora
hunt: 2026-12-b
stated: whatever requires_grad flags the model arrived with, classifier.weight and classifier.bias require gradients afterwards
"""


def add_lora(model, rank, alpha):
    for name, parameter in model.named_parameters():
        if not name.startswith("classifier."):
            parameter.requires_grad = False
    for layer in model.encoder.layer:
        attention = layer.attention.self
        attention.query = LoRALinear(attention.query, rank, alpha)
        attention.value = LoRALinear(attention.value, rank, alpha)
    return model
