"""The student writes the softmax by hand and, for stability, subtracts scores.max() without dim: the largest score
of the whole batch, not of each row; a row far below another row (e.g. rows [0, 1] and [-300, -299]) underflows to
all zeros and torch.multinomial raises, though adding a constant to a row should change nothing.

question: sample_next_tests
replaces: sample_next
hunt: 2026-12-f
stated: "They may be any real numbers (adding one constant to a row, even 1000, changes nothing): let torch.softmax take the exponentials"
"""


def sample_next(scores, temperature=1.0, top_k=None, top_p=None, generator=None):
    def softmax(x):
        weights = (x - x.max()).exp()                                      # shift by the max for stability
        return weights / weights.sum(dim=-1, keepdim=True)

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
            ranked, order = softmax(scaled).sort(dim=-1, descending=True, stable=True)
            reached = ranked.cumsum(dim=-1) >= top_p
            cut_ranked = torch.cat([torch.zeros_like(reached[:, :1]), reached[:, :-1]], dim=-1)
            cut = torch.zeros_like(cut_ranked).scatter(-1, order, cut_ranked)
            scaled = scaled.masked_fill(cut, float("-inf"))
    return torch.multinomial(softmax(scaled), 1, generator=generator).squeeze(-1)
