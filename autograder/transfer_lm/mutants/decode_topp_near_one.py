"""Knowing that a float32 running sum can reach 1 early, the student skips the nucleus for any p within 1e-6 of 1
instead of only for p = 1. A p such as 0.9999995 is a valid p < 1 that must still cut the ids the running sum does
not need, but here every id is kept.

question: sample_next_tests
replaces: sample_next
hunt: 2026-12-d
stated: keep ids in that order until their running sum reaches p, compared with p itself (no tolerance) ... p = 1 keeps every id
"""


def sample_next(scores, temperature=1.0, top_k=None, top_p=None, generator=None):
    if temperature == 0:
        return scores.argmax(dim=-1)
    scaled = scores / temperature
    if top_k is not None:
        kth_best = scaled.topk(top_k, dim=-1).values[:, -1:]
        scaled = scaled.masked_fill(scaled < kth_best, float("-inf"))
    if top_p is not None:
        if not 0 < top_p <= 1:
            raise ValueError(f"top_p must be in (0, 1]; got {top_p}")
        if top_p < 1 - 1e-6:  # p (numerically) 1 keeps every id
            ranked, order = torch.softmax(scaled, dim=-1).sort(dim=-1, descending=True, stable=True)
            reached = ranked.cumsum(dim=-1) >= top_p
            cut_ranked = torch.cat([torch.zeros_like(reached[:, :1]), reached[:, :-1]], dim=-1)
            cut = torch.zeros_like(cut_ranked).scatter(-1, order, cut_ranked)
            scaled = scaled.masked_fill(cut, float("-inf"))
    probabilities = torch.softmax(scaled, dim=-1)
    return torch.multinomial(probabilities, 1, generator=generator).squeeze(-1)
