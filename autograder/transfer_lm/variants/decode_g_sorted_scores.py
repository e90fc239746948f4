"""Ranks the ids by their temperature-scaled scores (stable descending sort of the scores, which orders them as
their probabilities do), reads the probabilities in that order with gather, applies the top-p cut to the sorted
scores and scatters them back to id order.

question: sample_next_tests
replaces: sample_next
hunt: 2026-12-g
"""


def sample_next(scores, temperature=1.0, top_k=None, top_p=None, generator=None):
    if temperature == 0:
        return scores.argmax(dim=-1)
    scaled = scores / temperature
    if top_k is not None:
        kth_best = scaled.topk(top_k, dim=-1).values.amin(dim=-1, keepdim=True)
        scaled = scaled.masked_fill(scaled < kth_best, float("-inf"))
    if top_p is not None:
        if not 0 < top_p <= 1:
            raise ValueError(f"top_p must be in (0, 1]; got {top_p}")
        if top_p < 1:
            sorted_scaled, order = scaled.sort(dim=-1, descending=True, stable=True)
            ranked = torch.softmax(scaled, dim=-1).gather(-1, order)
            reached_before = F.pad((ranked.cumsum(dim=-1) >= top_p)[:, :-1], (1, 0), value=False)   # p reached earlier
            sorted_scaled = sorted_scaled.masked_fill(reached_before, float("-inf"))
            scaled = torch.empty_like(scaled).scatter(-1, order, sorted_scaled)
    return torch.multinomial(torch.softmax(scaled, dim=-1), 1, generator=generator).squeeze(-1)
