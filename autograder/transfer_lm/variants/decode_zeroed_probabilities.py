"""Works in probability space at the end: the top-k threshold comes from a descending sort of the scaled
scores, the top-p kept set from the softmax of what top-k left, and the cut ids get probability 0 (instead
of score -inf) in the softmax of the top-k scores; torch.multinomial renormalises the weights itself. The
running sum before each ranked id is made with roll.

question: sample_next_tests
replaces: sample_next
hunt: 2026-12-b
"""


def sample_next(scores, temperature=1.0, top_k=None, top_p=None, generator=None):
    if temperature == 0:
        return scores.argmax(-1)
    logits = scores / temperature
    if top_k is not None:
        threshold = logits.sort(dim=-1, descending=True).values[:, top_k - 1:top_k]
        logits = logits.masked_fill(logits < threshold, float("-inf"))
    probs = torch.softmax(logits, dim=-1)
    if top_p is not None:
        if not (0 < top_p <= 1):
            raise ValueError("top_p must satisfy 0 < top_p <= 1")
        if top_p < 1:
            ranked, order = probs.sort(dim=-1, descending=True, stable=True)
            before = ranked.cumsum(dim=-1).roll(1, dims=-1)
            before[:, 0] = 0
            drop = torch.empty_like(before, dtype=torch.bool).scatter_(-1, order, before >= top_p)
            probs = probs.masked_fill(drop, 0.0)
    return torch.multinomial(probs, 1, generator=generator).view(-1)
