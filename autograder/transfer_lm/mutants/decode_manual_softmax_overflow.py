"""Writes the softmax by hand as exp(x) / exp(x).sum(), without subtracting the row's maximum first. With
ordinary logits at a low temperature (scores around 10 at T = 0.1) exp overflows to inf, the probabilities
become NaN and torch.multinomial fails.

question: sample_next_tests
replaces: sample_next
hunt: 2026-12-b
contract: scores may be any real numbers (a constant added to a row changes nothing): let torch.softmax take the exponentials
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
            ranked, order = (weights / weights.sum(dim=-1, keepdim=True)).sort(dim=-1, descending=True, stable=True)
            reached = ranked.cumsum(dim=-1) >= top_p
            cut_ranked = torch.cat([torch.zeros_like(reached[:, :1]), reached[:, :-1]], dim=-1)
            cut = torch.zeros_like(cut_ranked).scatter(-1, order, cut_ranked)
            scaled = scaled.masked_fill(cut, float("-inf"))
    weights = scaled.exp()
    probabilities = weights / weights.sum(dim=-1, keepdim=True)
    return torch.multinomial(probabilities, 1, generator=generator).squeeze(-1)
