"""Applies the temperature to the probabilities instead of the scores: softmax(scores) ** (1 / T),
renormalised, then filters by zeroing probabilities. Equal on paper, but probabilities that underflow
to 0 in the first softmax stay 0, so at a high temperature unlikely ids can never be drawn.

question: sample_next_tests
replaces: sample_next
hunt: 2026-12-a
"""


def sample_next(scores, temperature=1.0, top_k=None, top_p=None, generator=None):
    if temperature == 0:
        return scores.argmax(dim=-1)
    probs = torch.softmax(scores, dim=-1) ** (1 / temperature)
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
            ahead = ranked.cumsum(dim=-1) - ranked
            cut = torch.zeros_like(ahead, dtype=torch.bool).scatter(-1, order, ahead >= top_p)
            probs = probs.masked_fill(cut, 0.0)
    return torch.multinomial(probs, 1, generator=generator).squeeze(-1)
