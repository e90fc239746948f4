"""Squeezes the logits with .squeeze() to tidy the result; with a single image (or caption) the matrix
loses an axis and the softmax runs over the wrong one.

question: clip_similarity_tests
replaces: clip_similarity
contract: logits_per_text and probs are (n_texts, n_images), one image or caption included
"""


def clip_similarity(image_embeds, text_embeds, logit_scale):
    images = image_embeds / image_embeds.norm(dim=-1, keepdim=True)
    texts = text_embeds / text_embeds.norm(dim=-1, keepdim=True)
    logits_per_text = (logit_scale.exp() * texts @ images.T).squeeze()
    return logits_per_text, logits_per_text.softmax(dim=-1)
