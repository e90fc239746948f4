"""For a precise running sum the student works in float64 via scores.double() and then scales and masks that
tensor in place. For float32 scores .double() is a copy, but for float64 scores it returns the very same
tensor, so the caller's scores are divided by the temperature and overwritten with -inf.

question: sample_next_tests
replaces: sample_next
hunt: 2026-12-c
stated: Do not modify it.
"""


def sample_next(scores, temperature=1.0, top_k=None, top_p=None, generator=None):
    if temperature == 0:
        return scores.argmax(dim=-1)
    logits = scores.double()                                 # float64 for an exact running sum
    logits /= temperature
    if top_k is not None:
        kth_best = logits.topk(top_k, dim=-1).values[:, -1:]
        logits[logits < kth_best] = float("-inf")
    if top_p is not None:
        if not 0 < top_p <= 1:
            raise ValueError(f"top_p must be in (0, 1]; got {top_p}")
        if top_p < 1:
            ranked, order = torch.softmax(logits, dim=-1).sort(dim=-1, descending=True, stable=True)
            reached = ranked.cumsum(dim=-1) >= top_p
            cut_ranked = torch.cat([torch.zeros_like(reached[:, :1]), reached[:, :-1]], dim=-1)
            cut = torch.zeros_like(cut_ranked).scatter(-1, order, cut_ranked)
            logits[cut] = float("-inf")
    probabilities = torch.softmax(logits, dim=-1)
    return torch.multinomial(probabilities, 1, generator=generator).squeeze(-1)
