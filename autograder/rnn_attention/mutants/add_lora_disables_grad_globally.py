"""Turns autograd off with torch.set_grad_enabled(False) while it edits the model ("the frozen weights
must not record gradients") and never turns it back on: the flags and values are right, but after the
call no forward pass builds a graph, so the caller's loss.backward() fails.

question: lora_tests
replaces: lora
hunt: 2026-12-b
"""


def add_lora(model, rank, alpha):
    torch.set_grad_enabled(False)
    for parameter in model.parameters():
        parameter.requires_grad = False
    for layer in model.encoder.layer:
        attention = layer.attention.self
        attention.query = LoRALinear(attention.query, rank, alpha)
        attention.value = LoRALinear(attention.value, rank, alpha)
    for parameter in model.classifier.parameters():
        parameter.requires_grad = True
    return model
