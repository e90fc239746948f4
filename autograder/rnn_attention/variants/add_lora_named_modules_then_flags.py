"""Wraps first, finding the query and value nn.Linear layers with named_modules() (list taken before any
change) and replacing them through their parent (get_submodule); then sets every requires_grad flag in one
pass by name: lora_A / lora_B and classifier.* train, everything else is frozen.

question: lora_tests
replaces: lora
hunt: 2026-12-b
"""


def add_lora(model, rank, alpha):
    targets = [name for name, module in model.named_modules()
               if isinstance(module, nn.Linear) and name.rsplit(".", 1)[-1] in ("query", "value")]
    for name in targets:
        parent, child = name.rsplit(".", 1)
        owner = model.get_submodule(parent)
        setattr(owner, child, LoRALinear(getattr(owner, child), rank, alpha))
    for name, parameter in model.named_parameters():
        leaf = name.rsplit(".", 1)[-1]
        parameter.requires_grad = leaf in ("lora_A", "lora_B") or name.startswith("classifier.")
    return model
