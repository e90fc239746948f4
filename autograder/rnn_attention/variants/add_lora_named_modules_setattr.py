"""Freezes with model.requires_grad_(False) and model.classifier.requires_grad_(True), then walks a
materialised list of named_modules(), picks the nn.Linear modules named ...attention.self.query/value and
replaces each with setattr on its parent found by get_submodule.

question: lora_tests
replaces: lora
hunt: 2026-12-a
"""


def add_lora(model, rank, alpha):
    model.requires_grad_(False)
    model.classifier.requires_grad_(True)
    targets = [name for name, module in model.named_modules()
               if isinstance(module, nn.Linear) and name.endswith(("attention.self.query", "attention.self.value"))]
    for name in targets:
        parent_name, child_name = name.rsplit(".", 1)
        parent = model.get_submodule(parent_name)
        setattr(parent, child_name, LoRALinear(getattr(parent, child_name), rank, alpha))
    return model
