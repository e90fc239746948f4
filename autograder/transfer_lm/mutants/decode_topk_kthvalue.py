"""The student finds the top-k threshold with torch.kthvalue(scaled, ntoken - k), the (n - k)-th smallest score, and
cuts every score at or below it, which keeps the k largest. With k = ntoken (allowed) this asks kthvalue for the 0-th
smallest value and raises instead of keeping every id.

question: sample_next_tests
replaces: sample_next
hunt: 2026-12-d
stated: top_k: None keeps every id; an int k with 1 <= k <= ntoken keeps only the k largest scores of each row
"""


def sample_next(scores, temperature=1.0, top_k=None, top_p=None, generator=None):
    if temperature == 0:
        return scores.argmax(dim=-1)
    scaled = scores / temperature
    if top_k is not None:
        threshold = scaled.kthvalue(scaled.shape[-1] - top_k, dim=-1, keepdim=True).values  # largest cut score
        scaled = scaled.masked_fill(scaled <= threshold, float("-inf"))
    if top_p is not None:
        if not 0 < top_p <= 1:
            raise ValueError(f"top_p must be in (0, 1]; got {top_p}")
        if top_p < 1:
            ranked, order = torch.softmax(scaled, dim=-1).sort(dim=-1, descending=True, stable=True)
            reached = ranked.cumsum(dim=-1) >= top_p
            cut_ranked = torch.cat([torch.zeros_like(reached[:, :1]), reached[:, :-1]], dim=-1)
            cut = torch.zeros_like(cut_ranked).scatter(-1, order, cut_ranked)
            scaled = scaled.masked_fill(cut, float("-inf"))
    probabilities = torch.softmax(scaled, dim=-1)
    return torch.multinomial(probabilities, 1, generator=generator).squeeze(-1)
