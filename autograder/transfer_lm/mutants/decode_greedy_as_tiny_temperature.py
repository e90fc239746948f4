"""Avoids the division by zero by clamping the temperature to 1e-8 instead of branching on 0: greedy
decoding becomes sampling at a tiny temperature, so tied best scores are drawn at random instead of
the argmax's first id, the draw uses the generator (or the global one), and top_p is still checked.

question: sample_next_tests
replaces: sample_next
hunt: 2026-12-a
contract: temperature 0 returns torch.argmax of each row and does not look at top_k or top_p
"""


def sample_next(scores, temperature=1.0, top_k=None, top_p=None, generator=None):
    scaled = scores / max(temperature, 1e-8)  # temperature 0 -> (almost) greedy
    if top_k is not None:
        kth_best = scaled.topk(top_k, dim=-1).values[:, -1:]
        scaled = scaled.masked_fill(scaled < kth_best, float("-inf"))
    if top_p is not None:
        if not 0 < top_p <= 1:
            raise ValueError(f"top_p must be in (0, 1]; got {top_p}")
        if top_p < 1:
            ranked, order = torch.softmax(scaled, dim=-1).sort(dim=-1, descending=True, stable=True)
            ahead = ranked.cumsum(dim=-1) - ranked
            cut_ranked = ahead >= top_p
            cut = torch.zeros_like(cut_ranked).scatter(-1, order, cut_ranked)
            scaled = scaled.masked_fill(cut, float("-inf"))
    probabilities = torch.softmax(scaled, dim=-1)
    return torch.multinomial(probabilities, 1, generator=generator).squeeze(-1)
