"""Moves each new adapter to the notebook's global DEVICE (.to(DEVICE)) instead of leaving it where the
model is, so on a GPU runtime a model on the CPU gets adapters on the GPU (and its wrapped weights move
with them), and the model no longer lives on one device.

question: lora_tests
replaces: lora
hunt: 2026-12-a
"""


def add_lora(model, rank, alpha):
    for parameter in model.parameters():
        parameter.requires_grad = False
    for layer in model.encoder.layer:
        attention = layer.attention.self
        attention.query = LoRALinear(attention.query, rank, alpha).to(DEVICE)
        attention.value = LoRALinear(attention.value, rank, alpha).to(DEVICE)
    for parameter in model.classifier.parameters():
        parameter.requires_grad = True
    return model
