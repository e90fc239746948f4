"""The student applies the top-p cut for every valid p, p = 1 included, trusting the running sum to reach 1 only at
the last id; at 20,000 ids a float32 torch.cumsum reaches 1.0 early, so p = 1 cuts ids whose probability is not 0.

question: sample_next_tests
replaces: sample_next
hunt: 2026-12-f
stated: "p = 1 keeps every id (also at 20,000 ids, where a float32 running sum reaches 1.0 before the last id)."
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
        ranked, order = torch.softmax(scaled, dim=-1).sort(dim=-1, descending=True, stable=True)
        reached = ranked.cumsum(dim=-1) >= top_p
        cut_ranked = torch.cat([torch.zeros_like(reached[:, :1]), reached[:, :-1]], dim=-1)
        cut = torch.zeros_like(cut_ranked).scatter(-1, order, cut_ranked)
        scaled = scaled.masked_fill(cut, float("-inf"))
    probabilities = torch.softmax(scaled, dim=-1)
    return torch.multinomial(probabilities, 1, generator=generator).squeeze(-1)
