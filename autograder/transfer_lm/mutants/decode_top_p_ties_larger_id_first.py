"""Follows the common library recipe: sorts each row's scores in increasing order and cuts the ids whose
running sum stays at or below 1 - p. Among equal probabilities that ranks the larger id first, against the
skeleton's rule, so a boundary that falls inside a tie keeps the wrong ids.

question: sample_next_tests
replaces: sample_next
contract: among equal probabilities the smaller id is ranked first
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
            ascending, order = scaled.sort(dim=-1, stable=True)
            cut_ranked = ascending.softmax(dim=-1).cumsum(dim=-1) <= 1 - top_p
            cut = cut_ranked.scatter(-1, order, cut_ranked)
            scaled = scaled.masked_fill(cut, float("-inf"))
    probabilities = torch.softmax(scaled, dim=-1)
    return torch.multinomial(probabilities, 1, generator=generator).squeeze(-1)
