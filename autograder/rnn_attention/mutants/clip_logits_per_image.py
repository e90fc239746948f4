"""Returns the image-by-caption matrix (logits_per_image) where the caption-by-image one is asked for.

question: clip_similarity_tests
replaces: clip_similarity
contract: logits_per_text is (n_texts, n_images)
"""


def clip_similarity(image_embeds, text_embeds, logit_scale):
    images = image_embeds / image_embeds.norm(dim=-1, keepdim=True)
    texts = text_embeds / text_embeds.norm(dim=-1, keepdim=True)
    logits_per_image = logit_scale.exp() * images @ texts.T
    return logits_per_image, logits_per_image.softmax(dim=-1)
