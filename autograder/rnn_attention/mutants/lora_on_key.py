"""Puts the second adapter on the key projection instead of the value projection of each layer.

question: lora_tests
replaces: lora
contract: add_lora wraps the query and value projections, not key
"""


def add_lora(model, rank, alpha):
    for parameter in model.parameters():
        parameter.requires_grad = False
    for layer in model.encoder.layer:
        attention = layer.attention.self
        attention.query = LoRALinear(attention.query, rank, alpha)
        attention.key = LoRALinear(attention.key, rank, alpha)
    for parameter in model.classifier.parameters():
        parameter.requires_grad = True
    return model
