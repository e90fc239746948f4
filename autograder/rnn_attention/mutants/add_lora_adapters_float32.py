"""Keeps the adapters in float32 as peft does for half-precision models ("train the adapters in full
precision"): on a model in another dtype (float64, bfloat16) A and B are cast to float32, so they no longer
have the base layer's dtype and the forward mixes dtypes.

question: lora_tests
replaces: lora
hunt: 2026-12-b
stated: do not change any weight's dtype; the adapters live where their base layers do
"""


def add_lora(model, rank, alpha):
    for parameter in model.parameters():
        parameter.requires_grad = False
    for layer in model.encoder.layer:
        attention = layer.attention.self
        attention.query = LoRALinear(attention.query, rank, alpha)
        attention.value = LoRALinear(attention.value, rank, alpha)
        for adapter in (attention.query, attention.value):
            adapter.lora_A.data = adapter.lora_A.data.float()
            adapter.lora_B.data = adapter.lora_B.data.float()
    for parameter in model.classifier.parameters():
        parameter.requires_grad = True
    return model
