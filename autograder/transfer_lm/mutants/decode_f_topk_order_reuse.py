"""With top_k (and top_p) the student reuses torch.topk's ranking, whose values come back sorted, for the nucleus
instead of sorting the renormalised probabilities again; topk does not keep equal values in id order, so among kept
ids with equal probabilities the nucleus is not the smaller ids (20 equal best scores of 45, top_k=20, top_p=0.5
should keep ids 0 to 9).

question: sample_next_tests
replaces: sample_next
hunt: 2026-12-f
stated: "rank the row's ids by decreasing probability (...), the smaller id first among equal probabilities (at every row length: PyTorch's sort keeps equal values in id order only for short rows unless asked with stable=True)"
"""


def sample_next(scores, temperature=1.0, top_k=None, top_p=None, generator=None):
    if temperature == 0:
        return scores.argmax(dim=-1)
    scaled = scores / temperature
    if top_p is not None and not 0 < top_p <= 1:
        raise ValueError(f"top_p must be in (0, 1]; got {top_p}")
    nucleus = top_p is not None and top_p < 1
    if top_k is not None:
        best, order = scaled.topk(top_k, dim=-1)                            # the k best, best first
        keep_ranked = torch.ones_like(best, dtype=torch.bool)
        if nucleus:                                                         # already ranked: reuse topk's order
            reached = torch.softmax(best, dim=-1).cumsum(dim=-1) >= top_p
            keep_ranked = torch.cat([torch.ones_like(reached[:, :1]), ~reached[:, :-1]], dim=-1)
        keep = torch.zeros_like(scaled, dtype=torch.bool).scatter(-1, order, keep_ranked)
        scaled = scaled.masked_fill(~keep, float("-inf"))
    elif nucleus:
        ranked, order = torch.softmax(scaled, dim=-1).sort(dim=-1, descending=True, stable=True)
        reached = ranked.cumsum(dim=-1) >= top_p
        cut_ranked = torch.cat([torch.zeros_like(reached[:, :1]), reached[:, :-1]], dim=-1)
        cut = torch.zeros_like(cut_ranked).scatter(-1, order, cut_ranked)
        scaled = scaled.masked_fill(cut, float("-inf"))
    probabilities = torch.softmax(scaled, dim=-1)
    return torch.multinomial(probabilities, 1, generator=generator).squeeze(-1)
