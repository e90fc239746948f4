"""Wraps through model.apply with a function that replaces the query and value of every module that has
them (the self-attention modules), then freezes everything except the parameters of the LoRALinear
adapters that are not their base's and the classifier, found by isinstance rather than by name.

question: lora_tests
replaces: lora
hunt: 2026-12-b
"""


def add_lora(model, rank, alpha):
    def wrap(module):
        if isinstance(getattr(module, "query", None), nn.Linear) and isinstance(getattr(module, "value", None), nn.Linear):
            module.query = LoRALinear(module.query, rank, alpha)
            module.value = LoRALinear(module.value, rank, alpha)
    model.apply(wrap)
    keep = {id(p) for p in model.classifier.parameters()}
    for module in model.modules():
        if isinstance(module, LoRALinear):
            base = {id(p) for p in module.base.parameters()}
            keep |= {id(p) for p in module.parameters() if id(p) not in base}
    for parameter in model.parameters():
        parameter.requires_grad = id(parameter) in keep
    return model
