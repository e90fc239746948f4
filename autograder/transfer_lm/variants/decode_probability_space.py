"""Filters in probability space: takes the softmax of the scaled scores once, zeroes the probabilities
top-k and top-p cut (renormalising after top-k), and hands the unnormalised kept probabilities to
torch.multinomial, which normalises them itself; the reference masks scores with -inf.

question: sample_next_tests
replaces: sample_next
hunt: 2026-12-a
"""


def sample_next(scores, temperature=1.0, top_k=None, top_p=None, generator=None):
    if temperature == 0:
        return scores.argmax(dim=-1)
    probs = torch.softmax(scores / temperature, dim=-1)
    if top_k is not None:
        kth_best = probs.topk(top_k, dim=-1).values[:, -1:]
        probs = torch.where(probs >= kth_best, probs, torch.zeros_like(probs))
        probs = probs / probs.sum(dim=-1, keepdim=True)
    if top_p is not None:
        if not 0 < top_p <= 1:
            raise ValueError(f"top_p must be in (0, 1]; got {top_p}")
        if top_p < 1:
            ranked, order = probs.sort(dim=-1, descending=True, stable=True)
            cut_ranked = ranked.cumsum(dim=-1) - ranked >= top_p
            probs = probs.masked_fill(torch.zeros_like(cut_ranked).scatter(-1, order, cut_ranked), 0.0)
    return torch.multinomial(probs, 1, generator=generator).squeeze(-1)
