"""Uses the raw dot products of the embeddings instead of cosine similarities.

question: clip_similarity_tests
replaces: clip_similarity
"""


def clip_similarity(image_embeds, text_embeds, logit_scale):
    logits_per_text = logit_scale.exp() * text_embeds @ image_embeds.T
    return logits_per_text, logits_per_text.softmax(dim=-1)
