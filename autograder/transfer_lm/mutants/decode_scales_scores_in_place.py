"""Divides the caller's scores by the temperature in place (scores /= temperature), changing the tensor
it was given.

question: sample_next_tests
replaces: sample_next
contract: do not modify the scores
"""


def sample_next(scores, temperature=1.0, top_k=None, top_p=None, generator=None):
    if temperature == 0:
        return scores.argmax(dim=-1)
    scores /= temperature
    if top_k is not None:
        kth_best = scores.topk(top_k, dim=-1).values[:, -1:]
        scores.masked_fill_(scores < kth_best, float("-inf"))
    if top_p is not None:
        if not 0 < top_p <= 1:
            raise ValueError(f"top_p must be in (0, 1]; got {top_p}")
        if top_p < 1:
            ranked, order = torch.softmax(scores, dim=-1).sort(dim=-1, descending=True, stable=True)
            ahead = ranked.cumsum(dim=-1) - ranked
            cut_ranked = ahead >= top_p
            cut = torch.zeros_like(cut_ranked).scatter(-1, order, cut_ranked)
            scores.masked_fill_(cut, float("-inf"))
    probabilities = torch.softmax(scores, dim=-1)
    return torch.multinomial(probabilities, 1, generator=generator).squeeze(-1)
