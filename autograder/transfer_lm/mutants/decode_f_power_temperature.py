"""The student applies the temperature to the probabilities, softmax(scores) ** (1 / T) renormalised, which equals
softmax(scores / T) in exact arithmetic; but ids whose softmax(scores) underflows to 0 stay at 0, so a temperature
above 1 cannot revive them (scores [0, -200], T = 100: id 1 should have probability 0.12).

question: sample_next_tests
replaces: sample_next
hunt: 2026-12-f
stated: "A positive temperature (an int or a float) divides the scores before the softmax." / "let torch.softmax take the exponentials"
"""


def sample_next(scores, temperature=1.0, top_k=None, top_p=None, generator=None):
    if temperature == 0:
        return scores.argmax(dim=-1)
    probabilities = torch.softmax(scores, dim=-1)
    if temperature != 1:
        probabilities = probabilities ** (1.0 / temperature)
        probabilities = probabilities / probabilities.sum(dim=-1, keepdim=True)
    if top_k is not None:
        kth_best = probabilities.topk(top_k, dim=-1).values[:, -1:]
        probabilities = probabilities.masked_fill(probabilities < kth_best, 0.0)
        probabilities = probabilities / probabilities.sum(dim=-1, keepdim=True)
    if top_p is not None:
        if not 0 < top_p <= 1:
            raise ValueError(f"top_p must be in (0, 1]; got {top_p}")
        if top_p < 1:
            ranked, order = probabilities.sort(dim=-1, descending=True, stable=True)
            reached = ranked.cumsum(dim=-1) >= top_p
            cut_ranked = torch.cat([torch.zeros_like(reached[:, :1]), reached[:, :-1]], dim=-1)
            cut = torch.zeros_like(cut_ranked).scatter(-1, order, cut_ranked)
            probabilities = probabilities.masked_fill(cut, 0.0)
    return torch.multinomial(probabilities, 1, generator=generator).squeeze(-1)
