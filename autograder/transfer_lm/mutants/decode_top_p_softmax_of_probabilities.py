"""Cuts the tail in the probabilities (setting the cut ones to -inf) and then takes a second softmax of the
kept probabilities instead of dividing them by their sum: the right ids, drawn in flattened proportions.

question: sample_next_tests
replaces: sample_next
contract: the kept ids are drawn in proportion to their probabilities (renormalised by their sum)
"""


def sample_next(scores, temperature=1.0, top_k=None, top_p=None, generator=None):
    if temperature == 0:
        return scores.argmax(dim=-1)
    scaled = scores / temperature
    if top_k is not None:
        kth_best = scaled.topk(top_k, dim=-1).values[:, -1:]
        scaled = scaled.masked_fill(scaled < kth_best, float("-inf"))
    probabilities = torch.softmax(scaled, dim=-1)
    if top_p is not None:
        if not 0 < top_p <= 1:
            raise ValueError(f"top_p must be in (0, 1]; got {top_p}")
        if top_p < 1:
            ranked, order = probabilities.sort(dim=-1, descending=True, stable=True)
            ahead = ranked.cumsum(dim=-1) - ranked
            cut_ranked = ahead >= top_p
            cut = torch.zeros_like(cut_ranked).scatter(-1, order, cut_ranked)
            probabilities = torch.softmax(probabilities.masked_fill(cut, float("-inf")), dim=-1)
    return torch.multinomial(probabilities, 1, generator=generator).squeeze(-1)
