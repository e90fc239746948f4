"""Follows OpenAI's CLIP code: F.normalize on both embeddings, logits per image first (images by captions)
and their transpose for the captions, and F.softmax over the last axis.

question: clip_similarity_tests
replaces: clip_similarity
source: openai/CLIP clip/model.py (CLIP.forward)
"""


def clip_similarity(image_embeds, text_embeds, logit_scale):
    image_features = F.normalize(image_embeds, dim=-1)
    text_features = F.normalize(text_embeds, dim=-1)
    logits_per_image = logit_scale.exp() * image_features @ text_features.t()
    logits_per_text = logits_per_image.t()
    return logits_per_text, F.softmax(logits_per_text, dim=-1)
