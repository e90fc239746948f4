"""To rank the smaller id first among equal probabilities without a stable sort, the student sorts by
probability minus 1e-7 * id; two ids whose probabilities differ by less than that penalty are then ranked in id
order instead of by probability, so the kept set can hold the less likely of the two.

question: sample_next_tests
replaces: sample_next
hunt: 2026-12-f
stated: "rank the row's ids by decreasing probability (probabilities that differ are not ties, however small the difference), the smaller id first among equal probabilities"
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
            probabilities = torch.softmax(scaled, dim=-1)
            ids = torch.arange(scaled.shape[-1], device=scaled.device, dtype=probabilities.dtype)
            order = (probabilities - 1e-7 * ids).argsort(dim=-1, descending=True)   # smaller id first on ties
            ranked = probabilities.gather(-1, order)
            reached = ranked.cumsum(dim=-1) >= top_p
            cut_ranked = torch.cat([torch.zeros_like(reached[:, :1]), reached[:, :-1]], dim=-1)
            cut = torch.zeros_like(cut_ranked).scatter(-1, order, cut_ranked)
            scaled = scaled.masked_fill(cut, float("-inf"))
    probabilities = torch.softmax(scaled, dim=-1)
    return torch.multinomial(probabilities, 1, generator=generator).squeeze(-1)
