"""Masks every score at or below the k-th largest (<= instead of <), so top-k keeps only k - 1 ids
(and top-1 keeps none at all).

question: sample_next_tests
replaces: sample_next
"""


def sample_next(scores, temperature=1.0, top_k=None, generator=None):
    if temperature == 0:
        return scores.argmax(dim=-1)
    scaled = scores / temperature
    if top_k is not None:
        kth_best = scaled.topk(top_k, dim=-1).values[:, -1:]
        scaled = scaled.masked_fill(scaled <= kth_best, float("-inf"))
    probabilities = torch.softmax(scaled, dim=-1)
    return torch.multinomial(probabilities, 1, generator=generator).squeeze(-1)
