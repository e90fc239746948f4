"""Works on a deep copy of the model so that the caller's model is "not destroyed", wraps and freezes the
copy and returns it; the model that was passed in is left as it was (no adapters, everything trainable).

question: lora_tests
replaces: lora
hunt: 2026-12-a
contract: add_lora changes the model in place and returns it
"""
import copy


def add_lora(model, rank, alpha):
    model = copy.deepcopy(model)
    for parameter in model.parameters():
        parameter.requires_grad = False
    for layer in model.encoder.layer:
        attention = layer.attention.self
        attention.query = LoRALinear(attention.query, rank, alpha)
        attention.value = LoRALinear(attention.value, rank, alpha)
    for parameter in model.classifier.parameters():
        parameter.requires_grad = True
    return model
