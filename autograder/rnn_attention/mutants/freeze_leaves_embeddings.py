"""Freezes the encoder layers and the pooler but forgets the embeddings.

question: freeze_encoder_tests
replaces: freeze_encoder
"""


def freeze_encoder(model):
    for module in (model.encoder, model.pooler):
        for parameter in module.parameters():
            parameter.requires_grad = False
    return model
