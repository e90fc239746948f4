"""Finds the projections by their module names and swaps them with setattr on the parent module, freezing with
requires_grad_ on whole modules, as one would for any Hugging Face model.

question: lora_tests
replaces: lora
"""


def add_lora(model, rank, alpha):
    model.requires_grad_(False)
    names = [n for n, _ in model.named_modules() if n.endswith(("attention.self.query", "attention.self.value"))]
    for name in names:
        parent, child = name.rsplit(".", 1)
        owner = model.get_submodule(parent)
        setattr(owner, child, LoRALinear(getattr(owner, child), rank, alpha))
    model.classifier.requires_grad_(True)
    return model
