"""Normalises the probabilities over the captions (axis 0) instead of over the images.

question: clip_similarity_tests
replaces: clip_similarity
"""


def clip_similarity(image_embeds, text_embeds, logit_scale):
    images = image_embeds / image_embeds.norm(dim=-1, keepdim=True)
    texts = text_embeds / text_embeds.norm(dim=-1, keepdim=True)
    logits_per_text = logit_scale.exp() * texts @ images.T
    return logits_per_text, logits_per_text.softmax(dim=0)
