"""The student compares the running sum with p minus the dtype's machine epsilon, "to absorb rounding"; a running
sum that falls short of p by less than eps (e.g. 0.5 against p = 0.5 + 2**-24 in float32) then stops the set one id
too early.

question: sample_next_tests
replaces: sample_next
hunt: 2026-12-f
stated: "keep ids in that order until their running sum reaches p, compared with p itself (no tolerance)"
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
            eps = torch.finfo(ranked.dtype).eps
            reached = ranked.cumsum(dim=-1) >= top_p - eps
            cut_ranked = torch.cat([torch.zeros_like(reached[:, :1]), reached[:, :-1]], dim=-1)
            cut = torch.zeros_like(cut_ranked).scatter(-1, order, cut_ranked)
            scaled = scaled.masked_fill(cut, float("-inf"))
    probabilities = torch.softmax(scaled, dim=-1)
    return torch.multinomial(probabilities, 1, generator=generator).squeeze(-1)
