"""Copy-paste slip on the value line: the value adapter is built as LoRALinear(value, rank, rank), so
its scaling is 1 whatever alpha is; the query adapters are right.

question: lora_tests
replaces: lora
hunt: 2026-12-a
"""


def add_lora(model, rank, alpha):
    for parameter in model.parameters():
        parameter.requires_grad = False
    for layer in model.encoder.layer:
        attention = layer.attention.self
        attention.query = LoRALinear(attention.query, rank, alpha)
        attention.value = LoRALinear(attention.value, rank, rank)
    for parameter in model.classifier.parameters():
        parameter.requires_grad = True
    return model
