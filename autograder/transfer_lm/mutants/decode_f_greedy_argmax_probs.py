"""The student computes the softmax first and, for temperature 0, returns the argmax of the probabilities; two
different scores whose probabilities round to the same value (e.g. float16 scores 0 and 2**-13 among 1,000 ids)
then give the smaller id instead of the id of the largest score.

question: sample_next_tests
replaces: sample_next
hunt: 2026-12-f
stated: "temperature: 0 (or 0.0) means greedy decoding: each row's id of its largest score, the smallest such id when several tie (torch.argmax over the vocabulary)"
"""


def sample_next(scores, temperature=1.0, top_k=None, top_p=None, generator=None):
    scaled = scores / temperature if temperature != 0 else scores
    probabilities = torch.softmax(scaled, dim=-1)
    if temperature == 0:
        return probabilities.argmax(dim=-1)
    if top_k is not None:
        kth_best = scaled.topk(top_k, dim=-1).values[:, -1:]
        scaled = scaled.masked_fill(scaled < kth_best, float("-inf"))
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
