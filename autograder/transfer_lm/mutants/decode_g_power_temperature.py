"""Applies the temperature to the probabilities, softmax(scores) ** (1 / T) renormalised, which equals
softmax(scores / T) in exact arithmetic; but ids whose softmax(scores) underflows to 0 stay at 0, so with a wide
score range and T > 1 (scores [0, -200], T = 100) ids that should have probability 0.12 are never drawn.

question: sample_next_tests
replaces: sample_next
hunt: 2026-12-g
stated: "A positive temperature (an int or a float) divides the scores before the softmax."
"""


def sample_next(scores, temperature=1.0, top_k=None, top_p=None, generator=None):
    if temperature == 0:
        return scores.argmax(dim=-1)
    probs = torch.softmax(scores, dim=-1)
    if temperature != 1:
        probs = probs ** (1.0 / temperature)
        probs = probs / probs.sum(dim=-1, keepdim=True)
    if top_k is not None:
        kth_best = probs.topk(top_k, dim=-1).values[:, -1:]
        probs = probs.masked_fill(probs < kth_best, 0.0)
        probs = probs / probs.sum(dim=-1, keepdim=True)
    if top_p is not None:
        if not 0 < top_p <= 1:
            raise ValueError(f"top_p must be in (0, 1]; got {top_p}")
        if top_p < 1:
            ranked, order = probs.sort(dim=-1, descending=True, stable=True)
            reached = ranked.cumsum(dim=-1) >= top_p
            cut_ranked = torch.cat([torch.zeros_like(reached[:, :1]), reached[:, :-1]], dim=-1)
            cut = torch.zeros_like(cut_ranked).scatter(-1, order, cut_ranked)
            probs = probs.masked_fill(cut, 0.0)
    return torch.multinomial(probs, 1, generator=generator).squeeze(-1)
