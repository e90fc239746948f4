"""The student writes the softmax by hand as exp(scaled) / exp(scaled).sum(), without subtracting the row
maximum. Realistic logits divided by a small temperature (e.g. 30 / 0.2 = 150) overflow float32 exp to inf,
the probabilities become NaN and torch.multinomial raises instead of drawing.

question: sample_next_tests
replaces: sample_next
hunt: 2026-12-c
stated: A positive temperature divides the scores before the softmax.
"""


def sample_next(scores, temperature=1.0, top_k=None, top_p=None, generator=None):
    if temperature == 0:
        return scores.argmax(dim=-1)
    scaled = scores / temperature
    if top_k is not None:
        kth_best = scaled.topk(top_k, dim=-1).values[:, -1:]
        scaled = scaled.masked_fill(scaled < kth_best, float("-inf"))
    weights = scaled.exp()
    probabilities = weights / weights.sum(dim=-1, keepdim=True)
    if top_p is not None:
        if not 0 < top_p <= 1:
            raise ValueError(f"top_p must be in (0, 1]; got {top_p}")
        if top_p < 1:
            ranked, order = probabilities.sort(dim=-1, descending=True, stable=True)
            reached = ranked.cumsum(dim=-1) >= top_p
            cut_ranked = torch.cat([torch.zeros_like(reached[:, :1]), reached[:, :-1]], dim=-1)
            cut = torch.zeros_like(cut_ranked).scatter(-1, order, cut_ranked)
            probabilities = probabilities.masked_fill(cut, 0.0)
            probabilities = probabilities / probabilities.sum(dim=-1, keepdim=True)
    return torch.multinomial(probabilities, 1, generator=generator).squeeze(-1)
