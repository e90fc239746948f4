"""Wraps through get_submodule with full dotted paths, then sets every requires_grad from the parameter's
name: trainable when it is an adapter matrix (".lora_" in the name) or belongs to the classifier.

question: lora_tests
replaces: lora
hunt: 2026-12-a
"""


def add_lora(model, rank, alpha):
    for i in range(len(model.encoder.layer)):
        attention = model.get_submodule(f"encoder.layer.{i}.attention.self")
        attention.query = LoRALinear(attention.query, rank, alpha)
        attention.value = LoRALinear(attention.value, rank, alpha)
    for name, parameter in model.named_parameters():
        parameter.requires_grad = name.startswith("classifier.") or ".lora_" in name
    return model
