"""Finds the projections with named_modules() and puts the adapters back with setattr(model, name, ...)
using the full dotted name: that registers a new child literally called "encoder.layer.0.attention.self.query"
on the top module and leaves the real query and value layers in place, so the adapters never run.

question: lora_tests
replaces: lora
hunt: 2026-12-b
"""


def add_lora(model, rank, alpha):
    for parameter in model.parameters():
        parameter.requires_grad = False
    targets = [(name, module) for name, module in model.named_modules()
               if isinstance(module, nn.Linear) and name.split(".")[-1] in ("query", "value")]
    for name, module in targets:
        setattr(model, name, LoRALinear(module, rank, alpha))
    for parameter in model.classifier.parameters():
        parameter.requires_grad = True
    return model
