"""Adds .float() to the projections before wrapping them (to avoid a dtype mismatch with the adapters),
which converts the model's query and value weights to float32 in place: a float64 or bfloat16 model ends
up with mixed dtypes and changed query/value weights.

question: lora_tests
replaces: lora
hunt: 2026-12-a
"""


def add_lora(model, rank, alpha):
    for parameter in model.parameters():
        parameter.requires_grad = False
    for layer in model.encoder.layer:
        attention = layer.attention.self
        attention.query = LoRALinear(attention.query.float(), rank, alpha)
        attention.value = LoRALinear(attention.value.float(), rank, alpha)
    for parameter in model.classifier.parameters():
        parameter.requires_grad = True
    return model
