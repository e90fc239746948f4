"""Wraps a fresh nn.Linear of the same sizes into which the old layer's weights are loaded
(load_state_dict) instead of the layer itself: the new layer is float32 on the CPU whatever the model's
dtype and device, and the model no longer holds its original query and value layers.

question: lora_tests
replaces: lora
hunt: 2026-12-b
stated: do not change any weight's dtype or device; the model is changed in place
"""


def add_lora(model, rank, alpha):
    for parameter in model.parameters():
        parameter.requires_grad = False
    for layer in model.encoder.layer:
        attention = layer.attention.self
        for name in ("query", "value"):
            old = getattr(attention, name)
            fresh = nn.Linear(old.in_features, old.out_features)
            fresh.load_state_dict(old.state_dict())
            setattr(attention, name, LoRALinear(fresh, rank, alpha))
    for parameter in model.classifier.parameters():
        parameter.requires_grad = True
    return model
