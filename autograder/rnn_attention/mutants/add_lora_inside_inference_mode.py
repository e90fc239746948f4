"""Builds the adapters inside torch.inference_mode() ("no gradients are needed while editing the model"):
A and B are created as inference tensors: backward leaves their .grad at None and the optimiser's
in-place update of them raises, so the adapters cannot be trained.

question: lora_tests
replaces: lora
hunt: 2026-12-b
"""


def add_lora(model, rank, alpha):
    with torch.inference_mode():
        for parameter in model.parameters():
            parameter.requires_grad = False
        for layer in model.encoder.layer:
            attention = layer.attention.self
            attention.query = LoRALinear(attention.query, rank, alpha)
            attention.value = LoRALinear(attention.value, rank, alpha)
    for parameter in model.classifier.parameters():
        parameter.requires_grad = True
    return model
