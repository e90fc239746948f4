"""Normalises the embeddings in place, changing the caller's tensors, and so scores a second call on already-unit vectors.

question: clip_similarity_tests
replaces: clip_similarity
contract: the inputs are not changed
"""


def clip_similarity(image_embeds, text_embeds, logit_scale):
    image_embeds /= image_embeds.norm(dim=-1, keepdim=True)
    text_embeds /= text_embeds.norm(dim=-1, keepdim=True)
    logits_per_text = logit_scale.exp() * text_embeds @ image_embeds.T
    return logits_per_text, logits_per_text.softmax(dim=-1)
