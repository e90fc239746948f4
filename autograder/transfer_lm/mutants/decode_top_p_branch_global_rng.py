"""Gives the nucleus branch its own early return and forgets the generator in that multinomial call, so
top-p draws come from torch's global random generator: a seed no longer repeats them and the global
state moves.

question: sample_next_tests
replaces: sample_next
hunt: 2026-12-a
contract: draw only with the generator argument, never from torch's global random generator
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
            cut = torch.zeros_like(ahead, dtype=torch.bool).scatter(-1, order, ahead >= top_p)
            nucleus = torch.softmax(scaled.masked_fill(cut, float("-inf")), dim=-1)
            return torch.multinomial(nucleus, 1).squeeze(-1)
    probabilities = torch.softmax(scaled, dim=-1)
    return torch.multinomial(probabilities, 1, generator=generator).squeeze(-1)
