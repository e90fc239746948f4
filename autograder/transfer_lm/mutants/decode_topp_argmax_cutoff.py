"""The student finds the rank where the running sum first reaches p with (running >= p).int().argmax(-1) and keeps
ranks up to it. When rounding leaves a row's running sum below p everywhere (p just under 1, long or half-precision
rows), argmax of an all-False row is 0 and only the best id is kept instead of every id.

question: sample_next_tests
replaces: sample_next
hunt: 2026-12-d
stated: keep ids in that order until their running sum reaches p, compared with p itself (no tolerance)
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
        if top_p < 1:
            ranked, order = torch.softmax(scaled, dim=-1).sort(dim=-1, descending=True, stable=True)
            last = (ranked.cumsum(dim=-1) >= top_p).int().argmax(dim=-1, keepdim=True)  # rank that reaches p
            ranks = torch.ones_like(order).cumsum(dim=-1) - 1
            cut_ranked = ranks > last
            cut = torch.zeros_like(cut_ranked).scatter(-1, order, cut_ranked)
            scaled = scaled.masked_fill(cut, float("-inf"))
    probabilities = torch.softmax(scaled, dim=-1)
    return torch.multinomial(probabilities, 1, generator=generator).squeeze(-1)
