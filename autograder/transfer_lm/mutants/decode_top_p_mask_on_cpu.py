"""Builds the nucleus mask from `torch.zeros(scaled.shape, dtype=torch.bool)`, a tensor on the CPU,
before scattering the sorted cut back into id order; with scores on a GPU the scatter mixes devices
and top-p sampling fails.

question: sample_next_tests
replaces: sample_next
hunt: 2026-12-a
contract: every tensor it creates goes on scores.device
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
            ahead = ranked.cumsum(dim=-1) - ranked
            cut_ranked = ahead >= top_p
            cut = torch.zeros(scaled.shape, dtype=torch.bool).scatter(-1, order, cut_ranked)
            scaled = scaled.masked_fill(cut, float("-inf"))
    probabilities = torch.softmax(scaled, dim=-1)
    return torch.multinomial(probabilities, 1, generator=generator).squeeze(-1)
