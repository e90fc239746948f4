"""Moves each new adapter to DEVICE (.to(DEVICE)) "so that the adapters are on the GPU": that moves the
wrapped base layer too, so on a model that lives elsewhere (a CPU model on a GPU runtime, a model on
'meta' or another GPU) the query and value layers change device and the model is split across devices.

question: lora_tests
replaces: lora
hunt: 2026-12-b
stated: do not change any weight's device; the adapters live where their base layers do
"""


def add_lora(model, rank, alpha):
    for parameter in model.parameters():
        parameter.requires_grad = False
    for layer in model.encoder.layer:
        attention = layer.attention.self
        attention.query = LoRALinear(attention.query, rank, alpha).to(DEVICE)
        attention.value = LoRALinear(attention.value, rank, alpha).to(DEVICE)
    for parameter in model.classifier.parameters():
        parameter.requires_grad = True
    return model
