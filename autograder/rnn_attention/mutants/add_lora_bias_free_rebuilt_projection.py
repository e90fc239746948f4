"""Rebuilds each query and value projection as a new bias-free nn.Linear that shares the old weight
(the LoRA formula h = W x + B A x has no bias) and wraps that, so the pretrained biases of query and value
are dropped.

question: lora_tests
replaces: lora
hunt: 2026-12-a
"""


def add_lora(model, rank, alpha):
    for parameter in model.parameters():
        parameter.requires_grad = False
    for layer in model.encoder.layer:
        attention = layer.attention.self
        for name in ("query", "value"):
            old = getattr(attention, name)
            base = nn.Linear(old.in_features, old.out_features, bias=False)
            base.weight = old.weight
            setattr(attention, name, LoRALinear(base, rank, alpha))
    for parameter in model.classifier.parameters():
        parameter.requires_grad = True
    return model
