"""Works in float64 "for precision" (x = scores.double()) and then divides and masks x in place; .double() returns
the very same tensor when the scores already are float64, so float64 scores come back divided by T and with -inf cuts.

question: sample_next_tests
replaces: sample_next
hunt: 2026-12-g
stated: "Do not modify it."
"""


def sample_next(scores, temperature=1.0, top_k=None, top_p=None, generator=None):
    if temperature == 0:
        return scores.argmax(dim=-1)
    scaled = scores.double()                     # work in float64, then come back to the scores' dtype
    scaled /= temperature
    if top_k is not None:
        kth_best = scaled.topk(top_k, dim=-1).values[:, -1:]
        scaled.masked_fill_(scaled < kth_best, float("-inf"))
    if top_p is not None:
        if not 0 < top_p <= 1:
            raise ValueError(f"top_p must be in (0, 1]; got {top_p}")
        if top_p < 1:
            ranked, order = torch.softmax(scaled, dim=-1).sort(dim=-1, descending=True, stable=True)
            reached = ranked.cumsum(dim=-1) >= top_p
            cut_ranked = torch.cat([torch.zeros_like(reached[:, :1]), reached[:, :-1]], dim=-1)
            cut = torch.zeros_like(cut_ranked).scatter(-1, order, cut_ranked)
            scaled.masked_fill_(cut, float("-inf"))
    probabilities = torch.softmax(scaled, dim=-1).to(scores.dtype)
    return torch.multinomial(probabilities, 1, generator=generator).squeeze(-1)
