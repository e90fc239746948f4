"""Filters the scores first (top-k cuts the scores to the k best, which cannot change the argmax) and only
then picks greedily or samples. So top_k is looked at even when temperature is 0: a top_k larger than the
vocabulary (or 0) makes the greedy call fail instead of being ignored.

question: sample_next_tests
replaces: sample_next
hunt: 2026-12-b
contract: top_k is not looked at when temperature is 0, whatever its value (0 or above ntoken too)
"""


def sample_next(scores, temperature=1.0, top_k=None, top_p=None, generator=None):
    if top_k is not None:
        kth_best = scores.topk(top_k, dim=-1).values[:, -1:]
        scores = scores.masked_fill(scores < kth_best, float("-inf"))
    if temperature == 0:
        return scores.argmax(dim=-1)
    scaled = scores / temperature
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
