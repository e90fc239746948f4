"""The student counts how many ranked ids each row needs to reach p, then keeps the same number of best ids in every
row, the largest count of the batch, so that one slice works for the whole batch. Rows that reach p sooner than the
widest row keep extra ids (identical rows, as in a repeated toy row, hide it).

question: sample_next_tests
replaces: sample_next
hunt: 2026-12-d
stated: keeps, in each row, the smallest set of ids whose probabilities (after the temperature) sum to at least p
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
            needed = (ranked.cumsum(dim=-1) < top_p).sum(dim=-1) + 1          # ids each row needs
            n_keep = int(needed.max().clamp(max=scaled.shape[-1]))            # one count for the batch
            cut_ranked = torch.ones_like(ranked, dtype=torch.bool)
            cut_ranked[:, :n_keep] = False
            cut = torch.zeros_like(cut_ranked).scatter(-1, order, cut_ranked)
            scaled = scaled.masked_fill(cut, float("-inf"))
    probabilities = torch.softmax(scaled, dim=-1)
    return torch.multinomial(probabilities, 1, generator=generator).squeeze(-1)
