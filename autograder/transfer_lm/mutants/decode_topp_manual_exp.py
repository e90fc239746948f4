"""For the nucleus the student computes the probabilities by hand, exp(scaled) divided by its row sum, instead of
torch.softmax. Large scores (a row shifted by 1000) overflow to inf/inf = NaN and very negative ones underflow to
0/0, so no running sum reaches p and nothing is cut.

question: sample_next_tests
replaces: sample_next
hunt: 2026-12-d
stated: They may be any real numbers (adding one constant to a row, even 1000, changes nothing): let torch.softmax take the exponentials
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
            weights = scaled.exp()
            probs = weights / weights.sum(dim=-1, keepdim=True)
            ranked, order = probs.sort(dim=-1, descending=True, stable=True)
            reached = ranked.cumsum(dim=-1) >= top_p
            cut_ranked = torch.cat([torch.zeros_like(reached[:, :1]), reached[:, :-1]], dim=-1)
            cut = torch.zeros_like(cut_ranked).scatter(-1, order, cut_ranked)
            scaled = scaled.masked_fill(cut, float("-inf"))
    probabilities = torch.softmax(scaled, dim=-1)
    return torch.multinomial(probabilities, 1, generator=generator).squeeze(-1)
